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
  int64_t arena_bytes = 0;  // the arena's size: the planned peak of intermediate tensors
  int64_t total_bytes = 0;  // the sum of every planned buffer (what a run without reuse would hold)
};

// Assigns offsets (64-byte aligned) and fills arena_bytes, total_bytes and by_output.
void plan_offsets(MemoryPlan* plan);

}  // namespace hi::ops
