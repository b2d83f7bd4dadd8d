#include "inference_server.h"

#include <algorithm>

#include "datatype.h"

namespace hi::server {
namespace {

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

TensorMetadata tensor_metadata(const std::string& name, inference::DataType type,
                               const google::protobuf::RepeatedField<int64_t>& dims, bool batching) {
  TensorMetadata m;
  m.name = name;
  const auto dtype = dtype_from_config(type);
  m.datatype = dtype ? std::string(wire_name(*dtype)) : "";
  if (batching) m.shape.push_back(-1);
  m.shape.insert(m.shape.end(), dims.begin(), dims.end());
  return m;
}

}  // namespace

Result<std::unique_ptr<InferenceServer>> InferenceServer::create(const ServerOptions& options) {
  std::unique_ptr<InferenceServer> server(new InferenceServer());
  server->options_ = options;
  server->log_.set_level(options.log_level);
  HI_RETURN_IF(options.model_repository.empty() && options.models.empty(), kInvalidArgument,
               "no models to serve: give --model-repository DIR or --model NAME=PATH");
  std::vector<ModelSource> sources;
  if (!options.model_repository.empty()) {
    HI_ASSIGN_OR_RETURN(auto names, list_repository(options.model_repository));
    for (const auto& name : names) {
      HI_ASSIGN_OR_RETURN(auto source, read_model_source(options.model_repository, name));
      sources.push_back(std::move(source));
    }
  }
  for (const auto& [name, path] : options.models) {
    HI_ASSIGN_OR_RETURN(auto source, single_file_source(name, path));
    for (const auto& s : sources) HI_RETURN_IF(s.name == name, kInvalidArgument, "two models are named '", name, "'");
    sources.push_back(std::move(source));
  }
  for (const auto& source : sources) {
    if (Error e = server->load_source(source); !e.ok()) return error(StatusCode::kInvalidModel, e.message);
    if (!options.models.empty())
      for (const auto& [name, path] : options.models)
        if (name == source.name) server->models_[name].single_file = path;
  }
  return server;
}

InferenceServer::~InferenceServer() { drain(); }

Error InferenceServer::load_source(const ModelSource& source) {
  for (const auto& w : source.warnings) log_.event(LogLevel::kWarning, w);
  std::vector<std::shared_ptr<ModelRunner>> runners;
  for (const auto& file : source.versions) {
    auto runner = ModelRunner::create(source.name, file.version, file.path, source.config, options_.runner);
    if (!runner.is_ok()) {
      std::lock_guard guard(mutex_);
      auto& model = models_[source.name];
      model.state = "UNAVAILABLE";
      model.reason = runner.status().message();
      return make_error(ErrorCode::kInvalidArgument, runner.status().message());
    }
    for (const auto& w : runner.value()->warnings())
      log_.event(LogLevel::kWarning, str("model '", source.name, "' version ", file.version, ": ", w));
    runners.push_back(std::move(runner).value());
  }
  std::vector<std::shared_ptr<ModelRunner>> old;
  {
    std::lock_guard guard(mutex_);
    auto& model = models_[source.name];
    old = std::move(model.versions);
    model.versions = std::move(runners);
    model.state = "READY";
    model.reason.clear();
  }
  for (auto& r : old) r->drain();  // a reload: the old versions answer what they queued
  std::string versions;
  for (const auto& file : source.versions) versions += (versions.empty() ? "" : ", ") + std::to_string(file.version);
  log_.event(LogLevel::kInfo, str("model '", source.name, "' loaded: version ", versions));
  return {};
}

std::shared_ptr<ModelRunner> InferenceServer::find(const std::string& model, const std::string& version,
                                                   Error* error) const {
  std::lock_guard guard(mutex_);
  auto it = models_.find(model);
  if (it == models_.end()) {
    std::string names;
    for (const auto& [name, m] : models_) names += (names.empty() ? "" : ", ") + name;
    *error = make_error(ErrorCode::kNotFound, str("unknown model '", model, "' (models: ", names, ")"));
    return nullptr;
  }
  const LoadedModel& m = it->second;
  if (m.versions.empty()) {
    *error = make_error(ErrorCode::kUnavailable,
                        str("model '", model, "' is not loaded", m.reason.empty() ? "" : ": " + m.reason));
    return nullptr;
  }
  if (version.empty()) return m.versions.front();
  for (const auto& r : m.versions)
    if (std::to_string(r->version()) == version) return r;
  std::string have;
  for (const auto& r : m.versions) have += (have.empty() ? "" : ", ") + std::to_string(r->version());
  *error =
      make_error(ErrorCode::kNotFound, str("model '", model, "' has no version '", version, "' (loaded: ", have, ")"));
  return nullptr;
}

bool InferenceServer::model_ready(const std::string& model, const std::string& version) const {
  Error e;
  return ready() && find(model, version, &e) != nullptr;
}

Result<ModelMetadata> InferenceServer::metadata(const std::string& model, const std::string& version) const {
  Error e;
  auto runner = find(model, version, &e);
  if (!runner)
    return Status(e.code == ErrorCode::kNotFound ? StatusCode::kNotFound : StatusCode::kRuntimeError, e.message);
  ModelMetadata meta;
  meta.name = model;
  {
    std::lock_guard guard(mutex_);
    for (const auto& r : models_.at(model).versions) meta.versions.push_back(std::to_string(r->version()));
  }
  const auto& config = runner->config();
  meta.platform = config.platform().empty() ? config.backend() : config.platform();
  const bool batching = config.max_batch_size() > 0;
  for (const auto& in : config.input())
    meta.inputs.push_back(tensor_metadata(in.name(), in.data_type(), in.dims(), batching));
  for (const auto& out : config.output())
    meta.outputs.push_back(tensor_metadata(out.name(), out.data_type(), out.dims(), batching));
  return meta;
}

Result<inference::ModelConfig> InferenceServer::config(const std::string& model, const std::string& version) const {
  Error e;
  auto runner = find(model, version, &e);
  if (!runner) return Status(StatusCode::kNotFound, e.message);
  return runner->config();
}

Result<std::vector<ModelStatisticsEntry>> InferenceServer::statistics(const std::string& model,
                                                                      const std::string& version) const {
  std::vector<ModelStatisticsEntry> entries;
  if (!model.empty()) {
    Error e;
    auto runner = find(model, version, &e);
    if (!runner) return Status(StatusCode::kNotFound, e.message);
    if (!version.empty()) return std::vector<ModelStatisticsEntry>{{model, version, runner->stats()}};
  }
  std::lock_guard guard(mutex_);
  for (const auto& [name, m] : models_) {
    if (!model.empty() && name != model) continue;
    for (const auto& r : m.versions) entries.push_back({name, std::to_string(r->version()), r->stats()});
  }
  return entries;
}

std::vector<ModelIndexEntry> InferenceServer::index(bool ready_only) const {
  std::vector<ModelIndexEntry> entries;
  std::lock_guard guard(mutex_);
  for (const auto& [name, m] : models_) {
    if (m.versions.empty()) {
      if (!ready_only) entries.push_back({name, "", m.state, m.reason});
      continue;
    }
    for (const auto& r : m.versions) entries.push_back({name, std::to_string(r->version()), m.state, m.reason});
  }
  return entries;
}

Error InferenceServer::load(const std::string& model) {
  if (shutting_down_) return make_error(ErrorCode::kUnavailable, "the server is shutting down");
  std::string single_file;
  {
    std::lock_guard guard(mutex_);
    if (auto it = models_.find(model); it != models_.end()) single_file = it->second.single_file;
  }
  Result<ModelSource> source = !single_file.empty() ? single_file_source(model, single_file)
                               : options_.model_repository.empty()
                                   ? Result<ModelSource>(error(StatusCode::kNotFound, "no model repository to load '",
                                                               model, "' from (the server was started without one)"))
                                   : read_model_source(options_.model_repository, model);
  if (!source.is_ok()) return make_error(ErrorCode::kNotFound, source.status().message());
  Error e = load_source(source.value());
  if (e.ok() && !single_file.empty()) {
    std::lock_guard guard(mutex_);
    models_[model].single_file = single_file;
  }
  return e;
}

Error InferenceServer::unload(const std::string& model) {
  std::vector<std::shared_ptr<ModelRunner>> old;
  {
    std::lock_guard guard(mutex_);
    auto it = models_.find(model);
    if (it == models_.end()) return make_error(ErrorCode::kNotFound, str("unknown model '", model, "'"));
    old = std::move(it->second.versions);
    it->second.versions.clear();
    it->second.state = "UNAVAILABLE";
    it->second.reason = "unloaded";
  }
  for (auto& r : old) r->drain();
  log_.event(LogLevel::kInfo, str("model '", model, "' unloaded"));
  return {};
}

void InferenceServer::infer(const std::string& model, const std::string& version, InferRequest request, InferDone done,
                            const char* protocol) {
  Error e;
  std::shared_ptr<ModelRunner> runner;
  if (shutting_down_) e = make_error(ErrorCode::kUnavailable, "the server is shutting down");
  else runner = find(model, version, &e);
  const std::string resolved = runner ? std::to_string(runner->version()) : version;
  metrics_.request_started(model);
  auto finish = [this, model, resolved, protocol, received = request.received, id = request.id,
                 done = std::move(done)](InferResult&& result) {
    RequestRecord record{model,       resolved, result.error.code, seconds_since(received), result.queue_ms / 1000.0,
                         result.batch};
    metrics_.request_finished(record);
    log_.request({protocol, model, resolved, id, result.error.code, result.error.message, record.total_s * 1000.0,
                  result.queue_ms, result.compute_ms, result.batch});
    done(std::move(result));
  };
  if (!runner) {
    InferResult result;
    result.error = std::move(e);
    finish(std::move(result));
    return;
  }
  runner->submit(std::move(request), std::move(finish));
}

void InferenceServer::reject(const std::string& model, const std::string& version, const std::string& id,
                             const Error& error, const char* protocol) {
  metrics_.request_started(model);
  metrics_.request_finished(RequestRecord{model, version, error.code, 0, 0, 0});
  log_.request({protocol, model, version, id, error.code, error.message, 0, 0, 0, 0});
}

void InferenceServer::drain() {
  shutting_down_ = true;
  std::vector<std::shared_ptr<ModelRunner>> runners;
  {
    std::lock_guard guard(mutex_);
    for (auto& [name, m] : models_)
      for (auto& r : m.versions) runners.push_back(r);
  }
  for (auto& r : runners) r->drain();
}

std::string InferenceServer::metrics_text() const {
  std::map<std::string, int64_t> memory;
  {
    std::lock_guard guard(mutex_);
    for (const auto& [name, m] : models_)
      for (const auto& r : m.versions) memory[name + "\t" + std::to_string(r->version())] = r->memory_in_use();
  }
  return metrics_.render(memory);
}

}  // namespace hi::server
