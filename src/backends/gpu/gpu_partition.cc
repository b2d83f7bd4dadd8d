// The GPU executor (see gpu_partition.h). A partition compiles into steps, one per node: the
// node's attributes are read once into the kernel's descriptor, and the node's CPU op is kept
// for its shape inference, which gives each step its output shapes at run time (symbolic dims
// are only known then). A run:
//   1. inputs to the device: constants (weights) once per runner, the rest every run;
//   2. the steps, in order, on the calling thread's stream, each output from the device's
//      caching allocator, each buffer returned after its last reader (stream-ordered, so the
//      next step may reuse it at once); Reshape-like steps alias their input's buffer;
//   3. outputs back to host tensors, then one synchronisation.
#include "backends/gpu/gpu_partition.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <set>

#include "backends/gpu/device_allocator.h"
#include "backends/gpu/kernel_self_check.h"
#include "backends/gpu/kernels/conv.h"
#include "backends/gpu/kernels/copy.h"
#include "backends/gpu/kernels/elementwise.h"
#include "backends/gpu/kernels/matmul.h"
#include "backends/gpu/kernels/pool.h"
#include "backends/gpu/kernels/reduce.h"
#include "backends/gpu/kernels/rows.h"
#include "cpu/kernels.h"
#include "ops/conv_util.h"
#include "ops/internal.h"
#include "ops/op.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

const std::map<std::string, UnaryKind>& unary_table() {
  static const std::map<std::string, UnaryKind> t = {
      {"Relu", UnaryKind::kRelu},         {"LeakyRelu", UnaryKind::kLeakyRelu}, {"Sigmoid", UnaryKind::kSigmoid},
      {"Tanh", UnaryKind::kTanh},         {"Exp", UnaryKind::kExp},             {"Log", UnaryKind::kLog},
      {"Sqrt", UnaryKind::kSqrt},         {"Reciprocal", UnaryKind::kReciprocal}, {"Neg", UnaryKind::kNeg},
      {"Abs", UnaryKind::kAbs},           {"Erf", UnaryKind::kErf},             {"Gelu", UnaryKind::kGelu},
      {"HardSigmoid", UnaryKind::kHardSigmoid}, {"HardSwish", UnaryKind::kHardSwish},
      {"Softplus", UnaryKind::kSoftplus}, {"Elu", UnaryKind::kElu},             {"Selu", UnaryKind::kSelu}};
  return t;
}

const std::map<std::string, BinaryKind>& binary_table() {
  static const std::map<std::string, BinaryKind> t = {{"Add", BinaryKind::kAdd}, {"Sub", BinaryKind::kSub},
                                                      {"Mul", BinaryKind::kMul}, {"Div", BinaryKind::kDiv},
                                                      {"Pow", BinaryKind::kPow}, {"Max", BinaryKind::kMax},
                                                      {"Min", BinaryKind::kMin}};
  return t;
}

const std::set<std::string>& alias_ops() {
  static const std::set<std::string> t = {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity"};
  return t;
}

bool is_float(DType t) { return t == DType::kFloat32 || t == DType::kFloat16; }
// Data movement (Reshape, Transpose, Gather, Concat) takes float tensors only: integer tensors in a
// graph are mostly shape arithmetic, which later nodes (Reshape, Expand) must read on the host.
bool movable(DType t) { return is_float(t); }
int64_t rank_of(const std::vector<ir::ValueType>& in, size_t i) { return i < in.size() ? in[i].rank() : -1; }
DType dtype_of(const std::vector<ir::ValueType>& in, size_t i) { return i < in.size() ? in[i].dtype : DType::kUndefined; }

// Activations FusedConv / FusedMatMul carry, as the unary kernels' descriptor.
bool to_unary(const cpu::Activation& a, bool* has, UnaryOp* op) {
  using K = cpu::Activation::Kind;
  *has = a.kind != K::kNone;
  switch (a.kind) {
    case K::kNone: return true;
    case K::kRelu: *op = {UnaryKind::kRelu}; return true;
    case K::kLeakyRelu: *op = {UnaryKind::kLeakyRelu, a.alpha}; return true;
    case K::kClip: *op = {UnaryKind::kClip, a.alpha, a.beta}; return true;
    case K::kSigmoid: *op = {UnaryKind::kSigmoid}; return true;
    case K::kTanh: *op = {UnaryKind::kTanh}; return true;
    case K::kHardSigmoid: *op = {UnaryKind::kHardSigmoid, a.alpha, a.beta}; return true;
    case K::kHardSwish: *op = {UnaryKind::kHardSwish}; return true;
    case K::kGelu: *op = {UnaryKind::kGelu}; return true;
    case K::kGeluTanh: return false;  // no tanh-GELU kernel yet
  }
  return false;
}

std::string why_not(const ir::Node& n, const std::vector<ir::ValueType>& in) {
  const std::string& op = n.op_type;
  const bool internal = n.domain == ops::kInternalDomain;
  if (!n.domain.empty() && n.domain != "ai.onnx" && !internal) return "no GPU kernel for domain " + n.domain;
  const DType t0 = dtype_of(in, 0);
  const std::string dtype_reason = "no GPU kernel for " + op + " on " + dtype_name(t0) + " (float32, float16)";
  auto attr_string = [&](const char* name, const std::string& def) {
    const ir::Attribute* a = n.attr(name);
    return a && a->kind == ir::Attribute::Kind::kString ? a->s : def;
  };
  auto attr_int = [&](const char* name, int64_t def) {
    const ir::Attribute* a = n.attr(name);
    return a && a->kind == ir::Attribute::Kind::kInt ? a->i : def;
  };
  if (!internal && unary_table().count(op)) {
    if (!is_float(t0)) return dtype_reason;
    if (op == "Gelu" && attr_string("approximate", "none") != "none") return "no GPU kernel for tanh-approximated Gelu";
    return "";
  }
  if (!internal && binary_table().count(op)) {
    if (n.inputs.size() != 2) return "no GPU kernel for " + op + " with " + std::to_string(n.inputs.size()) + " inputs";
    if (!is_float(t0) || dtype_of(in, 1) != t0) return dtype_reason;
    return "";
  }
  if (!internal && (op == "Softmax" || op == "LogSoftmax")) {
    if (!is_float(t0)) return dtype_reason;
    // Without the attribute the default depends on the opset (1 before 13, -1 from 13), which
    // this query does not see: only rank 2, where both mean the last axis, is taken.
    const int64_t r = rank_of(in, 0);
    const bool last = n.attr("axis") ? (attr_int("axis", -1) == -1 || attr_int("axis", -1) == r - 1) : r == 2;
    if (!last) return "no GPU kernel for " + op + " over an axis other than the last";
    return "";
  }
  if (!internal && op == "LayerNormalization") {
    if (!is_float(t0) || dtype_of(in, 1) != t0) return dtype_reason;
    const int64_t axis = attr_int("axis", -1), r = rank_of(in, 0);
    if (axis != -1 && (r < 0 || axis != r - 1)) return "no GPU kernel for LayerNormalization over more than the last axis";
    for (size_t i = 1; i < n.outputs.size(); ++i)
      if (!n.outputs[i].empty()) return "no GPU kernel for LayerNormalization's mean and inverse std outputs";
    return "";
  }
  if ((!internal && (op == "MatMul" || op == "Gemm")) || (internal && op == "FusedMatMul")) {
    if (!is_float(t0) || dtype_of(in, 1) != t0) return dtype_reason;
    const int64_t ra = rank_of(in, 0), rb = rank_of(in, 1);
    if (ra < 2 || rb < 2) return "no GPU kernel for " + op + " of rank-1 or unknown-rank operands";
    if (ra > 2 && rb > 2 && ra != rb) return "no GPU kernel for " + op + " broadcasting batches of different ranks";
    if (op == "FusedMatMul") {
      cpu::Activation a;
      const ir::Attribute* p = n.attr("activation_params");
      bool has = false;
      UnaryOp u;
      if (!cpu::Activation::parse(attr_string("activation", ""), p ? p->floats : std::vector<float>{}, &a) ||
          !to_unary(a, &has, &u))
        return "no GPU kernel for FusedMatMul's activation " + attr_string("activation", "");
    }
    return "";
  }
  if ((!internal && op == "Conv") || (internal && op == "FusedConv")) {
    if (!is_float(t0) || dtype_of(in, 1) != t0) return dtype_reason;
    if (rank_of(in, 1) != 4) return "no GPU kernel for " + op + " other than 2-D";
    if (attr_string("auto_pad", "NOTSET") != "NOTSET") return "no GPU kernel for " + op + " with auto_pad";
    if (internal) {
      if (attr_int("channels_last", 0) != 0) return "no GPU kernel for channels-last FusedConv (a CPU layout)";
      cpu::Activation a;
      const ir::Attribute* p = n.attr("activation_params");
      bool has = false;
      UnaryOp u;
      if (!cpu::Activation::parse(attr_string("activation", ""), p ? p->floats : std::vector<float>{}, &a) ||
          !to_unary(a, &has, &u))
        return "no GPU kernel for FusedConv's activation " + attr_string("activation", "");
    }
    return "";
  }
  if (!internal && (op == "MaxPool" || op == "AveragePool")) {
    if (!is_float(t0)) return dtype_reason;
    if (rank_of(in, 0) != 4) return "no GPU kernel for " + op + " other than 2-D";
    if (n.outputs.size() > 1 && !n.outputs[1].empty()) return "no GPU kernel for MaxPool's indices";
    if (attr_string("auto_pad", "NOTSET") != "NOTSET") return "no GPU kernel for " + op + " with auto_pad";
    return "";
  }
  if (!internal && op == "GlobalAveragePool") return is_float(t0) ? "" : dtype_reason;
  if (!internal && alias_ops().count(op)) return movable(t0) ? "" : "no GPU kernel for " + op + " on " + dtype_name(t0);
  if (!internal && op == "Transpose") {
    if (!movable(t0)) return "no GPU kernel for Transpose on " + std::string(dtype_name(t0));
    return rank_of(in, 0) > kMaxCopyRank ? "no GPU kernel for Transpose above rank 8" : "";
  }
  if (!internal && op == "Gather") {
    if (!movable(t0)) return "no GPU kernel for Gather on " + std::string(dtype_name(t0));
    return dtype_of(in, 1) == DType::kInt64 ? "" : "no GPU kernel for Gather with int32 indices";
  }
  if (!internal && op == "Concat") {
    for (size_t i = 0; i < n.inputs.size(); ++i)
      if (dtype_of(in, i) != t0) return "no GPU kernel for Concat of mixed dtypes";
    return movable(t0) ? "" : "no GPU kernel for Concat on " + std::string(dtype_name(t0));
  }
  return "no GPU kernel for " + (internal ? n.domain + "." + op : op);
}

// ---- Compiled steps ----------------------------------------------------------------------------

struct Step {
  ir::Node node;
  std::unique_ptr<ops::Op> cpu_op;  // for shape inference
  std::vector<int> in, out;         // value slots (-1: absent)
  // Attributes read once.
  UnaryOp unary;
  bool has_activation = false;
  BinaryKind binary = BinaryKind::kAdd;
  bool log_softmax = false;
  float epsilon = 1e-5f, alpha = 1.f, beta = 1.f;
  bool trans_a = false, trans_b = false;
  ops::WindowParams window;
  int64_t group = 1, axis = 0;
  bool count_include_pad = false;
  std::vector<int64_t> perm;
};

struct DeviceValue {
  void* ptr = nullptr;
  DType dtype = DType::kUndefined;
  Shape shape;
  int root = -1;  // the slot whose buffer this aliases (itself when it owns one); -1: not set
};

// A 2-D window (Conv, pooling) resolved for one input: kernel (from the weights when the node
// has no kernel_shape), strides, dilations and the four pads.
struct Window2d {
  int64_t kernel[2], strides[2], dilations[2], pads[4];
};
Result<Window2d> resolve_window(const ops::WindowParams& params, const Shape& x, const Shape* weights) {
  ops::WindowParams p = params;
  if (p.kernel.empty() && weights) p.kernel = {(*weights)[2], (*weights)[3]};
  HI_RETURN_IF_ERROR(p.resolve_rank(2));
  std::vector<int64_t> pads, out;
  HI_RETURN_IF_ERROR(p.output_dims({x[2], x[3]}, &pads, &out));
  Window2d w;
  for (size_t i = 0; i < 2; ++i) {
    w.kernel[i] = p.kernel[i];
    w.strides[i] = p.strides[i];
    w.dilations[i] = p.dilations[i];
  }
  for (size_t i = 0; i < 4; ++i) w.pads[i] = pads[i];
  return w;
}

class GpuPartitionRunner final : public runtime::PartitionRunner {
 public:
  ~GpuPartitionRunner() override {
    if (constants_.empty() || !set_device(device_).is_ok()) return;
    for (auto& [slot, ptr] : constants_) (void)device_free(ptr);
  }
  static Result<std::shared_ptr<GpuPartitionRunner>> compile(const runtime::PartitionSpec& spec);
  Status run(const std::vector<const Tensor*>& inputs, std::vector<Tensor>* outputs) const override;
  int device() const { return device_; }

 private:
  int device_ = 0;
  std::map<std::string, int> slots_;
  std::vector<std::string> names_;
  std::vector<int> input_slots_, output_slots_;
  std::vector<bool> input_constant_;
  std::vector<Step> steps_;
  std::vector<int> last_use_;  // per slot: the last step reading it (outputs: steps_.size())
  // Weights on the device, uploaded on the first run.
  mutable std::mutex constants_mutex_;
  mutable std::map<int, void*> constants_;

  int slot(const std::string& name) {
    auto [it, inserted] = slots_.emplace(name, static_cast<int>(names_.size()));
    if (inserted) names_.push_back(name);
    return it->second;
  }
  Status launch(const Step& s, std::vector<DeviceValue>& v, const std::vector<const Tensor*>& host_constants,
                Stream stream) const;
};

Result<std::shared_ptr<GpuPartitionRunner>> GpuPartitionRunner::compile(const runtime::PartitionSpec& spec) {
  auto r = std::make_shared<GpuPartitionRunner>();
  const size_t colon = spec.device.find(':');
  r->device_ = colon == std::string::npos ? 0 : std::stoi(spec.device.substr(colon + 1));
  for (const ir::ValueInfo& in : spec.inputs) {
    r->input_slots_.push_back(r->slot(in.name));
    r->input_constant_.push_back(spec.constants.count(in.name) > 0);
  }
  for (const ir::Node& n : spec.nodes) {
    std::vector<ir::ValueType> in_types;
    for (const std::string& i : n.inputs) in_types.push_back(i.empty() ? ir::ValueType{} : spec.types.at(i));
    const std::string reason = why_not(n, in_types);
    if (!reason.empty()) return error(StatusCode::kUnsupported, n.describe(), ": ", reason);
    Step s;
    s.node = n;
    const ops::OpEntry* entry = ops::find_op(n.domain == "ai.onnx" ? "" : n.domain, n.op_type);
    HI_RETURN_IF(!entry, kInternal, n.describe(), ": no op to infer its shapes");
    s.cpu_op = entry->make();
    auto opset = spec.opsets.find(n.domain == "ai.onnx" ? "" : n.domain);
    ops::InitContext ictx(s.node, opset == spec.opsets.end() ? 1 : opset->second);
    HI_RETURN_IF_ERROR(s.cpu_op->init(ictx));
    HI_RETURN_IF_ERROR(ictx.status());
    // The attributes the kernels take.
    const std::string& op = n.op_type;
    if (unary_table().count(op)) {
      s.unary.kind = unary_table().at(op);
      if (op == "LeakyRelu") s.unary.alpha = ictx.get_float("alpha", 0.01f);
      if (op == "Elu") s.unary.alpha = ictx.get_float("alpha", 1.f);
      if (op == "Selu") {
        s.unary.alpha = ictx.get_float("alpha", 1.67326319217681884765625f);
        s.unary.beta = ictx.get_float("gamma", 1.05070102214813232421875f);
      }
      if (op == "HardSigmoid") {
        s.unary.alpha = ictx.get_float("alpha", 0.2f);
        s.unary.beta = ictx.get_float("beta", 0.5f);
      }
    } else if (binary_table().count(op) && n.domain != ops::kInternalDomain) {
      s.binary = binary_table().at(op);
    } else if (op == "Softmax" || op == "LogSoftmax") {
      s.log_softmax = op == "LogSoftmax";
    } else if (op == "LayerNormalization") {
      s.epsilon = ictx.get_float("epsilon", 1e-5f);
    } else if (op == "Gemm") {
      s.alpha = ictx.get_float("alpha", 1.f);
      s.beta = ictx.get_float("beta", 1.f);
      s.trans_a = ictx.get_int("transA", 0) != 0;
      s.trans_b = ictx.get_int("transB", 0) != 0;
    } else if (op == "FusedMatMul" || op == "FusedConv") {
      cpu::Activation a;
      cpu::Activation::parse(ictx.get_string("activation", ""), ictx.get_floats("activation_params"), &a);
      to_unary(a, &s.has_activation, &s.unary);
    }
    if (op == "Conv" || op == "FusedConv") {
      s.window.parse(ictx, true);
      s.group = ictx.get_int("group", 1);
    } else if (op == "MaxPool" || op == "AveragePool") {
      s.window.parse(ictx, true);
      s.count_include_pad = ictx.get_int("count_include_pad", 0) != 0;
    } else if (op == "Transpose") {
      s.perm = ictx.get_ints("perm");
    } else if (op == "Gather" || op == "Concat") {
      s.axis = ictx.get_int("axis", 0);
    }
    for (const std::string& i : n.inputs) s.in.push_back(i.empty() ? -1 : r->slot(i));
    for (const std::string& o : n.outputs) s.out.push_back(o.empty() ? -1 : r->slot(o));
    r->steps_.push_back(std::move(s));
  }
  for (const ir::ValueInfo& out : spec.outputs) r->output_slots_.push_back(r->slot(out.name));
  r->last_use_.assign(r->names_.size(), -1);
  for (size_t k = 0; k < r->steps_.size(); ++k)
    for (int i : r->steps_[k].in)
      if (i >= 0) r->last_use_[static_cast<size_t>(i)] = static_cast<int>(k);
  for (int o : r->output_slots_) r->last_use_[static_cast<size_t>(o)] = static_cast<int>(r->steps_.size());
  return r;
}

Status GpuPartitionRunner::launch(const Step& s, std::vector<DeviceValue>& v,
                                  const std::vector<const Tensor*>& host_constants, Stream stream) const {
  auto in = [&](size_t i) -> DeviceValue& { return v[static_cast<size_t>(s.in[i])]; };
  auto has_in = [&](size_t i) { return i < s.in.size() && s.in[i] >= 0; };
  DeviceValue& y = v[static_cast<size_t>(s.out[0])];
  const std::string& op = s.node.op_type;
  const DType dt = in(0).dtype;
  if (unary_table().count(op)) return unary(s.unary, dt, in(0).ptr, y.ptr, shape_numel(y.shape), stream);
  if (binary_table().count(op) && s.node.domain != ops::kInternalDomain) {
    HI_ASSIGN_OR_RETURN(const BroadcastIndex index, make_broadcast_index(in(0).shape, in(1).shape));
    return binary(s.binary, dt, in(0).ptr, in(1).ptr, y.ptr, index, stream);
  }
  if (op == "Softmax" || op == "LogSoftmax") {
    const int64_t cols = y.shape.empty() ? 1 : y.shape.back();
    return softmax_rows(dt, in(0).ptr, y.ptr, cols ? shape_numel(y.shape) / cols : 0, cols, s.log_softmax, stream);
  }
  if (op == "LayerNormalization") {
    const int64_t cols = y.shape.empty() ? 1 : y.shape.back();
    return layer_norm_rows(dt, in(0).ptr, in(1).ptr, has_in(2) ? in(2).ptr : nullptr, y.ptr,
                           cols ? shape_numel(y.shape) / cols : 0, cols, s.epsilon, stream);
  }
  if (op == "MatMul" || op == "Gemm" || op == "FusedMatMul") {
    const Shape& a = in(0).shape;
    const Shape& b = in(1).shape;
    MatMulDesc d;
    d.trans_a = s.trans_a;
    d.trans_b = s.trans_b;
    d.m = s.trans_a ? a[a.size() - 1] : a[a.size() - 2];
    d.k = s.trans_a ? a[a.size() - 2] : a[a.size() - 1];
    d.n = s.trans_b ? b[b.size() - 2] : b[b.size() - 1];
    const Shape batch_a(a.begin(), a.end() - 2), batch_b(b.begin(), b.end() - 2);
    const int64_t na = shape_numel(batch_a), nb = shape_numel(batch_b);
    if (b.size() == 2 && !s.trans_a) {  // [.., m, k] x [k, n]: one product over every row
      d.m *= na;
      d.batch = 1;
    } else {
      HI_RETURN_IF(!(batch_a == batch_b || nb == 1 || na == 1), kUnsupported, s.node.describe(),
                   ": GPU MatMul broadcasts a batch only when one side has none (", shape_to_string(a), " x ",
                   shape_to_string(b), ")");
      d.batch = std::max(na, nb);
      d.a_batch_stride = na == 1 ? 0 : d.m * d.k;
      d.b_batch_stride = nb == 1 ? 0 : d.k * d.n;
      d.y_batch_stride = d.m * d.n;
    }
    d.alpha = s.alpha;
    const void* c = nullptr;
    if (op == "Gemm" && has_in(2)) {
      const Shape& cs = in(2).shape;
      c = in(2).ptr;
      d.beta = s.beta;
      // C broadcasts to [m, n]: a stride of 0 along each dim it lacks or has as 1.
      const int64_t rows = cs.size() == 2 ? cs[0] : 1, cols = cs.empty() ? 1 : cs.back();
      d.c_row_stride = rows == 1 ? 0 : cols;
      d.c_col_stride = cols == 1 ? 0 : 1;
    } else if (op == "FusedMatMul") {
      c = in(2).ptr;  // the bias, [n] values
      d.beta = 1.f;
      d.c_row_stride = 0;
      d.c_col_stride = 1;
    }
    HI_RETURN_IF_ERROR(matmul(dt, d, in(0).ptr, in(1).ptr, c, y.ptr, stream));
    if (op == "FusedMatMul") {
      if (has_in(3)) {
        HI_ASSIGN_OR_RETURN(const BroadcastIndex index, make_broadcast_index(y.shape, in(3).shape));
        HI_RETURN_IF_ERROR(binary(BinaryKind::kAdd, dt, y.ptr, in(3).ptr, y.ptr, index, stream));
      }
      if (s.has_activation) return unary(s.unary, dt, y.ptr, y.ptr, shape_numel(y.shape), stream);
    }
    return Status::ok();
  }
  if (op == "Conv" || op == "FusedConv") {
    const Shape& x = in(0).shape;
    const Shape& w = in(1).shape;
    HI_ASSIGN_OR_RETURN(const Window2d win, resolve_window(s.window, x, &w));
    Conv2dDesc d;
    d.batch = x[0];
    d.in_channels = x[1];
    d.in_h = x[2];
    d.in_w = x[3];
    d.out_channels = w[0];
    d.out_h = y.shape[2];
    d.out_w = y.shape[3];
    d.groups = s.group;
    d.kernel_h = win.kernel[0];
    d.kernel_w = win.kernel[1];
    d.stride_h = win.strides[0];
    d.stride_w = win.strides[1];
    d.dilation_h = win.dilations[0];
    d.dilation_w = win.dilations[1];
    d.pad_top = win.pads[0];
    d.pad_left = win.pads[1];
    d.has_activation = s.has_activation;
    d.activation = s.unary;
    return conv2d(dt, d, in(0).ptr, in(1).ptr, has_in(2) ? in(2).ptr : nullptr, has_in(3) ? in(3).ptr : nullptr, y.ptr,
                  stream);
  }
  if (op == "MaxPool" || op == "AveragePool") {
    const Shape& x = in(0).shape;
    HI_ASSIGN_OR_RETURN(const Window2d win, resolve_window(s.window, x, nullptr));
    Pool2dDesc d;
    d.batch = x[0];
    d.channels = x[1];
    d.in_h = x[2];
    d.in_w = x[3];
    d.out_h = y.shape[2];
    d.out_w = y.shape[3];
    d.kernel_h = win.kernel[0];
    d.kernel_w = win.kernel[1];
    d.stride_h = win.strides[0];
    d.stride_w = win.strides[1];
    d.dilation_h = win.dilations[0];
    d.dilation_w = win.dilations[1];
    d.pad_top = win.pads[0];
    d.pad_left = win.pads[1];
    d.pad_bottom = win.pads[2];
    d.pad_right = win.pads[3];
    d.count_include_pad = s.count_include_pad;
    return pool2d(op == "MaxPool" ? PoolKind::kMax : PoolKind::kAverage, dt, d, in(0).ptr, y.ptr, stream);
  }
  if (op == "GlobalAveragePool") {
    const Shape& x = in(0).shape;
    return reduce(ReduceKind::kMean, dt, in(0).ptr, y.ptr, x[0] * x[1], shape_numel(x) / std::max<int64_t>(x[0] * x[1], 1), 1,
                  stream);
  }
  if (op == "Transpose") {
    std::vector<int64_t> perm = s.perm;
    if (perm.empty())
      for (size_t i = in(0).shape.size(); i-- > 0;) perm.push_back(static_cast<int64_t>(i));
    HI_ASSIGN_OR_RETURN(const StridedCopy c, transpose_copy(in(0).shape, perm));
    return strided_copy(c, static_cast<int>(dtype_size(dt)), in(0).ptr, y.ptr, stream);
  }
  if (op == "Gather") {
    const Shape& x = in(0).shape;
    const int64_t axis = s.axis < 0 ? s.axis + static_cast<int64_t>(x.size()) : s.axis;
    int64_t outer = 1, inner = 1;
    for (int64_t k = 0; k < axis; ++k) outer *= x[static_cast<size_t>(k)];
    for (size_t k = static_cast<size_t>(axis) + 1; k < x.size(); ++k) inner *= x[k];
    return gather(static_cast<int>(dtype_size(dt)), in(0).ptr, static_cast<const int64_t*>(in(1).ptr), y.ptr, outer,
                  x[static_cast<size_t>(axis)], inner, shape_numel(in(1).shape), nullptr, stream);
  }
  if (op == "Concat") {
    const int64_t rank = static_cast<int64_t>(y.shape.size());
    const int64_t axis = s.axis < 0 ? s.axis + rank : s.axis;
    int64_t offset = 0;
    for (size_t i = 0; i < s.in.size(); ++i) {
      if (!has_in(i)) continue;
      StridedCopy c;
      c.rank = static_cast<int>(rank);
      contiguous_strides(in(i).shape, c.src_strides);
      contiguous_strides(y.shape, c.dst_strides);
      for (int64_t k = 0; k < rank; ++k) c.dims[k] = in(i).shape[static_cast<size_t>(k)];
      c.dst_offset = offset * c.dst_strides[axis];
      HI_RETURN_IF_ERROR(strided_copy(c, static_cast<int>(dtype_size(dt)), in(i).ptr, y.ptr, stream));
      offset += in(i).shape[static_cast<size_t>(axis)];
    }
    return Status::ok();
  }
  (void)host_constants;
  return error(StatusCode::kInternal, s.node.describe(), ": no GPU launch for ", op);
}

Status GpuPartitionRunner::run(const std::vector<const Tensor*>& inputs, std::vector<Tensor>* outputs) const {
  HI_RETURN_IF(inputs.size() != input_slots_.size(), kInternal, "GPU partition got ", inputs.size(), " inputs, expected ",
               input_slots_.size());
  HI_RETURN_IF_ERROR(set_device(device_));
  HI_ASSIGN_OR_RETURN(CachingAllocator* alloc, device_allocator(device_));
  const Stream stream = per_thread_stream();
  std::vector<DeviceValue> v(names_.size());
  std::vector<const Tensor*> host(names_.size(), nullptr);  // host values known here (inputs)
  std::vector<int> refs(names_.size(), 0);                    // live aliases per owning slot
  std::vector<bool> owned(names_.size(), false);              // the buffer is this run's to free
  // Returns every buffer this run still holds, also on the way out of an error.
  struct Release {
    std::vector<DeviceValue>& v;
    std::vector<bool>& owned;
    CachingAllocator* alloc;
    Stream stream;
    ~Release() {
      for (size_t i = 0; i < v.size(); ++i)
        if (owned[i] && v[i].ptr) (void)alloc->free(v[i].ptr, stream);
    }
  } release{v, owned, alloc, stream};

  for (size_t i = 0; i < inputs.size(); ++i) {
    const int slot = input_slots_[i];
    const Tensor* t = inputs[i];
    HI_RETURN_IF(!t, kInvalidArgument, "GPU partition input '", names_[static_cast<size_t>(slot)], "' is absent");
    DeviceValue& d = v[static_cast<size_t>(slot)];
    d.dtype = t->dtype();
    d.shape = t->shape();
    d.root = slot;
    host[static_cast<size_t>(slot)] = t;
    if (t->nbytes() == 0) continue;
    if (input_constant_[i]) {
      std::lock_guard<std::mutex> lock(constants_mutex_);
      auto it = constants_.find(slot);
      if (it == constants_.end()) {
        void* p = nullptr;
        HI_RETURN_IF_ERROR(device_malloc(&p, t->nbytes()));  // held for the runner's life
        HI_RETURN_IF_ERROR(copy_to_device(p, t->raw(), t->nbytes()));
        it = constants_.emplace(slot, p).first;
      }
      d.ptr = it->second;
      continue;
    }
    HI_ASSIGN_OR_RETURN(d.ptr, alloc->allocate(t->nbytes(), stream));
    owned[static_cast<size_t>(slot)] = true;
    HI_RETURN_IF_ERROR(copy_async(d.ptr, t->raw(), t->nbytes(), CopyKind::kHostToDevice, stream));
  }

  for (size_t k = 0; k < steps_.size(); ++k) {
    const Step& s = steps_[k];
    // Output shapes from the op's own inference over the concrete input shapes.
    std::vector<ir::ValueType> types;
    std::vector<const ir::ValueType*> type_ptrs;
    std::vector<const Tensor*> values;
    types.reserve(s.in.size());
    for (int i : s.in) {
      if (i < 0) {
        type_ptrs.push_back(nullptr);
        values.push_back(nullptr);
        continue;
      }
      const DeviceValue& d = v[static_cast<size_t>(i)];
      types.push_back(ir::ValueType::concrete(d.dtype, d.shape));
      type_ptrs.push_back(&types.back());
      values.push_back(host[static_cast<size_t>(i)]);  // constants let Reshape & co. read their shape input
    }
    ops::InferContext ictx(s.node, type_ptrs, values, s.out.size());
    HI_RETURN_IF_ERROR(s.cpu_op->infer(ictx).with_context(s.node.describe()));
    for (size_t o = 0; o < s.out.size(); ++o) {
      if (s.out[o] < 0) continue;
      const ir::ValueType& t = ictx.output_type(o);
      HI_RETURN_IF(!t.is_static(), kInternal, s.node.describe(), ": output ", o, " has no concrete shape on the GPU");
      DeviceValue& d = v[static_cast<size_t>(s.out[o])];
      d.dtype = t.dtype;
      d.shape = t.concrete_shape();
    }
    DeviceValue& y = v[static_cast<size_t>(s.out[0])];
    if (alias_ops().count(s.node.op_type)) {  // same bytes, another shape
      const DeviceValue& x = v[static_cast<size_t>(s.in[0])];
      y.ptr = x.ptr;
      y.root = x.root;
      ++refs[static_cast<size_t>(x.root)];
    } else {
      const size_t bytes = static_cast<size_t>(shape_numel(y.shape)) * dtype_size(y.dtype);
      if (bytes > 0) {
        HI_ASSIGN_OR_RETURN(y.ptr, alloc->allocate(bytes, stream));
        owned[static_cast<size_t>(s.out[0])] = true;
      }
      y.root = s.out[0];
      HI_RETURN_IF_ERROR(launch(s, v, host, stream).with_context(s.node.describe()));
    }
    // Buffers whose last reader this was go back to the allocator (stream-ordered), once no
    // alias of them is live either.
    for (int i : s.in) {
      if (i < 0 || last_use_[static_cast<size_t>(i)] != static_cast<int>(k)) continue;
      const int root = v[static_cast<size_t>(i)].root;
      if (root != i) {
        if (--refs[static_cast<size_t>(root)] > 0 || last_use_[static_cast<size_t>(root)] > static_cast<int>(k)) continue;
      } else if (refs[static_cast<size_t>(i)] > 0) {
        continue;
      }
      if (root >= 0 && owned[static_cast<size_t>(root)] && v[static_cast<size_t>(root)].ptr) {
        HI_RETURN_IF_ERROR(alloc->free(v[static_cast<size_t>(root)].ptr, stream));
        owned[static_cast<size_t>(root)] = false;
      }
    }
  }

  outputs->clear();
  for (int slot : output_slots_) {
    const DeviceValue& d = v[static_cast<size_t>(slot)];
    Tensor t = Tensor::empty(d.dtype, d.shape);
    if (t.nbytes() > 0) HI_RETURN_IF_ERROR(copy_async(t.raw(), d.ptr, t.nbytes(), CopyKind::kDeviceToHost, stream));
    outputs->push_back(std::move(t));
  }
  return synchronize(stream);
}

}  // namespace

std::string partition_support(const ir::Node& node, const std::vector<ir::ValueType>& inputs) {
  return why_not(node, inputs);
}

Result<std::shared_ptr<runtime::PartitionRunner>> compile_partition(const runtime::PartitionSpec& spec) {
  HI_ASSIGN_OR_RETURN(auto runner, GpuPartitionRunner::compile(spec));
  HI_RETURN_IF_ERROR(kernel_self_check(runner->device()));
  return std::shared_ptr<runtime::PartitionRunner>(std::move(runner));
}

}  // namespace hi::gpu::HI_GPU_NS
