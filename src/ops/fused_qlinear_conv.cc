#include "ops/fused_qlinear_conv.h"

#include <cstring>

#include "ops/arity.h"
#include "ops/integer_conv.h"
#include "ops/internal.h"
#include "ops/quantize_util.h"

namespace hi::ops {
namespace {

// 8-bit [N, A, B, C] <-> [N, C, A, B]: to_channels_first permutes channels-last to first.
Tensor permute_bytes(const Tensor& t, bool to_channels_first) {
  const Shape& s = t.shape();
  const int64_t n = s[0], d1 = s[1], d2 = s[2], d3 = s[3];
  Tensor out = Tensor::empty(t.dtype(), to_channels_first ? Shape{n, d3, d1, d2} : Shape{n, d2, d3, d1});
  const auto* src = static_cast<const uint8_t*>(t.raw());
  auto* dst = static_cast<uint8_t*>(out.raw());
  for (int64_t b = 0; b < n; ++b)
    for (int64_t i = 0; i < d1; ++i)
      for (int64_t j = 0; j < d2; ++j)
        for (int64_t k = 0; k < d3; ++k) {
          const int64_t from = ((b * d1 + i) * d2 + j) * d3 + k;
          // channels-last [b, i=h, j=w, k=c] -> [b, c, h, w]; channels-first [b, i=c, j=h, k=w] -> [b, h, w, c]
          const int64_t to = to_channels_first ? ((b * d3 + k) * d1 + i) * d2 + j : ((b * d2 + j) * d3 + k) * d1 + i;
          dst[to] = src[from];
        }
  return out;
}

ir::ValueType permute_type(const ir::ValueType& t, bool to_channels_first) {
  if (!t.has_rank() || t.rank() != 4) return t;
  ir::ValueType out = t;
  const auto& d = *t.shape;
  out.shape =
      to_channels_first ? std::vector<ir::Dim>{d[0], d[3], d[1], d[2]} : std::vector<ir::Dim>{d[0], d[2], d[3], d[1]};
  return out;
}

}  // namespace

Status FusedQLinearConvOp::init(InitContext& ctx) {
  window_.parse(ctx, true);
  group_ = ctx.get_int("group", 1);
  if (group_ <= 0) return ctx.fail(StatusCode::kInvalidModel, kOp, ": group must be positive, got ", group_);
  const std::string act = ctx.get_string("activation", "");
  if (act != "" && act != "Relu")
    return ctx.fail(StatusCode::kInvalidModel, kOp, ": activation must be Relu or absent, got '", act, "'");
  relu_ = act == "Relu";
  return ctx.status();
}

Status FusedQLinearConvOp::infer(InferContext& ctx) const {
  HI_RETURN_IF_ERROR(check_arity(ctx, 8, 9));
  std::vector<DType> types;
  for (size_t i = 0; i < 9; ++i) types.push_back(ctx.has_input(i) ? ctx.input_type(i).dtype : DType::kUndefined);
  HI_RETURN_IF_ERROR(qconv::check_qlinear_conv_types(types));
  const ir::ValueType& x = ctx.input_type(0);
  if (x.has_rank() && x.rank() != 4)
    return error(StatusCode::kInvalidModel, kOp, " takes a 4-D channels-last x, got ", x.to_string());
  HI_ASSIGN_OR_RETURN(ir::ValueType y,
                      qconv::conv_type(kOp, permute_type(x, true), ctx.input_type(3), group_, window_, types[7]));
  ctx.set_output_type(0, permute_type(y, false));
  bool constants = true;
  for (size_t i = 1; i < 9; ++i) constants = constants && (!ctx.has_input(i) || ctx.input_value(i) != nullptr);
  constants_ = constants;
  return Status::ok();
}

Status FusedQLinearConvOp::run(RunContext& ctx) const {
  const Tensor& x = ctx.in(0);
  if (x.rank() != 4)
    return error(StatusCode::kInvalidArgument, kOp, " takes a 4-D channels-last x, got ", x.type_string());
  std::vector<const Tensor*> in;
  const Tensor xc = permute_bytes(x, true);
  in.push_back(&xc);
  for (size_t i = 1; i < 9; ++i) in.push_back(ctx.input(i));
  Tensor yc;
  HI_RETURN_IF_ERROR(qconv::qlinear_conv(in, group_, window_, relu_, [&](DType t, const Shape& s) -> Tensor& {
    yc = Tensor::empty(t, s);
    return yc;
  }));
  const Tensor y = permute_bytes(yc, false);
  Tensor& out = ctx.output(0, y.dtype(), y.shape());
  std::memcpy(out.raw(), y.raw(), static_cast<size_t>(y.numel()));
  return Status::ok();
}

HI_REGISTER_OP(FusedQLinearConv, FusedQLinearConvOp)

}  // namespace hi::ops
