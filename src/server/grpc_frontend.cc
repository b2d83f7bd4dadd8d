#include "grpc_frontend.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <system_error>
#include <thread>

#include "grpc_codec.h"
#include "grpc_service.grpc.pb.h"
#include "hipinfer/version.h"
#include "tensor_codec.h"

namespace hi::server {
namespace {

// protobuf cannot serialize a message of 2 GiB or more; the headroom is for names and shapes.
constexpr size_t kMaxResponseBytes = (size_t{1} << 31) - (size_t{1} << 20);

grpc::StatusCode grpc_code(ErrorCode code) {
  switch (code) {
    case ErrorCode::kOk: return grpc::StatusCode::OK;
    case ErrorCode::kInvalidArgument: return grpc::StatusCode::INVALID_ARGUMENT;
    case ErrorCode::kNotFound: return grpc::StatusCode::NOT_FOUND;
    case ErrorCode::kUnavailable: return grpc::StatusCode::UNAVAILABLE;
    case ErrorCode::kResourceExhausted:
    case ErrorCode::kTooLarge: return grpc::StatusCode::RESOURCE_EXHAUSTED;
    case ErrorCode::kDeadlineExceeded: return grpc::StatusCode::DEADLINE_EXCEEDED;
    case ErrorCode::kCancelled: return grpc::StatusCode::CANCELLED;
    case ErrorCode::kUnimplemented: return grpc::StatusCode::UNIMPLEMENTED;
    case ErrorCode::kInternal: return grpc::StatusCode::INTERNAL;
  }
  return grpc::StatusCode::INTERNAL;
}

grpc::Status to_grpc(const Error& e) { return e.ok() ? grpc::Status::OK : grpc::Status(grpc_code(e.code), e.message); }

// The library calls (metadata, config, statistics) report a missing model as kNotFound and a
// model that is not loaded now as some other code: that one is UNAVAILABLE.
grpc::Status to_grpc(const Status& s) {
  if (s.is_ok()) return grpc::Status::OK;
  if (s.code() == StatusCode::kNotFound) return {grpc::StatusCode::NOT_FOUND, s.message()};
  if (s.code() == StatusCode::kInvalidArgument) return {grpc::StatusCode::INVALID_ARGUMENT, s.message()};
  return {grpc::StatusCode::UNAVAILABLE, s.message()};
}

// Answers a call that needed no waiting.
grpc::ServerUnaryReactor* answer(grpc::CallbackServerContext* context, const grpc::Status& status) {
  auto* reactor = context->DefaultReactor();
  reactor->Finish(status);
  return reactor;
}

// ModelInfer's reactor. gRPC calls OnDone only after Finish, so the reactor, the request and the
// response stay valid while the model runs, even when the client has gone. A run cannot be
// stopped; its result still arrives once, and Finish then sends nothing.
class InferReactor final : public grpc::ServerUnaryReactor {
 public:
  void OnCancel() override { cancelled_ = true; }  // may run on another thread than the result
  void OnDone() override { delete this; }
  bool cancelled() const { return cancelled_; }

 private:
  std::atomic<bool> cancelled_{false};
};

// What answering a ModelInfer needs once the result arrives (perhaps on a runner's thread).
struct InferCall {
  InferReactor* reactor = nullptr;
  inference::ModelInferResponse* response = nullptr;
  std::string model, version, id;
  std::vector<std::string> order;
};

grpc::Status encode_result(const InferCall& call, const InferResult& result) {
  if (!result.error.ok()) return to_grpc(result.error);
  // No point encoding outputs nobody will read.
  if (call.reactor->cancelled()) return {grpc::StatusCode::CANCELLED, "the client cancelled the call"};
  size_t bytes = 0;
  for (const auto& [name, tensor] : result.outputs) bytes += raw_size(tensor);
  if (bytes > kMaxResponseBytes)
    return {grpc::StatusCode::RESOURCE_EXHAUSTED,
            str("model '", call.model, "': the outputs are ", bytes, " bytes, past gRPC's limit of ", kMaxResponseBytes,
                " bytes per message")};
  try {
    response_to_grpc(call.model, call.version, call.id, result.outputs, call.order, call.response);
  } catch (const std::exception& e) {  // std::bad_alloc on a runner's thread must not end the process
    return {grpc::StatusCode::INTERNAL, str("model '", call.model, "': encoding the response failed: ", e.what())};
  }
  return grpc::Status::OK;
}

void set_duration(inference::StatisticDuration* d, int64_t count, int64_t ns) {
  d->set_count(static_cast<uint64_t>(std::max<int64_t>(count, 0)));
  d->set_ns(static_cast<uint64_t>(std::max<int64_t>(ns, 0)));
}

void fill_statistics(const ModelStatisticsEntry& entry, inference::ModelStatistics* out) {
  const RunnerStats& s = entry.stats;
  out->set_name(entry.name);
  out->set_version(entry.version);
  if (s.last_inference != std::chrono::system_clock::time_point{})
    out->set_last_inference(static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::milliseconds>(s.last_inference.time_since_epoch()).count()));
  out->set_inference_count(static_cast<uint64_t>(s.inference_count));
  out->set_execution_count(static_cast<uint64_t>(s.execution_count));
  auto* infer = out->mutable_inference_stats();
  set_duration(infer->mutable_success(), s.success, s.success_ns);
  set_duration(infer->mutable_fail(), s.failure, s.failure_ns);
  // The runner adds queue and compute time per successful request, as Triton counts them. A
  // session run is one step, so its whole time is compute_infer; input and output have the same
  // counts with no time (perf_analyzer requires the three counts to agree).
  set_duration(infer->mutable_queue(), s.success, s.queue_ns);
  set_duration(infer->mutable_compute_input(), s.success, 0);
  set_duration(infer->mutable_compute_infer(), s.success, s.compute_ns);
  set_duration(infer->mutable_compute_output(), s.success, 0);
  for (const auto& [size, runs] : s.batches) {
    auto* batch = out->add_batch_stats();
    batch->set_batch_size(static_cast<uint64_t>(size));
    set_duration(batch->mutable_compute_input(), runs.first, 0);
    set_duration(batch->mutable_compute_infer(), runs.first, runs.second);
    set_duration(batch->mutable_compute_output(), runs.first, 0);
  }
}

void fill_tensor(const TensorMetadata& t, inference::ModelMetadataResponse::TensorMetadata* out) {
  out->set_name(t.name);
  out->set_datatype(t.datatype);
  for (int64_t d : t.shape) out->add_shape(d);
}

// Triton's load parameters ("config", "file:...") override what the repository holds; hipinfer
// loads the repository's files only. "unload_dependents" (sent by tritonclient on every unload)
// concerns ensembles, which hipinfer has none of, so it changes nothing.
template <typename Request>
grpc::Status check_no_repository_parameters(const Request& request) {
  for (const auto& [name, value] : request.parameters()) {
    if (name == "unload_dependents") continue;
    return {grpc::StatusCode::UNIMPLEMENTED,
            str("model '", request.model_name(), "': repository parameter '", name, "' is not supported")};
  }
  return grpc::Status::OK;
}

class Service final : public inference::GRPCInferenceService::CallbackService {
 public:
  explicit Service(InferenceServer& server) : server_(server) {}
  ~Service() override { wait_blocking(); }

  // Waits for the load and unload calls still running on threads of their own.
  void wait_blocking() {
    std::unique_lock lock(mutex_);
    idle_.wait(lock, [&] { return blocking_ == 0; });
  }

  grpc::ServerUnaryReactor* ServerLive(grpc::CallbackServerContext* context, const inference::ServerLiveRequest*,
                                       inference::ServerLiveResponse* response) override {
    response->set_live(server_.live());
    return answer(context, grpc::Status::OK);
  }

  grpc::ServerUnaryReactor* ServerReady(grpc::CallbackServerContext* context, const inference::ServerReadyRequest*,
                                        inference::ServerReadyResponse* response) override {
    response->set_ready(server_.ready());
    return answer(context, grpc::Status::OK);
  }

  grpc::ServerUnaryReactor* ModelReady(grpc::CallbackServerContext* context,
                                       const inference::ModelReadyRequest* request,
                                       inference::ModelReadyResponse* response) override {
    response->set_ready(server_.model_ready(request->name(), request->version()));
    return answer(context, grpc::Status::OK);
  }

  grpc::ServerUnaryReactor* ServerMetadata(grpc::CallbackServerContext* context,
                                           const inference::ServerMetadataRequest*,
                                           inference::ServerMetadataResponse* response) override {
    response->set_name("hipinfer");
    response->set_version(version_string());
    for (const char* e : {"binary_tensor_data", "model_configuration", "statistics", "model_repository"})
      response->add_extensions(e);
    return answer(context, grpc::Status::OK);
  }

  grpc::ServerUnaryReactor* ModelMetadata(grpc::CallbackServerContext* context,
                                          const inference::ModelMetadataRequest* request,
                                          inference::ModelMetadataResponse* response) override {
    auto meta = server_.metadata(request->name(), request->version());
    if (!meta.is_ok()) return answer(context, to_grpc(meta.status()));
    response->set_name(meta->name);
    for (const auto& v : meta->versions) response->add_versions(v);
    response->set_platform(meta->platform);
    for (const auto& t : meta->inputs) fill_tensor(t, response->add_inputs());
    for (const auto& t : meta->outputs) fill_tensor(t, response->add_outputs());
    return answer(context, grpc::Status::OK);
  }

  grpc::ServerUnaryReactor* ModelInfer(grpc::CallbackServerContext* context,
                                       const inference::ModelInferRequest* request,
                                       inference::ModelInferResponse* response) override {
    auto* reactor = new InferReactor();
    // The runner gives the config (better messages, the default output order) and the version to
    // report. An unknown model is left to server.infer, which answers it and counts it.
    Error not_found;
    std::shared_ptr<ModelRunner> runner = server_.find(request->model_name(), request->model_version(), &not_found);
    InferRequest infer;
    if (Error e = request_from_grpc(*request, runner ? &runner->config() : nullptr, &infer); !e.ok()) {
      server_.reject(request->model_name(), request->model_version(), request->id(), e, "grpc");
      reactor->Finish(to_grpc(e));
      return reactor;
    }
    InferCall call{reactor,
                   response,
                   request->model_name(),
                   runner ? std::to_string(runner->version()) : request->model_version(),
                   request->id(),
                   infer.outputs};
    if (call.order.empty() && runner)
      for (const auto& out : runner->config().output()) call.order.push_back(out.name());
    runner.reset();  // an unload during the run must not wait on this call's reference
    server_.infer(
        request->model_name(), request->model_version(), std::move(infer),
        [call = std::move(call)](InferResult&& result) { call.reactor->Finish(encode_result(call, result)); }, "grpc");
    return reactor;
  }

  grpc::ServerUnaryReactor* ModelConfig(grpc::CallbackServerContext* context,
                                        const inference::ModelConfigRequest* request,
                                        inference::ModelConfigResponse* response) override {
    auto config = server_.config(request->name(), request->version());
    if (!config.is_ok()) return answer(context, to_grpc(config.status()));
    *response->mutable_config() = std::move(config).value();
    return answer(context, grpc::Status::OK);
  }

  grpc::ServerUnaryReactor* ModelStatistics(grpc::CallbackServerContext* context,
                                            const inference::ModelStatisticsRequest* request,
                                            inference::ModelStatisticsResponse* response) override {
    auto entries = server_.statistics(request->name(), request->version());
    if (!entries.is_ok()) return answer(context, to_grpc(entries.status()));
    for (const auto& entry : entries.value()) fill_statistics(entry, response->add_model_stats());
    return answer(context, grpc::Status::OK);
  }

  grpc::ServerUnaryReactor* RepositoryIndex(grpc::CallbackServerContext* context,
                                            const inference::RepositoryIndexRequest* request,
                                            inference::RepositoryIndexResponse* response) override {
    for (const auto& entry : server_.index(request->ready())) {
      auto* model = response->add_models();
      model->set_name(entry.name);
      model->set_version(entry.version);
      model->set_state(entry.state);
      model->set_reason(entry.reason);
    }
    return answer(context, grpc::Status::OK);
  }

  grpc::ServerUnaryReactor* RepositoryModelLoad(grpc::CallbackServerContext* context,
                                                const inference::RepositoryModelLoadRequest* request,
                                                inference::RepositoryModelLoadResponse*) override {
    if (grpc::Status s = check_no_repository_parameters(*request); !s.ok()) return answer(context, s);
    return run_blocking(context, [this, model = request->model_name()] { return server_.load(model); });
  }

  grpc::ServerUnaryReactor* RepositoryModelUnload(grpc::CallbackServerContext* context,
                                                  const inference::RepositoryModelUnloadRequest* request,
                                                  inference::RepositoryModelUnloadResponse*) override {
    if (grpc::Status s = check_no_repository_parameters(*request); !s.ok()) return answer(context, s);
    return run_blocking(context, [this, model = request->model_name()] { return server_.unload(model); });
  }

 private:
  // Loading a model or draining its queue takes seconds, and gRPC's callback threads must not
  // block: such calls run on a thread of their own, which the destructor waits for.
  grpc::ServerUnaryReactor* run_blocking(grpc::CallbackServerContext* context, std::function<Error()> work) {
    auto* reactor = context->DefaultReactor();
    {
      std::lock_guard guard(mutex_);
      ++blocking_;
    }
    try {
      std::thread([this, reactor, work = std::move(work)] {
        reactor->Finish(to_grpc(work()));
        end_blocking();
      }).detach();
    } catch (const std::system_error& e) {
      end_blocking();
      reactor->Finish({grpc::StatusCode::UNAVAILABLE, str("cannot start a thread for the call: ", e.what())});
    }
    return reactor;
  }

  void end_blocking() {
    std::lock_guard guard(mutex_);
    if (--blocking_ == 0) idle_.notify_all();
  }

  InferenceServer& server_;
  std::mutex mutex_;
  std::condition_variable idle_;
  int blocking_ = 0;
};

// gRPC's address form: an IPv6 literal in brackets.
std::string listen_address(const std::string& host, int port) {
  const bool ipv6 = host.find(':') != std::string::npos && host.front() != '[';
  return ipv6 ? str("[", host, "]:", port) : str(host, ":", port);
}

// gRPC takes an int; 0 or less means no limit of ours.
int message_limit(int64_t bytes) { return bytes <= 0 ? -1 : static_cast<int>(std::min<int64_t>(bytes, INT_MAX)); }

}  // namespace

struct GrpcFrontend::Impl {
  explicit Impl(InferenceServer& server) : service(server) {}
  Service service;  // declared first: the server, destroyed first, refers to it
  std::unique_ptr<grpc::Server> server;
  int port = 0;
  std::once_flag stopped;
};

GrpcFrontend::GrpcFrontend(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

GrpcFrontend::~GrpcFrontend() { shutdown(); }

int GrpcFrontend::port() const { return impl_->port; }

Result<std::unique_ptr<GrpcFrontend>> GrpcFrontend::start(InferenceServer& server, const GrpcOptions& options) {
  auto impl = std::make_unique<Impl>(server);
  const std::string address = listen_address(options.host, options.port);
  grpc::ServerBuilder builder;
  builder.AddListeningPort(address, grpc::InsecureServerCredentials(), &impl->port);
  // gRPC sets SO_REUSEPORT by default: a port another server holds would be shared, not refused.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder.SetMaxReceiveMessageSize(message_limit(options.max_message_bytes));
  builder.SetMaxSendMessageSize(-1);  // responses are checked against protobuf's own limit instead
  builder.RegisterService(&impl->service);
  impl->server = builder.BuildAndStart();
  if (!impl->server || impl->port == 0)
    return error(StatusCode::kRuntimeError, "cannot listen on ", address,
                 " for gRPC (the port is in use, or the host is not an address of this machine)");
  return std::unique_ptr<GrpcFrontend>(new GrpcFrontend(std::move(impl)));
}

void GrpcFrontend::shutdown() {
  std::call_once(impl_->stopped, [&] {
    // Calls in flight get this long to be answered; gRPC cancels the rest, and Wait returns once
    // each of those has had its result (InferenceServer answers every request it took).
    impl_->server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(30));
    impl_->server->Wait();
    impl_->service.wait_blocking();
  });
}

}  // namespace hi::server
