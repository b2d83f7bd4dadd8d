# syntax=docker/dockerfile:1
# hipinfer for NVIDIA GPUs (CUDA). Two stages: the CUDA development image with cuDNN's headers
# builds hipinfer (cuDNN itself is loaded at run time); the CUDA runtime image with cuDNN runs it.
#
#   docker build -f docker/cuda.Dockerfile -t hipinfer:cuda .
#   docker run --rm --gpus all hipinfer:cuda doctor
#
# The default CUDA 13.0 needs NVIDIA driver 580 or newer on the host; for an older driver build
# with --build-arg CUDA_VERSION=12.8.1 (driver 525 or newer). docs/docker.md has the details.

ARG UBUNTU_VERSION=24.04
ARG CUDA_VERSION=13.0.0
# Compute capabilities to compile for (CUDA 13 builds sm_75 and newer).
ARG CUDA_ARCHITECTURES="75;80;86;89;90;100;120"

# ---- build: the CUDA development image with cuDNN (the plain devel image has no cudnn.h) ----
FROM nvidia/cuda:${CUDA_VERSION}-cudnn-devel-ubuntu${UBUNTU_VERSION} AS build
ARG CUDA_ARCHITECTURES
RUN apt-get update \
 && apt-get install -y --no-install-recommends cmake ninja-build g++ libprotobuf-dev protobuf-compiler libonnx-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN cmake -S . -B /build -G Ninja -DCMAKE_BUILD_TYPE=Release -DHI_CUDA=ON -DHI_TESTS=OFF \
      -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHITECTURES}" \
 && cmake --build /build \
 && cmake --install /build --prefix /out \
 && /out/bin/hipinfer --version
# Non-CUDA shared libraries the binary needs (protobuf, onnx), copied for the runtime stage.
RUN mkdir -p /out/lib/hipinfer \
 && ldd /out/bin/hipinfer | awk '/=> \// {print $3}' \
    | grep -Ev '/usr/local/cuda|/(libc|libm|libdl|librt|libpthread|libgcc_s|libstdc\+\+|ld-linux[^/]*)\.so' \
    | xargs -r -I{} cp -L {} /out/lib/hipinfer/

# ---- runtime: CUDA runtime libraries with cuDNN, nothing to build with ----
FROM nvidia/cuda:${CUDA_VERSION}-cudnn-runtime-ubuntu${UBUNTU_VERSION} AS runtime
COPY --from=build /out/bin/hipinfer /usr/local/bin/hipinfer
COPY --from=build /out/lib/hipinfer/ /usr/local/lib/hipinfer/
# The loader finds the copied libraries through ld.so.conf; LD_LIBRARY_PATH stays the base image's.
# (uid 1001: Ubuntu's images already have uid 1000.)
RUN echo /usr/local/lib/hipinfer > /etc/ld.so.conf.d/hipinfer.conf \
 && ldconfig \
 && useradd --create-home --uid 1001 hipinfer
USER hipinfer
WORKDIR /home/hipinfer
# A command-line tool, not a service: there is nothing to probe between runs.
HEALTHCHECK NONE
ENTRYPOINT ["hipinfer"]
CMD ["doctor"]
