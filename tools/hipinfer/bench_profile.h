// `hipinfer bench --profile`: where a run's time goes, per op type and per node, averaged over
// the timed runs (SessionOptions::profile gives each run's node times); and what a run asks of
// the machine regardless of its speed: GPU launches, host synchronisations and allocations, and
// the tensor bytes each node reads and writes.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "hipinfer/session.h"

namespace hi::cli {

struct OpTime {
  std::string op_type;
  int64_t nodes = 0;      // nodes of this type in one run
  double ms_per_run = 0;  // their time per run, summed
  double share = 0;       // of the time all nodes took
};

struct NodeTimeSummary {
  std::string node, op_type, kernel;
  double ms_per_run = 0;
  double share = 0;
};

struct Profile {
  int64_t runs = 0;
  double node_ms_per_run = 0;          // every node's time per run; the rest of a run is overhead
  std::vector<OpTime> ops;             // slowest first
  std::vector<NodeTimeSummary> nodes;  // every node, slowest first (the text report prints ten)
  int64_t work_runs = 0;               // timed runs whose device work was counted
  GpuActivity gpu_total;               // over those runs (per run: divide by work_runs)
  std::vector<NodeTraffic> traffic;    // one run's, in execution order (every run moves the same bytes)
};

class ProfileAccumulator {
 public:
  void add(const std::vector<NodeTime>& run);
  // A timed run's device work: its GPU activity and its nodes' traffic.
  void add_work(const std::vector<NodeTraffic>& traffic, const GpuActivity& gpu);
  Profile summary() const;

 private:
  int64_t runs_ = 0;
  int64_t work_runs_ = 0;
  GpuActivity gpu_total_;
  std::vector<NodeTraffic> traffic_;
  std::vector<NodeTime> total_;  // per node, summed over the runs (the order is the same every run)
};

}  // namespace hi::cli
