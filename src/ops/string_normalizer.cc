// StringNormalizer (opset 10): removes stopwords from a string tensor of shape [C] or [1, C],
// then changes case (case_change_action LOWER, UPPER or NONE). is_case_sensitive = 0 (default)
// compares with stopwords ignoring case. When every string is removed the output holds one
// empty string ([1] or [1, 1]), as the spec requires.
//
// Case mapping: the spec defers to `locale`; this kernel maps case the same way for every
// locale, per code point of the UTF-8 text, over ASCII, Latin-1, Latin Extended-A, Greek and
// Cyrillic (the letters with one-to-one simple mappings). Other characters, and bytes that are
// not valid UTF-8, pass through unchanged.
#include <unordered_set>

#include "ops/ml_util.h"
#include "ops/op_checks.h"

namespace hi::ops {
namespace {

enum class CaseAction { kNone, kLower, kUpper };

// Simple case mapping of one code point for the scripts listed above.
char32_t to_upper(char32_t c) {
  if (c >= 'a' && c <= 'z') return c - 32;
  if ((c >= 0xE0 && c <= 0xFE && c != 0xF7)) return c - 0x20;  // Latin-1
  if (c == 0xFF) return 0x178;                                 // ÿ -> Ÿ
  if (c >= 0x100 && c <= 0x17F && c != 0x130 && c != 0x131 && c != 0x138 && c != 0x149 && c != 0x17F) {
    // Latin Extended-A pairs: even/odd, except the 0x139-0x148 and 0x179-0x17E runs (odd/even).
    const bool odd_upper = (c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E);
    if (odd_upper) return (c % 2 == 0) ? c - 1 : c;
    return (c % 2 == 1) ? c - 1 : c;
  }
  if (c >= 0x3B1 && c <= 0x3C9 && c != 0x3C2) return c - 0x20;  // Greek (not final sigma)
  if (c == 0x3C2) return 0x3A3;                                 // ς -> Σ
  if (c >= 0x430 && c <= 0x44F) return c - 0x20;                // Cyrillic
  if (c >= 0x450 && c <= 0x45F) return c - 0x50;
  return c;
}

char32_t to_lower(char32_t c) {
  if (c >= 'A' && c <= 'Z') return c + 32;
  if (c >= 0xC0 && c <= 0xDE && c != 0xD7) return c + 0x20;
  if (c == 0x178) return 0xFF;
  if (c >= 0x100 && c <= 0x17F && c != 0x130 && c != 0x131 && c != 0x138 && c != 0x149 && c != 0x17F) {
    const bool odd_upper = (c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E);
    if (odd_upper) return (c % 2 == 1) ? c + 1 : c;
    return (c % 2 == 0) ? c + 1 : c;
  }
  if (c >= 0x391 && c <= 0x3A9 && c != 0x3A2) return c + 0x20;
  if (c >= 0x410 && c <= 0x42F) return c + 0x20;
  if (c >= 0x400 && c <= 0x40F) return c + 0x50;
  return c;
}

void append_utf8(std::string& out, char32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

// Maps the case of every decodable code point; only 1- and 2-byte sequences can change (all the
// mapped letters lie below U+0800), longer ones and invalid bytes are copied.
std::string change_case(const std::string& s, CaseAction action) {
  if (action == CaseAction::kNone) return s;
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const auto b0 = static_cast<unsigned char>(s[i]);
    char32_t c = 0;
    size_t len = 0;
    if (b0 < 0x80) {
      c = b0;
      len = 1;
    } else if ((b0 & 0xE0) == 0xC0 && i + 1 < s.size() && (static_cast<unsigned char>(s[i + 1]) & 0xC0) == 0x80) {
      c = (static_cast<char32_t>(b0 & 0x1F) << 6) | (static_cast<unsigned char>(s[i + 1]) & 0x3F);
      len = c >= 0x80 ? 2 : 0;  // overlong forms are not valid UTF-8
    }
    if (len == 0) {
      out += s[i++];
      continue;
    }
    append_utf8(out, action == CaseAction::kUpper ? to_upper(c) : to_lower(c));
    i += len;
  }
  return out;
}

class StringNormalizerOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    opset_ = ctx.opset();
    const std::string action = ctx.get_string("case_change_action", "NONE");
    if (action == "NONE") action_ = CaseAction::kNone;
    else if (action == "LOWER") action_ = CaseAction::kLower;
    else if (action == "UPPER") action_ = CaseAction::kUpper;
    else
      return ctx.fail(StatusCode::kInvalidModel, op_label(ctx.node(), opset_),
                      ": case_change_action must be LOWER, UPPER or NONE, got '", action, "'");
    case_sensitive_ = ctx.get_int("is_case_sensitive", 0) != 0;
    for (const auto& w : ctx.get_strings("stopwords"))
      stopwords_.insert(case_sensitive_ ? w : change_case(w, CaseAction::kLower));
    (void)ctx.get_string("locale", "");  // read for its type check; see the note on case mapping
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 1, 1, 1));
    HI_RETURN_IF_ERROR(check_input_type(ctx.node(), opset_, ctx, 0, bit(DType::kString), "X"));
    const ir::ValueType& x = ctx.input_type(0);
    if (!x.has_rank()) {
      ctx.set_output_type(0, ir::ValueType::tensor_unknown_shape(DType::kString));
      return Status::ok();
    }
    HI_RETURN_IF_ERROR(
        check_rank(x.rank(), x.rank() == 2 ? (*x.shape)[0].value : 1, x.to_string(), StatusCode::kInvalidModel));
    // Stopword removal makes the length data-dependent unless there are none.
    const ir::Dim c = stopwords_.empty() ? (*x.shape).back() : ir::Dim{};
    std::vector<ir::Dim> y = x.rank() == 1 ? std::vector<ir::Dim>{c} : std::vector<ir::Dim>{ir::Dim::known(1), c};
    ctx.set_output_type(0, ir::ValueType::tensor(DType::kString, y));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    if (x.dtype() != DType::kString) return unsupported_type(ctx.node(), opset_, "X", x.dtype());
    HI_RETURN_IF_ERROR(
        check_rank(x.rank(), x.rank() == 2 ? x.dim(0) : 1, x.type_string(), StatusCode::kInvalidArgument));
    std::vector<std::string> kept;
    for (int64_t i = 0; i < x.numel(); ++i) {
      const std::string& s = x.strings()[i];
      if (!stopwords_.empty() && stopwords_.count(case_sensitive_ ? s : change_case(s, CaseAction::kLower))) continue;
      kept.push_back(change_case(s, action_));
    }
    // An empty result would be a tensor with no elements; the spec asks for one empty string.
    // With an empty input and no stopwords the output is just as empty as the input.
    if (kept.empty() && x.numel() > 0) kept.emplace_back();
    const auto c = static_cast<int64_t>(kept.size());
    Tensor& y = ctx.output(0, DType::kString, x.rank() == 1 ? Shape{c} : Shape{1, c});
    for (int64_t i = 0; i < c; ++i) y.strings()[i] = std::move(kept[static_cast<size_t>(i)]);
    return Status::ok();
  }

 private:
  // X must be [C] or [1, C]; `rows` is the first dim of a 2-D input (unknown: -1 passes).
  Status check_rank(int64_t rank, int64_t rows, const std::string& what, StatusCode code) const {
    if (rank == 1 || (rank == 2 && (rows == 1 || rows < 0))) return Status::ok();
    return error(code, "StringNormalizer (opset ", opset_, ") input X must have shape [C] or [1, C], got ", what);
  }

  int64_t opset_ = 0;
  CaseAction action_ = CaseAction::kNone;
  bool case_sensitive_ = false;
  std::unordered_set<std::string> stopwords_;
};

}  // namespace

HI_REGISTER_OP(StringNormalizer, StringNormalizerOp)

}  // namespace hi::ops
