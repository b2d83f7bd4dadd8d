// Executor: a graph compiled for running on the reference CPU kernels.
//
// What it guarantees:
// - Building checks the whole graph before anything runs: every op is known (all unknown ops
//   are listed in one error), every input is produced somewhere, there is no cycle, attributes
//   parse, and types and shapes infer (symbolic dims stay symbolic).
// - Nodes whose inputs are all constant are folded at build time (optimization level >= 1),
//   so shape arithmetic over static shapes costs nothing at run time.
// - run() is const and keeps all per-run state on its stack: any number of threads may run
//   one Executor at once. Each intermediate value is released right after its last reader.
// - Subgraphs (If, Loop, Scan bodies) are compiled with the executor of their node; names
//   they read from enclosing graphs resolve through the running frame chain.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "hipinfer/status.h"
#include "ir/graph.h"
#include "ops/op.h"

namespace hi::runtime {
class PartitionRunner;
}

namespace hi::ops {

// A device partition the session compiled (runtime/partition.h): the DevicePartition node whose
// "partition" attribute holds its id runs it. The executor that runs the node owns it.
struct CompiledPartition {
  std::shared_ptr<const runtime::PartitionRunner> runner;
  std::vector<ir::ValueType> output_types;
};

// Names visible from enclosing graphs while a subgraph is compiled, with their static types.
struct OuterScope {
  std::map<std::string, ir::ValueType> types;
  const OuterScope* parent = nullptr;
  const ir::ValueType* find(const std::string& name) const;
};

struct BuildOptions {
  bool fold_constants = true;
  // Folding computes no node whose outputs would hold more bytes than this (0: no limit); such a
  // node stays in the graph. A fold that allocates more than this anyway is undone likewise.
  int64_t fold_limit_bytes = 0;
  // Static memory plan per input-shape signature (runtime/memory_plan.h), for main graphs of
  // plain tensors.
  bool memory_plan = false;
  // Nodes run the CPU backend's implementation of their op where it has one (its fast kernels);
  // false: every node runs its op's reference kernel (tests compare the two).
  bool backend_ops = true;
  // The device partitions its DevicePartition nodes run, by id.
  std::map<int64_t, CompiledPartition> partitions;
};

class Executor {
 public:
  struct Frame;  // the values of one running graph, chained to its callers' frames

  static Result<std::unique_ptr<Executor>> build(const ir::Graph& graph, const std::map<std::string, int64_t>& opsets,
                                                 const BuildOptions& options, const OuterScope* outer = nullptr);

  // Runs with `inputs` in the order of graph_inputs(); fills `outputs` in the order of
  // graph_outputs(). `parent` is the caller's frame for subgraphs, null for the main graph.
  // `arena_bytes`, when given, receives the size of the memory plan's arena the run used (0 when
  // it ran without one: no plan yet for these shapes, or planning off); `activation_bytes` the
  // sum of the buffers it holds. `node_ms`, when given, receives each node's wall time in
  // milliseconds, in execution order (node(i)).
  Status run(std::vector<Value> inputs, std::vector<Value>* outputs, const Frame* parent = nullptr,
             int64_t* arena_bytes = nullptr, int64_t* activation_bytes = nullptr,
             std::vector<double>* node_ms = nullptr) const;
  ~Executor();

  const std::vector<ir::ValueInfo>& graph_inputs() const { return inputs_; }
  const std::vector<ir::ValueInfo>& graph_outputs() const { return outputs_; }
  // Initializers a caller may override (IR < 4 models list them as inputs).
  const std::vector<ir::ValueInfo>& overridable() const { return overridable_; }
  // The static type of a named value after inference, or null.
  const ir::ValueType* value_type(const std::string& name) const;
  // A value known when the graph was built (initializer or folded), or null.
  const Tensor* constant_value(const std::string& name) const;
  size_t num_nodes() const { return nodes_.size(); }
  // The i-th node that runs (after folding), in execution order.
  const ir::Node& node(size_t i) const { return *nodes_[i].node; }
  // The i-th node's fast kernels (Op::kernel_name), empty when it runs on the reference.
  std::string kernel_name(size_t i) const { return nodes_[i].op ? nodes_[i].op->kernel_name() : std::string(); }
  size_t num_folded() const { return folded_; }

 private:
  struct CompiledNode {
    const ir::Node* node = nullptr;
    std::unique_ptr<Op> op;
    std::vector<int> inputs;                                     // slot, or -1 for an absent optional input
    std::vector<int> outputs;                                    // slot, or -1 for an unused optional output
    std::vector<int> release;                                    // slots whose last reader is this node
    std::map<std::string, std::unique_ptr<Executor>> subgraphs;  // by attribute name
    // An If branch that did not compile for the inputs' static types, and why: it fails when
    // taken, not when the graph is built (the other branch may be the one these inputs take).
    std::map<std::string, Status> failed_branches;
  };

  Status compile(const ir::Graph& graph, const std::map<std::string, int64_t>& opsets, const BuildOptions& options,
                 const OuterScope* outer);
  int slot_of(const std::string& name) const;
  // An arena of `bytes` for a planned run, or null when the memory limit leaves no room for it.
  std::shared_ptr<void> new_arena(int64_t bytes) const;

  std::vector<ir::ValueInfo> inputs_, outputs_, overridable_;
  std::vector<int> input_slots_, output_slots_, overridable_slots_;
  std::map<std::string, int> slots_;       // value name -> slot
  std::vector<ir::ValueType> slot_types_;  // static types per slot
  std::vector<Value> constants_;           // per slot: initializers and folded values
  std::vector<bool> is_constant_;
  std::vector<std::pair<int, std::string>> outer_slots_;  // slots filled from enclosing frames
  std::vector<CompiledNode> nodes_;
  size_t folded_ = 0;
  struct Planner;                     // memory plans and their arenas, by input shapes
  std::unique_ptr<Planner> planner_;  // null when planning is off
  friend struct NodeSubgraphRunner;
};

}  // namespace hi::ops
