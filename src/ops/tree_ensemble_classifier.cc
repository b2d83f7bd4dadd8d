// TreeEnsembleClassifier (ai.onnx.ml opsets 1-3): per row of X ([N, F] or [F]; float, double,
// int64, int32), score[c] = base_values[c] + the sum over trees of the class_weights for class c
// at the leaf reached. Z (float) = post_transform(scores); Y = the label (classlabels_int64s or
// classlabels_strings) of the largest transformed score (the first on ties).
// Binary case (at most two labels, every weight for one class id k): with s = score[k], the two
// columns are [1 - s, s] (NONE, PROBIT) or [-s, s] (the other transforms) before the transform,
// as the onnx reference lays them out. With a single integer label L the classes are 0 and L.
// Opset 3 adds the *_as_tensor (double) attributes.
#include <set>

#include "ops/ml_util.h"
#include "ops/op_checks.h"
#include "ops/tree_ensemble_legacy.h"

namespace hi::ops {
namespace {

constexpr uint64_t kTreeInputTypes =
    bit(DType::kFloat32) | bit(DType::kFloat64) | bit(DType::kInt64) | bit(DType::kInt32);

class TreeEnsembleClassifierOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    opset_ = ctx.opset();
    label_ = op_label(ctx.node(), opset_);
    int_labels_ = ctx.get_ints("classlabels_int64s");
    string_labels_ = ctx.get_strings("classlabels_strings");
    transform_ = parse_post_transform(ctx, ctx.get_string("post_transform", "NONE"));
    base_values_ = get_floats_or_tensor(ctx, "base_values");
    const auto class_ids = ctx.get_ints("class_ids");
    HI_RETURN_IF_ERROR(ctx.status());
    if (int_labels_.empty() == string_labels_.empty())
      return ctx.fail(StatusCode::kInvalidModel, label_,
                      ": exactly one of classlabels_int64s and classlabels_strings must be set");
    strings_ = !string_labels_.empty();
    n_classes_ = static_cast<int64_t>(strings_ ? string_labels_.size() : int_labels_.size());
    if (!base_values_.empty() && static_cast<int64_t>(base_values_.size()) != n_classes_)
      return ctx.fail(StatusCode::kInvalidModel, label_, ": ", base_values_.size(), " base_values for ", n_classes_,
                      " classes");
    HI_RETURN_IF_ERROR(read_legacy_trees(ctx, label_, "class", n_classes_, &model_));
    const std::set<int64_t> voted(class_ids.begin(), class_ids.end());
    binary_ = n_classes_ <= 2 && voted.size() == 1;
    if (binary_) binary_class_ = *voted.begin();
    if (n_classes_ == 1 && strings_)
      return ctx.fail(StatusCode::kUnsupported, label_,
                      ": a single string class label is not supported (the other class has no name)");
    max_feature_ = model_.max_feature();
    return Status::ok();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 1, 1, 2));
    HI_RETURN_IF_ERROR(check_input_type(ctx.node(), opset_, ctx, 0, kTreeInputTypes, "X"));
    const ir::ValueType& x = ctx.input_type(0);
    ir::Dim n;
    if (x.has_rank()) {
      if (x.rank() != 1 && x.rank() != 2)
        return error(StatusCode::kInvalidModel, label_, ": X must be [N, F] or [F], got ", x.to_string());
      n = x.rank() == 1 ? ir::Dim::known(1) : (*x.shape)[0];
      const ir::Dim f = x.shape->back();
      if (f.is_known() && f.value <= max_feature_)
        return error(StatusCode::kInvalidModel, label_, ": X has ", f.value, " features, the trees read feature ",
                     max_feature_);
    }
    ctx.set_output_type(0, ir::ValueType::tensor(strings_ ? DType::kString : DType::kInt64, {n}));
    if (ctx.num_outputs() > 1)
      ctx.set_output_type(1, ir::ValueType::tensor(DType::kFloat32, {n, ir::Dim::known(columns())}));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    if (!in_set(kTreeInputTypes, x.dtype())) return unsupported_type(ctx.node(), opset_, "X", x.dtype());
    if (x.rank() != 1 && x.rank() != 2)
      return error(StatusCode::kInvalidArgument, label_, ": X must be [N, F] or [F], got ", x.type_string());
    const RowView v = rows_of(x.shape());
    if (v.features <= max_feature_)
      return error(StatusCode::kInvalidArgument, label_, ": X ", x.type_string(), " has ", v.features,
                   " features, the trees read feature ", max_feature_);
    const int64_t cols = columns();
    Tensor& y = ctx.output(0, strings_ ? DType::kString : DType::kInt64, {v.rows});
    Tensor z = Tensor::empty(DType::kFloat32, {v.rows, cols});
    std::vector<double> row(static_cast<size_t>(v.features)), scores(static_cast<size_t>(n_classes_));
    std::vector<double> out(static_cast<size_t>(cols));
    for (int64_t r = 0; r < v.rows; ++r) {
      for (int64_t j = 0; j < v.features; ++j) row[static_cast<size_t>(j)] = x.as_double(r * v.features + j);
      aggregate_trees(model_, row.data(), TreeAggregate::kSum, scores.data(), n_classes_);
      for (size_t c = 0; c < base_values_.size(); ++c) scores[c] += base_values_[c];
      if (binary_) {
        const double s = scores[static_cast<size_t>(binary_class_)];
        const bool complement = transform_ == PostTransform::kNone || transform_ == PostTransform::kProbit;
        out[0] = complement ? 1 - s : -s;
        out[1] = s;
      } else {
        out = scores;
      }
      apply_post_transform(transform_, out.data(), cols);
      int64_t best = 0;
      for (int64_t c = 1; c < cols; ++c)
        if (out[static_cast<size_t>(c)] > out[static_cast<size_t>(best)]) best = c;
      set_label(y, r, best);
      for (int64_t c = 0; c < cols; ++c)
        z.data<float>()[r * cols + c] = static_cast<float>(out[static_cast<size_t>(c)]);
    }
    if (ctx.num_outputs() > 1) ctx.set_output(1, z);
    return Status::ok();
  }

 private:
  int64_t columns() const { return binary_ ? 2 : n_classes_; }

  void set_label(Tensor& y, int64_t r, int64_t k) const {
    if (strings_) {
      y.strings()[r] = string_labels_[static_cast<size_t>(k)];
    } else if (n_classes_ == 1) {
      y.data<int64_t>()[r] = k == 1 ? int_labels_[0] : 0;  // a lone label L: classes 0 and L
    } else {
      y.data<int64_t>()[r] = int_labels_[static_cast<size_t>(k)];
    }
  }

  int64_t opset_ = 0;
  std::string label_;
  TreeModel model_;
  std::vector<int64_t> int_labels_;
  std::vector<std::string> string_labels_;
  bool strings_ = false;
  int64_t n_classes_ = 0;
  bool binary_ = false;
  int64_t binary_class_ = 0;
  int64_t max_feature_ = -1;
  std::vector<double> base_values_;
  PostTransform transform_ = PostTransform::kNone;
};

}  // namespace

HI_REGISTER_OP(TreeEnsembleClassifier, TreeEnsembleClassifierOp)

}  // namespace hi::ops
