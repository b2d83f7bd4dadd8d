// LinearClassifier (ai.onnx.ml opset 1): per row of X ([N, F] or [F]), one score per class
// score[c] = sum_f X[f] * coefficients[c * F + f] + intercepts[c]; Y (int64 or string, [N]) is the
// label of the best raw score, Z (float) the scores after post_transform.
//   - The class count is len(intercepts) (as ONNX Runtime), or len(coefficients) / F without them.
//   - One class and two labels is the binary case: Y = labels[1] when the score is > 0, else
//     labels[0]; Z = post_transform([-score, score]), two columns (the onnx reference's layout).
//   - One class with other labels: Y = 1 / 0 ("1" / "0" for strings) by the sign of the score,
//     Z = post_transform([score]).
// multi_class does not change the arithmetic (the spec gives it no meaning beyond a hint).
#include "ops/ml_util.h"
#include "ops/op_checks.h"

namespace hi::ops {
namespace {

constexpr uint64_t kLinearTypes = bit(DType::kFloat32) | bit(DType::kFloat64) | bit(DType::kInt64) | bit(DType::kInt32);

class LinearClassifierOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    opset_ = ctx.opset();
    label_ = op_label(ctx.node(), opset_);
    coefficients_ = ctx.get_floats("coefficients");
    intercepts_ = ctx.get_floats("intercepts");
    int_labels_ = ctx.get_ints("classlabels_ints");
    string_labels_ = ctx.get_strings("classlabels_strings");
    (void)ctx.get_int("multi_class", 0);
    transform_ = parse_post_transform(ctx, ctx.get_string("post_transform", "NONE"));
    HI_RETURN_IF_ERROR(ctx.status());
    if (coefficients_.empty()) return ctx.fail(StatusCode::kInvalidModel, label_, ": coefficients is empty or missing");
    if (int_labels_.empty() == string_labels_.empty())
      return ctx.fail(StatusCode::kInvalidModel, label_,
                      ": exactly one of classlabels_ints and classlabels_strings must be set");
    strings_ = !string_labels_.empty();
    num_labels_ = static_cast<int64_t>(strings_ ? string_labels_.size() : int_labels_.size());
    return Status::ok();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 1, 1, 2));
    HI_RETURN_IF_ERROR(check_input_type(ctx.node(), opset_, ctx, 0, kLinearTypes, "X"));
    const ir::ValueType& x = ctx.input_type(0);
    ir::Dim n, columns;
    if (x.has_rank()) {
      if (x.rank() != 1 && x.rank() != 2)
        return error(StatusCode::kInvalidModel, label_, ": X must be [N, F] or [F], got ", x.to_string());
      n = x.rank() == 1 ? ir::Dim::known(1) : (*x.shape)[0];
      if (x.shape->back().is_known()) {
        HI_ASSIGN_OR_RETURN(const int64_t classes, class_count(x.shape->back().value, StatusCode::kInvalidModel));
        columns = ir::Dim::known(binary(classes) ? 2 : classes);
      }
    }
    ctx.set_output_type(0, ir::ValueType::tensor(strings_ ? DType::kString : DType::kInt64, {n}));
    if (ctx.num_outputs() > 1) ctx.set_output_type(1, ir::ValueType::tensor(DType::kFloat32, {n, columns}));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    if (!in_set(kLinearTypes, x.dtype())) return unsupported_type(ctx.node(), opset_, "X", x.dtype());
    if (x.rank() != 1 && x.rank() != 2)
      return error(StatusCode::kInvalidArgument, label_, ": X must be [N, F] or [F], got ", x.type_string());
    const RowView v = rows_of(x.shape());
    HI_ASSIGN_OR_RETURN(const int64_t classes, class_count(v.features, StatusCode::kInvalidArgument));
    const int64_t columns = binary(classes) ? 2 : classes;
    Tensor& y = ctx.output(0, strings_ ? DType::kString : DType::kInt64, {v.rows});
    Tensor z = Tensor::empty(DType::kFloat32, {v.rows, columns});
    std::vector<double> score(static_cast<size_t>(classes));
    for (int64_t r = 0; r < v.rows; ++r) {
      for (int64_t c = 0; c < classes; ++c) {
        double acc = intercepts_.empty() ? 0.0 : intercepts_[static_cast<size_t>(c)];
        for (int64_t f = 0; f < v.features; ++f)
          acc += x.as_double(r * v.features + f) * coefficients_[static_cast<size_t>(c * v.features + f)];
        score[static_cast<size_t>(c)] = acc;
      }
      float* zr = z.data<float>() + r * columns;
      if (classes == 1) {
        set_label(y, r, score[0] > 0 ? 1 : 0, /*by_sign=*/true);
        if (columns == 2) {
          zr[0] = static_cast<float>(-score[0]);
          zr[1] = static_cast<float>(score[0]);
        } else {
          zr[0] = static_cast<float>(score[0]);
        }
      } else {
        int64_t best = 0;
        for (int64_t c = 1; c < classes; ++c)
          if (score[static_cast<size_t>(c)] > score[static_cast<size_t>(best)]) best = c;
        set_label(y, r, best, /*by_sign=*/false);
        for (int64_t c = 0; c < classes; ++c) zr[c] = static_cast<float>(score[static_cast<size_t>(c)]);
      }
      apply_post_transform(transform_, zr, columns);
    }
    if (ctx.num_outputs() > 1) ctx.set_output(1, z);
    return Status::ok();
  }

 private:
  Result<int64_t> class_count(int64_t features, StatusCode code) const {
    const auto n = static_cast<int64_t>(coefficients_.size());
    const int64_t classes =
        !intercepts_.empty() ? static_cast<int64_t>(intercepts_.size()) : (features > 0 ? n / features : 0);
    if (classes < 1 || classes * features != n)
      return error(code, label_, ": ", n, " coefficients do not fit ", features, " features and ",
                   intercepts_.empty() ? "some number of" : std::to_string(classes), " classes");
    if (classes > 1 && classes > num_labels_)
      return error(code, label_, ": ", classes, " classes but only ", num_labels_, " class labels");
    return classes;
  }
  bool binary(int64_t classes) const { return classes == 1 && num_labels_ == 2; }

  // Row r's label: class `k` of the labels; in the one-class case `k` is 1 (positive) or 0.
  void set_label(Tensor& y, int64_t r, int64_t k, bool by_sign) const {
    const bool from_list = !by_sign || num_labels_ == 2;
    if (strings_) y.strings()[r] = from_list ? string_labels_[static_cast<size_t>(k)] : std::to_string(k);
    else y.data<int64_t>()[r] = from_list ? int_labels_[static_cast<size_t>(k)] : k;
  }

  int64_t opset_ = 0;
  std::string label_;
  std::vector<float> coefficients_, intercepts_;
  std::vector<int64_t> int_labels_;
  std::vector<std::string> string_labels_;
  bool strings_ = false;
  int64_t num_labels_ = 0;
  PostTransform transform_ = PostTransform::kNone;
};

}  // namespace

HI_REGISTER_OP(LinearClassifier, LinearClassifierOp)

}  // namespace hi::ops
