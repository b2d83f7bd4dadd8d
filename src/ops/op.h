// The contract every op implements: attribute parsing, type/shape inference, and a reference
// CPU kernel. One file per op under src/ops/; the list of ops is src/ops/op_list.def.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hipinfer/status.h"
#include "hipinfer/tensor.h"
#include "hipinfer/value.h"
#include "ir/graph.h"

namespace hi::ops {

// Reads a node's attributes with defaults. The first problem (wrong kind, missing required
// attribute) is remembered and reported by the session for the node; getters then return the
// default, so an op's init() reads straight through without checking each call.
class InitContext {
 public:
  InitContext(const ir::Node& node, int64_t opset) : node_(node), opset_(opset) {}

  const ir::Node& node() const { return node_; }
  // Version of the node's domain opset the model imports.
  int64_t opset() const { return opset_; }
  bool has(const std::string& name) const { return node_.attr(name) != nullptr; }

  int64_t get_int(const std::string& name, int64_t def);
  float get_float(const std::string& name, float def);
  std::string get_string(const std::string& name, const std::string& def);
  std::vector<int64_t> get_ints(const std::string& name, const std::vector<int64_t>& def = {});
  std::vector<float> get_floats(const std::string& name, const std::vector<float>& def = {});
  std::vector<std::string> get_strings(const std::string& name, const std::vector<std::string>& def = {});
  const Tensor* get_tensor(const std::string& name);
  const ir::Graph* get_graph(const std::string& name);
  int64_t require_int(const std::string& name);

  // Records a failure (the first one wins); returns it too, for `return ctx.fail(...)`.
  template <typename... Args>
  Status fail(StatusCode code, const Args&... args) {
    if (status_.is_ok()) status_ = Status(code, str(args...));
    return status_;
  }
  const Status& status() const { return status_; }

 private:
  const ir::Attribute* find(const std::string& name, ir::Attribute::Kind kind);
  const ir::Node& node_;
  int64_t opset_;
  Status status_;
};

// Thrown when an op reaches for a required input that the node leaves out (an empty name, or
// fewer inputs): a malformed model, which ops that check their arity reject earlier. Like
// OutOfMemory it never escapes the library: the executor turns it into a kInvalidModel Status
// naming the node, at inference and at run time.
struct MissingInput {
  size_t index = 0;
};

// Static inference: input types (shapes may hold symbolic dims) and, where known when the
// session is built, input values. Also used with concrete shapes for memory planning.
class InferContext {
 public:
  InferContext(const ir::Node& node, std::vector<const ir::ValueType*> input_types,
               std::vector<const Tensor*> input_values, size_t num_outputs)
      : node_(node), input_types_(std::move(input_types)), input_values_(std::move(input_values)),
        output_types_(num_outputs), output_values_(num_outputs) {}

  const ir::Node& node() const { return node_; }
  size_t num_inputs() const { return input_types_.size(); }
  bool has_input(size_t i) const { return i < input_types_.size() && input_types_[i] != nullptr; }
  const ir::ValueType& input_type(size_t i) const;
  // The input's value when it is a constant known at build time, else nullptr.
  const Tensor* input_value(size_t i) const { return i < input_values_.size() ? input_values_[i] : nullptr; }
  size_t num_outputs() const { return output_types_.size(); }
  void set_output_type(size_t i, ir::ValueType type) { output_types_.at(i) = std::move(type); }
  // The output is a constant (e.g. Shape of a static shape): the session can fold what uses it.
  void set_output_value(size_t i, Tensor value);

  const ir::ValueType& output_type(size_t i) const { return output_types_.at(i); }
  const std::optional<Tensor>& output_value(size_t i) const { return output_values_.at(i); }

 private:
  const ir::Node& node_;
  std::vector<const ir::ValueType*> input_types_;
  std::vector<const Tensor*> input_values_;
  std::vector<ir::ValueType> output_types_;
  std::vector<std::optional<Tensor>> output_values_;
};

// A runtime value (hipinfer/value.h): a tensor, a sequence, a map, a sequence of maps, or an
// absent optional.
using Value = hi::Value;

// Runs the subgraph attributes of the node being executed (If, Loop, Scan bodies).
class SubgraphRunner {
 public:
  virtual ~SubgraphRunner() = default;
  // Runs the subgraph held in attribute `attr` with `inputs` in its declared input order.
  virtual Status run_subgraph(const std::string& attr, std::vector<Value> inputs,
                              std::vector<Value>* outputs) const = 0;
};

// Where node outputs get their storage during a run: the session's static memory plan when it
// has one for the current shapes, else the heap.
class OutputAllocator {
 public:
  virtual ~OutputAllocator() = default;
  // Storage for output `index` of the running node, or an undefined Tensor to use the heap.
  virtual Tensor allocate(size_t index, DType dtype, const Shape& shape) const = 0;
};

// What a kernel sees when it runs: its inputs, and a way to create its outputs.
class RunContext {
 public:
  RunContext(const ir::Node& node, std::vector<const Value*> inputs, std::vector<Value>* outputs,
             const SubgraphRunner* subgraphs)
      : node_(node), inputs_(std::move(inputs)), outputs_(outputs), subgraphs_(subgraphs) {}

  const ir::Node& node() const { return node_; }
  size_t num_inputs() const { return inputs_.size(); }
  // The i-th input tensor, or nullptr when absent (optional input, empty name, or None).
  const Tensor* input(size_t i) const;
  // A required input (its presence was checked when the session was built).
  const Tensor& in(size_t i) const;
  const Value* input_value(size_t i) const { return i < inputs_.size() ? inputs_[i] : nullptr; }

  size_t num_outputs() const { return outputs_->size(); }
  // Allocates output i; throws OutOfMemory (turned into a Status by the executor).
  Tensor& output(size_t i, DType dtype, const Shape& shape);
  // Makes output i share an existing tensor's storage (Reshape, Identity, Squeeze, ...).
  void set_output(size_t i, Tensor t);
  void set_output_value(size_t i, Value v);
  void set_allocator(const OutputAllocator* allocator) { allocator_ = allocator; }

  // Runs a subgraph attribute of this node (If, Loop, Scan) with the given inputs; values from
  // enclosing scopes resolve by name.
  Status run_subgraph(const std::string& attr, std::vector<Value> inputs, std::vector<Value>* outputs) const {
    HI_ASSERT(subgraphs_, "no subgraph runner");
    return subgraphs_->run_subgraph(attr, std::move(inputs), outputs);
  }

 private:
  const ir::Node& node_;
  std::vector<const Value*> inputs_;
  std::vector<Value>* outputs_;
  const SubgraphRunner* subgraphs_;
  const OutputAllocator* allocator_ = nullptr;
};

class Op {
 public:
  virtual ~Op() = default;
  // Parses and validates attributes, once per node when the session is built.
  virtual Status init(InitContext& ctx) { return Status::ok(); }
  // Output types and shapes from input types, shapes and constant values.
  virtual Status infer(InferContext& ctx) const = 0;
  // The reference CPU kernel: plain, obviously right, checked against hand-computed cases.
  virtual Status run(RunContext& ctx) const = 0;
  // False for ops whose output is not a pure function of the inputs (RandomNormal, ...), so
  // constant folding leaves them alone.
  virtual bool is_deterministic() const { return true; }
  // True when output `out` may share storage with input `in` (same size and type): the kernel
  // reads each input element before it writes the output element at the same index. The memory
  // plan uses it to run such ops in place when the input dies at this node.
  virtual bool may_run_in_place(size_t out, size_t in) const { return false; }
  // The fast kernels this node's runs have used ("oneDNN brgconv:avx512_core", "hipinfer Winograd
  // ..."; several when it ran at several shapes), for profiles; empty: the reference kernel.
  virtual std::string kernel_name() const { return {}; }
};

using OpFactory = std::unique_ptr<Op> (*)();

struct OpEntry {
  const char* op_type;
  const char* domain;  // "" for ai.onnx
  int since_version;   // the oldest opset of its domain this implementation covers
  OpFactory make;
};

// The registry built from op_list.def.
const std::vector<OpEntry>& all_ops();
const OpEntry* find_op(const std::string& domain, const std::string& op_type);

}  // namespace hi::ops

// In an op's file: HI_REGISTER_OP(Relu, ReluOp) defines the factory the op list refers to.
#define HI_REGISTER_OP(name, ...) \
  std::unique_ptr<::hi::ops::Op> make_op_##name() { return std::make_unique<__VA_ARGS__>(); }
