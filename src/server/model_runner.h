// One loaded version of a model: its instances (a session and a thread each), the bounded queue
// they take requests from, and the dynamic batcher that merges queued requests into one run.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "hipinfer/session.h"
#include "model_config.pb.h"
#include "server_error.h"

namespace hi::server {

using Clock = std::chrono::steady_clock;

struct InferRequest {
  std::string id;
  TensorMap inputs;
  std::vector<std::string> outputs;  // the outputs asked for; empty: all, in the model's order
  double timeout_ms = 0;             // 0: the server's default (RunnerOptions::default_timeout_ms)
  Clock::time_point received = Clock::now();
};

struct InferResult {
  Error error;
  TensorMap outputs;
  double queue_ms = 0;    // from submit() to the start of its run
  double compute_ms = 0;  // the run it was part of
  int64_t batch = 0;      // the requests' combined batch in that run (1 without batching)
};

// Called exactly once per request: inline when submit() rejects it, else on an instance's thread.
using InferDone = std::function<void(InferResult&&)>;

struct RunnerOptions {
  std::vector<std::string> devices = {"gpu", "cpu"};  // for instance groups of KIND_AUTO
  std::string precision = "fp32";
  int threads = 0;                // intra-op threads per instance; 0: the cores shared among instances
  size_t max_queue = 256;         // requests waiting per model version, unless the config sets one
  double default_timeout_ms = 0;  // 0: none
};

// Per model version, for the statistics extension and the metrics.
struct RunnerStats {
  int64_t success = 0, failure = 0;
  int64_t inference_count = 0;  // samples (batch rows) answered
  int64_t execution_count = 0;  // runs
  int64_t queue_ns = 0, compute_ns = 0, success_ns = 0, failure_ns = 0;
  std::chrono::system_clock::time_point last_inference{};
  std::map<int64_t, std::pair<int64_t, int64_t>> batches;  // run batch size -> (runs, compute ns)
  int64_t queued = 0;                                      // waiting now
};

class ModelRunner {
 public:
  static Result<std::unique_ptr<ModelRunner>> create(const std::string& name, int64_t version,
                                                     const std::string& model_path, inference::ModelConfig config,
                                                     const RunnerOptions& options);
  ~ModelRunner();
  ModelRunner(const ModelRunner&) = delete;
  ModelRunner& operator=(const ModelRunner&) = delete;

  const std::string& name() const { return name_; }
  int64_t version() const { return version_; }
  const inference::ModelConfig& config() const { return config_; }
  const Session& session() const { return *instances_.front().session; }
  const std::vector<std::string>& warnings() const { return warnings_; }

  // Checks the request against the configuration (input names, types, shapes, batch size,
  // requested outputs), then queues it; a full queue or a draining runner rejects it with
  // kUnavailable.
  void submit(InferRequest request, InferDone done);
  // Stops taking requests, answers every queued one, and joins the instance threads.
  void drain();
  RunnerStats stats() const;
  // Host bytes the instances' sessions hold now.
  int64_t memory_in_use() const;

 private:
  struct Pending {
    InferRequest request;
    InferDone done;
    int64_t batch = 1;
    Clock::time_point deadline = Clock::time_point::max();
  };
  struct Instance {
    std::unique_ptr<Session> session;
    std::thread thread;
  };

  ModelRunner() = default;
  Error check_request(const InferRequest& request, int64_t* batch) const;
  void serve(Session& session);
  bool joins(const Pending& p, const Pending& front, int64_t rows) const;
  std::vector<Pending> next_batch(std::unique_lock<std::mutex>& lock);
  void run_batch(Session& session, std::vector<Pending> batch);
  static Result<TensorMap> run_joined(Session& session, const std::vector<const TensorMap*>& inputs,
                                      const std::vector<std::string>& outputs, const RunOptions& run_options);
  void record(const InferResult& result, int64_t rows);

  std::string name_;
  int64_t version_ = 0;
  inference::ModelConfig config_;
  std::vector<std::string> warnings_;
  std::vector<Instance> instances_;
  size_t max_queue_ = 0;
  double default_timeout_ms_ = 0;
  bool allow_timeout_override_ = true;
  bool dynamic_batching_ = false;
  Clock::duration max_queue_delay_{};

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Pending> queue_;
  bool draining_ = false;
  RunnerStats stats_;
};

}  // namespace hi::server
