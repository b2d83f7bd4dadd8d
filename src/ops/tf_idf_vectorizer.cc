// TfIdfVectorizer (opset 9): counts, per row of X ([C] or [N, C], int32/int64/string tokens),
// the n-grams listed in the pool, and writes one float per output slot.
//   - The pool holds the 1-grams, then the 2-grams, ... : ngram_counts[k] is where the
//     (k+1)-grams start. Pool n-gram j (in pool order, all lengths together) lands in output
//     slot ngram_indexes[j]; the output has max(ngram_indexes) + 1 slots.
//   - Only lengths in [min_gram_length, max_gram_length] count. An n-gram with n >= 2 may skip up
//     to max_skip_count tokens between its items (the same gap throughout: tokens at s, s+d,
//     s+2d, ... for d = 1 .. max_skip_count + 1), each gap counting separately; 1-grams count
//     once per position.
//   - mode TF: the count; IDF: weights[slot] when the count is > 0 (1 without weights); TFIDF:
//     count * weights[slot] (the count without weights).
#include <algorithm>
#include <map>

#include "ops/ml_util.h"
#include "ops/op_checks.h"

namespace hi::ops {
namespace {

enum class Mode { kTF, kIDF, kTFIDF };

class TfIdfVectorizerOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    opset_ = ctx.opset();
    const std::string label = op_label(ctx.node(), opset_);
    const std::string mode = ctx.get_string("mode", "");
    if (mode == "TF") mode_ = Mode::kTF;
    else if (mode == "IDF") mode_ = Mode::kIDF;
    else if (mode == "TFIDF") mode_ = Mode::kTFIDF;
    else return ctx.fail(StatusCode::kInvalidModel, label, ": mode must be TF, IDF or TFIDF, got '", mode, "'");
    min_gram_ = ctx.require_int("min_gram_length");
    max_gram_ = ctx.require_int("max_gram_length");
    max_skip_ = ctx.require_int("max_skip_count");
    const std::vector<int64_t> counts = ctx.get_ints("ngram_counts");
    const std::vector<int64_t> indexes = ctx.get_ints("ngram_indexes");
    const std::vector<int64_t> pool_ints = ctx.get_ints("pool_int64s");
    const std::vector<std::string> pool_strings = ctx.get_strings("pool_strings");
    const std::vector<float> weights = ctx.get_floats("weights");
    HI_RETURN_IF_ERROR(ctx.status());
    if (min_gram_ < 1 || max_gram_ < min_gram_)
      return ctx.fail(StatusCode::kInvalidModel, label, ": need 1 <= min_gram_length <= max_gram_length, got ",
                      min_gram_, " and ", max_gram_);
    // ngram_counts has one start per n-gram length the pool holds, so no longer n-gram can match
    // (ONNX Runtime refuses these too); counting up to a huge max_gram_length never ended.
    const auto longest = static_cast<int64_t>(counts.size());
    for (const auto& [name, value] : {std::pair{"min_gram_length", min_gram_}, std::pair{"max_gram_length", max_gram_}})
      if (value > longest)
        return ctx.fail(StatusCode::kInvalidModel, label, ": ", name, " = ", value,
                        " is longer than the longest n-gram the pool holds: ngram_counts ", shape_to_string(counts),
                        " has ", longest, " entries, so n-grams of length 1..", longest);
    if (max_skip_ < 0)
      return ctx.fail(StatusCode::kInvalidModel, label, ": max_skip_count must be >= 0, got ", max_skip_);
    if (pool_ints.empty() == pool_strings.empty())
      return ctx.fail(StatusCode::kInvalidModel, label, ": exactly one of pool_int64s and pool_strings must be set");
    string_pool_ = !pool_strings.empty();
    const auto pool_size = static_cast<int64_t>(string_pool_ ? pool_strings.size() : pool_ints.size());
    if (indexes.empty()) return ctx.fail(StatusCode::kInvalidModel, label, ": ngram_indexes is empty");
    for (size_t k = 0; k < counts.size(); ++k) {
      const int64_t next = k + 1 < counts.size() ? counts[k + 1] : pool_size;
      if (counts[k] < 0 || counts[k] > next || next > pool_size)
        return ctx.fail(StatusCode::kInvalidModel, label,
                        ": ngram_counts must be non-decreasing starts inside the pool of ", pool_size, " items, got ",
                        counts[k], " at position ", k);
      if ((next - counts[k]) % static_cast<int64_t>(k + 1) != 0)
        return ctx.fail(StatusCode::kInvalidModel, label, ": the ", k + 1, "-gram section of the pool holds ",
                        next - counts[k], " items, not a multiple of ", k + 1);
    }
    for (int64_t i : indexes)
      if (i < 0) return ctx.fail(StatusCode::kInvalidModel, label, ": ngram_indexes must be >= 0, got ", i);
    output_size_ = *std::max_element(indexes.begin(), indexes.end()) + 1;
    if (!weights.empty() && static_cast<int64_t>(weights.size()) < output_size_)
      return ctx.fail(StatusCode::kInvalidModel, label, ": weights has ", weights.size(), " values, the output has ",
                      output_size_, " slots");
    weights_ = weights;

    // Every pooled n-gram, keyed by its tokens (as strings or int64s) and length.
    int64_t ngram = 0;
    for (size_t k = 0; k < counts.size(); ++k) {
      const auto n = static_cast<int64_t>(k + 1);
      const int64_t end = k + 1 < counts.size() ? counts[k + 1] : pool_size;
      for (int64_t start = counts[k]; start < end; start += n, ++ngram) {
        if (ngram >= static_cast<int64_t>(indexes.size()))
          return ctx.fail(StatusCode::kInvalidModel, label,
                          ": the pool holds more n-grams than ngram_indexes has entries (", indexes.size(), ")");
        const int64_t slot = indexes[static_cast<size_t>(ngram)];
        bool fresh = true;
        if (string_pool_) {
          std::vector<std::string> key(pool_strings.begin() + start, pool_strings.begin() + start + n);
          fresh = string_grams_.emplace(std::move(key), slot).second;
        } else {
          std::vector<int64_t> key(pool_ints.begin() + start, pool_ints.begin() + start + n);
          fresh = int_grams_.emplace(std::move(key), slot).second;
        }
        if (!fresh)
          return ctx.fail(StatusCode::kInvalidModel, label, ": pool n-gram ", ngram, " repeats an earlier one");
      }
    }
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 1, 1, 1));
    const uint64_t allowed = string_pool_ ? bit(DType::kString) : bit(DType::kInt32) | bit(DType::kInt64);
    HI_RETURN_IF_ERROR(
        check_input_type(ctx.node(), opset_, ctx, 0, allowed, string_pool_ ? "X (pool_strings)" : "X (pool_int64s)"));
    const ir::ValueType& x = ctx.input_type(0);
    if (!x.has_rank()) {
      ctx.set_output_type(0, ir::ValueType::tensor_unknown_shape(DType::kFloat32));
      return Status::ok();
    }
    HI_RETURN_IF_ERROR(check_rank(x.rank(), x.to_string(), StatusCode::kInvalidModel));
    std::vector<ir::Dim> y;
    if (x.rank() == 2) y.push_back((*x.shape)[0]);
    y.push_back(ir::Dim::known(output_size_));
    ctx.set_output_type(0, ir::ValueType::tensor(DType::kFloat32, y));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    const bool ok_type =
        string_pool_ ? x.dtype() == DType::kString : (x.dtype() == DType::kInt32 || x.dtype() == DType::kInt64);
    if (!ok_type)
      return unsupported_type(ctx.node(), opset_, string_pool_ ? "X (pool_strings)" : "X (pool_int64s)", x.dtype());
    HI_RETURN_IF_ERROR(check_rank(x.rank(), x.type_string(), StatusCode::kInvalidArgument));
    const int64_t rows = x.rank() == 2 ? x.dim(0) : 1;
    const int64_t cols = x.dim(x.rank() - 1);
    Tensor& y = ctx.output(0, DType::kFloat32, x.rank() == 2 ? Shape{rows, output_size_} : Shape{output_size_});
    std::vector<int64_t> counts(static_cast<size_t>(output_size_));
    for (int64_t r = 0; r < rows; ++r) {
      std::fill(counts.begin(), counts.end(), 0);
      if (string_pool_) {
        count_row(x.strings() + r * cols, cols, string_grams_, counts);
      } else {
        std::vector<int64_t> tokens(static_cast<size_t>(cols));
        for (int64_t c = 0; c < cols; ++c) tokens[static_cast<size_t>(c)] = x.as_int64(r * cols + c);
        count_row(tokens.data(), cols, int_grams_, counts);
      }
      float* out = y.data<float>() + r * output_size_;
      for (int64_t s = 0; s < output_size_; ++s) out[s] = weigh(counts[static_cast<size_t>(s)], s);
    }
    return Status::ok();
  }

 private:
  Status check_rank(int64_t rank, const std::string& what, StatusCode code) const {
    if (rank == 1 || rank == 2) return Status::ok();
    return error(code, "TfIdfVectorizer (opset ", opset_, ") input X must have shape [C] or [N, C], got ", what);
  }

  // Counts the pooled n-grams of one row of tokens into `counts` (indexed by output slot).
  template <typename Token>
  void count_row(const Token* row, int64_t cols, const std::map<std::vector<Token>, int64_t>& grams,
                 std::vector<int64_t>& counts) const {
    std::vector<Token> key;
    for (int64_t n = min_gram_; n <= max_gram_; ++n) {
      // A 1-gram has no gaps to vary; gaps past the row's length fit nowhere, so a huge
      // max_skip_count stops at the row's end (and max_skip_count + 1 cannot overflow).
      const int64_t max_gap = n == 1 ? 1 : std::min(max_skip_, cols) + 1;
      for (int64_t gap = 1; gap <= max_gap && (n - 1) * gap < cols; ++gap) {
        for (int64_t start = 0; start + (n - 1) * gap < cols; ++start) {
          key.clear();
          for (int64_t j = 0; j < n; ++j) key.push_back(row[start + j * gap]);
          auto it = grams.find(key);
          if (it != grams.end()) ++counts[static_cast<size_t>(it->second)];
        }
      }
    }
  }

  float weigh(int64_t count, int64_t slot) const {
    const float w = weights_.empty() ? 1.f : weights_[static_cast<size_t>(slot)];
    switch (mode_) {
      case Mode::kTF: return static_cast<float>(count);
      case Mode::kIDF: return count > 0 ? w : 0.f;
      case Mode::kTFIDF: return static_cast<float>(count) * w;
    }
    return 0.f;
  }

  int64_t opset_ = 0;
  Mode mode_ = Mode::kTF;
  int64_t min_gram_ = 1, max_gram_ = 1, max_skip_ = 0;
  int64_t output_size_ = 0;
  bool string_pool_ = false;
  std::vector<float> weights_;
  std::map<std::vector<int64_t>, int64_t> int_grams_;
  std::map<std::vector<std::string>, int64_t> string_grams_;
};

}  // namespace

HI_REGISTER_OP(TfIdfVectorizer, TfIdfVectorizerOp)

}  // namespace hi::ops
