# syntax=docker/dockerfile:1
# hipinfer for AMD GPUs (ROCm). Two stages: a ROCm development image builds hipinfer for the GPU
# targets below; a slim Ubuntu image with only the ROCm runtime libraries runs it.
#
#   docker build -f docker/rocm.Dockerfile -t hipinfer:rocm .
#   docker run --rm --device=/dev/kfd --device=/dev/dri --group-add video \
#     --group-add "$(getent group render | cut -d: -f3)" hipinfer:rocm doctor
#   docker run --rm --device=/dev/kfd --device=/dev/dri --group-add video \
#     --group-add "$(getent group render | cut -d: -f3)" \
#     -p 8000:8000 -p 8001:8001 -p 8002:8002 -v "$PWD/models:/models:ro" \
#     hipinfer:rocm serve --model-repository /models --host 0.0.0.0
#
# docs/docker.md explains the flags; scripts/check-dockerfiles checks this file in CI.

ARG UBUNTU_VERSION=24.04
ARG ROCM_VERSION=6.4
# LLVM targets to compile kernels for (AMD's supported list for ROCm 6.4; add yours if missing).
ARG GPU_TARGETS="gfx908;gfx90a;gfx942;gfx1030;gfx1100;gfx1101;gfx1200;gfx1201"

# ---- build: the full ROCm development image ----
FROM rocm/dev-ubuntu-${UBUNTU_VERSION}:${ROCM_VERSION}-complete AS build
ARG GPU_TARGETS
# pkgconf and the next four are for `hipinfer serve` (the hipinfer-server binary): CMake finds
# gRPC and cpp-httplib through pkg-config.
RUN apt-get update \
 && apt-get install -y --no-install-recommends cmake ninja-build g++ libprotobuf-dev protobuf-compiler libonnx-dev \
      pkgconf libgrpc++-dev protobuf-compiler-grpc libcpp-httplib-dev nlohmann-json3-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
# hipinfer-server links libhipinfer.so, which the install puts in /out/lib without an rpath.
RUN cmake -S . -B /build -G Ninja -DCMAKE_BUILD_TYPE=Release -DHI_CUDA=OFF -DHI_HIP=ON -DHI_SERVER=ON -DHI_TESTS=OFF \
      -DHI_HIP_ARCHITECTURES="${GPU_TARGETS}" -DCMAKE_INSTALL_LIBDIR=lib \
 && cmake --build /build \
 && cmake --install /build --prefix /out \
 && /out/bin/hipinfer --version \
 && LD_LIBRARY_PATH=/out/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} /out/bin/hipinfer-server --help >/dev/null
# Non-ROCm shared libraries that hipinfer, hipinfer-server and libhipinfer.so need (protobuf, onnx,
# gRPC, abseil, cpp-httplib, ...), copied so the runtime stage need not know their Ubuntu package
# names, and libhipinfer.so itself beside them (cp -P: its SONAME link stays a link, so the library
# is in the image once). ROCm's own come from AMD's packages below.
RUN mkdir -p /out/lib/hipinfer \
 && for f in /out/bin/hipinfer /out/bin/hipinfer-server /out/lib/libhipinfer.so.*; do \
      LD_LIBRARY_PATH=/out/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} ldd "$f"; done \
    | awk '/=> \// {print $3}' | sort -u \
    | grep -Ev '^/out/|/opt/rocm|/(libc|libm|libdl|librt|libpthread|libgcc_s|libstdc\+\+|ld-linux[^/]*)\.so' \
    | xargs -r -I{} cp -L {} /out/lib/hipinfer/ \
 && cp -P /out/lib/libhipinfer.so.* /out/lib/hipinfer/

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
# `hipinfer serve` runs hipinfer-server from the folder hipinfer is in.
COPY --from=build /out/bin/hipinfer /out/bin/hipinfer-server /usr/local/bin/
COPY --from=build /out/lib/hipinfer/ /usr/local/lib/hipinfer/
# The loader finds ROCm's, libhipinfer.so and the copied libraries through ld.so.conf, as on a host
# install; `hipinfer-server --help` fails here if one is missing. The device files' groups come
# from the host through --group-add; the user needs no other rights (uid 1001: Ubuntu's images
# already have uid 1000).
RUN printf '%s\n' /opt/rocm/lib /usr/local/lib/hipinfer > /etc/ld.so.conf.d/hipinfer.conf \
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
