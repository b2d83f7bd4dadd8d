// Removes Identity nodes and inference-mode Dropout: readers take the input directly.
#include "passes/pass_util.h"

namespace hi::passes {
namespace {

bool is_noop(const ir::Graph& g, const GraphIndex& index, const ir::Node& n) {
  if (!n.domain.empty() || n.inputs.empty() || n.inputs[0].empty() || n.outputs.empty()) return false;
  if (n.op_type == "Identity") return true;
  if (n.op_type != "Dropout") return false;
  // Dropout is a copy at inference unless training_mode is set or the mask is read.
  if (n.outputs.size() > 1 && !n.outputs[1].empty()) return false;
  if (n.inputs.size() > 2 && !n.inputs[2].empty()) {
    const Tensor* training = constant(g, index, n.inputs[2]);
    if (!training || training->numel() != 1 || training->as_double(0) != 0) return false;
  }
  return true;
}

}  // namespace

int eliminate_identity(ir::Model& m) {
  ir::Graph& g = m.graph;
  GraphIndex index(g);
  std::map<std::string, std::string> rename;  // removed output -> its source
  std::set<int> dead;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const ir::Node& n = g.nodes[i];
    if (!is_noop(g, index, n) || index.is_graph_output(n.outputs[0])) continue;
    bool plain_readers = true;  // subgraph readers name the value inside the body: leave those
    for (int c : index.consumers(n.outputs[0])) {
      const ir::Node& r = g.nodes[static_cast<size_t>(c)];
      for (const auto& [k, a] : r.attributes) plain_readers = plain_readers && !a.g && a.graphs.empty();
    }
    if (!plain_readers) continue;
    std::string source = n.inputs[0];
    while (rename.count(source)) source = rename[source];
    rename[n.outputs[0]] = source;
    dead.insert(static_cast<int>(i));
  }
  for (auto& n : g.nodes)
    for (auto& in : n.inputs) {
      auto it = rename.find(in);
      while (it != rename.end()) {
        in = it->second;
        it = rename.find(in);
      }
    }
  erase_nodes(g, dead);
  return static_cast<int>(dead.size());
}

}  // namespace hi::passes
