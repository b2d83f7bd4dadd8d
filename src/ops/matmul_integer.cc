// MatMulInteger: int32 Y = (A - a_zero_point) x (B - b_zero_point) with numpy matmul shapes;
// A and B are int8 or uint8, a_zero_point per tensor or per row of A, b_zero_point per tensor or
// per column of B. The 32-bit accumulation wraps on overflow, as the spec allows.
#include <algorithm>
#include <utility>

#include "ops/arity.h"
#include "ops/integer_matmul.h"
#include "ops/quantize_util.h"

namespace hi::ops {
namespace {

bool is_8bit(DType t) { return t == DType::kInt8 || t == DType::kUInt8; }

class MatMulIntegerOp final : public Op {
 public:
  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 2, 4));
    const ir::ValueType& a = ctx.input_type(0);
    const ir::ValueType& b = ctx.input_type(1);
    HI_RETURN_IF_ERROR(check_types(a.dtype, b.dtype, ctx.has_input(2) ? ctx.input_type(2).dtype : DType::kUndefined,
                                   ctx.has_input(3) ? ctx.input_type(3).dtype : DType::kUndefined));
    HI_ASSIGN_OR_RETURN(ir::ValueType y, qmm::matmul_type("MatMulInteger", a, b, DType::kInt32));
    ctx.set_output_type(0, y);
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& a = ctx.in(0);
    const Tensor& b = ctx.in(1);
    const Tensor* a_zp = ctx.input(2);
    const Tensor* b_zp = ctx.input(3);
    HI_RETURN_IF_ERROR(check_types(a.dtype(), b.dtype(), a_zp ? a_zp->dtype() : DType::kUndefined,
                                   b_zp ? b_zp->dtype() : DType::kUndefined));
    HI_ASSIGN_OR_RETURN(qmm::MatMulDims d, qmm::matmul_dims("MatMulInteger", a.shape(), b.shape()));
    std::vector<double> za, zb;
    if (a_zp) {
      HI_ASSIGN_OR_RETURN(za, qmm::line_params("MatMulInteger", "a_zero_point", *a_zp, d, true));
    }
    if (b_zp) {
      HI_ASSIGN_OR_RETURN(zb, qmm::line_params("MatMulInteger", "b_zero_point", *b_zp, d, false));
    }
    const auto av = qmm::shifted_values<int32_t>(quant::real_values(a), a_zp ? &za : nullptr, d, true);
    const auto bv = qmm::shifted_values<int32_t>(quant::real_values(b), b_zp ? &zb : nullptr, d, false);
    const std::vector<int32_t> y = qmm::batched_matmul<int32_t>(d, av, bv);
    Tensor& out = ctx.output(0, DType::kInt32, d.out);
    std::copy(y.begin(), y.end(), out.data<int32_t>());
    return Status::ok();
  }

 private:
  static Status check_types(DType a, DType b, DType a_zp, DType b_zp) {
    for (auto [t, name] : {std::pair{a, "A"}, std::pair{b, "B"}})
      if (t != DType::kUndefined && !is_8bit(t))
        return error(StatusCode::kUnsupported, "MatMulInteger (opset 10) takes int8 or uint8 ", name, ", not ",
                     dtype_name(t));
    if (a_zp != DType::kUndefined && a != DType::kUndefined && a_zp != a)
      return error(StatusCode::kInvalidModel, "MatMulInteger: a_zero_point is ", dtype_name(a_zp), " but A is ",
                   dtype_name(a));
    if (b_zp != DType::kUndefined && b != DType::kUndefined && b_zp != b)
      return error(StatusCode::kInvalidModel, "MatMulInteger: b_zero_point is ", dtype_name(b_zp), " but B is ",
                   dtype_name(b));
    return Status::ok();
  }
};

}  // namespace

HI_REGISTER_OP(MatMulInteger, MatMulIntegerOp)

}  // namespace hi::ops
