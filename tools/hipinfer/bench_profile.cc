#include "bench_profile.h"

#include <algorithm>

namespace hi::cli {

void ProfileAccumulator::add(const std::vector<NodeTime>& run) {
  if (run.empty()) return;
  // A session runs the same nodes in the same order every time; anything else restarts the sum.
  if (total_.size() != run.size()) {
    total_ = run;
    runs_ = 1;
    return;
  }
  for (size_t i = 0; i < run.size(); ++i) total_[i].ms += run[i].ms;
  ++runs_;
}

void ProfileAccumulator::add_work(const std::vector<NodeTraffic>& traffic, const GpuActivity& gpu) {
  ++work_runs_;
  gpu_total_.kernel_launches += gpu.kernel_launches;
  gpu_total_.graph_launches += gpu.graph_launches;
  gpu_total_.host_syncs += gpu.host_syncs;
  gpu_total_.device_allocations += gpu.device_allocations;
  gpu_total_.allocator_requests += gpu.allocator_requests;
  traffic_ = traffic;
}

Profile ProfileAccumulator::summary() const {
  Profile p;
  p.runs = runs_;
  p.work_runs = work_runs_;
  p.gpu_total = gpu_total_;
  p.traffic = traffic_;
  if (runs_ == 0) return p;
  const double n = static_cast<double>(runs_);
  std::map<std::string, OpTime> by_op;
  for (const NodeTime& t : total_) {
    OpTime& o = by_op[t.op_type];
    o.op_type = t.op_type;
    ++o.nodes;
    o.ms_per_run += t.ms / n;
    p.node_ms_per_run += t.ms / n;
  }
  for (auto& [name, o] : by_op) {
    o.share = p.node_ms_per_run > 0 ? o.ms_per_run / p.node_ms_per_run : 0;
    p.ops.push_back(o);
  }
  std::sort(p.ops.begin(), p.ops.end(), [](const OpTime& a, const OpTime& b) { return a.ms_per_run > b.ms_per_run; });
  for (const NodeTime& t : total_)
    p.nodes.push_back(
        {t.node, t.op_type, t.kernel, t.ms / n, p.node_ms_per_run > 0 ? t.ms / n / p.node_ms_per_run : 0});
  std::sort(p.nodes.begin(), p.nodes.end(),
            [](const NodeTimeSummary& a, const NodeTimeSummary& b) { return a.ms_per_run > b.ms_per_run; });
  return p;
}

}  // namespace hi::cli
