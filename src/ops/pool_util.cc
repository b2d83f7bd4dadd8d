// Window geometry and shape inference shared by the pooling ops.
#include "ops/pool_util.h"

namespace hi::ops {

Status parse_pool_window(InitContext& ctx, WindowParams* w) {
  if (!ctx.has("kernel_shape"))
    return ctx.fail(StatusCode::kInvalidModel, "required attribute 'kernel_shape' is missing");
  w->parse(ctx, true);
  HI_RETURN_IF_ERROR(ctx.status());
  if (w->kernel.empty()) return ctx.fail(StatusCode::kInvalidModel, "kernel_shape must not be empty");
  Status s = w->resolve_rank(w->kernel.size());
  if (!s.is_ok()) return ctx.fail(s.code(), s.message());
  return ctx.status();
}

Result<std::vector<ir::Dim>> infer_pool_dims(const InferContext& ctx, const WindowParams& w, uint64_t types) {
  const ir::ValueType& x = ctx.input_type(0);
  if (x.dtype != DType::kUndefined && !in_set(types, x.dtype)) return unsupported_dtype(ctx.node(), x.dtype);
  const size_t spatial = w.kernel.size();
  std::vector<ir::Dim> out(spatial + 2);
  if (!x.has_rank()) return out;
  if (x.rank() != static_cast<int64_t>(spatial + 2))
    return error(StatusCode::kInvalidModel, "input ", x.to_string(), " must have rank ", spatial + 2,
                 " ([N, C, spatial...]) for kernel_shape ", shape_to_string(w.kernel));
  const auto& xd = *x.shape;
  out[0] = xd[0];
  out[1] = xd[1];
  // Each spatial dim's output depends only on that dim; an unknown one is stood in for by the
  // window extent (always valid) and its output reported unknown.
  std::vector<int64_t> in(spatial);
  for (size_t i = 0; i < spatial; ++i)
    in[i] = xd[i + 2].is_known() ? xd[i + 2].value : w.dilations[i] * (w.kernel[i] - 1) + 1;
  std::vector<int64_t> pads, o;
  Status s = w.output_dims(in, &pads, &o);
  if (!s.is_ok()) return Status(StatusCode::kInvalidModel, "input " + x.to_string() + ": " + s.message());
  for (size_t i = 0; i < spatial; ++i)
    if (xd[i + 2].is_known()) out[i + 2] = ir::Dim::known(o[i]);
  return out;
}

Result<PoolWindows> make_pool_windows(const WindowParams& w, const Shape& x, bool require_input, StatusCode code) {
  const size_t spatial = w.kernel.size();
  if (x.size() != spatial + 2)
    return error(code, "input ", shape_to_string(x), " must have rank ", spatial + 2,
                 " ([N, C, spatial...]) for kernel_shape ", shape_to_string(w.kernel));
  PoolWindows g;
  g.in.assign(x.begin() + 2, x.end());
  std::vector<int64_t> pads;
  Status s = w.output_dims(g.in, &pads, &g.out);
  if (!s.is_ok()) return Status(code, "input " + shape_to_string(x) + ": " + s.message());
  g.planes = x[0] * x[1];
  g.out_shape = {x[0], x[1]};
  g.out_shape.insert(g.out_shape.end(), g.out.begin(), g.out.end());
  g.taps.resize(spatial);
  g.padded_taps.resize(spatial);
  for (size_t d = 0; d < spatial; ++d) {
    const int64_t pad_begin = pads[d], pad_end = pads[d + spatial];
    for (int64_t o = 0; o < g.out[d]; ++o) {
      std::vector<int64_t> pos;
      int64_t padded = 0;
      for (int64_t k = 0; k < w.kernel[d]; ++k) {
        const int64_t p = o * w.strides[d] - pad_begin + k * w.dilations[d];
        if (p >= 0 && p < g.in[d]) pos.push_back(p);
        if (p >= -pad_begin && p < g.in[d] + pad_end) ++padded;
      }
      if (pos.empty() && require_input && g.planes > 0)
        return error(code, "the window at output index ", o, " of spatial dim ", d, " covers only padding (input ",
                     shape_to_string(x), ", kernel_shape ", shape_to_string(w.kernel), ", pads ", shape_to_string(pads),
                     ", strides ", shape_to_string(w.strides), ", dilations ", shape_to_string(w.dilations), ")");
      g.taps[d].push_back(std::move(pos));
      g.padded_taps[d].push_back(padded);
    }
  }
  return g;
}

Status infer_global_pool(InferContext& ctx, uint64_t types) {
  HI_RETURN_IF_ERROR(check_arity(ctx, 1, 1, 1));
  const ir::ValueType& x = ctx.input_type(0);
  if (x.dtype != DType::kUndefined && !in_set(types, x.dtype)) return unsupported_dtype(ctx.node(), x.dtype);
  if (!x.has_rank()) {
    ctx.set_output_type(0, x);
    return Status::ok();
  }
  if (x.rank() < 3)
    return error(StatusCode::kInvalidModel, "input ", x.to_string(), " must be [N, C, spatial...] (rank >= 3)");
  std::vector<ir::Dim> d = {(*x.shape)[0], (*x.shape)[1]};
  for (int64_t i = 2; i < x.rank(); ++i) d.push_back(ir::Dim::known(1));
  ctx.set_output_type(0, ir::ValueType::tensor(x.dtype, std::move(d)));
  return Status::ok();
}

Status check_global_pool_input(const Tensor& x) {
  if (x.rank() < 3)
    return error(StatusCode::kInvalidArgument, "input ", x.type_string(), " must be [N, C, spatial...] (rank >= 3)");
  return Status::ok();
}

}  // namespace hi::ops
