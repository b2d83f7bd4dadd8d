#include "model_runner.h"

#include <algorithm>
#include <thread>

#include "batching.h"
#include "datatype.h"
#include "model_config.h"

namespace hi::server {
namespace {

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

int64_t ns_of(double ms) { return static_cast<int64_t>(ms * 1e6); }

Shape request_shape_rule(const inference::ModelInput& input, bool batching) {
  Shape dims(input.dims().begin(), input.dims().end());
  if (batching) dims.insert(dims.begin(), -1);
  return dims;
}

bool shape_fits(const Shape& shape, const Shape& rule) {
  if (shape.size() != rule.size()) return false;
  for (size_t i = 0; i < rule.size(); ++i)
    if (rule[i] >= 0 && shape[i] != rule[i]) return false;
  return true;
}

}  // namespace

Result<std::unique_ptr<ModelRunner>> ModelRunner::create(const std::string& name, int64_t version,
                                                         const std::string& model_path, inference::ModelConfig config,
                                                         const RunnerOptions& options) {
  std::unique_ptr<ModelRunner> runner(new ModelRunner());
  runner->name_ = name;
  runner->version_ = version;
  int total_instances = 0;
  for (const auto& group : config.instance_group()) total_instances += std::max(1, group.count());
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  SessionOptions session_options;
  session_options.precision = options.precision;
  session_options.threads = options.threads > 0 ? options.threads : std::max(1, cores / std::max(1, total_instances));

  // The first session completes the config (it needs the model's inputs and outputs); the others
  // are made after, one per instance of each group.
  bool completed = false;
  if (config.instance_group_size() == 0) config.add_instance_group()->set_count(1);
  for (const auto& group : config.instance_group()) {
    session_options.devices = instance_devices(group, options.devices);
    for (int i = 0; i < std::max(1, group.count()); ++i) {
      auto session = Session::create(model_path, session_options);
      if (!session.is_ok())
        return session.status().with_context("model '" + name + "' version " + std::to_string(version));
      if (group.kind() == inference::ModelInstanceGroup::KIND_GPU &&
          session.value()->placement().count_on("cpu") == int64_t(session.value()->placement().nodes.size()))
        return error(StatusCode::kUnsupported, "model '", name,
                     "': instance_group kind KIND_GPU, but no node runs on a GPU (",
                     session.value()->placement().summary(), ")");
      if (!completed) {
        HI_RETURN_IF_ERROR(complete_model_config(config, name, *session.value()));
        completed = true;
      }
      for (const auto& w : session.value()->warnings())
        if (i == 0) runner->warnings_.push_back(w);
      runner->instances_.push_back(Instance{std::move(session).value(), {}});
    }
  }
  runner->config_ = std::move(config);
  const auto& policy = runner->config_.dynamic_batching().default_queue_policy();
  runner->max_queue_ = policy.max_queue_size() > 0 ? static_cast<size_t>(policy.max_queue_size()) : options.max_queue;
  runner->default_timeout_ms_ = policy.default_timeout_microseconds() > 0
                                    ? policy.default_timeout_microseconds() / 1000.0
                                    : options.default_timeout_ms;
  runner->allow_timeout_override_ = policy.default_timeout_microseconds() == 0 || policy.allow_timeout_override();
  runner->dynamic_batching_ = runner->config_.has_dynamic_batching();
  runner->max_queue_delay_ =
      std::chrono::microseconds(runner->config_.dynamic_batching().max_queue_delay_microseconds());
  for (auto& instance : runner->instances_)
    instance.thread = std::thread([r = runner.get(), s = instance.session.get()] { r->serve(*s); });
  return runner;
}

ModelRunner::~ModelRunner() { drain(); }

Error ModelRunner::check_request(const InferRequest& request, int64_t* batch) const {
  const std::string where = "model '" + name_ + "'";
  const bool batching = config_.max_batch_size() > 0;
  for (const auto& [name, tensor] : request.inputs) {
    auto it =
        std::find_if(config_.input().begin(), config_.input().end(), [&](const auto& in) { return in.name() == name; });
    if (it == config_.input().end()) {
      std::string names;
      for (const auto& in : config_.input()) names += (names.empty() ? "" : ", ") + in.name();
      return make_error(ErrorCode::kInvalidArgument,
                        str(where, " has no input '", name, "' (its inputs: ", names, ")"));
    }
  }
  *batch = 1;
  bool batch_known = false;
  for (const auto& input : config_.input()) {
    auto it = request.inputs.find(input.name());
    if (it == request.inputs.end()) {
      if (input.optional()) continue;
      return make_error(ErrorCode::kInvalidArgument, str(where, ": input '", input.name(), "' is missing"));
    }
    const Tensor& t = it->second;
    const auto expected = dtype_from_config(input.data_type());
    if (!expected || t.dtype() != *expected)
      return make_error(ErrorCode::kInvalidArgument,
                        str(where, " input '", input.name(), "': datatype is ", wire_name(t.dtype()), ", expected ",
                            expected ? wire_name(*expected) : "?"));
    const Shape rule = request_shape_rule(input, batching);
    if (!shape_fits(t.shape(), rule))
      return make_error(ErrorCode::kInvalidArgument,
                        str(where, " input '", input.name(), "': shape is ", shape_to_string(t.shape()), ", expected ",
                            shape_to_string(rule), " (-1: any size", batching ? "; the first dim is the batch)" : ")"));
    if (batching) {
      const int64_t rows = t.dim(0);
      if (rows < 1 || rows > config_.max_batch_size())
        return make_error(ErrorCode::kInvalidArgument,
                          str(where, " input '", input.name(), "': batch size is ", rows,
                              ", expected 1 to max_batch_size ", config_.max_batch_size()));
      if (batch_known && rows != *batch)
        return make_error(ErrorCode::kInvalidArgument, str(where, " input '", input.name(), "': batch size is ", rows,
                                                           ", but another input has ", *batch));
      *batch = rows;
      batch_known = true;
    }
  }
  for (const auto& out : request.outputs) {
    auto it =
        std::find_if(config_.output().begin(), config_.output().end(), [&](const auto& o) { return o.name() == out; });
    if (it == config_.output().end())
      return make_error(ErrorCode::kInvalidArgument, str(where, " has no output '", out, "'"));
  }
  return {};
}

void ModelRunner::submit(InferRequest request, InferDone done) {
  Pending pending;
  if (Error e = check_request(request, &pending.batch); !e.ok()) {
    InferResult result;
    result.error = std::move(e);
    record(result, 0);
    done(std::move(result));
    return;
  }
  // A request's own timeout counts unless the config's queue policy forbids overriding its default.
  const double timeout_ms =
      request.timeout_ms > 0 && allow_timeout_override_ ? request.timeout_ms : default_timeout_ms_;
  if (timeout_ms > 0)
    pending.deadline = request.received + std::chrono::duration_cast<Clock::duration>(
                                              std::chrono::duration<double, std::milli>(timeout_ms));
  pending.request = std::move(request);
  pending.done = std::move(done);
  std::unique_lock lock(mutex_);
  if (draining_ || queue_.size() >= max_queue_) {
    const bool full = !draining_;
    lock.unlock();
    InferResult result;
    result.error = make_error(ErrorCode::kUnavailable, full ? str("model '", name_, "': the queue is full (",
                                                                  max_queue_, " requests waiting); retry later")
                                                            : str("model '", name_, "' is shutting down"));
    record(result, 0);
    pending.done(std::move(result));
    return;
  }
  queue_.push_back(std::move(pending));
  lock.unlock();
  wake_.notify_all();
}

// Whether a queued request can share a run that starts with `front` and holds `rows` rows so far.
bool ModelRunner::joins(const Pending& p, const Pending& front, int64_t rows) const {
  return rows + p.batch <= config_.max_batch_size() && p.request.outputs == front.request.outputs &&
         batch_compatible(p.request.inputs, front.request.inputs);
}

// Takes the next run's requests from the queue: the front one, and with dynamic batching the later
// ones that can share its run, waiting up to the queue delay for more until the batch is full or
// of a preferred size.
std::vector<ModelRunner::Pending> ModelRunner::next_batch(std::unique_lock<std::mutex>& lock) {
  wake_.wait(lock, [&] { return !queue_.empty() || draining_; });
  std::vector<Pending> batch;
  if (queue_.empty()) return batch;
  if (dynamic_batching_) {
    const auto& preferred = config_.dynamic_batching().preferred_batch_size();
    const Clock::time_point deadline = queue_.front().request.received + max_queue_delay_;
    for (;;) {
      int64_t rows = 0;
      for (const auto& p : queue_)
        if (joins(p, queue_.front(), rows)) rows += p.batch;
      const bool preferred_size = std::find(preferred.begin(), preferred.end(), rows) != preferred.end();
      if (rows >= config_.max_batch_size() || preferred_size || draining_ || Clock::now() >= deadline) break;
      wake_.wait_until(lock, deadline);
      if (queue_.empty()) return batch;  // another instance took them
    }
    batch.push_back(std::move(queue_.front()));
    queue_.pop_front();
    int64_t rows = batch.front().batch;
    for (auto it = queue_.begin(); it != queue_.end();) {
      if (!joins(*it, batch.front(), rows)) {
        ++it;
        continue;
      }
      rows += it->batch;
      batch.push_back(std::move(*it));
      it = queue_.erase(it);
    }
  } else {
    batch.push_back(std::move(queue_.front()));
    queue_.pop_front();
  }
  return batch;
}

void ModelRunner::serve(Session& session) {
  for (;;) {
    std::unique_lock lock(mutex_);
    std::vector<Pending> batch = next_batch(lock);
    if (batch.empty()) {
      if (draining_ && queue_.empty()) return;
      continue;
    }
    lock.unlock();
    wake_.notify_all();  // the queue changed: another instance may take what is left
    run_batch(session, std::move(batch));
  }
}

// One run over several requests' inputs joined along the batch dim.
Result<TensorMap> ModelRunner::run_joined(Session& session, const std::vector<const TensorMap*>& inputs,
                                          const std::vector<std::string>& outputs, const RunOptions& run_options) {
  TensorMap joined;
  try {
    joined = concat_batch(inputs);
  } catch (const OutOfMemory& oom) {
    return error(StatusCode::kOutOfMemory, oom.what);
  }
  return session.run(joined, outputs, nullptr, &run_options);
}

void ModelRunner::run_batch(Session& session, std::vector<Pending> batch) {
  const Clock::time_point start = Clock::now();
  // Requests whose time ran out while queued are answered without running.
  std::vector<Pending> live;
  for (auto& p : batch) {
    if (start < p.deadline) {
      live.push_back(std::move(p));
      continue;
    }
    InferResult result;
    result.error =
        make_error(ErrorCode::kDeadlineExceeded, str("model '", name_, "': the request's timeout passed after ",
                                                     ms_between(p.request.received, start), " ms in the queue"));
    result.queue_ms = ms_between(p.request.received, start);
    record(result, 0);
    p.done(std::move(result));
  }
  if (live.empty()) return;

  RunOptions run_options;
  Clock::time_point latest = Clock::time_point::min();
  for (const auto& p : live) latest = std::max(latest, p.deadline);
  if (latest != Clock::time_point::max()) run_options.timeout_ms = std::max(1.0, ms_between(start, latest));

  std::vector<const TensorMap*> inputs;
  std::vector<int64_t> sizes;
  int64_t rows = 0;
  for (const auto& p : live) {
    inputs.push_back(&p.request.inputs);
    sizes.push_back(p.batch);
    rows += p.batch;
  }
  Result<TensorMap> outputs = live.size() == 1
                                  ? session.run(live[0].request.inputs, live[0].request.outputs, nullptr, &run_options)
                                  : run_joined(session, inputs, live[0].request.outputs, run_options);
  const double compute_ms = ms_between(start, Clock::now());
  std::vector<TensorMap> pieces;
  Error failure;
  if (!outputs.is_ok()) {
    failure = error_from_status(outputs.status());
  } else if (live.size() == 1) {
    pieces.push_back(std::move(outputs).value());
  } else if (auto split = split_batch(outputs.value(), sizes); split.is_ok()) {
    pieces = std::move(split).value();
  } else {
    failure = error_from_status(split.status());
  }
  {
    std::lock_guard guard(mutex_);
    stats_.execution_count += 1;
    auto& b = stats_.batches[rows];
    b.first += 1;
    b.second += ns_of(compute_ms);
  }
  for (size_t i = 0; i < live.size(); ++i) {
    InferResult result;
    result.error = failure;
    if (failure.ok()) result.outputs = std::move(pieces[i]);
    result.queue_ms = ms_between(live[i].request.received, start);
    result.compute_ms = compute_ms;
    result.batch = rows;
    record(result, failure.ok() ? live[i].batch : 0);
    live[i].done(std::move(result));
  }
}

void ModelRunner::record(const InferResult& result, int64_t rows) {
  std::lock_guard guard(mutex_);
  const int64_t total_ns = ns_of(result.queue_ms + result.compute_ms);
  if (result.error.ok()) {
    stats_.success += 1;
    stats_.success_ns += total_ns;
    stats_.inference_count += rows;
    stats_.queue_ns += ns_of(result.queue_ms);
    stats_.compute_ns += ns_of(result.compute_ms);
    stats_.last_inference = std::chrono::system_clock::now();
  } else {
    stats_.failure += 1;
    stats_.failure_ns += total_ns;
  }
}

void ModelRunner::drain() {
  {
    std::lock_guard guard(mutex_);
    draining_ = true;
  }
  wake_.notify_all();
  for (auto& instance : instances_)
    if (instance.thread.joinable()) instance.thread.join();
}

RunnerStats ModelRunner::stats() const {
  std::lock_guard guard(mutex_);
  RunnerStats copy = stats_;
  copy.queued = static_cast<int64_t>(queue_.size());
  return copy;
}

int64_t ModelRunner::memory_in_use() const {
  int64_t bytes = 0;
  for (const auto& instance : instances_) bytes += instance.session->memory_stats().in_use_bytes;
  return bytes;
}

}  // namespace hi::server
