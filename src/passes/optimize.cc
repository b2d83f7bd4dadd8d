#include <algorithm>
#include <functional>
#include <iterator>

#include "passes/pass_util.h"

namespace hi::passes {
namespace {

// Initializers no node, subgraph or graph output reads any more (weights replaced by folding).
int drop_unused_initializers(ir::Graph& g) {
  std::set<std::string> read;
  std::function<void(const ir::Graph&)> scan = [&](const ir::Graph& sg) {
    for (const auto& n : sg.nodes) {
      read.insert(n.inputs.begin(), n.inputs.end());
      for (const auto& [k, a] : n.attributes) {
        if (a.g) scan(*a.g);
        for (const auto& gg : a.graphs) scan(*gg);
      }
    }
    for (const auto& o : sg.outputs) read.insert(o.name);
  };
  scan(g);
  for (const auto& o : g.overridable_initializers) read.insert(o.name);
  int dropped = 0;
  for (auto it = g.initializers.begin(); it != g.initializers.end();) {
    if (read.count(it->first)) {
      ++it;
    } else {
      it = g.initializers.erase(it);
      ++dropped;
    }
  }
  return dropped;
}

}  // namespace

// Every pass, in the order they run.
const char* const kPassNames[] = {
    "eliminate_identity", "fold_conv_batchnorm", "fold_conv_affine",       "fuse_hard_swish",
    "fuse_layer_norm",    "fuse_conv",           "fuse_attention",         "fuse_matmul",
    "fuse_gemm",          "to_channels_last",    "fuse_inverted_residual", "fuse_qdq_conv",
    "fuse_qdq_add"};

Status optimize(ir::Model& model, const PassOptions& options, const TypeOracle& types, PassReport* report) {
  PassReport local;
  PassReport& r = report ? *report : local;
  if (options.precision != "fp32" && options.precision != "bf16")
    return error(StatusCode::kInvalidArgument, "precision must be fp32 or bf16, got '", options.precision, "'");
  for (const std::string& name : options.disabled) {
    if (std::find(std::begin(kPassNames), std::end(kPassNames), name) != std::end(kPassNames)) continue;
    std::string known;
    for (const char* p : kPassNames) known += std::string(known.empty() ? "" : ", ") + p;
    return error(StatusCode::kInvalidArgument, "no graph pass is named '", name, "' (the passes: ", known, ")");
  }
  // Runs one pass unless it is disabled, adding its rewrites to the report.
  auto pass = [&](const char* name, auto&& run) {
    if (!options.disabled.count(name)) r[name] += run();
  };
  if (options.level >= 1) {
    pass("eliminate_identity", [&] { return eliminate_identity(model); });
    pass("fold_conv_batchnorm", [&] { return fold_conv_batchnorm(model, types); });
    pass("fold_conv_affine", [&] { return fold_conv_affine(model, types); });
  }
  if (options.level >= 2) {
    pass("fuse_hard_swish", [&] { return fuse_hard_swish(model, types); });
    pass("fuse_layer_norm", [&] { return fuse_layer_norm(model, types); });
  }
  if (options.level >= 2 || options.precision == "bf16")
    pass("fuse_conv", [&] { return fuse_conv(model, types, options.precision); });
  if (options.level >= 2) {
    pass("fuse_attention", [&] { return fuse_attention(model, types); });
    pass("fuse_matmul", [&] { return fuse_matmul(model, types, options.precision); });
    pass("fuse_gemm", [&] { return fuse_gemm(model, types, options.precision); });
  }
  // The channels-last layout is for the fast convolutions; the reference ones are channels-first.
  if (options.level >= 3 && options.target.channels_last_convolutions) {
    pass("to_channels_last", [&] { return to_channels_last(model, types); });
    pass("fuse_inverted_residual", [&] { return fuse_inverted_residual(model, options.target); });
    pass("fuse_qdq_conv", [&] { return fuse_qdq_conv(model, options.target); });
    pass("fuse_qdq_add", [&] { return fuse_qdq_add(model); });
  }
  r["drop_unused_initializers"] += drop_unused_initializers(model.graph);
  return Status::ok();
}

}  // namespace hi::passes
