// Reads the opset 1-3 tree attributes (TreeEnsembleRegressor, TreeEnsembleClassifier) into a
// TreeModel: nodes are named by (tree id, node id); each node's mode is a string (BRANCH_*, or
// LEAF); votes <prefix>_treeids / _nodeids / _ids / _weights (prefix "target" or "class") hang
// on leaves. Each tree's root is its first node in attribute order.
#pragma once

#include "ops/op.h"
#include "ops/tree_ensemble_util.h"

namespace hi::ops {

// Fills `model` (n_targets: the number of vote targets or classes, to check vote ids against).
// Records failures in ctx and returns them.
Status read_legacy_trees(InitContext& ctx, const std::string& label, const std::string& vote_prefix, int64_t n_targets,
                         TreeModel* model);

}  // namespace hi::ops
