// BitCast (opset 26): the same bits read as another type of the same bit width; the shape is
// kept. Every non-string type that hipinfer holds is allowed (complex types are not held).
//
// In memory most types are their file bits, so the bytes are copied as they are. Two cases
// need care because memory holds something other than the raw bits: sub-byte integers (int4
// and int2 are held sign-extended, so int4 -> uint4 masks and uint4 -> int4 sign-extends; the
// 4-bit code of float4e2m1 is held as is) and bool (any non-zero bit pattern reads as true).
#include <cstring>

#include "core/low_precision.h"
#include "ops/arity.h"
#include "ops/op.h"

namespace hi::ops {
namespace {

bool bit_castable(DType t) { return dtype_is_supported(t) && t != DType::kString && dtype_bits(t) > 0; }

class BitCastOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    if (!ctx.node().attr("to")) return ctx.fail(StatusCode::kInvalidModel, "required attribute 'to' is missing");
    to_ = static_cast<DType>(ctx.get_int("to", 0));
    if (!bit_castable(to_))
      return ctx.fail(StatusCode::kUnsupported, "BitCast (opset ", ctx.opset(), ") to ", dtype_name(to_),
                      " is not supported");
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 1, 1));
    ir::ValueType t = ctx.input_type(0);
    if (t.dtype != DType::kUndefined) HI_RETURN_IF_ERROR(check_types(t.dtype));
    t.dtype = to_;
    ctx.set_output_type(0, std::move(t));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    HI_RETURN_IF_ERROR(check_types(x.dtype()));
    Tensor& y = ctx.output(0, to_, x.shape());
    if (x.nbytes() > 0) std::memcpy(y.raw(), x.raw(), x.nbytes());
    const int bits = dtype_bits(to_);
    uint8_t* b = static_cast<uint8_t*>(y.raw());
    if (to_ == DType::kBool) {
      for (int64_t i = 0; i < y.numel(); ++i) b[i] = b[i] != 0;
    } else if (to_ == DType::kInt4 || to_ == DType::kInt2) {
      for (int64_t i = 0; i < y.numel(); ++i) b[i] = static_cast<uint8_t>(wrap_to_signed_bits(b[i], bits));
    } else if (bits < 8) {  // uint4, uint2, float4e2m1: only the low bits are the value
      for (int64_t i = 0; i < y.numel(); ++i) b[i] = wrap_to_unsigned_bits(b[i], bits);
    }
    return Status::ok();
  }

 private:
  Status check_types(DType from) const {
    if (!bit_castable(from))
      return error(StatusCode::kUnsupported, "BitCast from ", dtype_name(from), " is not supported");
    if (dtype_bits(from) != dtype_bits(to_))
      return error(StatusCode::kInvalidArgument, "BitCast from ", dtype_name(from), " (", dtype_bits(from),
                   " bits) to ", dtype_name(to_), " (", dtype_bits(to_), " bits): the bit widths must be equal");
    return Status::ok();
  }

  DType to_ = DType::kUndefined;
};

}  // namespace

HI_REGISTER_OP(BitCast, BitCastOp)

}  // namespace hi::ops
