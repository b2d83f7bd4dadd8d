// Runs the convolutional part of a graph channels-last ([N, H, W, C]): the layout oneDNN's
// fastest float32 convolutions use on AVX-512. Convolutions and pools switch to their
// channels-last forms (FusedConv channels_last=1, ChannelsLastPool); elementwise ops between
// them (QDQ models' per-tensor QuantizeLinear / DequantizeLinear too, and binary ops that
// broadcast rank-4 or one-element operands) follow their inputs' layout; a Transpose enters the region and one leaves
// it for each reader that needs the original layout. Without this, every convolution would reorder its input and
// output.
#include <map>

#include "ops/internal.h"
#include "passes/pass_util.h"

namespace hi::passes {
namespace {

const std::set<std::string> kUnary = {"Relu", "Clip", "Sigmoid", "Tanh", "HardSwish", "HardSigmoid", "LeakyRelu"};
const std::set<std::string> kBinary = {"Add", "Mul", "Sub", "Div"};
const std::map<std::string, std::string> kPools = {{"MaxPool", "max"},
                                                   {"AveragePool", "average"},
                                                   {"GlobalAveragePool", "global_average"},
                                                   {"GlobalMaxPool", "global_max"}};

bool is_float_rank4(const TypeOracle& types, const std::string& v) {
  const ir::ValueType* t = types(v);
  return t && t->kind == ir::ValueKind::kTensor && t->dtype == DType::kFloat32 && t->rank() == 4;
}

bool is_single_float(const TypeOracle& types, const std::string& v) {
  const ir::ValueType* t = types(v);
  return t && t->kind == ir::ValueKind::kTensor && t->dtype == DType::kFloat32 && t->is_static() && t->rank() <= 4 &&
         shape_numel(t->concrete_shape()) == 1;
}

bool is_rank4(const TypeOracle& types, const std::string& v) {
  const ir::ValueType* t = types(v);
  return t && t->kind == ir::ValueKind::kTensor && t->rank() == 4;
}

// QuantizeLinear / DequantizeLinear with one scale and zero point for the whole tensor (a QDQ
// model's activations): elementwise, so they follow their input's layout like Relu; per-axis
// ones name an axis and keep the original layout.
bool is_per_tensor_qdq(const ir::Node& n, const TypeOracle& types) {
  if (!n.domain.empty() || (n.op_type != "QuantizeLinear" && n.op_type != "DequantizeLinear")) return false;
  if (n.inputs.size() < 2 || n.outputs.size() != 1 || !is_rank4(types, n.outputs[0])) return false;
  for (size_t i = 1; i < n.inputs.size(); ++i) {
    if (n.inputs[i].empty()) continue;
    const ir::ValueType* t = types(n.inputs[i]);
    if (!t || !t->is_static() || shape_numel(t->concrete_shape()) != 1) return false;
  }
  return true;
}

ir::Attribute ints_attr(std::vector<int64_t> v) {
  ir::Attribute a;
  a.kind = ir::Attribute::Kind::kInts;
  a.ints = std::move(v);
  return a;
}

ir::Node transpose(const std::string& in, const std::string& out, std::vector<int64_t> perm) {
  ir::Node n;
  n.name = out + "/Transpose";
  n.op_type = "Transpose";
  n.inputs = {in};
  n.outputs = {out};
  n.attributes["perm"] = ints_attr(std::move(perm));
  return n;
}

// The anchors: nodes with a channels-last form.
bool is_anchor(const ir::Node& n, const TypeOracle& types) {
  if (n.outputs.empty() || n.inputs.empty() || !is_float_rank4(types, n.inputs[0])) return false;
  if (n.domain == ops::kInternalDomain && n.op_type == "FusedConv") {
    const ir::Attribute* cl = n.attr("channels_last");
    return !cl || cl->i == 0;
  }
  if (!n.domain.empty()) return false;
  if (n.op_type == "Conv") return true;
  if (!kPools.count(n.op_type)) return false;
  // MaxPool's optional Indices output and storage order need the original layout.
  for (size_t i = 1; i < n.outputs.size(); ++i)
    if (!n.outputs[i].empty()) return false;
  return !n.attr("storage_order") || n.attr("storage_order")->i == 0;
}

}  // namespace

int to_channels_last(ir::Model& m, const TypeOracle& types) {
  ir::Graph& g = m.graph;
  // The pass walks the nodes in order: every value's layout is decided before it is read.
  if (!topo_sort(g)) return 0;
  int anchors = 0;
  for (const auto& n : g.nodes) anchors += is_anchor(n, types) ? 1 : 0;
  if (anchors == 0) return 0;

  std::set<std::string> last;                  // values now produced channels-last (under name + suffix)
  std::map<std::string, std::string> entered;  // channels-first value -> its channels-last copy
  const std::string suffix = "__channels_last";
  std::vector<ir::Node> out;
  out.reserve(g.nodes.size() + 8);
  auto cl_name = [&](const std::string& v) -> std::string {
    if (last.count(v)) return v + suffix;
    auto it = entered.find(v);
    if (it != entered.end()) return it->second;
    const std::string name = fresh_name(g, v + suffix);
    out.push_back(transpose(v, name, {0, 2, 3, 1}));
    entered[v] = name;
    return name;
  };
  std::set<std::string> needs_exit;  // channels-last values some reader wants channels-first
  int converted = 0;
  for (auto& n : g.nodes) {
    bool convert = false;
    if (is_anchor(n, types)) {
      convert = true;
    } else if (is_per_tensor_qdq(n, types)) {
      convert = last.count(n.inputs[0]) > 0;
    } else if ((n.domain.empty() || is_hard_swish(n)) && n.outputs.size() == 1 && is_float_rank4(types, n.outputs[0])) {
      // Elementwise: follows its inputs when they are already channels-last.
      if (kUnary.count(n.op_type)) {
        convert = last.count(n.inputs[0]) > 0;
        for (size_t i = 1; i < n.inputs.size(); ++i)
          convert = convert && (n.inputs[i].empty() || !is_float_rank4(types, n.inputs[i]));
      } else if (kBinary.count(n.op_type) && n.inputs.size() == 2) {
        // Broadcasting commutes with permuting both operands alike when both are rank 4 (an SE
        // block's [N, C, H, W] * [N, C, 1, 1]), and a one-element operand (hard-swish's + 3)
        // broadcasts the same in either layout; anything else keeps the original layout.
        auto fits = [&](const std::string& v) { return is_float_rank4(types, v) || is_single_float(types, v); };
        convert = fits(n.inputs[0]) && fits(n.inputs[1]) && (last.count(n.inputs[0]) || last.count(n.inputs[1]));
      }
    }
    if (!convert) {
      for (const auto& in : n.inputs)
        if (last.count(in)) needs_exit.insert(in);
      out.push_back(std::move(n));
      continue;
    }
    ++converted;
    if (n.domain.empty() && n.op_type == "Conv") {
      n.domain = ops::kInternalDomain;
      n.op_type = "FusedConv";
    }
    if (n.op_type == "FusedConv") {
      // A convolution reading a channels-first value with nothing else channels-last waiting on
      // it (a graph input) reads it as it is: no Transpose in front of the network.
      ir::Attribute mode;
      mode.kind = ir::Attribute::Kind::kInt;
      mode.i = last.count(n.inputs[0]) || entered.count(n.inputs[0]) ? 1 : 2;
      n.attributes["channels_last"] = mode;
      if (mode.i == 1) n.inputs[0] = cl_name(n.inputs[0]);
      if (n.inputs.size() > 3 && !n.inputs[3].empty()) n.inputs[3] = cl_name(n.inputs[3]);
    } else if (auto pool = kPools.find(n.op_type); pool != kPools.end() && n.domain.empty()) {
      ir::Attribute mode;
      mode.kind = ir::Attribute::Kind::kString;
      mode.s = pool->second;
      n.attributes.erase("storage_order");
      n.attributes["mode"] = mode;
      n.domain = ops::kInternalDomain;
      n.op_type = "ChannelsLastPool";
      n.inputs = {cl_name(n.inputs[0])};
      n.outputs.resize(1);
    } else if (is_per_tensor_qdq(n, types)) {
      n.inputs[0] = cl_name(n.inputs[0]);
    } else {
      for (auto& in : n.inputs)
        if (!in.empty() && is_float_rank4(types, in)) in = cl_name(in);
    }
    last.insert(n.outputs[0]);
    n.outputs[0] += suffix;
    out.push_back(std::move(n));
  }
  for (const auto& o : g.outputs)
    if (last.count(o.name)) needs_exit.insert(o.name);
  // Exits, each right after its producer so the order stays topological.
  std::vector<ir::Node> ordered;
  ordered.reserve(out.size() + needs_exit.size());
  for (auto& n : out) {
    std::string exit_of;
    if (!n.outputs.empty() && n.outputs[0].size() > suffix.size() &&
        n.outputs[0].compare(n.outputs[0].size() - suffix.size(), suffix.size(), suffix) == 0) {
      const std::string base = n.outputs[0].substr(0, n.outputs[0].size() - suffix.size());
      if (last.count(base) && needs_exit.count(base)) exit_of = base;
    }
    ordered.push_back(std::move(n));
    if (!exit_of.empty()) ordered.push_back(transpose(exit_of + suffix, exit_of, {0, 3, 1, 2}));
  }
  g.nodes = std::move(ordered);
  m.opsets[ops::kInternalDomain] = 1;
  return converted;
}

}  // namespace hi::passes
