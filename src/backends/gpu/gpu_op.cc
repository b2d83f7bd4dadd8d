#include "backends/gpu/gpu_op.h"

#include "ops/internal.h"

namespace hi::gpu::HI_GPU_NS {

const GpuOpEntry* find_gpu_op(const std::string& domain, const std::string& op_type) {
  const std::string d = domain == "ai.onnx" ? "" : domain;
  for (const GpuOpEntry& e : gpu_op_list())
    if (d == e.domain && op_type == e.op_type) return &e;
  return nullptr;
}

std::string gpu_why_not(const ir::Node& node, const std::vector<ir::ValueType>& inputs) {
  const GpuOpEntry* e = find_gpu_op(node.domain, node.op_type);
  if (e) return e->why_not(node, inputs);
  if (!node.domain.empty() && node.domain != "ai.onnx" && node.domain != ops::kInternalDomain)
    return "no GPU kernel for domain " + node.domain;
  return "no GPU kernel for " + (node.domain == ops::kInternalDomain ? node.domain + "." + node.op_type : node.op_type);
}

std::string float_only_reason(const ir::Node& node, const std::vector<ir::ValueType>& inputs) {
  return "no GPU kernel for " + node.op_type + " on " + dtype_name(dtype_of(inputs, 0)) + " (float32, float16)";
}

bool is_movable(DType t) {
  if (t == DType::kUndefined || t == DType::kString) return false;
  const size_t size = dtype_size(t);
  return size == 1 || size == 2 || size == 4 || size == 8;
}

std::string movable_reason(const ir::Node& node, const std::vector<ir::ValueType>& inputs) {
  const DType t = dtype_of(inputs, 0);
  if (is_movable(t)) return "";
  if (t == DType::kUndefined && !inputs.empty() && inputs[0].kind != ir::ValueKind::kTensor)
    return "no GPU kernel for " + node.op_type + " of a sequence or optional";
  return "no GPU kernel for " + node.op_type + " on " + dtype_name(t);
}

std::string attr_string(const ir::Node& node, const char* name, const std::string& def) {
  const ir::Attribute* a = node.attr(name);
  return a && a->kind == ir::Attribute::Kind::kString ? a->s : def;
}

int64_t attr_int(const ir::Node& node, const char* name, int64_t def) {
  const ir::Attribute* a = node.attr(name);
  return a && a->kind == ir::Attribute::Kind::kInt ? a->i : def;
}

std::string rank_reason(const ir::Node& node, const std::vector<ir::ValueType>& inputs, size_t i, int64_t limit,
                        bool unknown_too) {
  const int64_t r = rank_of(inputs, i);
  if (r > limit) return "no GPU kernel for " + node.op_type + " above rank " + std::to_string(limit);
  if (r < 0 && unknown_too) return "no GPU kernel for " + node.op_type + " of unknown rank";
  return "";
}

bool has_unnamed_output(const ir::Node& node) {
  for (const std::string& o : node.outputs)
    if (o.empty()) return true;
  return false;
}

Result<AxisView> axis_view(const ir::Node& node, const Shape& shape, int64_t axis) {
  const auto rank = static_cast<int64_t>(shape.size());
  const int64_t a = axis < 0 ? axis + rank : axis;
  HI_RETURN_IF(a < 0 || a >= rank, kInvalidArgument, node.op_type, ": axis ", axis, " is out of range for ",
               shape_to_string(shape));
  AxisView v;
  v.n = shape[static_cast<size_t>(a)];
  for (int64_t d = 0; d < rank; ++d) {
    if (d < a) v.outer *= shape[static_cast<size_t>(d)];
    if (d > a) v.inner *= shape[static_cast<size_t>(d)];
  }
  return v;
}

namespace {
Result<const Tensor*> host_tensor(const LaunchContext& ctx, size_t i) {
  const Tensor* t = ctx.host_input(i);
  HI_RETURN_IF(!t, kInternal, "GPU ", ctx.node().op_type, ": input ", i, " ('",
               i < ctx.node().inputs.size() ? ctx.node().inputs[i] : std::string(), "') is not on the host");
  return t;
}
}  // namespace

Result<std::vector<int64_t>> host_ints(const LaunchContext& ctx, size_t i) {
  HI_ASSIGN_OR_RETURN(const Tensor* t, host_tensor(ctx, i));
  HI_RETURN_IF(t->dtype() != DType::kInt64 && t->dtype() != DType::kInt32, kInvalidArgument, ctx.node().op_type,
               ": input ", i, " must be int64, got ", t->type_string());
  return t->to_int64_vector();
}

Result<std::vector<double>> host_doubles(const LaunchContext& ctx, size_t i) {
  HI_ASSIGN_OR_RETURN(const Tensor* t, host_tensor(ctx, i));
  std::vector<double> v(static_cast<size_t>(t->numel()));
  for (int64_t k = 0; k < t->numel(); ++k) v[static_cast<size_t>(k)] = t->as_double(k);
  return v;
}

Status check_output_shape(const ir::Node& node, const Shape& planned, const Shape& inferred) {
  HI_RETURN_IF(planned != inferred, kInternal, "GPU ", node.op_type, ": the kernel's plan gives ",
               shape_to_string(planned), " but the op's inference ", shape_to_string(inferred));
  return Status::ok();
}

bool to_unary(const Activation& a, bool* has, UnaryOp* op) {
  using K = Activation::Kind;
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
    case K::kGeluTanh: *op = {UnaryKind::kGeluTanh}; return true;
  }
  return false;
}

std::string activation_why_not(const ir::Node& node) {
  Activation a;
  const ir::Attribute* p = node.attr("activation_params");
  bool has = false;
  UnaryOp u;
  const std::string name = attr_string(node, "activation", "");
  if (!Activation::parse(name, p ? p->floats : std::vector<float>{}, &a) || !to_unary(a, &has, &u))
    return "no GPU kernel for " + node.op_type + "'s activation " + name;
  return "";
}

void read_activation(ops::InitContext& ctx, bool* has, UnaryOp* op) {
  Activation a;
  Activation::parse(ctx.get_string("activation", ""), ctx.get_floats("activation_params"), &a);
  to_unary(a, has, op);
}

}  // namespace hi::gpu::HI_GPU_NS
