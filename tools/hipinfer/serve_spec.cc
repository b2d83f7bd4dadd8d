#include "serve_spec.h"

namespace hi::cli {

const CommandSpec* serve_command_spec() {
  static const CommandSpec spec{
      "serve",
      "--model-repository DIR | --model NAME=PATH ... [options]",
      "serve models over the Open Inference Protocol (HTTP and gRPC), for KServe, Triton's clients and Ray",
      "Serves ONNX models over the Open Inference Protocol (KServe v2, Triton's HTTP/REST and gRPC\n"
      "protocol), with Triton's binary data, model configuration, statistics and repository\n"
      "extensions, and Prometheus metrics. A model repository has Triton's layout:\n"
      "DIR/<model>/<version>/model.onnx with an optional DIR/<model>/config.pbtxt (max_batch_size,\n"
      "input, output, instance_group, dynamic_batching, version_policy). SIGTERM or SIGINT stops\n"
      "taking requests, answers the ones accepted, and exits 0. See docs/serving.md.",
      {
          {"--model-repository", "", "DIR", "serve every model in DIR (Triton's layout)"},
          {"--model", "", "NAME=PATH", "serve one .onnx file as model NAME, version 1 (repeatable)", true},
          {"--host", "", "ADDR", "address to listen on (default 127.0.0.1; 0.0.0.0 for every interface)"},
          {"--http-port", "", "PORT", "HTTP/REST port (default 8000; 0: any free port; off: no HTTP)"},
          {"--grpc-port", "", "PORT", "gRPC port (default 8001; 0: any free port; off: no gRPC)"},
          {"--metrics-port", "", "PORT", "Prometheus /metrics port (default 8002; 0: any free port; off: none)"},
          {"--device", "", "LIST",
           "devices in order of preference for KIND_AUTO instances: gpu,cpu (default), cpu, cuda, hip"},
          {"--precision", "", "P", "fp32 (default) or bf16 on the CPU"},
          {"--threads", "", "N", "intra-op threads per instance (default: the cores shared among a model's instances)"},
          {"--http-threads", "", "N", "HTTP connections served at once (default 64)"},
          {"--max-queue-size", "", "N", "requests waiting per model before 503 / UNAVAILABLE (default 256)"},
          {"--request-timeout-ms", "", "MS", "default time limit of a request from arrival to answer (default: none)"},
          {"--max-request-size", "", "SIZE", "largest request body / gRPC message (default 64M)"},
          {"--log-level", "", "LEVEL", "error, warning (default), info (one line per request) or verbose"},
      },
      0,
      0,
  };
  return &spec;
}

}  // namespace hi::cli
