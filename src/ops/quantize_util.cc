// Type rules, scale reading and scale layouts for the quantization ops.
#include "ops/quantize_util.h"

#include "ops/dispatch.h"
#include "ops/shape_util.h"

namespace hi::ops::quant {

namespace {

// The opset that first lists `t` for `use` (0: never).
int64_t first_opset(QuantUse use, DType t) {
  if (use == QuantUse::kQLinearMatMul) {
    switch (t) {
      case DType::kUInt8:
      case DType::kInt8: return 10;
      case DType::kFloat8E4M3FN:
      case DType::kFloat8E4M3FNUZ:
      case DType::kFloat8E5M2:
      case DType::kFloat8E5M2FNUZ: return 21;
      default: return 0;
    }
  }
  switch (t) {
    case DType::kUInt8:
    case DType::kInt8: return 10;
    case DType::kInt32: return use == QuantUse::kDequantizeInput ? 10 : 0;
    case DType::kFloat8E4M3FN:
    case DType::kFloat8E4M3FNUZ:
    case DType::kFloat8E5M2:
    case DType::kFloat8E5M2FNUZ: return 19;
    case DType::kUInt16:
    case DType::kInt16:
    case DType::kUInt4:
    case DType::kInt4: return 21;
    case DType::kFloat4E2M1: return 23;
    case DType::kUInt2:
    case DType::kInt2: return 25;
    default: return 0;
  }
}

}  // namespace

bool quant_type_allowed(QuantUse use, DType t, int64_t opset, int64_t* first) {
  const int64_t since = first_opset(use, t);
  if (first) *first = since;
  return since != 0 && opset >= since;
}

Status quant_type_error(const char* op, int64_t opset, const char* tensor, DType t, QuantUse use) {
  int64_t since = 0;
  (void)quant_type_allowed(use, t, opset, &since);
  if (since > opset)
    return error(StatusCode::kUnsupported, op, " (opset ", opset, ") does not take ", tensor, " of type ",
                 dtype_name(t), "; it needs opset >= ", since);
  return error(StatusCode::kUnsupported, op, " (opset ", opset, ") does not support ", tensor, " of type ",
               dtype_name(t));
}

bool scale_type_readable(DType t) { return in_set(kFloatTypes | bit(DType::kInt32), t) || t == DType::kFloat8E8M0; }

std::vector<double> real_values(const Tensor& t) {
  std::vector<double> v(static_cast<size_t>(t.numel()));
  if (t.dtype() == DType::kFloat8E8M0) {
    const auto* p = t.data<Float8E8M0>();
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(p[i]);
    return v;
  }
  // Quantized types (zero points) through their codec: int4 is a value, float8 a bit code.
  bool ok = dispatch_codec(t.dtype(), [&]<typename C>() {
    const auto* p = t.data<typename C::Storage>();
    for (size_t i = 0; i < v.size(); ++i) v[i] = C::to_real(p[i]);
  });
  if (!ok)
    ok = dispatch<kNumericTypes>(t.dtype(), [&]<typename T>() {
      const T* p = t.data<T>();
      for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(static_cast<compute_t<T>>(p[i]));
    });
  HI_ASSERT(ok, "real_values of ", dtype_name(t.dtype()));  // callers check the type first
  return v;
}

float round_to(DType p, float v) {
  if (p == DType::kFloat16) return static_cast<float>(Float16(v));
  if (p == DType::kBFloat16) return static_cast<float>(BFloat16(v));
  return v;
}

Result<QuantLayout> make_layout(const char* op, int64_t opset, const Shape& x, const Shape& scale,
                                const Shape* zero_point, int64_t axis, int64_t block_size, const char* scale_name) {
  const int64_t scale_numel = shape_numel(scale);
  // A one-element zero point goes with a one-element scale whatever their ranks ([] and [1]
  // both occur in ONNX's own test models); otherwise the shapes must be equal.
  if (zero_point && *zero_point != scale &&
      !(scale_numel == 1 && shape_numel(*zero_point) == 1 && scale.size() <= 1 && zero_point->size() <= 1))
    return error(StatusCode::kInvalidArgument, op, ": zero point shape ", shape_to_string(*zero_point),
                 " differs from ", scale_name, " shape ", shape_to_string(scale));
  if (block_size < 0) return error(StatusCode::kInvalidModel, op, ": block_size must be >= 0, got ", block_size);
  QuantLayout l;
  const int64_t rank = static_cast<int64_t>(x.size());
  if (block_size == 0 && scale.size() <= 1 && scale_numel == 1) return l;  // per tensor
  if (rank == 0)
    return error(StatusCode::kInvalidArgument, op, ": a scalar x takes a one-element ", scale_name, ", got ",
                 shape_to_string(scale));
  auto ax = normalize_axis(axis, rank);
  if (!ax.is_ok())
    return error(StatusCode::kInvalidModel, op, ": axis ", axis, " is out of range for x of rank ", rank);
  l.axis = ax.value();
  l.dim = x[static_cast<size_t>(l.axis)];
  for (size_t d = static_cast<size_t>(l.axis) + 1; d < x.size(); ++d) l.inner *= x[d];
  if (block_size == 0) {
    if (opset < 13)
      return error(StatusCode::kInvalidArgument, op, " (opset ", opset, ") quantizes per tensor only: ", scale_name,
                   " ", shape_to_string(scale), " must have one element");
    if (scale.size() != 1 || scale[0] != l.dim)
      return error(StatusCode::kInvalidArgument, op, ": ", scale_name, " ", shape_to_string(scale),
                   " must be a scalar or a 1-D tensor of x's size ", l.dim, " along axis ", l.axis, " (x is ",
                   shape_to_string(x), "); blocked quantization needs block_size");
    l.kind = QuantLayout::Kind::kPerAxis;
    return l;
  }
  if (opset < 21)
    return error(StatusCode::kInvalidModel, op, " (opset ", opset, ") has no blocked quantization (block_size ",
                 block_size, "); it needs opset >= 21");
  Shape expected = x;
  expected[static_cast<size_t>(l.axis)] = (l.dim + block_size - 1) / block_size;
  if (scale != expected)
    return error(StatusCode::kInvalidArgument, op, ": with block_size ", block_size, " and axis ", l.axis, ", ",
                 scale_name, " must be ", shape_to_string(expected), " for x ", shape_to_string(x), ", got ",
                 shape_to_string(scale));
  l.kind = QuantLayout::Kind::kBlocked;
  l.block = block_size;
  l.scale_dim = expected[static_cast<size_t>(l.axis)];
  return l;
}

}  // namespace hi::ops::quant
