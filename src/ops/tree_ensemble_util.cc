// Tree walking and aggregation for the tree ensemble ops.
#include "ops/tree_ensemble_util.h"

#include <algorithm>
#include <cmath>

namespace hi::ops {

bool parse_tree_mode(const std::string& name, TreeModel::Mode* mode) {
  using M = TreeModel::Mode;
  static const std::pair<const char*, M> kModes[] = {
      {"BRANCH_LEQ", M::kLeq}, {"BRANCH_LT", M::kLt},   {"BRANCH_GTE", M::kGte}, {"BRANCH_GT", M::kGt},
      {"BRANCH_EQ", M::kEq},   {"BRANCH_NEQ", M::kNeq}, {"LEAF", M::kLeaf}};
  for (const auto& [n, m] : kModes)
    if (name == n) {
      *mode = m;
      return true;
    }
  return false;
}

Status TreeModel::validate(const std::string& label, int64_t n_targets) const {
  const auto n = static_cast<int64_t>(nodes.size());
  for (int64_t i = 0; i < n; ++i) {
    const Node& node = nodes[static_cast<size_t>(i)];
    if (node.mode == Mode::kLeaf) {
      for (size_t v = node.votes_begin; v < node.votes_end; ++v)
        if (votes[v].target < 0 || votes[v].target >= n_targets)
          return error(StatusCode::kInvalidModel, label, ": a leaf votes for target ", votes[v].target,
                       ", outside [0, ", n_targets, ")");
      continue;
    }
    if (node.true_child < 0 || node.true_child >= n || node.false_child < 0 || node.false_child >= n)
      return error(StatusCode::kInvalidModel, label, ": node ", i, " branches to a node that does not exist");
    if (node.feature < 0) return error(StatusCode::kInvalidModel, label, ": node ", i, " reads feature ", node.feature);
  }
  for (int64_t r : roots)
    if (r < 0 || r >= n) return error(StatusCode::kInvalidModel, label, ": tree root ", r, " is not a node");
  // A walk must end: no cycles (depth-first, iterative; 1 = on the current path, 2 = finished).
  std::vector<uint8_t> state(nodes.size(), 0);
  for (int64_t r : roots) {
    if (state[static_cast<size_t>(r)] == 2) continue;
    std::vector<std::pair<int64_t, int>> stack = {{r, 0}};
    state[static_cast<size_t>(r)] = 1;
    while (!stack.empty()) {
      auto& [i, next] = stack.back();
      const Node& node = nodes[static_cast<size_t>(i)];
      if (node.mode == Mode::kLeaf || next == 2) {
        state[static_cast<size_t>(i)] = 2;
        stack.pop_back();
        continue;
      }
      const int64_t child = next++ == 0 ? node.true_child : node.false_child;
      if (state[static_cast<size_t>(child)] == 1)
        return error(StatusCode::kInvalidModel, label, ": the trees have a cycle through node ", child);
      if (state[static_cast<size_t>(child)] == 0) {
        state[static_cast<size_t>(child)] = 1;
        stack.emplace_back(child, 0);
      }
    }
  }
  return Status::ok();
}

int64_t TreeModel::max_feature() const {
  int64_t m = -1;
  for (const Node& node : nodes)
    if (node.mode != Mode::kLeaf) m = std::max(m, node.feature);
  return m;
}

const TreeModel::Node& TreeModel::leaf(const double* features, int64_t root) const {
  const Node* node = &nodes[static_cast<size_t>(root)];
  while (node->mode != Mode::kLeaf) {
    const double x = features[node->feature];
    bool go_true = false;
    if (std::isnan(x)) {
      go_true = node->missing_tracks_true;
    } else {
      const double t = node->threshold;
      switch (node->mode) {
        case Mode::kLeq: go_true = x <= t; break;
        case Mode::kLt: go_true = x < t; break;
        case Mode::kGte: go_true = x >= t; break;
        case Mode::kGt: go_true = x > t; break;
        case Mode::kEq: go_true = x == t; break;
        case Mode::kNeq: go_true = x != t; break;
        case Mode::kMember:
          go_true = std::find(members.begin() + static_cast<std::ptrdiff_t>(node->members_begin),
                              members.begin() + static_cast<std::ptrdiff_t>(node->members_end),
                              x) != members.begin() + static_cast<std::ptrdiff_t>(node->members_end);
          break;
        case Mode::kLeaf: break;
      }
    }
    node = &nodes[static_cast<size_t>(go_true ? node->true_child : node->false_child)];
  }
  return *node;
}

void aggregate_trees(const TreeModel& model, const double* features, TreeAggregate how, double* scores,
                     int64_t n_targets) {
  std::vector<bool> has(static_cast<size_t>(n_targets), false);
  std::fill(scores, scores + n_targets, 0.0);
  for (int64_t root : model.roots) {
    const TreeModel::Node& leaf = model.leaf(features, root);
    for (size_t v = leaf.votes_begin; v < leaf.votes_end; ++v) {
      const auto& vote = model.votes[v];
      double& s = scores[vote.target];
      const bool first = !has[static_cast<size_t>(vote.target)];
      switch (how) {
        case TreeAggregate::kSum:
        case TreeAggregate::kAverage: s += vote.weight; break;
        case TreeAggregate::kMin: s = first ? vote.weight : std::min(s, vote.weight); break;
        case TreeAggregate::kMax: s = first ? vote.weight : std::max(s, vote.weight); break;
      }
      has[static_cast<size_t>(vote.target)] = true;
    }
  }
  if (how == TreeAggregate::kAverage && !model.roots.empty())
    for (int64_t t = 0; t < n_targets; ++t) scores[t] /= static_cast<double>(model.roots.size());
}

}  // namespace hi::ops
