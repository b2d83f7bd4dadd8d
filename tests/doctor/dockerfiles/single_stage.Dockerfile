# expect: stages
FROM ubuntu:24.04 AS only
RUN useradd tool
USER tool
HEALTHCHECK NONE
ENTRYPOINT ["tool"]
