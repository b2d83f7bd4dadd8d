// `hipinfer bench --busy N`: N processes that each keep one CPU busy for as long as the
// measurement lasts, so that an engine's behaviour on a shared machine (a server running several
// models, a pod beside others) can be measured as it is on a quiet one.
#pragma once

#include <vector>

#include "hipinfer/status.h"

namespace hi::cli {

class BusyLoad {
 public:
  // Starts `processes` busy-loop children. Each dies with bench, even if bench is killed.
  static Result<BusyLoad> start(int processes);
  BusyLoad() = default;
  BusyLoad(BusyLoad&& other) noexcept : pids_(std::move(other.pids_)) { other.pids_.clear(); }
  BusyLoad& operator=(BusyLoad&&) = delete;
  ~BusyLoad();  // kills and reaps the children

 private:
  std::vector<int> pids_;
};

}  // namespace hi::cli
