// RegexFullMatch (opset 20): Y[i] = whether the whole of X[i] matches `pattern`.
//
// The spec's syntax is RE2; this reference kernel uses std::regex (ECMAScript), which agrees
// with RE2 on the common core: literals, classes ([a-z], \d \w \s \D \W \S), anchors ^ $ \b \B,
// groups ( ) (?: ), alternation, and the quantifiers * + ? {m,n} and their lazy forms.
// The pattern is checked when the session is built:
//   - RE2 syntax std::regex lacks fails as Unsupported: (?P<name>...), (?<name>...), inline
//     flags (?i) (?s) (?m) (?U), \A \z \C \Q...\E, \p{..} \P{..} Unicode classes, [[:^alpha:]];
//   - what RE2 itself rejects fails as InvalidModel: back-references \1..\9 and lookarounds.
// Matching works on bytes: `.` and classes see one byte of a multi-byte UTF-8 character, where
// RE2 sees the whole code point (ASCII text matches the same).
#include <algorithm>
#include <regex>

#include "ops/ml_util.h"
#include "ops/op_checks.h"

namespace hi::ops {
namespace {

// Returns "" when the pattern only uses syntax both engines read the same way, else what it uses.
// `*unsupported` tells RE2-only syntax (true) from syntax RE2 rejects (false).
std::string find_incompatible(const std::string& p, bool* unsupported) {
  bool in_class = false;
  for (size_t i = 0; i < p.size(); ++i) {
    const char c = p[i];
    if (c == '\\' && i + 1 < p.size()) {
      const char e = p[++i];
      if (e >= '1' && e <= '9') {
        *unsupported = false;
        return str("back-reference \\", e);
      }
      if (e == 'A' || e == 'z' || e == 'C' || e == 'Q' || e == 'E' || e == 'p' || e == 'P') {
        *unsupported = true;
        return str("\\", e);
      }
      continue;
    }
    if (in_class) {
      if (c == ']') in_class = false;
      if (c == '[' && p.compare(i, 3, "[:^") == 0) {
        *unsupported = true;
        return "negated POSIX class [[:^...:]]";
      }
      continue;
    }
    if (c == '[') {
      in_class = true;
      if (i + 1 < p.size() && p[i + 1] == '^') ++i;
      if (i + 1 < p.size() && p[i + 1] == ']') ++i;  // a leading ']' is a literal
      continue;
    }
    if (c == '(' && i + 1 < p.size() && p[i + 1] == '?') {
      if (p.compare(i, 3, "(?:") == 0) continue;
      if (p.compare(i, 3, "(?=") == 0 || p.compare(i, 3, "(?!") == 0 || p.compare(i, 4, "(?<=") == 0 ||
          p.compare(i, 4, "(?<!") == 0) {
        *unsupported = false;
        return "lookaround " + p.substr(i, p[i + 2] == '<' ? 4 : 3);
      }
      *unsupported = true;
      return "group syntax " + p.substr(i, std::min<size_t>(4, p.size() - i)) + "...";
    }
  }
  return "";
}

class RegexFullMatchOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    opset_ = ctx.opset();
    if (!ctx.has("pattern"))
      return ctx.fail(StatusCode::kInvalidModel, op_label(ctx.node(), opset_),
                      ": required attribute 'pattern' is missing");
    const std::string pattern = ctx.get_string("pattern", "");
    HI_RETURN_IF_ERROR(ctx.status());
    bool unsupported = false;
    const std::string bad = find_incompatible(pattern, &unsupported);
    if (!bad.empty()) {
      if (unsupported)
        return ctx.fail(StatusCode::kUnsupported, op_label(ctx.node(), opset_), ": pattern '", pattern, "' uses ", bad,
                        ", RE2 syntax this implementation (std::regex, ECMAScript) does not support");
      return ctx.fail(StatusCode::kInvalidModel, op_label(ctx.node(), opset_), ": pattern '", pattern, "' uses ", bad,
                      ", which RE2 does not accept");
    }
    auto flags = std::regex::ECMAScript;
#ifdef __GLIBCXX__
    // libstdc++'s breadth-first matcher: time linear in the input and no recursion per
    // character (the default depth-first one can exhaust the stack on long strings).
    flags |= std::regex_constants::__polynomial;
#endif
    try {
      regex_ = std::regex(pattern, flags);
    } catch (const std::regex_error& e) {
      return ctx.fail(StatusCode::kInvalidModel, op_label(ctx.node(), opset_), ": pattern '", pattern,
                      "' does not compile: ", e.what());
    }
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 1, 1, 1));
    HI_RETURN_IF_ERROR(check_input_type(ctx.node(), opset_, ctx, 0, bit(DType::kString), "X"));
    ir::ValueType y = ctx.input_type(0);
    y.dtype = DType::kBool;
    ctx.set_output_type(0, y);
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    if (x.dtype() != DType::kString) return unsupported_type(ctx.node(), opset_, "X", x.dtype());
    Tensor& y = ctx.output(0, DType::kBool, x.shape());
    for (int64_t i = 0; i < x.numel(); ++i) y.data<bool>()[i] = std::regex_match(x.strings()[i], regex_);
    return Status::ok();
  }

 private:
  int64_t opset_ = 0;
  std::regex regex_;
};

}  // namespace

HI_REGISTER_OP(RegexFullMatch, RegexFullMatchOp)

}  // namespace hi::ops
