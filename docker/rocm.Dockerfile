# syntax=docker/dockerfile:1
# hipinfer for AMD GPUs (ROCm). Two stages: a ROCm development image builds hipinfer for the GPU
# targets below; a slim Ubuntu image with only the ROCm runtime libraries runs it.
#
#   docker build -f docker/rocm.Dockerfile -t hipinfer:rocm .
#   docker run --rm --device=/dev/kfd --device=/dev/dri --group-add video \
#     --group-add "$(getent group render | cut -d: -f3)" hipinfer:rocm doctor
#
# docs/docker.md explains the flags; scripts/check-dockerfiles checks this file in CI.

ARG UBUNTU_VERSION=24.04
ARG ROCM_VERSION=6.4
# LLVM targets to compile kernels for (AMD's supported list for ROCm 6.4; add yours if missing).
ARG GPU_TARGETS="gfx908;gfx90a;gfx942;gfx1030;gfx1100;gfx1101;gfx1200;gfx1201"

# ---- build: the full ROCm development image ----
FROM rocm/dev-ubuntu-${UBUNTU_VERSION}:${ROCM_VERSION}-complete AS build
ARG GPU_TARGETS
RUN apt-get update \
 && apt-get install -y --no-install-recommends cmake ninja-build g++ libprotobuf-dev protobuf-compiler libonnx-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN cmake -S . -B /build -G Ninja -DCMAKE_BUILD_TYPE=Release -DHI_CUDA=OFF -DHI_HIP=ON -DHI_TESTS=OFF \
      -DHI_HIP_ARCHITECTURES="${GPU_TARGETS}" \
 && cmake --build /build \
 && cmake --install /build --prefix /out \
 && /out/bin/hipinfer --version
# Non-ROCm shared libraries the binary needs (protobuf, onnx), copied so the runtime stage need
# not know their Ubuntu package names. ROCm's own come from AMD's packages below.
RUN mkdir -p /out/lib/hipinfer \
 && ldd /out/bin/hipinfer | awk '/=> \// {print $3}' \
    | grep -Ev '/opt/rocm|/(libc|libm|libdl|librt|libpthread|libgcc_s|libstdc\+\+|ld-linux[^/]*)\.so' \
    | xargs -r -I{} cp -L {} /out/lib/hipinfer/

# ---- runtime: Ubuntu plus the ROCm runtime libraries from AMD's apt repository ----
FROM ubuntu:${UBUNTU_VERSION} AS runtime
ARG ROCM_VERSION
ARG UBUNTU_VERSION
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates curl gnupg \
 && mkdir -p /etc/apt/keyrings \
 && curl -fsSL https://repo.radeon.com/rocm/rocm.gpg.key | gpg --dearmor -o /etc/apt/keyrings/rocm.gpg \
 && . /etc/os-release \
 && echo "deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] https://repo.radeon.com/rocm/apt/${ROCM_VERSION} ${VERSION_CODENAME} main" \
    > /etc/apt/sources.list.d/rocm.list \
 && apt-get update \
 && apt-get install -y --no-install-recommends hip-runtime-amd rocblas hipblaslt miopen-hip \
 && apt-get purge -y curl gnupg \
 && apt-get autoremove -y \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/bin/hipinfer /usr/local/bin/hipinfer
COPY --from=build /out/lib/hipinfer/ /usr/local/lib/hipinfer/
# The loader finds ROCm's and the copied libraries through ld.so.conf, as on a host install.
# The device files' groups come from the host through --group-add; the user needs no other rights
# (uid 1001: Ubuntu's images already have uid 1000).
RUN printf '%s\n' /opt/rocm/lib /usr/local/lib/hipinfer > /etc/ld.so.conf.d/hipinfer.conf \
 && ldconfig \
 && useradd --create-home --uid 1001 hipinfer
USER hipinfer
WORKDIR /home/hipinfer
# A command-line tool, not a service: there is nothing to probe between runs.
HEALTHCHECK NONE
ENTRYPOINT ["hipinfer"]
CMD ["doctor"]
