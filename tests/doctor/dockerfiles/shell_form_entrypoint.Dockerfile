# expect: exec-form
ARG BASE_VERSION=24.04
FROM ubuntu:${BASE_VERSION} AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends g++ \
 && rm -rf /var/lib/apt/lists/*
COPY . /src
RUN g++ -O2 -o /out/tool /src/tool.cc

FROM ubuntu:${BASE_VERSION} AS runtime
COPY --from=build /out/tool /usr/local/bin/tool
RUN useradd --create-home --uid 1001 tool
USER tool
HEALTHCHECK NONE
ENTRYPOINT tool
