// Window geometry for convolution and pooling.
#include "ops/conv_util.h"

#include <limits>

namespace hi::ops {

void WindowParams::parse(InitContext& ctx, bool read_kernel) {
  if (read_kernel) kernel = ctx.get_ints("kernel_shape");
  strides = ctx.get_ints("strides");
  dilations = ctx.get_ints("dilations");
  pads = ctx.get_ints("pads");
  auto_pad = ctx.get_string("auto_pad", "NOTSET");
  ceil_mode = ctx.get_int("ceil_mode", 0) != 0;
  if (auto_pad != "NOTSET" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER" && auto_pad != "VALID")
    (void)ctx.fail(StatusCode::kInvalidModel, "auto_pad '", auto_pad,
                   "' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID");
}

Status WindowParams::resolve_rank(size_t spatial) {
  if (strides.empty()) strides.assign(spatial, 1);
  if (dilations.empty()) dilations.assign(spatial, 1);
  if (pads.empty()) pads.assign(2 * spatial, 0);
  if (kernel.size() != spatial || strides.size() != spatial || dilations.size() != spatial ||
      pads.size() != 2 * spatial)
    return error(StatusCode::kInvalidModel, "kernel_shape/strides/dilations/pads have ", kernel.size(), "/",
                 strides.size(), "/", dilations.size(), "/", pads.size(), " values for ", spatial, " spatial dims");
  for (size_t i = 0; i < spatial; ++i) {
    if (kernel[i] <= 0 || strides[i] <= 0 || dilations[i] <= 0)
      return error(StatusCode::kInvalidModel, "kernel, stride and dilation must be positive (dim ", i,
                   "): kernel_shape ", shape_to_string(kernel), ", strides ", shape_to_string(strides), ", dilations ",
                   shape_to_string(dilations));
    if (pads[i] < 0 || pads[i + spatial] < 0)
      return error(StatusCode::kInvalidModel, "pads must be non-negative, got ", shape_to_string(pads));
    // The dilated window dilation * (kernel - 1) + 1 must be a number (output_dims uses it).
    if (kernel[i] - 1 > (std::numeric_limits<int64_t>::max() - 1) / dilations[i])
      return error(StatusCode::kInvalidModel, "kernel_shape[", i, "] = ", kernel[i], " with dilations[", i,
                   "] = ", dilations[i], " spans a window larger than int64 can count");
  }
  return Status::ok();
}

int64_t WindowParams::window(size_t i) const { return dilations[i] * (kernel[i] - 1) + 1; }

Status WindowParams::output_dims(const std::vector<int64_t>& in, std::vector<int64_t>* out_pads,
                                 std::vector<int64_t>* out) const {
  const size_t r = in.size();
  *out_pads = pads;
  out->assign(r, 0);
  for (size_t i = 0; i < r; ++i) {
    const int64_t eff = window(i), s = strides[i];
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      // out = ceil(in / stride); the pads make the last window end at the padded input's end.
      // Any kernel fits: a window larger than the input pads it on both sides (as ONNX Runtime
      // does), and the windows' walk (pool_util) only visits taps inside the input.
      const int64_t o = in[i] == 0 ? 0 : (in[i] - 1) / s + 1;
      const int64_t reach = o > 0 ? (o - 1) * s : 0;  // the last window's start, <= in - 1
      const int64_t total = std::max<int64_t>(0, reach - in[i] + eff);
      int64_t padded = 0;
      if (__builtin_add_overflow(in[i], total, &padded))
        return error(StatusCode::kInvalidArgument, "spatial dim ", i, " of size ", in[i],
                     " padded for the window of kernel_shape[", i, "] = ", kernel[i], " (dilation ", dilations[i],
                     ", auto_pad ", auto_pad, ") is larger than int64 can count");
      const int64_t small = total / 2, big = total - small;
      (*out_pads)[i] = auto_pad == "SAME_UPPER" ? small : big;
      (*out_pads)[i + r] = auto_pad == "SAME_UPPER" ? big : small;
      (*out)[i] = o;
      continue;
    }
    if (auto_pad == "VALID") (*out_pads)[i] = (*out_pads)[i + r] = 0;
    const int64_t pb = (*out_pads)[i], pe = (*out_pads)[i + r];
    int64_t padded = 0;
    if (__builtin_add_overflow(in[i], pb, &padded) || __builtin_add_overflow(padded, pe, &padded))
      return error(StatusCode::kInvalidArgument, "spatial dim ", i, " of size ", in[i], " with pads ", pb, " and ", pe,
                   " is larger than int64 can count");
    const int64_t span = padded - eff;
    if (span < 0)
      return error(StatusCode::kInvalidArgument, "spatial dim ", i, " of size ", in[i], " (padded ", padded,
                   ") is smaller than the window ", eff, " (kernel_shape ", shape_to_string(kernel), ", dilations ",
                   shape_to_string(dilations), ")");
    // ceil_mode applies to explicit pads only: for VALID the spec's ceil((in - window + 1) / stride)
    // equals the floor formula.
    const bool ceil = ceil_mode && auto_pad == "NOTSET";
    int64_t o = span / s + 1;
    if (ceil) {
      if (span % s != 0) ++o;
      // With ceil_mode the last window must start inside the input or its left padding.
      int64_t last_start = 0;
      if (__builtin_mul_overflow(o - 1, s, &last_start) || last_start >= in[i] + pb) --o;
    }
    (*out)[i] = o;
  }
  return Status::ok();
}

}  // namespace hi::ops
