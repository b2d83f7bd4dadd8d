// The gRPC endpoint: inference.GRPCInferenceService (proto/grpc_service.proto) over the
// InferenceServer, on gRPC C++'s callback API so a waiting inference holds no thread.
#pragma once

#include <memory>
#include <string>

#include "inference_server.h"

namespace hi::server {

struct GrpcOptions {
  std::string host = "127.0.0.1";
  int port = 8001;                       // 0: any free port (port() tells which)
  int64_t max_message_bytes = 64 << 20;  // larger requests fail with RESOURCE_EXHAUSTED
};

class GrpcFrontend {
 public:
  // Binds and starts serving; an error names the address when it cannot be bound.
  static Result<std::unique_ptr<GrpcFrontend>> start(InferenceServer& server, const GrpcOptions& options);
  ~GrpcFrontend();
  int port() const;
  // Stops accepting calls and waits for the ones in flight to be answered.
  void shutdown();

  struct Impl;

 private:
  explicit GrpcFrontend(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace hi::server
