// The protocol-independent server: the loaded models (from a repository folder or single files),
// their runners, health, metadata, statistics, metrics and the request log. The HTTP and gRPC
// front ends translate their protocol into these calls and nothing more.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "metrics.h"
#include "model_repository.h"
#include "model_runner.h"
#include "request_log.h"

namespace hi::server {

struct ServerOptions {
  std::string model_repository;                             // "" when only --model files are served
  std::vector<std::pair<std::string, std::string>> models;  // --model NAME=PATH
  RunnerOptions runner;
  LogLevel log_level = LogLevel::kWarning;
};

struct TensorMetadata {
  std::string name;
  std::string datatype;  // "FP32"
  Shape shape;           // -1 for a free dim; a batching model's first dim is -1
};

struct ModelMetadata {
  std::string name;
  std::vector<std::string> versions;  // loaded versions, highest first
  std::string platform;
  std::vector<TensorMetadata> inputs, outputs;
};

struct ModelIndexEntry {
  std::string name, version;
  std::string state;  // "READY", "UNAVAILABLE", "LOADING", "UNLOADING"
  std::string reason;
};

struct ModelStatisticsEntry {
  std::string name, version;
  RunnerStats stats;
};

class InferenceServer {
 public:
  // Loads every model; the first that fails to load fails the start, naming it.
  static Result<std::unique_ptr<InferenceServer>> create(const ServerOptions& options);
  ~InferenceServer();

  bool live() const { return true; }
  bool ready() const { return !shutting_down_.load(); }
  bool model_ready(const std::string& model, const std::string& version) const;

  // The runner of a model version ("" = the highest loaded); null with a kNotFound error naming
  // the model and the versions it has.
  std::shared_ptr<ModelRunner> find(const std::string& model, const std::string& version, Error* error) const;
  Result<ModelMetadata> metadata(const std::string& model, const std::string& version) const;
  Result<inference::ModelConfig> config(const std::string& model, const std::string& version) const;
  // One entry per loaded version; model "" = every model.
  Result<std::vector<ModelStatisticsEntry>> statistics(const std::string& model, const std::string& version) const;
  std::vector<ModelIndexEntry> index(bool ready_only) const;
  // Loads (or reloads) a model from the repository; unloading drains its queue first.
  Error load(const std::string& model);
  Error unload(const std::string& model);

  // Runs one request; `done` is called exactly once, perhaps on this thread. `protocol` and
  // `client` are for the request log ("http", "127.0.0.1:51234").
  void infer(const std::string& model, const std::string& version, InferRequest request, InferDone done,
             const char* protocol);

  // Counts and logs a request its front end could not decode (it never reaches a model).
  void reject(const std::string& model, const std::string& version, const std::string& id, const Error& error,
              const char* protocol);

  // Stop taking new requests (ready turns false; infer answers kUnavailable).
  void begin_shutdown() { shutting_down_ = true; }
  // Answers every queued request and stops the runners.
  void drain();

  std::string metrics_text() const;
  RequestLog& log() { return log_; }

 private:
  struct LoadedModel {
    std::vector<std::shared_ptr<ModelRunner>> versions;  // highest first
    std::string state = "READY";
    std::string reason;
    std::string single_file;  // --model PATH, "" when from the repository
  };

  InferenceServer() = default;
  Error load_source(const ModelSource& source);

  ServerOptions options_;
  mutable std::mutex mutex_;
  std::map<std::string, LoadedModel> models_;
  std::atomic<bool> shutting_down_{false};
  mutable Metrics metrics_;
  RequestLog log_;
};

}  // namespace hi::server
