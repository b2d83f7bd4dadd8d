// Window geometry for convolution and pooling.
#include "ops/conv_util.h"

namespace hi::ops {

void WindowParams::parse(InitContext& ctx, bool read_kernel) {
  if (read_kernel) kernel = ctx.get_ints("kernel_shape");
  strides = ctx.get_ints("strides");
  dilations = ctx.get_ints("dilations");
  pads = ctx.get_ints("pads");
  auto_pad = ctx.get_string("auto_pad", "NOTSET");
  ceil_mode = ctx.get_int("ceil_mode", 0) != 0;
  if (auto_pad != "NOTSET" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER" && auto_pad != "VALID")
    (void)ctx.fail(StatusCode::kInvalidModel, "auto_pad '", auto_pad, "' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID");
}

Status WindowParams::resolve_rank(size_t spatial) {
  if (strides.empty()) strides.assign(spatial, 1);
  if (dilations.empty()) dilations.assign(spatial, 1);
  if (pads.empty()) pads.assign(2 * spatial, 0);
  if (kernel.size() != spatial || strides.size() != spatial || dilations.size() != spatial || pads.size() != 2 * spatial)
    return error(StatusCode::kInvalidModel, "kernel_shape/strides/dilations/pads have ", kernel.size(), "/", strides.size(),
                 "/", dilations.size(), "/", pads.size(), " values for ", spatial, " spatial dims");
  for (size_t i = 0; i < spatial; ++i) {
    if (kernel[i] <= 0 || strides[i] <= 0 || dilations[i] <= 0)
      return error(StatusCode::kInvalidModel, "kernel, stride and dilation must be positive (dim ", i, ")");
    if (pads[i] < 0 || pads[i + spatial] < 0) return error(StatusCode::kInvalidModel, "pads must be non-negative");
  }
  return Status::ok();
}

Status WindowParams::output_dims(const std::vector<int64_t>& in, std::vector<int64_t>* out_pads,
                                 std::vector<int64_t>* out) const {
  const size_t r = in.size();
  *out_pads = pads;
  out->assign(r, 0);
  for (size_t i = 0; i < r; ++i) {
    const int64_t eff = dilations[i] * (kernel[i] - 1) + 1;
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      const int64_t o = (in[i] + strides[i] - 1) / strides[i];
      const int64_t total = std::max<int64_t>(0, (o - 1) * strides[i] + eff - in[i]);
      const int64_t small = total / 2, big = total - small;
      (*out_pads)[i] = auto_pad == "SAME_UPPER" ? small : big;
      (*out_pads)[i + r] = auto_pad == "SAME_UPPER" ? big : small;
      (*out)[i] = o;
      continue;
    }
    if (auto_pad == "VALID") (*out_pads)[i] = (*out_pads)[i + r] = 0;
    const int64_t span = in[i] + (*out_pads)[i] + (*out_pads)[i + r] - eff;
    if (span < 0)
      return error(StatusCode::kInvalidArgument, "spatial dim ", i, " of size ", in[i], " (padded ", in[i] + (*out_pads)[i] + (*out_pads)[i + r],
                   ") is smaller than the window ", eff);
    // ceil_mode applies to explicit pads only: for VALID the spec's ceil((in - window + 1) / stride)
    // equals the floor formula.
    const bool ceil = ceil_mode && auto_pad == "NOTSET";
    int64_t o = (ceil ? (span + strides[i] - 1) / strides[i] : span / strides[i]) + 1;
    // With ceil_mode the last window must start inside the input or its left padding.
    if (ceil && (o - 1) * strides[i] >= in[i] + (*out_pads)[i]) --o;
    (*out)[i] = o;
  }
  return Status::ok();
}

}  // namespace hi::ops
