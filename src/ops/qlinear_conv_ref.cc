// QLinearConv's arithmetic on NCHW tensors, shared by the QLinearConv op and the reference path
// of FusedQLinearConv (the channels-last form the QDQ pass makes).
#include <functional>

#include "ops/integer_conv.h"
#include "ops/quantize_util.h"

namespace hi::ops::qconv {
namespace {

constexpr const char* kOp = "QLinearConv";
constexpr const char* kNames[9] = {
    "x", "x_scale", "x_zero_point", "w", "w_scale", "w_zero_point", "y_scale", "y_zero_point", "B"};

bool is_8bit(DType t) { return t == DType::kInt8 || t == DType::kUInt8; }

}  // namespace

// x, w and y int8/uint8 with zero points of the same type, float32 scales, int32 bias.
Status check_qlinear_conv_types(const std::vector<DType>& t) {
  for (size_t i : {0, 3, 7})
    if (t[i] != DType::kUndefined && !is_8bit(t[i]))
      return error(StatusCode::kUnsupported, kOp, " (opset 10) takes int8 or uint8 ", kNames[i], ", not ",
                   dtype_name(t[i]));
  for (size_t i : {0, 3})
    if (t[i] != DType::kUndefined && t[i + 2] != DType::kUndefined && t[i + 2] != t[i])
      return error(StatusCode::kInvalidModel, kOp, ": ", kNames[i + 2], " is ", dtype_name(t[i + 2]), " but ",
                   kNames[i], " is ", dtype_name(t[i]), "; they must have the same type");
  for (size_t i : {1, 4, 6})
    if (t[i] != DType::kUndefined && t[i] != DType::kFloat32)
      return error(StatusCode::kUnsupported, kOp, " (opset 10) takes float32 ", kNames[i], ", not ", dtype_name(t[i]));
  if (t[8] != DType::kUndefined && t[8] != DType::kInt32)
    return error(StatusCode::kUnsupported, kOp, " (opset 10) takes int32 B, not ", dtype_name(t[8]));
  return Status::ok();
}

Status qlinear_conv(const std::vector<const Tensor*>& in, int64_t group, const WindowParams& window, bool relu,
                    const std::function<Tensor&(DType, const Shape&)>& output) {
  std::vector<DType> types;
  for (size_t i = 0; i < 9; ++i) types.push_back(i < in.size() && in[i] ? in[i]->dtype() : DType::kUndefined);
  HI_RETURN_IF_ERROR(check_qlinear_conv_types(types));
  for (size_t i = 0; i < 8; ++i)
    if (i >= in.size() || !in[i]) return error(StatusCode::kInvalidModel, kOp, ": input ", kNames[i], " is missing");
  auto input = [&](size_t i) -> const Tensor& { return *in[i]; };
  const Tensor& x = input(0);
  const Tensor& w = input(3);
  const Tensor* bias = in.size() > 8 ? in[8] : nullptr;
  HI_ASSIGN_OR_RETURN(ConvGeometry g, conv_geometry(kOp, x.shape(), w.shape(), group, window));
  // x and y per tensor; w per tensor or per output channel (scale and zero point alike).
  for (size_t s : {1, 2, 6, 7})
    if (input(s).numel() != 1)
      return error(StatusCode::kInvalidArgument, kOp, ": ", kNames[s], " ", input(s).type_string(),
                   " must have one element (per-tensor)");
  const Tensor& w_scale = input(4);
  if (w_scale.numel() != 1 && !(w_scale.rank() == 1 && w_scale.dim(0) == g.m))
    return error(StatusCode::kInvalidArgument, kOp, ": w_scale ", w_scale.type_string(),
                 " must have one element or one per output channel (", g.m, ")");
  if (input(5).shape() != w_scale.shape() && !(input(5).numel() == 1 && w_scale.numel() == 1))
    return error(StatusCode::kInvalidArgument, kOp, ": w_zero_point ", input(5).type_string(),
                 " differs in shape from w_scale ", w_scale.type_string());
  if (bias && (bias->rank() != 1 || bias->dim(0) != g.m))
    return error(StatusCode::kInvalidArgument, kOp, ": B ", bias->type_string(), " must be [", g.m,
                 "] (one per output channel)");
  HI_ASSIGN_OR_RETURN(auto xs, shift_input(kOp, x, &input(2), "x_zero_point"));
  HI_ASSIGN_OR_RETURN(auto ws, shift_weights(kOp, w, &input(5), "w_zero_point"));
  const std::vector<int32_t> acc = conv_int32(g, xs, ws);

  const float x_scale = static_cast<float>(quant::real_values(input(1))[0]);
  const float y_scale = static_cast<float>(quant::real_values(input(6))[0]);
  const std::vector<double> w_scales = quant::real_values(w_scale);
  const Tensor& y_zp = input(7);
  Tensor& out = output(y_zp.dtype(), g.out_shape);
  const int64_t out_size = shape_numel(g.out);
  quant::dispatch_codec(y_zp.dtype(), [&]<typename C>() {
    using S = typename C::Storage;
    const S zp = y_zp.data<S>()[0];
    S* py = out.data<S>();
    for (int64_t i = 0; i < out.numel(); ++i) {
      const int64_t m = (i / out_size) % g.m;
      const float ws_m = static_cast<float>(w_scales[w_scales.size() == 1 ? 0 : static_cast<size_t>(m)]);
      const float mult = x_scale * ws_m / y_scale;
      // int32 + int32 bias wraps like the accumulation.
      const int32_t a =
          bias ? static_cast<int32_t>(static_cast<int64_t>(acc[static_cast<size_t>(i)]) + bias->data<int32_t>()[m])
               : acc[static_cast<size_t>(i)];
      py[i] = C::quantize(static_cast<double>(a) * static_cast<double>(mult), zp, true);
      if (relu && py[i] < zp) py[i] = zp;
    }
  });
  return Status::ok();
}

}  // namespace hi::ops::qconv
