// StringSplit (opset 20): splits each string of X by `delimiter`, like Python's str.split.
// Outputs: Y = X.shape + [longest split], padded with "", and Z (int64, X.shape) = the number
// of pieces of each string. An empty or absent delimiter splits on runs of whitespace and drops
// leading and trailing whitespace; `maxsplit` (absent: no limit) caps the number of splits, the
// remainder of the string staying whole.
#include <algorithm>
#include <limits>

#include "ops/ml_util.h"
#include "ops/op_checks.h"

namespace hi::ops {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }

// Python's s.split(delimiter, maxsplit) with a non-empty delimiter.
std::vector<std::string> split_by(const std::string& s, const std::string& delim, int64_t maxsplit) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (int64_t splits = 0; splits < maxsplit; ++splits) {
    const size_t at = s.find(delim, start);
    if (at == std::string::npos) break;
    parts.push_back(s.substr(start, at - start));
    start = at + delim.size();
  }
  parts.push_back(s.substr(start));
  return parts;
}

// Python's s.split(None, maxsplit): whitespace runs separate, and never yield empty pieces.
std::vector<std::string> split_whitespace(const std::string& s, int64_t maxsplit) {
  std::vector<std::string> parts;
  size_t i = 0;
  const size_t n = s.size();
  while (true) {
    while (i < n && is_space(s[i])) ++i;
    if (i == n) break;
    if (static_cast<int64_t>(parts.size()) == maxsplit) {
      // The rest, with its trailing whitespace removed.
      size_t end = n;
      while (end > i && is_space(s[end - 1])) --end;
      parts.push_back(s.substr(i, end - i));
      break;
    }
    size_t j = i;
    while (j < n && !is_space(s[j])) ++j;
    parts.push_back(s.substr(i, j - i));
    i = j;
  }
  return parts;
}

class StringSplitOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    opset_ = ctx.opset();
    delimiter_ = ctx.get_string("delimiter", "");
    maxsplit_ = ctx.get_int("maxsplit", std::numeric_limits<int64_t>::max());
    if (maxsplit_ < 0)
      return ctx.fail(StatusCode::kInvalidModel, op_label(ctx.node(), opset_), ": maxsplit must be >= 0, got ",
                      maxsplit_);
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 1, 1, 2));
    HI_RETURN_IF_ERROR(check_input_type(ctx.node(), opset_, ctx, 0, bit(DType::kString), "X"));
    const ir::ValueType& x = ctx.input_type(0);
    if (!x.has_rank()) {
      ctx.set_output_type(0, ir::ValueType::tensor_unknown_shape(DType::kString));
      if (ctx.num_outputs() > 1) ctx.set_output_type(1, ir::ValueType::tensor_unknown_shape(DType::kInt64));
      return Status::ok();
    }
    std::vector<ir::Dim> y = *x.shape;
    y.emplace_back();  // the longest split is known only from the data
    ctx.set_output_type(0, ir::ValueType::tensor(DType::kString, y));
    if (ctx.num_outputs() > 1) ctx.set_output_type(1, ir::ValueType::tensor(DType::kInt64, *x.shape));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    if (x.dtype() != DType::kString) return unsupported_type(ctx.node(), opset_, "X", x.dtype());
    const int64_t n = x.numel();
    std::vector<std::vector<std::string>> pieces(static_cast<size_t>(n));
    size_t longest = 0;
    for (int64_t i = 0; i < n; ++i) {
      const std::string& s = x.strings()[i];
      auto& p = pieces[static_cast<size_t>(i)];
      p = delimiter_.empty() ? split_whitespace(s, maxsplit_) : split_by(s, delimiter_, maxsplit_);
      longest = std::max(longest, p.size());
    }
    Shape y_shape = x.shape();
    y_shape.push_back(static_cast<int64_t>(longest));
    Tensor& y = ctx.output(0, DType::kString, y_shape);
    std::string* py = y.strings();
    for (int64_t i = 0; i < n; ++i) {
      const auto& p = pieces[static_cast<size_t>(i)];
      for (size_t j = 0; j < longest; ++j)
        py[static_cast<size_t>(i) * longest + j] = j < p.size() ? p[j] : std::string();
    }
    if (ctx.num_outputs() > 1) {
      Tensor& z = ctx.output(1, DType::kInt64, x.shape());
      for (int64_t i = 0; i < n; ++i)
        z.data<int64_t>()[i] = static_cast<int64_t>(pieces[static_cast<size_t>(i)].size());
    }
    return Status::ok();
  }

 private:
  int64_t opset_ = 0;
  std::string delimiter_;
  int64_t maxsplit_ = 0;
};

}  // namespace

HI_REGISTER_OP(StringSplit, StringSplitOp)

}  // namespace hi::ops
