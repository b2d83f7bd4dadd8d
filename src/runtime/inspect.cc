// inspect_model: a model's structure, size and estimated cost, without running it.
#include <filesystem>

#include "hipinfer/model_info.h"
#include "core/memory_budget.h"
#include "onnx/model_reader.h"
#include "ops/op.h"
#include "runtime/executor.h"
#include "runtime/placement.h"
#include "runtime/tensor_info.h"

namespace hi {
namespace {

void count_ops(const ir::Graph& g, ModelSummary& s) {
  for (const auto& n : g.nodes) {
    ++s.nodes;
    ++s.op_histogram[(n.domain.empty() ? "" : n.domain + ".") + n.op_type];
    for (const auto& [k, a] : n.attributes) {
      if (a.g) count_ops(*a.g, s);
      for (const auto& sg : a.graphs) count_ops(*sg, s);
    }
  }
}

void find_unsupported(const ir::Model& m, const ir::Graph& g, std::map<std::string, std::vector<std::string>>& out) {
  for (const auto& n : g.nodes) {
    const ops::OpEntry* e = ops::find_op(n.domain, n.op_type);
    const int64_t v = m.opset(n.domain);
    if (!e || v < e->since_version)
      out[(n.domain.empty() ? "" : n.domain + ".") + n.op_type + " (opset " + std::to_string(v) + ")"].push_back(
          !n.name.empty() || n.outputs.empty() ? n.name : "producing " + n.outputs[0]);
    for (const auto& [k, a] : n.attributes) {
      if (a.g) find_unsupported(m, *a.g, out);
      for (const auto& sg : a.graphs) find_unsupported(m, *sg, out);
    }
  }
}

// Each main-graph node, with the GPU kernel table's answer for it. An input's type is the one
// the model declares (graph inputs, initializers), else the one `ex` inferred (when given), else
// unknown.
void list_nodes(const ir::Graph& g, const std::map<std::string, ir::ValueType>& declared, const ops::Executor* ex,
                ModelSummary& s) {
  s.graph_nodes.clear();
  for (const auto& n : g.nodes) {
    std::vector<ir::ValueType> types;
    for (const std::string& in : n.inputs) {
      ir::ValueType t;
      if (auto it = declared.find(in); !in.empty() && it != declared.end()) t = it->second;
      else if (const ir::ValueType* inferred = ex && !in.empty() ? ex->value_type(in) : nullptr) t = *inferred;
      types.push_back(std::move(t));
    }
    s.graph_nodes.push_back(
        {n.name, (n.domain.empty() ? "" : n.domain + ".") + n.op_type, runtime::gpu_kernel_support(n, types)});
  }
}

int64_t numel_of(const ir::ValueType* t) {
  if (!t || !t->is_static()) return -1;
  return shape_numel(t->concrete_shape());
}

// FLOPs of one node from inferred shapes; -1 if its shapes are unknown.
int64_t node_flops(const ir::Node& n, const ops::Executor& ex) {
  auto type = [&](const std::string& name) { return name.empty() ? nullptr : ex.value_type(name); };
  const ir::ValueType* out = n.outputs.empty() ? nullptr : type(n.outputs[0]);
  const int64_t out_n = numel_of(out);
  if (n.op_type == "Conv" || n.op_type == "ConvTranspose") {
    const ir::ValueType* w = n.inputs.size() > 1 ? type(n.inputs[1]) : nullptr;
    const int64_t wn = numel_of(w);
    if (out_n < 0 || wn < 0 || !w->shape) return -1;
    const int64_t m = (*w->shape)[0].value;  // output channels per weight layout [M, C/g, k...]
    if (n.op_type == "Conv") return m ? 2 * out_n * (wn / m) : 0;
    const ir::ValueType* x = type(n.inputs[0]);
    return numel_of(x) < 0 ? -1 : 2 * numel_of(x) * (wn / std::max<int64_t>((*w->shape)[0].value, 1));
  }
  if (n.op_type == "MatMul" || n.op_type == "Gemm") {
    const ir::ValueType* a = type(n.inputs[0]);
    if (out_n < 0 || !a || !a->is_static() || a->rank() < 1) return -1;
    bool trans_a = false;
    if (const ir::Attribute* t = n.attr("transA")) trans_a = t->i != 0;
    const auto s = a->concrete_shape();
    const int64_t k = (n.op_type == "Gemm" && trans_a) ? s[0] : s.back();
    return 2 * out_n * k;
  }
  return out_n < 0 ? 0 : out_n;  // elementwise-like ops: one op per output element
}

}  // namespace

Result<ModelSummary> inspect_model(const std::string& path, const InspectOptions& options) {
  HI_ASSIGN_OR_RETURN(ir::Model model, onnx_reader::read_model_file(path));
  ModelSummary s;
  s.path = path;
  std::error_code ec;
  s.file_bytes = static_cast<int64_t>(std::filesystem::file_size(path, ec));
  s.ir_version = model.ir_version;
  s.opsets = model.opsets;
  s.producer = model.producer_name + (model.producer_version.empty() ? "" : " " + model.producer_version);
  count_ops(model.graph, s);
  for (const auto& [name, t] : model.graph.initializers) {
    s.parameters += t.numel();
    s.parameter_bytes += static_cast<int64_t>(t.nbytes());
  }
  std::map<std::string, std::vector<std::string>> unsupported;
  find_unsupported(model, model.graph, unsupported);
  for (const auto& [op, nodes] : unsupported) {
    std::string line = op + ": node" + (nodes.size() > 1 ? "s " : " ");
    for (size_t i = 0; i < nodes.size() && i < 8; ++i) line += (i ? ", '" : "'") + nodes[i] + "'";
    if (nodes.size() > 8) line += str(" and ", nodes.size() - 8, " more");
    s.unsupported.push_back(line);
  }
  // The inputs and outputs as the model declares them; what it leaves undeclared comes from the
  // one build below.
  for (const auto& in : model.graph.inputs) s.inputs.push_back(runtime::tensor_info(in));
  for (const auto& out : model.graph.outputs) s.outputs.push_back(runtime::tensor_info(out));
  std::map<std::string, ir::ValueType> declared;
  for (const auto& in : model.graph.inputs) declared[in.name] = in.type;
  for (const auto& [name, t] : model.graph.initializers) declared[name] = ir::ValueType::concrete(t.dtype(), t.shape());
  list_nodes(model.graph, declared, nullptr, s);
  if (!s.unsupported.empty()) return s;
  // One build, with symbolic dims fixed to the batch so every node has shapes for the FLOPs, and
  // folding bounded as in a session: describing a model never builds it twice or runs it.
  for (auto& in : model.graph.inputs)
    if (in.type.shape)
      for (auto& d : *in.type.shape)
        if (!d.is_known()) d = ir::Dim::known(options.batch);
  MemoryBudgetScope budget(std::make_shared<MemoryBudget>(options.memory_limit));
  ops::BuildOptions bo;
  bo.fold_constants = true;
  bo.fold_limit_bytes = options.constant_folding_limit;
  auto ex = ops::Executor::build(model.graph, model.opsets, bo);
  if (!ex.is_ok()) {
    s.load_error = ex.status().message();
    return s;
  }
  for (TensorInfo& out : s.outputs) {
    const ir::ValueType* t = ex.value()->value_type(out.name);
    if (!t || t->kind != ir::ValueKind::kTensor) continue;
    if (out.dtype == DType::kUndefined) out.dtype = t->dtype;
    if (!out.rank_known && t->has_rank()) {  // the rank; its dims may depend on the batch: unknown
      out.rank_known = true;
      out.shape.assign(t->rank(), -1);
      out.dim_names.assign(t->rank(), "");
    }
  }
  list_nodes(model.graph, declared, ex.value().get(), s);
  int64_t total = 0;
  bool known = true;
  for (const auto& n : model.graph.nodes) {
    const int64_t f = node_flops(n, *ex.value());
    if (f < 0) known = false;
    else total += f;
  }
  s.flops = known ? total : -1;
  return s;
}

}  // namespace hi
