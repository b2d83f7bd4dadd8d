// `hipinfer bench --profile`: where a run's time goes, per op type and per node, averaged over
// the timed runs (SessionOptions::profile gives each run's node times).
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
  double node_ms_per_run = 0;       // every node's time per run; the rest of a run is overhead
  std::vector<OpTime> ops;          // slowest first
  std::vector<NodeTimeSummary> nodes;  // every node, slowest first (the text report prints ten)
};

class ProfileAccumulator {
 public:
  void add(const std::vector<NodeTime>& run);
  Profile summary() const;

 private:
  int64_t runs_ = 0;
  std::vector<NodeTime> total_;  // per node, summed over the runs (the order is the same every run)
};

}  // namespace hi::cli
