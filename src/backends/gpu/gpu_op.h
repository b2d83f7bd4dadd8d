// The GPU executor's ops: for each ONNX op (or internal fused op) the GPU runs, one entry in the
// one list (ops/op_list.cc) that says which nodes it covers and makes the kernel object a
// partition step holds. An op's file (ops/<op>.cc) reads the node's attributes once, when the
// partition compiles (GpuKernel::init), and queues its kernels on the run's stream (launch).
// Host C++ compiled once per backend with HI_GPU_NS naming it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backends/gpu/device_api.h"
#include "backends/gpu/kernels/elementwise.h"
#include "core/activation.h"
#include "hipinfer/tensor.h"
#include "ir/graph.h"
#include "ops/op.h"

namespace hi::gpu::HI_GPU_NS {

// One value of a partition on the device during a run.
struct DeviceValue {
  void* ptr = nullptr;
  DType dtype = DType::kUndefined;
  Shape shape;
  int root = -1;  // the slot whose buffer this aliases (itself when it owns one); -1: not set
};

// What a step's kernel sees: its inputs (on the device, with concrete shapes), the host tensors
// of the partition's own inputs (kernels read shape-like inputs such as Slice's starts there; the
// partitioner cuts a partition before a node that reads on the host a value the partition
// computes, so every input a kernel declares in reads_on_host is one), and its outputs, already
// allocated with the shapes the op's inference gave.
class LaunchContext {
 public:
  LaunchContext(const ir::Node& node, const std::vector<int>& in, const std::vector<int>& out,
                std::vector<DeviceValue>& values, const std::vector<const Tensor*>& host, Stream stream)
      : node_(node), in_(in), out_(out), values_(values), host_(host), stream_(stream) {}
  const ir::Node& node() const { return node_; }
  size_t num_inputs() const { return in_.size(); }
  bool has_input(size_t i) const { return i < in_.size() && in_[i] >= 0; }
  const DeviceValue& input(size_t i) const { return values_[static_cast<size_t>(in_[i])]; }
  // The host tensor of an input that is one of the partition's inputs, null for values the
  // partition computes.
  const Tensor* host_input(size_t i) const { return has_input(i) ? host_[static_cast<size_t>(in_[i])] : nullptr; }
  size_t num_outputs() const { return out_.size(); }
  bool has_output(size_t i) const { return i < out_.size() && out_[i] >= 0; }
  DeviceValue& output(size_t i) { return values_[static_cast<size_t>(out_[i])]; }
  const DeviceValue& output(size_t i) const { return values_[static_cast<size_t>(out_[i])]; }
  Stream stream() const { return stream_; }
  // Device scratch memory of GpuKernel::workspace_bytes() for this launch (null when none).
  void* workspace() const { return workspace_; }
  size_t workspace_bytes() const { return workspace_bytes_; }
  void set_workspace(void* ptr, size_t bytes) {
    workspace_ = ptr;
    workspace_bytes_ = bytes;
  }

 private:
  const ir::Node& node_;
  const std::vector<int>& in_;
  const std::vector<int>& out_;
  std::vector<DeviceValue>& values_;
  const std::vector<const Tensor*>& host_;
  Stream stream_;
  void* workspace_ = nullptr;
  size_t workspace_bytes_ = 0;
};

class GpuKernel {
 public:
  virtual ~GpuKernel() = default;
  // Reads the node's attributes, once, when the partition compiles.
  virtual Status init(ops::InitContext& ctx) {
    (void)ctx;
    return Status::ok();
  }
  // true: output 0 is input 0's bytes under another shape (Reshape & co.); launch is not called.
  virtual bool aliases_input() const { return false; }
  // true: input i is read on the host (Reshape's shape, Slice's starts), by the op's shape
  // inference or by launch, so its values decide the launches: a partition's graph is keyed on
  // them, and they must be partition inputs (LaunchContext::host_input).
  virtual bool reads_on_host(size_t input) const {
    (void)input;
    return false;
  }
  // Device scratch memory launch needs for these input and output shapes (a vendor library's
  // workspace). Asked outside any graph capture, before launch; the runner allocates it and
  // passes it in LaunchContext::workspace().
  virtual Result<size_t> workspace_bytes(const LaunchContext& ctx) const {
    (void)ctx;
    return size_t{0};
  }
  // Queues the node's work on ctx.stream(). Must neither allocate device memory nor wait for the
  // device: a partition's launches may be captured into a graph.
  virtual Status launch(LaunchContext& ctx) const = 0;
};

struct GpuOpEntry {
  const char* domain;  // "" (ai.onnx) or ops::kInternalDomain
  const char* op_type;
  // Empty when the op's kernel covers the node with these input types, else why not (the
  // placement report shows it).
  std::string (*why_not)(const ir::Node& node, const std::vector<ir::ValueType>& inputs);
  std::unique_ptr<GpuKernel> (*make)(const ir::Node& node);
};

const std::vector<GpuOpEntry>& gpu_op_list();
// domain "" and "ai.onnx" are the same.
const GpuOpEntry* find_gpu_op(const std::string& domain, const std::string& op_type);
// Empty when some op covers the node, else why not.
std::string gpu_why_not(const ir::Node& node, const std::vector<ir::ValueType>& inputs);

// ---- Helpers the ops' support checks share ------------------------------------------------------

inline bool is_float(DType t) { return t == DType::kFloat32 || t == DType::kFloat16; }
inline int64_t rank_of(const std::vector<ir::ValueType>& in, size_t i) { return i < in.size() ? in[i].rank() : -1; }
inline DType dtype_of(const std::vector<ir::ValueType>& in, size_t i) {
  return i < in.size() ? in[i].dtype : DType::kUndefined;
}
// Element types the data-movement kernels carry (they move bytes: 1, 2, 4 or 8 per element):
// every numeric type and bool, not strings or complex128.
bool is_movable(DType t);
// "" when input 0's type is movable, else "no GPU kernel for <op> on <dtype>".
std::string movable_reason(const ir::Node& node, const std::vector<ir::ValueType>& inputs);
// "no GPU kernel for <op> on <dtype of input 0> (float32, float16)".
std::string float_only_reason(const ir::Node& node, const std::vector<ir::ValueType>& inputs);
std::string attr_string(const ir::Node& node, const char* name, const std::string& def);
int64_t attr_int(const ir::Node& node, const char* name, int64_t def);

// "no GPU kernel for <op> above rank <limit>" when input i's rank is above limit (or unknown,
// with unknown_too), else "".
std::string rank_reason(const ir::Node& node, const std::vector<ir::ValueType>& inputs, size_t i, int64_t limit,
                        bool unknown_too = false);
// True when some output of the node is unnamed (an output the graph does not use).
bool has_unnamed_output(const ir::Node& node);

// A shape split at one axis: [outer, n, inner], the kernels' view for ops along an axis.
struct AxisView {
  int64_t outer = 1, n = 1, inner = 1;
};
// `axis` may count from the end; kInvalidArgument naming the op and shape when out of range.
Result<AxisView> axis_view(const ir::Node& node, const Shape& shape, int64_t axis);

// ---- Helpers for kernels that read inputs on the host (GpuKernel::reads_on_host) --------------

// Input i's values on the host as integers (Slice's starts, Expand's shape) or as doubles (Clip's
// bounds, Resize's scales); kInternal when it is not a partition input.
Result<std::vector<int64_t>> host_ints(const LaunchContext& ctx, size_t i);
Result<std::vector<double>> host_doubles(const LaunchContext& ctx, size_t i);
// kInternal naming both shapes when a kernel's plan disagrees with the output shape the op's
// inference gave (the kernel would write outside the output).
Status check_output_shape(const ir::Node& node, const Shape& planned, const Shape& inferred);

// Activations FusedConv / FusedMatMul carry, as the unary kernels' descriptor; false when no
// GPU kernel computes it.
bool to_unary(const Activation& a, bool* has, UnaryOp* op);
// Empty when the node's "activation" attribute has a GPU kernel, else why not.
std::string activation_why_not(const ir::Node& node);
// Reads the activation attributes into (has, op).
void read_activation(ops::InitContext& ctx, bool* has, UnaryOp* op);

}  // namespace hi::gpu::HI_GPU_NS
