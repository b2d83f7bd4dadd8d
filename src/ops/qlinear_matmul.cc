// QLinearMatMul: quantized numpy matmul.
//   acc = (a - a_zero_point) x (b - b_zero_point)       (int32 accumulation for integer inputs)
//   y   = saturate(round_half_even(acc * (a_scale * b_scale / y_scale)) + y_zero_point)
// a's scale and zero point are per tensor or per row, b's per tensor or per column, y's per
// tensor. The multiplier is computed in the scales' type (float32, or float16/bfloat16 from
// opset 21), as ONNX's reference does; float8 inputs (opset 21) accumulate in double.
#include "ops/arity.h"
#include "ops/dispatch.h"
#include "ops/integer_matmul.h"
#include "ops/quantize_util.h"

namespace hi::ops {
namespace {

using quant::QuantUse;

constexpr const char* kOp = "QLinearMatMul";
constexpr const char* kNames[8] = {"a",       "a_scale",      "a_zero_point", "b",
                                   "b_scale", "b_zero_point", "y_scale",      "y_zero_point"};

class QLinearMatMulOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    opset_ = ctx.opset();
    return Status::ok();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 8, 8));
    std::vector<DType> types;
    for (size_t i = 0; i < 8; ++i) types.push_back(ctx.input_type(i).dtype);
    HI_RETURN_IF_ERROR(check_types(types));
    // Scale/zero-point pairs must agree in shape where both are known.
    for (size_t s : {1, 4, 6}) {
      const ir::ValueType& scale = ctx.input_type(s);
      const ir::ValueType& zp = ctx.input_type(s + 1);
      if (scale.is_static() && zp.is_static())
        HI_RETURN_IF_ERROR(check_pair(scale.concrete_shape(), zp.concrete_shape(), s));
    }
    HI_ASSIGN_OR_RETURN(ir::ValueType y, qmm::matmul_type(kOp, ctx.input_type(0), ctx.input_type(3), types[7]));
    ctx.set_output_type(0, y);
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    std::vector<DType> types;
    for (size_t i = 0; i < 8; ++i) types.push_back(ctx.in(i).dtype());
    HI_RETURN_IF_ERROR(check_types(types));
    for (size_t s : {1, 4, 6}) HI_RETURN_IF_ERROR(check_pair(ctx.in(s).shape(), ctx.in(s + 1).shape(), s));
    const Tensor& a = ctx.in(0);
    const Tensor& b = ctx.in(3);
    const Tensor& y_scale = ctx.in(6);
    const Tensor& y_zp = ctx.in(7);
    if (y_scale.numel() != 1)
      return error(StatusCode::kInvalidArgument, kOp, ": y_scale ", y_scale.type_string(),
                   " must have one element (y is quantized per tensor)");
    HI_ASSIGN_OR_RETURN(qmm::MatMulDims d, qmm::matmul_dims(kOp, a.shape(), b.shape()));
    HI_ASSIGN_OR_RETURN(auto sa, qmm::line_params(kOp, "a_scale", ctx.in(1), d, true));
    HI_ASSIGN_OR_RETURN(auto za, qmm::line_params(kOp, "a_zero_point", ctx.in(2), d, true));
    HI_ASSIGN_OR_RETURN(auto sb, qmm::line_params(kOp, "b_scale", ctx.in(4), d, false));
    HI_ASSIGN_OR_RETURN(auto zb, qmm::line_params(kOp, "b_zero_point", ctx.in(5), d, false));
    const std::vector<double> av = quant::real_values(a), bv = quant::real_values(b);
    std::vector<double> acc;
    if (dtype_is_integer(a.dtype()) && dtype_is_integer(b.dtype())) {
      const auto y = qmm::batched_matmul<int32_t>(d, qmm::shifted_values<int32_t>(av, &za, d, true),
                                                  qmm::shifted_values<int32_t>(bv, &zb, d, false));
      acc.assign(y.begin(), y.end());
    } else {
      acc = qmm::batched_matmul<double>(d, qmm::shifted_values<double>(av, &za, d, true),
                                        qmm::shifted_values<double>(bv, &zb, d, false));
    }
    const DType ts = types[1];
    const float ys = static_cast<float>(quant::real_values(y_scale)[0]);
    const BroadcastIndex ia(d.batch, d.a_batch), ib(d.batch, d.b_batch);
    Tensor& out = ctx.output(0, y_zp.dtype(), d.out);
    quant::dispatch_codec(y_zp.dtype(), [&]<typename C>() {
      using S = typename C::Storage;
      const S zp = y_zp.data<S>()[0];
      S* py = out.data<S>();
      for (int64_t bi = 0, i = 0; bi < shape_numel(d.batch); ++bi)
        for (int64_t r = 0; r < d.m; ++r)
          for (int64_t c = 0; c < d.n; ++c, ++i) {
            const float s_a = static_cast<float>(sa[static_cast<size_t>(ia.offset(bi) * d.m + r)]);
            const float s_b = static_cast<float>(sb[static_cast<size_t>(ib.offset(bi) * d.n + c)]);
            const float mult = quant::round_to(ts, quant::round_to(ts, s_a * s_b) / ys);
            py[i] = C::quantize(acc[static_cast<size_t>(i)] * static_cast<double>(mult), zp, true);
          }
    });
    return Status::ok();
  }

 private:
  // a, b and y types per opset; zero points of their tensor's type; the three scales of one type.
  Status check_types(const std::vector<DType>& t) const {
    for (size_t i : {0, 3, 7})
      if (t[i] != DType::kUndefined && !quant::quant_type_allowed(QuantUse::kQLinearMatMul, t[i], opset_, nullptr))
        return quant::quant_type_error(kOp, opset_, kNames[i], t[i], QuantUse::kQLinearMatMul);
    for (size_t i : {0, 3})
      if (t[i] != DType::kUndefined && t[i + 2] != DType::kUndefined && t[i + 2] != t[i])
        return error(StatusCode::kInvalidModel, kOp, ": ", kNames[i + 2], " is ", dtype_name(t[i + 2]), " but ",
                     kNames[i], " is ", dtype_name(t[i]), "; they must have the same type");
    const uint64_t scale_types =
        opset_ >= 21 ? bit(DType::kFloat32) | bit(DType::kFloat16) | bit(DType::kBFloat16) : bit(DType::kFloat32);
    for (size_t i : {1, 4, 6}) {
      if (t[i] != DType::kUndefined && !in_set(scale_types, t[i]))
        return error(StatusCode::kUnsupported, kOp, " (opset ", opset_, ") does not support ", kNames[i], " of type ",
                     dtype_name(t[i]));
      if (t[i] != DType::kUndefined && t[1] != DType::kUndefined && t[i] != t[1])
        return error(StatusCode::kInvalidModel, kOp, ": ", kNames[i], " is ", dtype_name(t[i]), " but a_scale is ",
                     dtype_name(t[1]), "; the scales must have one type");
    }
    return Status::ok();
  }

  // A scale and its zero point: the same shape, or one element each.
  static Status check_pair(const Shape& scale, const Shape& zp, size_t s) {
    if (scale == zp || (shape_numel(scale) == 1 && shape_numel(zp) == 1)) return Status::ok();
    return error(StatusCode::kInvalidArgument, kOp, ": ", kNames[s + 1], " shape ", shape_to_string(zp),
                 " differs from ", kNames[s], " shape ", shape_to_string(scale));
  }

  int64_t opset_ = 0;
};

}  // namespace

HI_REGISTER_OP(QLinearMatMul, QLinearMatMulOp)

}  // namespace hi::ops
