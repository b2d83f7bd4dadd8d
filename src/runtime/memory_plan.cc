#include "runtime/memory_plan.h"

#include <algorithm>

namespace hi::ops {

void plan_offsets(MemoryPlan* plan) {
  constexpr int64_t kAlign = 64;
  std::vector<size_t> order(plan->buffers.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return plan->buffers[a].bytes > plan->buffers[b].bytes; });
  std::vector<size_t> placed;
  plan->arena_bytes = 0;
  plan->total_bytes = 0;
  for (size_t i : order) {
    PlannedBuffer& b = plan->buffers[i];
    const int64_t size = (b.bytes + kAlign - 1) / kAlign * kAlign;
    plan->total_bytes += size;
    // Intervals taken by buffers alive at the same time, by offset.
    std::vector<std::pair<int64_t, int64_t>> busy;
    for (size_t j : placed) {
      const PlannedBuffer& o = plan->buffers[j];
      if (o.first <= b.last && b.first <= o.last)
        busy.push_back({o.offset, o.offset + (o.bytes + kAlign - 1) / kAlign * kAlign});
    }
    std::sort(busy.begin(), busy.end());
    int64_t offset = 0;
    for (const auto& [lo, hi] : busy) {
      if (offset + size <= lo) break;  // fits in the gap before this one
      offset = std::max(offset, hi);
    }
    b.offset = offset;
    plan->arena_bytes = std::max(plan->arena_bytes, offset + size);
    placed.push_back(i);
  }
  plan->by_output.clear();
  for (size_t i = 0; i < plan->buffers.size(); ++i)
    plan->by_output[{plan->buffers[i].node, plan->buffers[i].output}] = i;
}

MemoryPlan make_plan(std::vector<PlannedBuffer> recorded, const std::vector<bool>& escapes,
                     const std::vector<InPlaceCandidate>& in_place) {
  // shares[b]: the buffer whose bytes b takes (b itself when none).
  std::vector<size_t> shares(recorded.size());
  for (size_t i = 0; i < shares.size(); ++i) shares[i] = i;
  for (const InPlaceCandidate& c : in_place) {
    const size_t root = shares[c.input];
    PlannedBuffer& in = recorded[root];
    const PlannedBuffer& out = recorded[c.output];
    if (escapes[root] || escapes[c.output] || shares[c.output] != c.output || root == c.output ||
        in.bytes != out.bytes || in.last != c.node || out.first != c.node)
      continue;
    in.last = out.last;
    shares[c.output] = root;
  }
  MemoryPlan plan;
  std::vector<size_t> index(recorded.size(), 0);  // recorded buffer -> its place in plan.buffers
  for (size_t i = 0; i < recorded.size(); ++i)
    if (!escapes[i] && shares[i] == i) {
      index[i] = plan.buffers.size();
      plan.buffers.push_back(recorded[i]);
    }
  plan_offsets(&plan);
  for (size_t i = 0; i < recorded.size(); ++i)
    if (shares[i] != i) plan.by_output[{recorded[i].node, recorded[i].output}] = index[shares[i]];
  return plan;
}

}  // namespace hi::ops
