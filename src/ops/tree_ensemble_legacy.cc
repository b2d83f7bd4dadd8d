// Translation of the opset 1-3 tree ensemble attributes into a TreeModel.
#include "ops/tree_ensemble_legacy.h"

#include <map>

#include "ops/ml_util.h"

namespace hi::ops {

Status read_legacy_trees(InitContext& ctx, const std::string& label, const std::string& vote_prefix, int64_t n_targets,
                         TreeModel* model) {
  const auto tree_ids = ctx.get_ints("nodes_treeids");
  const auto node_ids = ctx.get_ints("nodes_nodeids");
  const auto features = ctx.get_ints("nodes_featureids");
  const auto modes = ctx.get_strings("nodes_modes");
  const auto values = get_floats_or_tensor(ctx, "nodes_values");
  const auto true_ids = ctx.get_ints("nodes_truenodeids");
  const auto false_ids = ctx.get_ints("nodes_falsenodeids");
  const auto missing = ctx.get_ints("nodes_missing_value_tracks_true");
  const auto vote_trees = ctx.get_ints(vote_prefix + "_treeids");
  const auto vote_nodes = ctx.get_ints(vote_prefix + "_nodeids");
  const auto vote_ids = ctx.get_ints(vote_prefix + "_ids");
  const auto vote_weights = get_floats_or_tensor(ctx, vote_prefix + "_weights");
  HI_RETURN_IF_ERROR(ctx.status());

  const size_t n = node_ids.size();
  if (n == 0) return ctx.fail(StatusCode::kInvalidModel, label, ": the ensemble has no nodes (nodes_nodeids is empty)");
  for (const auto& [name, size] : {std::pair<const char*, size_t>{"nodes_treeids", tree_ids.size()},
                                   {"nodes_featureids", features.size()},
                                   {"nodes_modes", modes.size()},
                                   {"nodes_truenodeids", true_ids.size()},
                                   {"nodes_falsenodeids", false_ids.size()}})
    if (size != n)
      return ctx.fail(StatusCode::kInvalidModel, label, ": ", name, " has ", size, " entries, nodes_nodeids has ", n);
  if (!values.empty() && values.size() != n)
    return ctx.fail(StatusCode::kInvalidModel, label, ": nodes_values has ", values.size(), " entries for ", n,
                    " nodes");
  if (!missing.empty() && missing.size() != n)
    return ctx.fail(StatusCode::kInvalidModel, label, ": nodes_missing_value_tracks_true has ", missing.size(),
                    " entries for ", n, " nodes");
  const size_t nv = vote_ids.size();
  if (vote_trees.size() != nv || vote_nodes.size() != nv || vote_weights.size() != nv)
    return ctx.fail(StatusCode::kInvalidModel, label, ": ", vote_prefix, "_treeids, _nodeids, _ids and _weights have ",
                    vote_trees.size(), ", ", vote_nodes.size(), ", ", nv, " and ", vote_weights.size(), " entries");

  std::map<std::pair<int64_t, int64_t>, int64_t> index;  // (tree, node) -> position
  std::map<int64_t, int64_t> roots;                      // tree -> its first node
  for (size_t i = 0; i < n; ++i) {
    if (!index.emplace(std::make_pair(tree_ids[i], node_ids[i]), static_cast<int64_t>(i)).second)
      return ctx.fail(StatusCode::kInvalidModel, label, ": node ", node_ids[i], " of tree ", tree_ids[i],
                      " is listed twice");
    roots.emplace(tree_ids[i], static_cast<int64_t>(i));
  }
  std::vector<std::vector<TreeModel::Vote>> votes(n);
  for (size_t v = 0; v < nv; ++v) {
    auto it = index.find({vote_trees[v], vote_nodes[v]});
    if (it == index.end())
      return ctx.fail(StatusCode::kInvalidModel, label, ": ", vote_prefix, " weight ", v, " is for node ",
                      vote_nodes[v], " of tree ", vote_trees[v], ", which does not exist");
    if (vote_ids[v] < 0 || vote_ids[v] >= n_targets)
      return ctx.fail(StatusCode::kInvalidModel, label, ": ", vote_prefix, "_ids[", v, "] = ", vote_ids[v],
                      " is outside [0, ", n_targets, ")");
    votes[static_cast<size_t>(it->second)].push_back({vote_ids[v], vote_weights[v]});
  }
  for (size_t i = 0; i < n; ++i) {
    TreeModel::Node node;
    if (!parse_tree_mode(modes[i], &node.mode))
      return ctx.fail(StatusCode::kUnsupported, label, ": node ", node_ids[i], " of tree ", tree_ids[i], " has mode '",
                      modes[i],
                      "', not one of BRANCH_LEQ, BRANCH_LT, BRANCH_GTE, BRANCH_GT, BRANCH_EQ, BRANCH_NEQ, LEAF");
    node.feature = features[i];
    node.threshold = values.empty() ? 0.0 : values[i];
    node.missing_tracks_true = !missing.empty() && missing[i] != 0;
    if (node.mode == TreeModel::Mode::kLeaf) {
      node.votes_begin = model->votes.size();
      model->votes.insert(model->votes.end(), votes[i].begin(), votes[i].end());
      node.votes_end = model->votes.size();
    } else {
      if (!votes[i].empty())
        return ctx.fail(StatusCode::kInvalidModel, label, ": node ", node_ids[i], " of tree ", tree_ids[i], " is a ",
                        modes[i], " node but has ", vote_prefix, " weights");
      auto t = index.find({tree_ids[i], true_ids[i]});
      auto f = index.find({tree_ids[i], false_ids[i]});
      if (t == index.end() || f == index.end())
        return ctx.fail(StatusCode::kInvalidModel, label, ": node ", node_ids[i], " of tree ", tree_ids[i],
                        " branches to node ", t == index.end() ? true_ids[i] : false_ids[i],
                        ", which the tree does not have");
      node.true_child = t->second;
      node.false_child = f->second;
    }
    model->nodes.push_back(node);
  }
  for (const auto& entry : roots) model->roots.push_back(entry.second);
  const Status s = model->validate(label, n_targets);
  if (!s.is_ok()) return ctx.fail(s.code(), s.message());
  return Status::ok();
}

}  // namespace hi::ops
