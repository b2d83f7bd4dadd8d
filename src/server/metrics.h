// The server's Prometheus metrics: requests by model and outcome, latency, queue time and batch
// size histograms, requests in flight, and memory (sessions, host, each GPU's allocator).
// Rendered in the Prometheus text exposition format (version 0.0.4).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "server_error.h"

namespace hi::server {

class Histogram {
 public:
  explicit Histogram(std::vector<double> bounds) : bounds_(std::move(bounds)), counts_(bounds_.size() + 1) {}
  void observe(double value);
  // Appends the _bucket, _sum and _count lines for one label set ("model=\"x\"").
  void render(std::string& out, const std::string& name, const std::string& labels) const;

 private:
  std::vector<double> bounds_;
  std::vector<int64_t> counts_;  // per bucket (not cumulative); the last is +Inf
  double sum_ = 0;
  int64_t count_ = 0;
};

struct RequestRecord {
  std::string model, version;
  ErrorCode outcome = ErrorCode::kOk;
  double total_s = 0, queue_s = 0;
  int64_t batch = 0;  // the run's batch; 0 when it did not run
};

class Metrics {
 public:
  void request_started(const std::string& model);
  void request_finished(const RequestRecord& record);
  // Memory gauges are read when the page is made: `model_memory` maps "model\tversion" to bytes.
  std::string render(const std::map<std::string, int64_t>& model_memory) const;

 private:
  struct PerModel {
    std::map<std::pair<std::string, ErrorCode>, int64_t> requests;  // (version, outcome) -> count
    Histogram latency{{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}};
    Histogram queue{{0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1}};
    Histogram batch{{1, 2, 4, 8, 16, 32, 64, 128}};
    int64_t in_flight = 0;
  };
  mutable std::mutex mutex_;
  std::map<std::string, PerModel> models_;
};

// A label value with \, " and newlines escaped as the exposition format asks.
std::string escape_label(const std::string& value);

}  // namespace hi::server
