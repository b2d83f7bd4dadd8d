// The tree model shared by TreeEnsemble (ai.onnx.ml opset 5) and the older TreeEnsembleRegressor
// and TreeEnsembleClassifier (opsets 1-3): each op translates its attributes into this form
// once, when the session is built, and the kernels walk it per row.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hipinfer/status.h"

namespace hi::ops {

struct TreeModel {
  // The comparison a node makes between the row's feature and its threshold; kLeaf ends a walk.
  enum class Mode : uint8_t { kLeq, kLt, kGte, kGt, kEq, kNeq, kMember, kLeaf };
  struct Node {
    Mode mode = Mode::kLeaf;
    bool missing_tracks_true = false;  // a NaN feature takes the true branch (else the false one)
    int64_t feature = 0;
    double threshold = 0;
    size_t members_begin = 0, members_end = 0;  // kMember: the set, in `members`
    int64_t true_child = -1, false_child = -1;  // indexes into `nodes`
    size_t votes_begin = 0, votes_end = 0;      // kLeaf: its votes, in `votes`
  };
  struct Vote {
    int64_t target = 0;
    double weight = 0;
  };
  std::vector<Node> nodes;
  std::vector<double> members;
  std::vector<Vote> votes;
  std::vector<int64_t> roots;  // one per tree

  // Children in range, every tree free of cycles, vote targets in [0, n_targets). `label`
  // prefixes messages (the op, its opset).
  Status validate(const std::string& label, int64_t n_targets) const;
  // The largest feature index a walk can read (-1 when there is none).
  int64_t max_feature() const;
  // The leaf a row of features reaches from `root`.
  const Node& leaf(const double* features, int64_t root) const;
};

// "BRANCH_LEQ", ... "LEAF" as in the opset 1-3 ops; false for an unknown name.
bool parse_tree_mode(const std::string& name, TreeModel::Mode* mode);

enum class TreeAggregate { kSum, kAverage, kMin, kMax };

// scores[t] for one row: the aggregate of the votes for target t over all trees (AVERAGE divides
// the sum by the number of trees). Targets no leaf votes for get 0.
void aggregate_trees(const TreeModel& model, const double* features, TreeAggregate how, double* scores,
                     int64_t n_targets);

}  // namespace hi::ops
