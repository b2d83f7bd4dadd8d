// Cast: converts every element to the type in 'to' (an int code; a type name string in
// opset 1). Numeric types, bool, float16/bfloat16 and string both ways. Float to integer
// truncates and saturates (NaN -> 0); see ops/convert.h. Strings parse as decimal or
// scientific numbers, with INF, +INF, -INF and NaN in any case; numbers print in the shortest
// form that reads back to the same value ("0.1", "1e+20", "INF", "NaN"); bools print as 1/0.
// The low-precision types (float8 variants, float8e8m0, float4e2m1, int4/uint4, int2/uint2) go
// through cast_low_precision.cc, which honours 'saturate' (opset 19+) and 'round_mode' (24+).
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

#include "ops/arity.h"
#include "ops/cast.h"
#include "ops/convert.h"
#include "ops/copy_util.h"
#include "ops/elementwise.h"

namespace hi::ops {
namespace {

constexpr uint64_t kCastTypes = kAllTypes | bit(DType::kString);

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

// Parses a whole string as a float or double (plain, scientific, or INF/NaN in any case).
template <typename F = double>
bool parse_double(const std::string& text, F* out) {
  std::string s = trim(text);
  const std::string l = lower(s);
  if (l == "inf" || l == "+inf" || l == "infinity" || l == "+infinity") return *out = static_cast<F>(HUGE_VAL), true;
  if (l == "-inf" || l == "-infinity") return *out = static_cast<F>(-HUGE_VAL), true;
  if (l == "nan" || l == "+nan" || l == "-nan") return *out = static_cast<F>(std::nan("")), true;
  if (!s.empty() && s[0] == '+') s.erase(0, 1);
  if (s.empty()) return false;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), *out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

// Parses a whole string as an integer of type T: exact digits when they fit, else a number
// (e.g. "100.5", "1e3") converted like a float.
template <typename T>
bool parse_integer(const std::string& text, T* out) {
  std::string s = trim(text);
  if (!s.empty() && s[0] == '+') s.erase(0, 1);
  using Wide = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
  Wide w = 0;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), w);
  if (r.ec == std::errc() && r.ptr == s.data() + s.size()) {
    *out = static_cast<T>(w);
    return true;
  }
  double d = 0;
  if (!parse_double(text, &d)) return false;
  *out = saturate_to_int<T>(d);
  return true;
}

template <typename D>
bool parse_value(const std::string& s, D* out) {
  if constexpr (std::is_same_v<D, bool>) {
    const std::string l = lower(trim(s));
    if (l == "true") return *out = true, true;
    if (l == "false") return *out = false, true;
    double d = 0;
    if (!parse_double(s, &d)) return false;
    *out = d != 0;
    return true;
  } else if constexpr (std::is_integral_v<D>) {
    return parse_integer(s, out);
  } else if constexpr (std::is_same_v<D, float>) {  // parsed as float directly: no double rounding
    return parse_double<float>(s, out);
  } else {
    double d = 0;
    if (!parse_double(s, &d)) return false;
    *out = convert_value<D>(d);
    return true;
  }
}

template <typename F>
std::string float_text(F v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "INF" : "-INF";
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, r.ptr);
}

template <typename S>
std::string format_value(S v) {
  if constexpr (std::is_same_v<S, bool>) {
    return v ? "1" : "0";
  } else if constexpr (std::is_same_v<S, Float16> || std::is_same_v<S, BFloat16>) {
    return float_text(static_cast<float>(v));
  } else if constexpr (std::is_floating_point_v<S>) {
    return float_text(v);
  } else {
    return std::to_string(v);
  }
}

bool is_castable(DType t) { return in_set(kCastTypes, t) || dtype_is_low_precision(t); }

class CastOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    const ir::Attribute* a = ctx.node().attr("to");
    if (!a) return ctx.fail(StatusCode::kInvalidModel, "required attribute 'to' is missing");
    if (a->kind == ir::Attribute::Kind::kString) {  // opset 1: "FLOAT", "INT64", ...
      to_ = dtype_from_name(a->s);
      if (to_ == DType::kUndefined)
        return ctx.fail(StatusCode::kInvalidModel, "'to' names an unknown type '", a->s, "'");
    } else {
      to_ = static_cast<DType>(ctx.get_int("to", 0));
    }
    if (!is_castable(to_)) return ctx.fail(StatusCode::kUnsupported, "Cast to ", dtype_name(to_), " is not supported");
    return read_cast_options(ctx, &options_);
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 1, 1));
    ir::ValueType t = ctx.input_type(0);
    if (t.dtype != DType::kUndefined && !is_castable(t.dtype))
      return error(StatusCode::kUnsupported, "Cast from ", dtype_name(t.dtype), " is not supported");
    t.dtype = to_;
    ctx.set_output_type(0, std::move(t));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    if (!is_castable(x.dtype()))
      return error(StatusCode::kUnsupported, "Cast from ", dtype_name(x.dtype()), " is not supported");
    if (x.dtype() == to_) {  // nothing to convert: share the input
      ctx.set_output(0, x);
      return Status::ok();
    }
    return cast_into(x, ctx.output(0, to_, x.shape()), options_);
  }

 private:
  DType to_ = DType::kUndefined;
  CastOptions options_;
};

}  // namespace

bool cast_supported(DType t) { return is_castable(t); }

Status cast_into(const Tensor& x, Tensor& out, const CastOptions& options) {
  const DType to = out.dtype();
  if (dtype_is_low_precision(x.dtype()) || dtype_is_low_precision(to)) return cast_low_precision(x, out, options);
  const int64_t n = x.numel();
  if (x.dtype() == DType::kString) {
    Status status;
    dispatch<kAllTypes>(to, [&]<typename D>() {
      const std::string* src = x.strings();
      D* dst = out.data<D>();
      for (int64_t i = 0; i < n; ++i)
        if (!parse_value(src[i], &dst[i])) {
          status = error(StatusCode::kInvalidArgument, "cannot convert string \"", src[i], "\" (element ", i, ") to ",
                         dtype_name(to));
          return;
        }
    });
    return status;
  }
  if (to == DType::kString) {
    dispatch<kAllTypes>(x.dtype(), [&]<typename S>() {
      const S* src = x.data<S>();
      std::string* dst = out.strings();
      for (int64_t i = 0; i < n; ++i) dst[i] = format_value(src[i]);
    });
    return Status::ok();
  }
  dispatch<kAllTypes>(x.dtype(), [&]<typename S>() {
    dispatch<kAllTypes>(to, [&]<typename D>() {
      const S* src = x.data<S>();
      D* dst = out.data<D>();
      for (int64_t i = 0; i < n; ++i) dst[i] = convert_value<D>(src[i]);
    });
  });
  return Status::ok();
}

HI_REGISTER_OP(Cast, CastOp)

}  // namespace hi::ops
