// Shapes, zero points and the direct int32 convolution for ConvInteger and QLinearConv.
#include "ops/integer_conv.h"

#include "ops/quantize_util.h"

namespace hi::ops::qconv {

namespace {

// The window with its kernel taken from W when the attribute is absent, checked against W.
Status resolve_window(const char* op, const WindowParams& window, const Shape& w, WindowParams* out) {
  *out = window;
  const Shape kernel(w.begin() + 2, w.end());
  if (out->kernel.empty()) out->kernel = kernel;
  HI_RETURN_IF_ERROR(out->resolve_rank(kernel.size()));
  if (out->kernel != kernel)
    return error(StatusCode::kInvalidArgument, op, ": kernel_shape ", shape_to_string(out->kernel),
                 " does not match W ", shape_to_string(w));
  return Status::ok();
}

}  // namespace

Result<ConvGeometry> conv_geometry(const char* op, const Shape& x, const Shape& w, int64_t group,
                                   const WindowParams& window) {
  if (x.size() < 3 || w.size() != x.size())
    return error(StatusCode::kInvalidArgument, op, ": X ", shape_to_string(x), " and W ", shape_to_string(w),
                 " must be [N, C, spatial...] and [M, C/group, kernel...] of the same rank >= 3");
  ConvGeometry g;
  g.n = x[0];
  g.c = x[1];
  g.m = w[0];
  g.group = group;
  if (g.c != w[1] * group)
    return error(StatusCode::kInvalidArgument, op, ": X has ", g.c, " channels but W ", shape_to_string(w),
                 " with group ", group, " expects ", w[1] * group);
  if (g.m % group != 0)
    return error(StatusCode::kInvalidArgument, op, ": W's ", g.m, " output channels are not divisible by group ",
                 group);
  HI_RETURN_IF_ERROR(resolve_window(op, window, w, &g.window));
  g.in.assign(x.begin() + 2, x.end());
  HI_RETURN_IF_ERROR(g.window.output_dims(g.in, &g.pads, &g.out));
  g.out_shape = {g.n, g.m};
  g.out_shape.insert(g.out_shape.end(), g.out.begin(), g.out.end());
  return g;
}

Result<ir::ValueType> conv_type(const char* op, const ir::ValueType& x, const ir::ValueType& w, int64_t group,
                                const WindowParams& window, DType out) {
  if (!x.has_rank() || !w.has_rank()) return ir::ValueType::tensor_unknown_shape(out);
  if (x.rank() < 3 || w.rank() != x.rank())
    return error(StatusCode::kInvalidModel, op, ": X ", x.to_string(), " and W ", w.to_string(),
                 " must be [N, C, spatial...] and [M, C/group, kernel...] of the same rank >= 3");
  if (x.is_static() && w.is_static()) {
    HI_ASSIGN_OR_RETURN(ConvGeometry g, conv_geometry(op, x.concrete_shape(), w.concrete_shape(), group, window));
    return ir::ValueType::concrete(out, g.out_shape);
  }
  std::vector<ir::Dim> dims = {(*x.shape)[0], (*w.shape)[0]};
  for (int64_t i = 2; i < x.rank(); ++i) dims.emplace_back();
  return ir::ValueType::tensor(out, std::move(dims));
}

Result<std::vector<int32_t>> shift_input(const char* op, const Tensor& x, const Tensor* zp, const char* what) {
  if (zp && zp->numel() != 1)
    return error(StatusCode::kInvalidArgument, op, ": ", what, " ", zp->type_string(),
                 " must have one element (per-tensor)");
  const std::vector<double> v = quant::real_values(x);
  const double z = zp ? quant::real_values(*zp)[0] : 0.0;
  std::vector<int32_t> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) out[i] = static_cast<int32_t>(v[i] - z);
  return out;
}

Result<std::vector<int32_t>> shift_weights(const char* op, const Tensor& w, const Tensor* zp, const char* what) {
  const int64_t m = w.rank() > 0 ? w.dim(0) : 1;
  if (zp && zp->numel() != 1 && !(zp->rank() == 1 && zp->dim(0) == m))
    return error(StatusCode::kInvalidArgument, op, ": ", what, " ", zp->type_string(),
                 " must have one element or one per output channel (", m, ", W is ", w.type_string(), ")");
  const std::vector<double> v = quant::real_values(w);
  const std::vector<double> z = zp ? quant::real_values(*zp) : std::vector<double>{0.0};
  const int64_t per_channel = m > 0 ? w.numel() / m : 0;
  std::vector<int32_t> out(v.size());
  for (size_t i = 0; i < v.size(); ++i)
    out[i] = static_cast<int32_t>(v[i] - (z.size() == 1 ? z[0] : z[i / static_cast<size_t>(per_channel)]));
  return out;
}

std::vector<int32_t> conv_int32(const ConvGeometry& g, const std::vector<int32_t>& x, const std::vector<int32_t>& w) {
  const size_t r = g.in.size();
  const WindowParams& wp = g.window;
  const int64_t in_size = shape_numel(g.in), out_size = shape_numel(g.out), k_size = shape_numel(wp.kernel);
  const int64_t cg = g.c / g.group, mg = g.m / g.group;
  // Multi-indices of every output position and every kernel tap, worked out once.
  auto unravel = [r](int64_t linear, const std::vector<int64_t>& dims, int64_t* idx) {
    for (size_t d = r; d-- > 0;) {
      idx[d] = linear % dims[d];
      linear /= dims[d];
    }
  };
  std::vector<int64_t> out_idx(static_cast<size_t>(out_size) * r), k_idx(static_cast<size_t>(k_size) * r);
  for (int64_t o = 0; o < out_size; ++o) unravel(o, g.out, &out_idx[static_cast<size_t>(o) * r]);
  for (int64_t k = 0; k < k_size; ++k) unravel(k, wp.kernel, &k_idx[static_cast<size_t>(k) * r]);

  std::vector<int32_t> y(static_cast<size_t>(g.n * g.m * out_size));
  for (int64_t n = 0; n < g.n; ++n)
    for (int64_t m = 0; m < g.m; ++m) {
      const int64_t first_c = (m / mg) * cg;
      for (int64_t o = 0; o < out_size; ++o) {
        int64_t acc = 0;
        for (int64_t k = 0; k < k_size; ++k) {
          // Offset of this tap within one input channel, or -1 when it falls in the padding.
          int64_t offset = 0;
          for (size_t d = 0; d < r && offset >= 0; ++d) {
            const int64_t pos = out_idx[static_cast<size_t>(o) * r + d] * wp.strides[d] - g.pads[d] +
                                k_idx[static_cast<size_t>(k) * r + d] * wp.dilations[d];
            offset = (pos < 0 || pos >= g.in[d]) ? -1 : offset * g.in[d] + pos;
          }
          if (offset < 0) continue;
          for (int64_t c = 0; c < cg; ++c)
            acc += static_cast<int64_t>(x[static_cast<size_t>((n * g.c + first_c + c) * in_size + offset)]) *
                   w[static_cast<size_t>((m * cg + c) * k_size + k)];
        }
        y[static_cast<size_t>((n * g.m + m) * out_size + o)] = static_cast<int32_t>(acc);  // wraps to 32 bits (C++20)
      }
    }
  return y;
}

}  // namespace hi::ops::qconv
