# syntax=docker/dockerfile:1
# hipinfer for NVIDIA GPUs (CUDA). Two stages: the CUDA development image with cuDNN's headers
# builds hipinfer (cuDNN itself is loaded at run time); the CUDA runtime image with cuDNN runs it.
#
#   docker build -f docker/cuda.Dockerfile -t hipinfer:cuda .
#   docker run --rm --gpus all hipinfer:cuda doctor
#   docker run --rm --gpus all -p 8000:8000 -p 8001:8001 -p 8002:8002 -v "$PWD/models:/models:ro" \
#     hipinfer:cuda serve --model-repository /models --host 0.0.0.0
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
# pkgconf and the next four are for `hipinfer serve` (the hipinfer-server binary): CMake finds
# gRPC and cpp-httplib through pkg-config.
RUN apt-get update \
 && apt-get install -y --no-install-recommends cmake ninja-build g++ libprotobuf-dev protobuf-compiler libonnx-dev \
      pkgconf libgrpc++-dev protobuf-compiler-grpc libcpp-httplib-dev nlohmann-json3-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
# hipinfer-server links libhipinfer.so, which the install puts in /out/lib without an rpath.
RUN cmake -S . -B /build -G Ninja -DCMAKE_BUILD_TYPE=Release -DHI_CUDA=ON -DHI_SERVER=ON -DHI_TESTS=OFF \
      -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHITECTURES}" -DCMAKE_INSTALL_LIBDIR=lib \
 && cmake --build /build \
 && cmake --install /build --prefix /out \
 && /out/bin/hipinfer --version \
 && LD_LIBRARY_PATH=/out/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} /out/bin/hipinfer-server --help >/dev/null
# Non-CUDA shared libraries that hipinfer, hipinfer-server and libhipinfer.so need (protobuf, onnx,
# gRPC, abseil, cpp-httplib, ...), copied for the runtime stage, and libhipinfer.so itself beside
# them (cp -P: its SONAME link stays a link, so the library is in the image once).
RUN mkdir -p /out/lib/hipinfer \
 && for f in /out/bin/hipinfer /out/bin/hipinfer-server /out/lib/libhipinfer.so.*; do \
      LD_LIBRARY_PATH=/out/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} ldd "$f"; done \
    | awk '/=> \// {print $3}' | sort -u \
    | grep -Ev '^/out/|/usr/local/cuda|/(libc|libm|libdl|librt|libpthread|libgcc_s|libstdc\+\+|ld-linux[^/]*)\.so' \
    | xargs -r -I{} cp -L {} /out/lib/hipinfer/ \
 && cp -P /out/lib/libhipinfer.so.* /out/lib/hipinfer/

# ---- runtime: CUDA runtime libraries with cuDNN, nothing to build with ----
FROM nvidia/cuda:${CUDA_VERSION}-cudnn-runtime-ubuntu${UBUNTU_VERSION} AS runtime
# `hipinfer serve` runs hipinfer-server from the folder hipinfer is in.
COPY --from=build /out/bin/hipinfer /out/bin/hipinfer-server /usr/local/bin/
COPY --from=build /out/lib/hipinfer/ /usr/local/lib/hipinfer/
# The loader finds libhipinfer.so and the copied libraries through ld.so.conf; LD_LIBRARY_PATH stays
# the base image's. `hipinfer-server --help` fails here if one is missing.
# (uid 1001: Ubuntu's images already have uid 1000.)
RUN echo /usr/local/lib/hipinfer > /etc/ld.so.conf.d/hipinfer.conf \
 && ldconfig \
 && hipinfer-server --help >/dev/null \
 && useradd --create-home --uid 1001 hipinfer
USER hipinfer
WORKDIR /home/hipinfer
# `hipinfer serve`'s HTTP, gRPC and Prometheus metrics ports (its defaults). It listens on 127.0.0.1
# unless given --host 0.0.0.0, which a published port needs.
EXPOSE 8000 8001 8002
# The default command is a command-line tool with nothing to probe between runs. A server started
# with `serve` is probed by whoever runs it (GET /v2/health/ready; Kubernetes' readinessProbe):
# the image has no HTTP client for a HEALTHCHECK, and the port is the command line's choice.
HEALTHCHECK NONE
ENTRYPOINT ["hipinfer"]
CMD ["doctor"]
