// SVMClassifier (ai.onnx.ml opset 1), as scikit-learn's SVC exports it (libsvm's layout).
// - With vectors_per_class: one-vs-one. Class pair (i, j) scores rho[p] + the dual coefficients of
//   both classes' support vectors times their kernels; a positive score votes for i. With prob_a
//   and prob_b, each pair's score becomes a Platt probability and the pairs are coupled into one
//   probability per class (Wu, Lin and Weng's second method, as libsvm does).
// - Without support vectors: linear, one score per class, dot(X, coefficients[c]) + rho[0].
// Y is the label of the class with the most votes (the highest score when linear); Z holds the
// probabilities, else the scores (a binary problem's single score s as [-s, s]), after
// post_transform. X is float, double, int64 or int32 ([N, F] or [F]); computed in double.
#include <algorithm>
#include <cmath>

#include "ops/ml_util.h"
#include "ops/op_checks.h"
#include "ops/svm_util.h"

namespace hi::ops {
namespace {

// Per-class probabilities from the pairwise ones r[i][j] = P(i | i or j).
std::vector<double> couple_pairwise(const std::vector<double>& r, int64_t k) {
  auto at = [&](int64_t i, int64_t j) { return r[static_cast<size_t>(i * k + j)]; };
  std::vector<double> q(static_cast<size_t>(k * k)), qp(static_cast<size_t>(k)), p(static_cast<size_t>(k));
  auto Q = [&](int64_t i, int64_t j) -> double& { return q[static_cast<size_t>(i * k + j)]; };
  for (int64_t t = 0; t < k; ++t) {
    p[static_cast<size_t>(t)] = 1.0 / static_cast<double>(k);
    Q(t, t) = 0;
    for (int64_t j = 0; j < k; ++j) {
      if (j == t) continue;
      Q(t, t) += at(j, t) * at(j, t);
      Q(t, j) = -at(j, t) * at(t, j);
    }
  }
  const double eps = 0.005 / static_cast<double>(k);
  for (int64_t iter = 0; iter < std::max<int64_t>(100, k); ++iter) {
    double pqp = 0;
    for (int64_t t = 0; t < k; ++t) {
      double s = 0;
      for (int64_t j = 0; j < k; ++j) s += Q(t, j) * p[static_cast<size_t>(j)];
      qp[static_cast<size_t>(t)] = s;
      pqp += p[static_cast<size_t>(t)] * s;
    }
    double max_error = 0;
    for (int64_t t = 0; t < k; ++t) max_error = std::max(max_error, std::abs(qp[static_cast<size_t>(t)] - pqp));
    if (max_error < eps) break;
    for (int64_t t = 0; t < k; ++t) {
      const double diff = (-qp[static_cast<size_t>(t)] + pqp) / Q(t, t);
      p[static_cast<size_t>(t)] += diff;
      pqp = (pqp + diff * (diff * Q(t, t) + 2 * qp[static_cast<size_t>(t)])) / ((1 + diff) * (1 + diff));
      for (int64_t j = 0; j < k; ++j) {
        qp[static_cast<size_t>(j)] = (qp[static_cast<size_t>(j)] + diff * Q(t, j)) / (1 + diff);
        p[static_cast<size_t>(j)] /= 1 + diff;
      }
    }
  }
  return p;
}

class SvmClassifierOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    opset_ = ctx.opset();
    label_ = op_label(ctx.node(), opset_);
    kernel_ = SvmKernel::parse(ctx, label_);
    int_labels_ = ctx.get_ints("classlabels_ints");
    string_labels_ = ctx.get_strings("classlabels_strings");
    coefficients_ = ctx.get_floats("coefficients");
    support_vectors_ = ctx.get_floats("support_vectors");
    rho_ = ctx.get_floats("rho");
    prob_a_ = ctx.get_floats("prob_a");
    prob_b_ = ctx.get_floats("prob_b");
    per_class_ = ctx.get_ints("vectors_per_class");
    transform_ = parse_post_transform(ctx, ctx.get_string("post_transform", "NONE"));
    HI_RETURN_IF_ERROR(ctx.status());
    if (!int_labels_.empty() && !string_labels_.empty())
      return error(StatusCode::kInvalidModel, label_, ": classlabels_ints and classlabels_strings are both set");
    strings_ = !string_labels_.empty();
    num_labels_ = static_cast<int64_t>(strings_ ? string_labels_.size() : int_labels_.size());
    if (num_labels_ == 0)
      return error(StatusCode::kInvalidModel, label_, ": one of classlabels_ints and classlabels_strings is required");
    classes_ = num_labels_;
    for (int64_t c : per_class_) {
      if (c < 0) return error(StatusCode::kInvalidModel, label_, ": vectors_per_class holds ", c);
      starts_.push_back(vectors_);
      vectors_ += c;
    }
    HI_RETURN_IF_ERROR(vectors_ > 0 ? check_one_vs_one() : check_linear());
    all_positive_ = std::all_of(coefficients_.begin(), coefficients_.end(), [](float c) { return c >= 0; });
    return Status::ok();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 1, 1, 2));
    HI_ASSIGN_OR_RETURN(const ir::Dim n, svm_rows(ctx, opset_, label_, features_));
    ctx.set_output_type(0, ir::ValueType::tensor(strings_ ? DType::kString : DType::kInt64, {n}));
    if (ctx.num_outputs() > 1)
      ctx.set_output_type(1, ir::ValueType::tensor(DType::kFloat32, {n, ir::Dim::known(score_columns())}));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    HI_ASSIGN_OR_RETURN(const RowView v, svm_input(ctx, opset_, label_, features_));
    const int64_t columns = score_columns();
    Tensor& y = ctx.output(0, strings_ ? DType::kString : DType::kInt64, {v.rows});
    Tensor z = Tensor::empty(DType::kFloat32, {v.rows, columns});
    std::vector<double> row, scores;
    std::vector<int64_t> votes;
    for (int64_t r = 0; r < v.rows; ++r) {
      read_row(x, r, v.features, &row);
      if (vectors_ > 0) one_vs_one(row, &scores, &votes);
      else linear(row, &scores);
      if (!prob_a_.empty()) scores = probabilities(scores);
      set_label(y, r, scores, votes);
      write_scores(scores, z.data<float>() + r * columns, columns);
    }
    if (ctx.num_outputs() > 1) ctx.set_output(1, z);
    return Status::ok();
  }

 private:
  int64_t pairs() const { return classes_ * (classes_ - 1) / 2; }

  Status check_one_vs_one() {
    const auto fail = [&](auto... what) { return error(StatusCode::kInvalidModel, label_, ": ", what...); };
    if (static_cast<int64_t>(per_class_.size()) != classes_)
      return fail("vectors_per_class has ", per_class_.size(), " entries for ", classes_, " classes");
    if (support_vectors_.empty() || support_vectors_.size() % static_cast<size_t>(vectors_) != 0)
      return fail(support_vectors_.size(), " support_vectors values do not split into ", vectors_, " vectors");
    features_ = static_cast<int64_t>(support_vectors_.size()) / vectors_;
    if (static_cast<int64_t>(coefficients_.size()) != (classes_ - 1) * vectors_)
      return fail("one-vs-one over ", classes_, " classes and ", vectors_, " support vectors needs ",
                  (classes_ - 1) * vectors_, " coefficients, got ", coefficients_.size());
    if (static_cast<int64_t>(rho_.size()) != pairs())
      return fail("rho must hold one value per class pair (", pairs(), "), got ", rho_.size());
    if (prob_a_.size() != prob_b_.size() || (!prob_a_.empty() && static_cast<int64_t>(prob_a_.size()) != pairs()))
      return fail("prob_a and prob_b must both hold one value per class pair (", pairs(), "), got ", prob_a_.size(),
                  " and ", prob_b_.size());
    return Status::ok();
  }

  Status check_linear() {
    kernel_.type = SvmKernel::Type::kLinear;
    prob_a_.clear();  // probabilities are defined for the one-vs-one form only
    if (coefficients_.empty() || coefficients_.size() % static_cast<size_t>(classes_) != 0)
      return error(StatusCode::kInvalidModel, label_, ": ", coefficients_.size(),
                   " coefficients do not split into one weight vector per class (", classes_, ")");
    if (rho_.empty()) return error(StatusCode::kInvalidModel, label_, ": rho is empty");
    features_ = static_cast<int64_t>(coefficients_.size()) / classes_;
    return Status::ok();
  }

  // Z's width: a probability per class; else one-vs-one's pair scores (a binary problem's one
  // score written as two columns); else the linear form's score per class.
  int64_t score_columns() const {
    if (!prob_a_.empty() || vectors_ == 0) return classes_;
    return classes_ > 2 ? pairs() : 2;
  }

  void one_vs_one(const std::vector<double>& row, std::vector<double>* scores, std::vector<int64_t>* votes) const {
    std::vector<double> kernels(static_cast<size_t>(vectors_));
    for (int64_t j = 0; j < vectors_; ++j)
      kernels[static_cast<size_t>(j)] = kernel_(row.data(), support_vectors_.data() + j * features_, features_);
    // Row c of the coefficients holds each vector's weight against the c-th other class.
    auto dual = [&](int64_t coef_row, int64_t cls) {
      double s = 0;
      const int64_t first = starts_[static_cast<size_t>(cls)];
      for (int64_t v = first; v < first + per_class_[static_cast<size_t>(cls)]; ++v)
        s += coefficients_[static_cast<size_t>(coef_row * vectors_ + v)] * kernels[static_cast<size_t>(v)];
      return s;
    };
    scores->clear();
    votes->assign(static_cast<size_t>(classes_), 0);
    size_t p = 0;
    for (int64_t i = 0; i < classes_; ++i)
      for (int64_t j = i + 1; j < classes_; ++j, ++p) {
        const double s = rho_[p] + dual(j - 1, i) + dual(i, j);
        scores->push_back(s);
        ++(*votes)[static_cast<size_t>(s > 0 ? i : j)];
      }
  }

  void linear(const std::vector<double>& row, std::vector<double>* scores) const {
    scores->clear();
    for (int64_t c = 0; c < classes_; ++c)
      scores->push_back(rho_[0] + kernel_(row.data(), coefficients_.data() + c * features_, features_));
  }

  std::vector<double> probabilities(const std::vector<double>& scores) const {
    std::vector<double> r(static_cast<size_t>(classes_ * classes_), 0.0);
    size_t p = 0;
    for (int64_t i = 0; i < classes_; ++i)
      for (int64_t j = i + 1; j < classes_; ++j, ++p) {
        // Platt's sigmoid, clamped away from 0 and 1 as libsvm does.
        const double v = 1.0 / (1.0 + std::exp(scores[p] * prob_a_[p] + prob_b_[p]));
        const double clamped = std::clamp(v, 1e-7, 1 - 1e-7);
        r[static_cast<size_t>(i * classes_ + j)] = clamped;
        r[static_cast<size_t>(j * classes_ + i)] = 1 - clamped;
      }
    return couple_pairwise(r, classes_);
  }

  // The label: the class with the most votes (one-vs-one) or the highest score (linear). Two
  // classes follow onnxruntime's rule without probabilities: the second label when the best
  // linear score is positive with mixed-sign weights, or at least 0.5 with non-negative ones.
  void set_label(Tensor& y, int64_t r, const std::vector<double>& scores, const std::vector<int64_t>& votes) const {
    int64_t best = 0;
    double weight = 0;  // the best linear score; one-vs-one leaves it 0
    if (!votes.empty()) {
      best = std::max_element(votes.begin(), votes.end()) - votes.begin();
    } else {
      best = std::max_element(scores.begin(), scores.end()) - scores.begin();
      weight = scores[static_cast<size_t>(best)];
    }
    if (classes_ == 2 && prob_a_.empty() && ((all_positive_ && weight >= 0.5) || (!all_positive_ && weight > 0)))
      best = 1;
    if (strings_) y.strings()[r] = string_labels_[static_cast<size_t>(best)];
    else y.data<int64_t>()[r] = int_labels_[static_cast<size_t>(best)];
  }

  // One row of Z. Several scores are transformed together. A binary one-vs-one score s becomes
  // two columns as onnxruntime writes them: [-s, s] untransformed, [logistic(-s), logistic(s)],
  // [1 - s, s] for the softmaxes, [probit(s), s].
  void write_scores(const std::vector<double>& scores, float* out, int64_t columns) const {
    for (size_t i = 0; i < scores.size(); ++i) out[i] = static_cast<float>(scores[i]);
    if (scores.size() > 1 || columns == 1) {
      apply_post_transform(transform_, out, static_cast<int64_t>(scores.size()));
      return;
    }
    const float s = out[0];
    out[1] = s;
    switch (transform_) {
      case PostTransform::kNone: out[0] = -s; break;
      case PostTransform::kLogistic:
        out[0] = -s;
        apply_post_transform(transform_, out, 2);
        break;
      case PostTransform::kProbit: apply_post_transform(transform_, out, 1); break;
      default: out[0] = 1 - s; break;
    }
  }

  int64_t opset_ = 0;
  std::string label_;
  SvmKernel kernel_;
  std::vector<int64_t> int_labels_, per_class_, starts_;
  std::vector<std::string> string_labels_;
  std::vector<float> coefficients_, support_vectors_, rho_, prob_a_, prob_b_;
  bool strings_ = false, all_positive_ = false;
  int64_t num_labels_ = 0, classes_ = 0, vectors_ = 0, features_ = 0;
  PostTransform transform_ = PostTransform::kNone;
};

}  // namespace

HI_REGISTER_OP(SVMClassifier, SvmClassifierOp)

}  // namespace hi::ops
