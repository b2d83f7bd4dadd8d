// TreeEnsemble (ai.onnx.ml opset 5): Y[n, t] = the aggregate (SUM default, AVERAGE, MIN, MAX) of
// the leaf weights for target t reached by row n of X in every tree, then post_transform over
// the row. X is [N, F] (float, double, float16); Y has X's type and shape [N, n_targets].
//   - Interior nodes are the nodes_* tuples; a branch leads to another node, or (when
//     nodes_trueleafs / nodes_falseleafs is 1) to a leaf_* tuple (weight, target id).
//   - nodes_modes (uint8): 0 LEQ, 1 LT, 2 GTE, 3 GT, 4 EQ, 5 NEQ (feature <op> split), 6 MEMBER (the
//     feature is one of the node's set: membership_values holds the sets of the MEMBER nodes in
//     node order, each ended by a NaN).
//   - A NaN feature takes the true branch where nodes_missing_value_tracks_true is 1, else the false.
//   - Targets no leaf votes for are 0 (also under MIN and MAX).
#include <algorithm>
#include <cmath>

#include "ops/dispatch.h"
#include "ops/ml_util.h"
#include "ops/op_checks.h"
#include "ops/tree_ensemble_util.h"

namespace hi::ops {
namespace {

constexpr uint64_t kTreeTypes = bit(DType::kFloat32) | bit(DType::kFloat64) | bit(DType::kFloat16);

class TreeEnsembleOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    opset_ = ctx.opset();
    label_ = op_label(ctx.node(), opset_);
    const auto features = ctx.get_ints("nodes_featureids");
    const auto true_ids = ctx.get_ints("nodes_truenodeids");
    const auto false_ids = ctx.get_ints("nodes_falsenodeids");
    const auto true_leafs = ctx.get_ints("nodes_trueleafs");
    const auto false_leafs = ctx.get_ints("nodes_falseleafs");
    const auto missing = ctx.get_ints("nodes_missing_value_tracks_true");
    const auto leaf_targets = ctx.get_ints("leaf_targetids");
    const auto roots = ctx.get_ints("tree_roots");
    const Tensor* modes_t = ctx.get_tensor("nodes_modes");
    const Tensor* splits_t = ctx.get_tensor("nodes_splits");
    const Tensor* weights_t = ctx.get_tensor("leaf_weights");
    const Tensor* members_t = ctx.has("membership_values") ? ctx.get_tensor("membership_values") : nullptr;
    n_targets_ = ctx.get_int("n_targets", 0);
    const int64_t aggregate = ctx.get_int("aggregate_function", 1);
    const int64_t transform = ctx.get_int("post_transform", 0);
    HI_RETURN_IF_ERROR(ctx.status());
    for (const char* required :
         {"nodes_featureids", "nodes_truenodeids", "nodes_falsenodeids", "nodes_trueleafs", "nodes_falseleafs",
          "leaf_targetids", "tree_roots", "nodes_modes", "nodes_splits", "leaf_weights"})
      if (!ctx.has(required))
        return ctx.fail(StatusCode::kInvalidModel, label_, ": required attribute '", required, "' is missing");
    if (aggregate < 0 || aggregate > 3)
      return ctx.fail(StatusCode::kUnsupported, label_, ": aggregate_function ", aggregate,
                      " is not 0 (AVERAGE), 1 (SUM), 2 (MIN) or 3 (MAX)");
    aggregate_ = aggregate == 0   ? TreeAggregate::kAverage
                 : aggregate == 1 ? TreeAggregate::kSum
                 : aggregate == 2 ? TreeAggregate::kMin
                                  : TreeAggregate::kMax;
    if (transform < 0 || transform > 4)
      return ctx.fail(StatusCode::kUnsupported, label_, ": post_transform ", transform,
                      " is not one of 0 (NONE) .. 4 (PROBIT)");
    transform_ = static_cast<PostTransform>(transform);

    HI_ASSIGN_OR_RETURN(const std::vector<double> modes, tensor_to_doubles(*modes_t, "nodes_modes"));
    HI_ASSIGN_OR_RETURN(const std::vector<double> splits, tensor_to_doubles(*splits_t, "nodes_splits"));
    HI_ASSIGN_OR_RETURN(const std::vector<double> weights, tensor_to_doubles(*weights_t, "leaf_weights"));
    std::vector<double> members;
    if (members_t) {
      HI_ASSIGN_OR_RETURN(members, tensor_to_doubles(*members_t, "membership_values"));
    }
    const size_t n = features.size();
    for (const auto& [name, size] : {std::pair<const char*, size_t>{"nodes_truenodeids", true_ids.size()},
                                     {"nodes_falsenodeids", false_ids.size()},
                                     {"nodes_trueleafs", true_leafs.size()},
                                     {"nodes_falseleafs", false_leafs.size()},
                                     {"nodes_modes", modes.size()},
                                     {"nodes_splits", splits.size()}})
      if (size != n)
        return ctx.fail(StatusCode::kInvalidModel, label_, ": ", name, " has ", size, " entries, nodes_featureids has ",
                        n);
    if (!missing.empty() && missing.size() != n)
      return ctx.fail(StatusCode::kInvalidModel, label_, ": nodes_missing_value_tracks_true has ", missing.size(),
                      " entries for ", n, " nodes");
    if (weights.size() != leaf_targets.size())
      return ctx.fail(StatusCode::kInvalidModel, label_, ": leaf_weights has ", weights.size(),
                      " entries, leaf_targetids has ", leaf_targets.size());

    // Nodes first, then one node per leaf, so every branch is an index into model_.nodes.
    const auto leaf_base = static_cast<int64_t>(n);
    size_t member_pos = 0;
    for (size_t i = 0; i < n; ++i) {
      TreeModel::Node node;
      const double m = modes[i];
      if (!(m >= 0 && m <= 6 && m == std::floor(m)))
        return ctx.fail(StatusCode::kUnsupported, label_, ": node ", i, " has mode ", m,
                        ", not one of 0 (BRANCH_LEQ) .. 6 (BRANCH_MEMBER)");
      node.mode = static_cast<TreeModel::Mode>(static_cast<int>(m));
      node.feature = features[i];
      node.threshold = splits[i];
      node.missing_tracks_true = !missing.empty() && missing[i] != 0;
      if (node.mode == TreeModel::Mode::kMember) {
        node.members_begin = model_.members.size();
        while (member_pos < members.size() && !std::isnan(members[member_pos]))
          model_.members.push_back(members[member_pos++]);
        if (member_pos >= members.size())
          return ctx.fail(StatusCode::kInvalidModel, label_,
                          ": membership_values has no NaN-ended set for BRANCH_MEMBER node ", i);
        ++member_pos;  // the NaN
        node.members_end = model_.members.size();
      }
      const auto child = [&](int64_t id, int64_t is_leaf) -> int64_t {
        const int64_t limit = is_leaf ? static_cast<int64_t>(weights.size()) : leaf_base;
        if (id < 0 || id >= limit) return -1;
        return is_leaf ? leaf_base + id : id;
      };
      node.true_child = child(true_ids[i], true_leafs[i]);
      node.false_child = child(false_ids[i], false_leafs[i]);
      if (node.true_child < 0 || node.false_child < 0)
        return ctx.fail(StatusCode::kInvalidModel, label_, ": node ", i, " branches to ",
                        node.true_child < 0 ? true_ids[i] : false_ids[i], ", which is not a ",
                        (node.true_child < 0 ? true_leafs[i] : false_leafs[i]) ? "leaf" : "node");
      model_.nodes.push_back(node);
    }
    for (size_t j = 0; j < weights.size(); ++j) {
      TreeModel::Node leaf;
      leaf.votes_begin = model_.votes.size();
      model_.votes.push_back({leaf_targets[j], weights[j]});
      leaf.votes_end = model_.votes.size();
      model_.nodes.push_back(leaf);
    }
    for (int64_t r : roots) {
      if (r < 0 || r >= leaf_base)
        return ctx.fail(StatusCode::kInvalidModel, label_, ": tree root ", r, " is not a node index");
      model_.roots.push_back(r);
    }
    // n_targets is optional in the schema: the largest target id tells it then.
    if (!ctx.has("n_targets"))
      for (int64_t t : leaf_targets) n_targets_ = std::max(n_targets_, t + 1);
    if (n_targets_ <= 0)
      return ctx.fail(StatusCode::kInvalidModel, label_, ": n_targets must be >= 1, got ", n_targets_);
    HI_RETURN_IF_ERROR(model_.validate(label_, n_targets_));
    max_feature_ = model_.max_feature();
    return Status::ok();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 1, 1, 1));
    HI_RETURN_IF_ERROR(check_input_type(ctx.node(), opset_, ctx, 0, kTreeTypes, "X"));
    const ir::ValueType& x = ctx.input_type(0);
    ir::Dim n;
    if (x.has_rank()) {
      if (x.rank() != 2) return error(StatusCode::kInvalidModel, label_, ": X must be [N, F], got ", x.to_string());
      n = (*x.shape)[0];
      const ir::Dim f = (*x.shape)[1];
      if (f.is_known() && f.value <= max_feature_)
        return error(StatusCode::kInvalidModel, label_, ": X has ", f.value, " features, the trees read feature ",
                     max_feature_);
    }
    ctx.set_output_type(0, ir::ValueType::tensor(x.dtype, {n, ir::Dim::known(n_targets_)}));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    if (!in_set(kTreeTypes, x.dtype())) return unsupported_type(ctx.node(), opset_, "X", x.dtype());
    if (x.rank() != 2) return error(StatusCode::kInvalidArgument, label_, ": X must be [N, F], got ", x.type_string());
    const int64_t rows = x.dim(0), f = x.dim(1);
    if (f <= max_feature_)
      return error(StatusCode::kInvalidArgument, label_, ": X ", x.type_string(), " has ", f,
                   " features, the trees read feature ", max_feature_);
    Tensor& y = ctx.output(0, x.dtype(), {rows, n_targets_});
    std::vector<double> row(static_cast<size_t>(f)), scores(static_cast<size_t>(n_targets_));
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t j = 0; j < f; ++j) row[static_cast<size_t>(j)] = x.as_double(r * f + j);
      aggregate_trees(model_, row.data(), aggregate_, scores.data(), n_targets_);
      apply_post_transform(transform_, scores.data(), n_targets_);
      dispatch<kTreeTypes>(x.dtype(), [&]<typename T>() {
        for (int64_t t = 0; t < n_targets_; ++t)
          y.data<T>()[r * n_targets_ + t] = static_cast<T>(static_cast<compute_t<T>>(scores[static_cast<size_t>(t)]));
      });
    }
    return Status::ok();
  }

 private:
  int64_t opset_ = 0;
  std::string label_;
  TreeModel model_;
  int64_t n_targets_ = 0;
  int64_t max_feature_ = -1;
  TreeAggregate aggregate_ = TreeAggregate::kSum;
  PostTransform transform_ = PostTransform::kNone;
};

}  // namespace

HI_REGISTER_OP(TreeEnsemble, TreeEnsembleOp)

}  // namespace hi::ops
