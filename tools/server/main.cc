// hipinfer-server (also `hipinfer serve`): loads the models, starts the HTTP, gRPC and metrics
// endpoints, and on SIGTERM or SIGINT stops taking requests, answers those accepted and exits 0.
#include <signal.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "cli.h"
#include "grpc_frontend.h"
#include "hipinfer/version.h"
#include "http_frontend.h"
#include "inference_server.h"
#include "serve_spec.h"

namespace {

using namespace hi;
using namespace hi::cli;
using namespace hi::server;

// "--http-port 8000" -> 8000; "off" -> -1; errors name the option and the value.
Result<int> port_option(const Args& args, const std::string& name, int default_port) {
  const std::string value = args.get(name, std::to_string(default_port));
  if (value == "off") return -1;
  char* end = nullptr;
  const long port = std::strtol(value.c_str(), &end, 10);
  HI_RETURN_IF(value.empty() || *end != '\0' || port < 0 || port > 65535, kInvalidArgument, name, " is '", value,
               "', expected a port number 0-65535 or off");
  return static_cast<int>(port);
}

Result<ServerOptions> server_options(const Args& args) {
  ServerOptions options;
  options.model_repository = args.get("--model-repository");
  for (const auto& m : args.get_all("--model")) {
    const size_t eq = m.find('=');
    HI_RETURN_IF(eq == std::string::npos, kInvalidArgument, "--model '", m, "': expected NAME=PATH");
    options.models.emplace_back(m.substr(0, eq), m.substr(eq + 1));
  }
  if (args.has("--device")) options.runner.devices = split_commas(args.get("--device"));
  options.runner.precision = args.get("--precision", "fp32");
  HI_ASSIGN_OR_RETURN(int64_t threads, args.get_int("--threads", 0));
  HI_ASSIGN_OR_RETURN(int64_t queue, args.get_int("--max-queue-size", 256));
  HI_ASSIGN_OR_RETURN(double timeout, args.get_double("--request-timeout-ms", 0));
  HI_RETURN_IF(threads < 0 || queue < 1 || timeout < 0, kInvalidArgument,
               "--threads must be 0 or more, --max-queue-size 1 or more, --request-timeout-ms 0 or more");
  options.runner.threads = static_cast<int>(threads);
  options.runner.max_queue = static_cast<size_t>(queue);
  options.runner.default_timeout_ms = timeout;
  const std::string level = args.get("--log-level", "warning");
  const auto parsed = log_level_from_name(level);
  HI_RETURN_IF(!parsed, kInvalidArgument, "--log-level is '", level, "', expected error, warning, info or verbose");
  options.log_level = *parsed;
  return options;
}

struct Endpoints {
  std::unique_ptr<HttpFrontend> http, metrics;
  std::unique_ptr<GrpcFrontend> grpc;
};

Result<Endpoints> start_endpoints(const Args& args, InferenceServer& server) {
  Endpoints e;
  HttpOptions http;
  http.host = args.get("--host", "127.0.0.1");
  HI_ASSIGN_OR_RETURN(int64_t http_threads, args.get_int("--http-threads", 64));
  HI_ASSIGN_OR_RETURN(int64_t max_bytes, args.get_bytes("--max-request-size", int64_t{64} << 20));
  HI_RETURN_IF(http_threads < 1 || http_threads > 4096, kInvalidArgument, "--http-threads is ", http_threads,
               ", expected 1 to 4096");
  http.threads = static_cast<int>(http_threads);
  http.max_body_bytes = max_bytes;
  HI_ASSIGN_OR_RETURN(int http_port, port_option(args, "--http-port", 8000));
  HI_ASSIGN_OR_RETURN(int grpc_port, port_option(args, "--grpc-port", 8001));
  HI_ASSIGN_OR_RETURN(int metrics_port, port_option(args, "--metrics-port", 8002));
  std::string listening;
  if (http_port >= 0) {
    http.port = http_port;
    HI_ASSIGN_OR_RETURN(e.http, HttpFrontend::start(server, http));
    listening += str(" http ", http.host, ":", e.http->port());
  }
  if (grpc_port >= 0) {
    GrpcOptions grpc{http.host, grpc_port, max_bytes};
    HI_ASSIGN_OR_RETURN(e.grpc, GrpcFrontend::start(server, grpc));
    listening += str(" grpc ", http.host, ":", e.grpc->port());
  }
  if (metrics_port >= 0) {
    HttpOptions metrics = http;
    metrics.port = metrics_port;
    metrics.threads = 4;
    HI_ASSIGN_OR_RETURN(e.metrics, HttpFrontend::start(server, metrics, /*metrics_only=*/true));
    listening += str(" metrics ", http.host, ":", e.metrics->port());
  }
  // Printed whatever the log level: scripts and tests that ask for port 0 read the ports here.
  std::fprintf(stderr, "hipinfer serve: listening:%s\n", listening.c_str());
  return e;
}

int serve(const Args& args) {
  // The signals are taken by sigwait below; blocked before any thread starts so none gets them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  signal(SIGPIPE, SIG_IGN);  // a client gone mid-answer is a failed write, not the end of the server

  auto options = server_options(args);
  if (!options.is_ok()) return report_error(options.status());
  auto server = InferenceServer::create(options.value());
  if (!server.is_ok()) return report_error(server.status());
  auto endpoints = start_endpoints(args, *server.value());
  if (!endpoints.is_ok()) return report_error(endpoints.status());

  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  server.value()->log().event(LogLevel::kWarning, str("received ", strsignal(signal_number),
                                                      ": answering the accepted requests, then exiting"));
  server.value()->begin_shutdown();
  if (endpoints->http) endpoints->http->shutdown();
  if (endpoints->grpc) endpoints->grpc->shutdown();
  server.value()->drain();
  if (endpoints->metrics) endpoints->metrics->shutdown();
  server.value()->log().event(LogLevel::kWarning, "stopped");
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  const CommandSpec& spec = *serve_command_spec();
  // Called as `hipinfer-server ARGS` or, from the CLI, with the same ARGS.
  auto args = Args::parse(spec, argc - 1, argv + 1);
  if (!args.is_ok()) {
    std::fprintf(stderr, "hipinfer serve: %s\n", args.status().message().c_str());
    return kExitUsage;
  }
  if (args->help_requested()) {
    std::printf("%s", format_help(spec).c_str());
    return kExitOk;
  }
  try {
    return serve(args.value());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hipinfer serve: internal error: %s (please run 'hipinfer report')\n", e.what());
    return kExitInternal;
  }
}
