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

std::string attr_string(const ir::Node& node, const char* name, const std::string& def) {
  const ir::Attribute* a = node.attr(name);
  return a && a->kind == ir::Attribute::Kind::kString ? a->s : def;
}

int64_t attr_int(const ir::Node& node, const char* name, int64_t def) {
  const ir::Attribute* a = node.attr(name);
  return a && a->kind == ir::Attribute::Kind::kInt ? a->i : def;
}

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

std::string activation_why_not(const ir::Node& node) {
  cpu::Activation a;
  const ir::Attribute* p = node.attr("activation_params");
  bool has = false;
  UnaryOp u;
  const std::string name = attr_string(node, "activation", "");
  if (!cpu::Activation::parse(name, p ? p->floats : std::vector<float>{}, &a) || !to_unary(a, &has, &u))
    return "no GPU kernel for " + node.op_type + "'s activation " + name;
  return "";
}

void read_activation(ops::InitContext& ctx, bool* has, UnaryOp* op) {
  cpu::Activation a;
  cpu::Activation::parse(ctx.get_string("activation", ""), ctx.get_floats("activation_params"), &a);
  to_unary(a, has, op);
}

}  // namespace hi::gpu::HI_GPU_NS
