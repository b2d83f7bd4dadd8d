// FusedConv 1x1 -> FusedConv depthwise -> FusedConv 1x1 (channels-last, float32 tensors, constant
// weights, one precision: fp32, or bf16 for the pointwise products) becomes one InvertedResidual
// (com.hipinfer), the MobileNet block computed strip by strip with its expanded tensor kept in the
// cache. The expansion is optional (MobileNetV2's first block has none). Runs after the
// channels-last pass, on targets with the fused kernel.
#include "ops/internal.h"
#include "passes/pass_util.h"

namespace hi::passes {
namespace {

bool all_equal(const std::vector<int64_t>& v, int64_t value) {
  for (int64_t x : v)
    if (x != value) return false;
  return true;
}

// The compute precision fuse_conv gave a FusedConv ("fp32" when it gave none).
std::string precision_of(const ir::Node& n) {
  const ir::Attribute* p = n.attr("precision");
  return p ? p->s : "fp32";
}

// A channels-last float32 FusedConv reading a channels-last input, with constant weights of
// rank 4 (bias constant too when present), computing in float32 or bfloat16 with an activation
// the kernel has.
const Tensor* fusable_conv(const ir::Graph& g, const GraphIndex& index, const Target& target, const ir::Node& n) {
  if (n.domain != ops::kInternalDomain || n.op_type != "FusedConv" || int_attr(n, "channels_last", 0) != 1)
    return nullptr;
  if (precision_of(n) != "fp32" && precision_of(n) != "bf16") return nullptr;
  Activation act;
  const ir::Attribute* name = n.attr("activation");
  const ir::Attribute* params = n.attr("activation_params");
  if (!Activation::parse(name ? name->s : "", params ? params->floats : std::vector<float>{}, &act) ||
      !target.inverted_residual_activations.count(act.kind))
    return nullptr;
  if (n.inputs.size() < 2) return nullptr;
  const Tensor* w = constant(g, index, n.inputs[1]);
  if (!w || w->dtype() != DType::kFloat32 || w->rank() != 4) return nullptr;
  if (n.inputs.size() > 2 && !n.inputs[2].empty() && !constant(g, index, n.inputs[2])) return nullptr;
  if (!all_equal(ints_attr(n, "dilations"), 1)) return nullptr;
  return w;
}

// A 1x1 convolution with stride 1, no padding and one group (a product over channels).
bool pointwise(const ir::Node& n, const Tensor& w) {
  if (w.dim(2) != 1 || w.dim(3) != 1 || int_attr(n, "group", 1) != 1) return false;
  return all_equal(ints_attr(n, "strides"), 1) && all_equal(ints_attr(n, "pads"), 0);
}
bool has_residual(const ir::Node& n) { return n.inputs.size() > 3 && !n.inputs[3].empty(); }
std::string input_or_empty(const ir::Node& n, size_t i) { return i < n.inputs.size() ? n.inputs[i] : ""; }

void copy_activation(const ir::Node& from, const std::string& stage, ir::Node* to) {
  if (const ir::Attribute* a = from.attr("activation")) to->attributes[stage + "_activation"] = *a;
  if (const ir::Attribute* a = from.attr("activation_params")) to->attributes[stage + "_activation_params"] = *a;
}

}  // namespace

int fuse_inverted_residual(ir::Model& m, const Target& target) {
  if (!target.inverted_residual) return 0;
  ir::Graph& g = m.graph;
  GraphIndex index(g);
  std::set<int> dead;
  int fused = 0;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    ir::Node& project = g.nodes[i];
    const Tensor* wp = fusable_conv(g, index, target, project);
    if (!wp || !pointwise(project, *wp)) continue;
    const int di = index.producer(project.inputs[0]);
    if (di < 0 || dead.count(di) || !index.single_use(project.inputs[0])) continue;
    const ir::Node& dw = g.nodes[static_cast<size_t>(di)];
    const Tensor* wd = fusable_conv(g, index, target, dw);
    if (!wd || has_residual(dw) || wd->dim(1) != 1 || int_attr(dw, "group", 1) != wd->dim(0) ||
        wp->dim(1) != wd->dim(0) || precision_of(dw) != precision_of(project))
      continue;
    // The expansion, when the depthwise convolution reads one.
    const ir::Node* expand = nullptr;
    const int ei = index.producer(dw.inputs[0]);
    if (ei >= 0 && !dead.count(ei) && index.single_use(dw.inputs[0])) {
      const ir::Node& e = g.nodes[static_cast<size_t>(ei)];
      const Tensor* we = fusable_conv(g, index, target, e);
      if (we && pointwise(e, *we) && !has_residual(e) && we->dim(0) == wd->dim(0) &&
          precision_of(e) == precision_of(project))
        expand = &e;
    }
    ir::Node fusedn;
    fusedn.name = project.name;
    fusedn.domain = ops::kInternalDomain;
    fusedn.op_type = "InvertedResidual";
    fusedn.inputs = {expand ? expand->inputs[0] : dw.inputs[0],
                     expand ? expand->inputs[1] : "",
                     expand ? input_or_empty(*expand, 2) : "",
                     dw.inputs[1],
                     input_or_empty(dw, 2),
                     project.inputs[1],
                     input_or_empty(project, 2),
                     input_or_empty(project, 3)};
    fusedn.outputs = project.outputs;
    for (const char* key : {"kernel_shape", "strides", "pads", "dilations", "auto_pad"})
      if (const ir::Attribute* a = dw.attr(key)) fusedn.attributes[key] = *a;
    if (!dw.attr("kernel_shape")) {
      ir::Attribute k;
      k.kind = ir::Attribute::Kind::kInts;
      k.ints = {wd->dim(2), wd->dim(3)};
      fusedn.attributes["kernel_shape"] = k;
    }
    if (expand) copy_activation(*expand, "expand", &fusedn);
    copy_activation(dw, "depthwise", &fusedn);
    copy_activation(project, "project", &fusedn);
    if (const ir::Attribute* p = project.attr("precision"); p && p->s == "bf16") fusedn.attributes["precision"] = *p;
    if (expand) dead.insert(ei);
    dead.insert(di);
    project = std::move(fusedn);
    ++fused;
  }
  erase_nodes(g, dead);
  return fused;
}

}  // namespace hi::passes
