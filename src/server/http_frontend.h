// The HTTP/REST endpoint (KServe v2 with Triton's binary data, model configuration, statistics
// and repository extensions) and the Prometheus /metrics endpoint, on cpp-httplib: a fixed pool of
// threads, each serving one connection at a time, with read/write timeouts and a body size limit.
#pragma once

#include <memory>
#include <string>
#include <thread>

#include "inference_server.h"

namespace httplib {
class Server;
}

namespace hi::server {

struct HttpOptions {
  std::string host = "127.0.0.1";
  int port = 8000;                    // 0: any free port (port() tells which)
  int threads = 64;                   // connections served at once; more wait for a free thread
  int64_t max_body_bytes = 64 << 20;  // larger bodies are answered 413
  int read_timeout_s = 10;            // a client that sends nothing for this long is disconnected
};

class HttpFrontend {
 public:
  // Binds and starts serving on a thread of its own; an error names the address when it cannot be bound.
  // `metrics_only` serves GET /metrics and nothing else (the --metrics-port endpoint).
  static Result<std::unique_ptr<HttpFrontend>> start(InferenceServer& server, const HttpOptions& options,
                                                     bool metrics_only = false);
  ~HttpFrontend();
  int port() const { return port_; }
  // Stops accepting connections and waits for the requests in flight to be answered.
  void shutdown();

 private:
  HttpFrontend() = default;
  std::unique_ptr<httplib::Server> http_;
  std::thread thread_;
  int port_ = 0;
};

}  // namespace hi::server
