// QLinearAdd (com.hipinfer): a QDQ model's quantized residual Add, DequantizeLinear(A) +
// DequantizeLinear(B) -> QuantizeLinear, as one op over the 8-bit codes (the QDQ pass makes it;
// inputs as com.microsoft's QLinearAdd: A, A_scale, A_zero_point, B, B_scale, B_zero_point,
// C_scale, C_zero_point, each scale and zero point one element). Each step rounds to float32
// as the three ops do, so the codes are theirs bit for bit. A and B broadcast (numpy rules);
// same shapes and one type take the vectorised loop (ops/quantize_loops.cc).
#include "ops/arity.h"
#include "ops/elementwise.h"
#include "ops/internal.h"
#include "ops/quantize_loops.h"
#include "ops/shape_util.h"

namespace hi::ops {
namespace {

constexpr const char* kOp = "QLinearAdd";
constexpr const char* kNames[8] = {"A",       "A_scale",      "A_zero_point", "B",
                                   "B_scale", "B_zero_point", "C_scale",      "C_zero_point"};

bool is_8bit(DType t) { return t == DType::kUInt8 || t == DType::kInt8; }

int32_t code(const Tensor& t, int64_t i) {
  return t.dtype() == DType::kInt8 ? int32_t{t.data<int8_t>()[i]} : int32_t{t.data<uint8_t>()[i]};
}

class QLinearAddOp final : public Op {
 public:
  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 8, 8));
    for (size_t i : {0, 2, 3, 5, 7})
      if (!is_8bit(ctx.input_type(i).dtype) && ctx.input_type(i).dtype != DType::kUndefined)
        return error(StatusCode::kUnsupported, kOp, " takes int8 or uint8 ", kNames[i], ", not ",
                     dtype_name(ctx.input_type(i).dtype));
    for (size_t i : {1, 4, 6})
      if (ctx.input_type(i).dtype != DType::kFloat32 && ctx.input_type(i).dtype != DType::kUndefined)
        return error(StatusCode::kUnsupported, kOp, " takes float32 ", kNames[i], ", not ",
                     dtype_name(ctx.input_type(i).dtype));
    const ir::ValueType& a = ctx.input_type(0);
    const ir::ValueType& b = ctx.input_type(3);
    ir::ValueType a_as_b = a;
    a_as_b.dtype = b.dtype;  // broadcast_types wants one dtype; A and B may differ in signedness
    HI_ASSIGN_OR_RETURN(ir::ValueType y, broadcast_types({&a_as_b, &b}, ctx.input_type(7).dtype));
    ctx.set_output_type(0, y);
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    for (size_t i : {1, 2, 4, 5, 6, 7})
      if (ctx.in(i).numel() != 1)
        return error(StatusCode::kInvalidArgument, kOp, ": ", kNames[i], " ", ctx.in(i).type_string(),
                     " must have one element");
    const Tensor& a = ctx.in(0);
    const Tensor& b = ctx.in(3);
    quant::QuantizedAddParams p;
    p.a_scale = ctx.in(1).data<float>()[0];
    p.b_scale = ctx.in(4).data<float>()[0];
    p.y_scale = ctx.in(6).data<float>()[0];
    p.a_zero_point = code(ctx.in(2), 0);
    p.b_zero_point = code(ctx.in(5), 0);
    p.y_zero_point = code(ctx.in(7), 0);
    const DType out = ctx.in(7).dtype();
    HI_ASSIGN_OR_RETURN(Shape shape, broadcast_shapes(a.shape(), b.shape()));
    Tensor& y = ctx.output(0, out, shape);
    if (a.shape() == b.shape() && a.dtype() == out && b.dtype() == out) {
      if (out == DType::kUInt8)
        quant::quantized_add_u8(a.data<uint8_t>(), b.data<uint8_t>(), a.numel(), p, y.data<uint8_t>());
      else quant::quantized_add_s8(a.data<int8_t>(), b.data<int8_t>(), a.numel(), p, y.data<int8_t>());
      return Status::ok();
    }
    // Mixed types or broadcasting: the three ops one after the other.
    auto dequantize = [](const Tensor& t, float scale, int32_t zero_point) {
      std::vector<float> v(static_cast<size_t>(t.numel()));
      for (int64_t i = 0; i < t.numel(); ++i)
        v[static_cast<size_t>(i)] = (static_cast<float>(code(t, i)) - static_cast<float>(zero_point)) * scale;
      return v;
    };
    const std::vector<float> da = dequantize(a, p.a_scale, p.a_zero_point),
                             db = dequantize(b, p.b_scale, p.b_zero_point);
    std::vector<float> sum(static_cast<size_t>(shape_numel(shape)));
    for_each_broadcast(shape, a.shape(), b.shape(), [&](int64_t o, int64_t ia, int64_t ib) {
      sum[static_cast<size_t>(o)] = da[static_cast<size_t>(ia)] + db[static_cast<size_t>(ib)];
    });
    if (out == DType::kUInt8)
      quant::quantize_to_u8(sum.data(), y.numel(), p.y_scale, p.y_zero_point, y.data<uint8_t>());
    else quant::quantize_to_s8(sum.data(), y.numel(), p.y_scale, p.y_zero_point, y.data<int8_t>());
    return Status::ok();
  }
};

}  // namespace

HI_REGISTER_OP(QLinearAdd, QLinearAddOp)

}  // namespace hi::ops
