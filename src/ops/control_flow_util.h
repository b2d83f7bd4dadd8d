// Helpers shared by the control-flow ops (If, Loop, Scan, SequenceMap): subgraph signatures,
// conditions, slicing scan inputs, and scan outputs collected per iteration and stacked once.
#pragma once

#include <string>
#include <vector>

#include "core/memory_budget.h"
#include "ops/op.h"

namespace hi::ops {

// The body held by graph attribute `attr` as init() sees it; records a failure when missing.
const ir::Graph* require_graph(InitContext& ctx, const char* attr);

// The body's signature as infer() sees it: the executor gives the op a node whose graph
// attributes carry the output types it inferred for the compiled subgraph.
const ir::Graph& subgraph_signature(const InferContext& ctx, const char* attr);

// A condition (If's cond, Loop's cond and the body's cond output): a bool tensor of one element.
Result<bool> read_condition(const Value* v, const std::string& what);

// Inference-time check of a condition's type (bool, one element when the shape is known).
Status check_condition_type(const ir::ValueType& t, const std::string& what);

// Slice `index` of `t` along `axis`, with that axis removed (a copy).
Tensor slice_along(const Tensor& t, int64_t axis, int64_t index);

// One scan output of a Loop or Scan: the body's value is appended each iteration (no copy of
// the data), and stacked into one tensor at the end, so a loop of n iterations copies each
// element once instead of n times. The stacked tensor's bytes are reserved against the memory
// budget as items arrive: a loop whose condition never turns false, appending a constant (the
// same storage every time), fails at the session's limit instead of growing the process.
class ScanOutput {
 public:
  explicit ScanOutput(std::string name) : name_(std::move(name)) {}

  // Appends iteration `iteration`'s value: a tensor of the same type and shape as the first.
  // Throws OutOfMemory when the stacked result would pass the memory budget.
  Status add(const Value& v, int64_t iteration);
  size_t size() const { return items_.size(); }
  const std::vector<Tensor>& items() const { return items_; }

  // The items stacked along a new axis `axis` (in [0, rank]), in reverse order when `reverse`.
  // With no items, an empty tensor typed after the body output's static type `type`.
  // The reservation is released first: the result's own allocation is charged instead.
  Result<Tensor> stack(int64_t axis, bool reverse, const ir::ValueType& type);

 private:
  std::string name_;  // the body output, for messages
  std::vector<Tensor> items_;
  ScratchReservation reserved_;  // the stacked result's bytes and the items' handles
};

// Same-typed, same-shaped tensors stacked along a new axis `axis` of the result.
Tensor stack_along(const std::vector<Tensor>& items, int64_t axis, bool reverse);

}  // namespace hi::ops
