// The static memory plan: every intermediate tensor of a run gets an offset in one arena, so a
// run allocates nothing but (at most) its outputs. Buffers whose lifetimes do not overlap share
// bytes.
//
// How a plan is made: the first run with a new input-shape signature records each node
// output's size and, from the executor's liveness, the span of nodes during which its buffer
// is alive (extended over every value that views the same storage, such as a Reshape's
// output). Graph outputs and values that escape the run stay on the heap. Offsets are then
// assigned greedily, largest buffer first, at the lowest offset that overlaps no buffer alive
// at the same time. Later runs with the same signature take their buffers from an arena.
//
// In place: where an op reads each element of an input before writing the output element at the
// same index (Op::may_run_in_place: a convolution's or product's residual Z read by its sum
// post-op), and that input's buffer dies at the node, the output takes the input's bytes. No
// copy of Z into Y, and one buffer fewer in the cache.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace hi::ops {

struct PlannedBuffer {
  int node = 0;    // index in the executor's node order
  int output = 0;  // output index of that node
  int64_t bytes = 0;
  int first = 0, last = 0;  // alive from node `first` through node `last`, inclusive
  int64_t offset = -1;      // assigned by plan_offsets
};

struct MemoryPlan {
  std::vector<PlannedBuffer> buffers;
  std::map<std::pair<int, int>, size_t> by_output;  // (node, output) -> index in buffers
  int64_t arena_bytes = 0;                          // the arena's size: the planned peak of intermediate tensors
  int64_t total_bytes = 0;  // the sum of every planned buffer (what a run without reuse would hold)
};

// Assigns offsets (64-byte aligned) and fills arena_bytes, total_bytes and by_output.
void plan_offsets(MemoryPlan* plan);

// Output buffer `output` of node `node` may take the bytes of buffer `input`, one of the node's
// inputs (indices into the recorded buffers).
struct InPlaceCandidate {
  int node = 0;
  size_t input = 0, output = 0;
};

// The plan from a recording run's buffers: those that `escapes` marks (still viewed after the
// run) stay off it; each candidate, taken in node order, is granted when neither buffer escapes,
// they are the same size, and the input's buffer (or the buffer it already shares) is last used
// at that node: the output then maps to that buffer, whose life now runs to the output's end.
MemoryPlan make_plan(std::vector<PlannedBuffer> recorded, const std::vector<bool>& escapes,
                     const std::vector<InPlaceCandidate>& in_place);

}  // namespace hi::ops
