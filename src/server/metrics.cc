#include "metrics.h"

#include <cinttypes>
#include <cstdio>

#include "hipinfer/device.h"
#include "hipinfer/tensor.h"

namespace hi::server {
namespace {

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

void help(std::string& out, const char* name, const char* type, const char* text) {
  out += str("# HELP ", name, " ", text, "\n# TYPE ", name, " ", type, "\n");
}

}  // namespace

void Histogram::observe(double value) {
  size_t i = 0;
  while (i < bounds_.size() && value > bounds_[i]) ++i;
  counts_[i] += 1;
  sum_ += value;
  count_ += 1;
}

void Histogram::render(std::string& out, const std::string& name, const std::string& labels) const {
  int64_t cumulative = 0;
  for (size_t i = 0; i <= bounds_.size(); ++i) {
    cumulative += counts_[i];
    const std::string le = i < bounds_.size() ? number(bounds_[i]) : "+Inf";
    out += str(name, "_bucket{", labels, ",le=\"", le, "\"} ", cumulative, "\n");
  }
  out += str(name, "_sum{", labels, "} ", number(sum_), "\n", name, "_count{", labels, "} ", count_, "\n");
}

std::string escape_label(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

void Metrics::request_started(const std::string& model) {
  std::lock_guard guard(mutex_);
  models_[model].in_flight += 1;
}

void Metrics::request_finished(const RequestRecord& r) {
  std::lock_guard guard(mutex_);
  PerModel& m = models_[r.model];
  m.in_flight -= 1;
  m.requests[{r.version, r.outcome}] += 1;
  m.latency.observe(r.total_s);
  if (r.batch > 0) {
    m.queue.observe(r.queue_s);
    m.batch.observe(static_cast<double>(r.batch));
  }
}

std::string Metrics::render(const std::map<std::string, int64_t>& model_memory) const {
  std::string out;
  std::lock_guard guard(mutex_);
  help(out, "hipinfer_requests_total", "counter", "Inference requests answered, by model, version and outcome.");
  for (const auto& [model, m] : models_)
    for (const auto& [key, count] : m.requests)
      out += str("hipinfer_requests_total{model=\"", escape_label(model), "\",version=\"", escape_label(key.first),
                 "\",outcome=\"", error_code_name(key.second), "\"} ", count, "\n");
  help(out, "hipinfer_request_duration_seconds", "histogram", "Time from a request's arrival to its answer.");
  for (const auto& [model, m] : models_)
    m.latency.render(out, "hipinfer_request_duration_seconds", str("model=\"", escape_label(model), "\""));
  help(out, "hipinfer_queue_duration_seconds", "histogram", "Time a request waited in its model's queue.");
  for (const auto& [model, m] : models_)
    m.queue.render(out, "hipinfer_queue_duration_seconds", str("model=\"", escape_label(model), "\""));
  help(out, "hipinfer_batch_size", "histogram", "Batch size of the runs requests were part of (dynamic batching).");
  for (const auto& [model, m] : models_)
    m.batch.render(out, "hipinfer_batch_size", str("model=\"", escape_label(model), "\""));
  help(out, "hipinfer_requests_in_flight", "gauge", "Requests received and not yet answered.");
  for (const auto& [model, m] : models_)
    out += str("hipinfer_requests_in_flight{model=\"", escape_label(model), "\"} ", m.in_flight, "\n");
  help(out, "hipinfer_model_memory_bytes", "gauge", "Host memory the sessions of a loaded model version hold.");
  for (const auto& [key, bytes] : model_memory) {
    const size_t tab = key.find('\t');
    out += str("hipinfer_model_memory_bytes{model=\"", escape_label(key.substr(0, tab)), "\",version=\"",
               escape_label(key.substr(tab + 1)), "\"} ", bytes, "\n");
  }
  const HostMemoryStats host = host_memory_stats();
  help(out, "hipinfer_host_memory_bytes", "gauge", "Host memory in hipinfer's tensors, all sessions together.");
  out += str("hipinfer_host_memory_bytes ", host.allocated_bytes, "\n");
  help(out, "hipinfer_gpu_memory_allocated_bytes", "gauge", "Bytes in live tensors on each GPU (caching allocator).");
  const auto gpus = gpu_memory_stats();
  for (const auto& g : gpus)
    out += str("hipinfer_gpu_memory_allocated_bytes{device=\"", g.device, "\"} ", g.allocated_bytes, "\n");
  help(out, "hipinfer_gpu_memory_reserved_bytes", "gauge", "Bytes each GPU's caching allocator holds from the device.");
  for (const auto& g : gpus)
    out += str("hipinfer_gpu_memory_reserved_bytes{device=\"", g.device, "\"} ", g.reserved_bytes, "\n");
  return out;
}

}  // namespace hi::server
