#include <functional>

#include "cpu/kernels.h"
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

Status optimize(ir::Model& model, const PassOptions& options, const TypeOracle& types, PassReport* report) {
  PassReport local;
  PassReport& r = report ? *report : local;
  if (options.precision != "fp32" && options.precision != "bf16")
    return error(StatusCode::kInvalidArgument, "precision must be fp32 or bf16, got '", options.precision, "'");
  if (options.level >= 1) {
    r["eliminate_identity"] += eliminate_identity(model);
    r["fold_conv_batchnorm"] += fold_conv_batchnorm(model, types);
  }
  if (options.level >= 2 || options.precision == "bf16") {
    r["fuse_conv"] += fuse_conv(model, types, options.precision);
  }
  if (options.level >= 2) {
    r["fuse_attention"] += fuse_attention(model, types);
    r["fuse_matmul"] += fuse_matmul(model, types);
  }
  // The channels-last layout is for the fast convolutions; the reference ones are channels-first.
  if (options.level >= 3 && options.channels_last && cpu::fast_kernels_available()) r["to_channels_last"] += to_channels_last(model, types);
  r["drop_unused_initializers"] += drop_unused_initializers(model.graph);
  return Status::ok();
}

}  // namespace hi::passes
