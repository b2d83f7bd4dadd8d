// Window geometry and shape inference shared by the pooling ops.
#include "ops/pool_util.h"

#include <algorithm>
#include <cstdint>

#include "core/memory_budget.h"

namespace hi::ops {

Status parse_pool_window(InitContext& ctx, WindowParams* w) {
  if (!ctx.has("kernel_shape"))
    return ctx.fail(StatusCode::kInvalidModel, "required attribute 'kernel_shape' is missing");
  w->parse(ctx, true);
  HI_RETURN_IF_ERROR(ctx.status());
  if (w->kernel.empty()) return ctx.fail(StatusCode::kInvalidModel, "kernel_shape must not be empty");
  Status s = w->resolve_rank(w->kernel.size());
  if (!s.is_ok()) return ctx.fail(s.code(), s.message());
  // A window's taps are counted in int64 (AveragePool's count_include_pad divisor).
  if (shape_numel(w->kernel) < 0)
    return ctx.fail(StatusCode::kInvalidModel, "kernel_shape ", shape_to_string(w->kernel),
                    " has more taps than int64 can count");
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
  for (size_t i = 0; i < spatial; ++i) in[i] = xd[i + 2].is_known() ? xd[i + 2].value : w.window(i);
  std::vector<int64_t> pads, o;
  Status s = w.output_dims(in, &pads, &o);
  if (!s.is_ok()) return Status(StatusCode::kInvalidModel, "input " + x.to_string() + ": " + s.message());
  for (size_t i = 0; i < spatial; ++i)
    if (xd[i + 2].is_known()) out[i + 2] = ir::Dim::known(o[i]);
  return out;
}

namespace {

// The taps of output index o along one dim: window start o * stride - pad_begin, then `kernel`
// taps `dilation` apart. Only the range is computed (no walk over the kernel), with no
// intermediate larger than the padded input, which output_dims has checked fits in int64.
TapRange tap_range(int64_t o, int64_t in, int64_t kernel, int64_t stride, int64_t dilation, int64_t pad_begin,
                   int64_t pad_end) {
  TapRange r;
  const int64_t start = o * stride - pad_begin;  // >= -pad_begin, < in (output_dims)
  // First tap at or after position 0, and the last at or before in - 1.
  const int64_t k_first = start >= 0 ? 0 : (-start - 1) / dilation + 1;
  const int64_t k_end = in - 1 - start < 0 ? 0 : std::min(kernel, (in - 1 - start) / dilation + 1);
  if (k_end > k_first) {
    r.count = k_end - k_first;
    r.first = start >= 0 ? start : (start % dilation + dilation) % dilation;
  }
  // Taps before in + pad_end (ceil_mode may add a window that runs past it).
  r.padded = std::min(kernel, (in + pad_end - 1 - start) / dilation + 1);
  return r;
}

}  // namespace

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
  // Kernels keep per-position data (divisors, tap lists) beside the output: an output that
  // cannot exist fails here, before any of it is built.
  const int64_t positions = shape_numel(g.out);
  if (positions < 0 || shape_numel(g.out_shape) < 0)
    return error(code, "the output ", shape_to_string(g.out_shape), " of input ", shape_to_string(x),
                 " has more elements than int64 can count");
  const ScratchBytes fits(positions > INT64_MAX / 16 ? -1 : positions * 16);  // throws OutOfMemory past the limit
  g.step = w.dilations;
  g.in_strides = strides_of(g.in);
  g.out_strides = strides_of(g.out);
  g.ranges.resize(spatial);
  for (size_t d = 0; d < spatial; ++d) {
    for (int64_t o = 0; o < g.out[d]; ++o) {
      const TapRange r = tap_range(o, g.in[d], w.kernel[d], w.strides[d], w.dilations[d], pads[d], pads[d + spatial]);
      if (r.count == 0 && require_input && g.planes > 0)
        return error(code, "the window at output index ", o, " of spatial dim ", d, " covers only padding (input ",
                     shape_to_string(x), ", kernel_shape ", shape_to_string(w.kernel), ", pads ", shape_to_string(pads),
                     ", strides ", shape_to_string(w.strides), ", dilations ", shape_to_string(w.dilations), ")");
      g.ranges[d].push_back(r);
    }
  }
  return g;
}

int64_t window_taps(const PoolWindows& g, int64_t pos, std::vector<int64_t>* taps) {
  // The product of the dims' tap ranges is built in place, one dim at a time, the newest dim
  // fastest (row-major).
  taps->assign(1, 0);
  int64_t padded = 1;
  for (size_t d = 0; d < g.in.size(); ++d) {
    const int64_t o = pos / g.out_strides[d] % g.out[d];
    const TapRange& range = g.ranges[d][static_cast<size_t>(o)];
    padded *= range.padded;
    const int64_t c = range.count, m = static_cast<int64_t>(taps->size());
    if (c == 0) {
      taps->clear();
      continue;
    }
    taps->resize(static_cast<size_t>(m * c));
    for (int64_t i = m; i-- > 0;) {  // back to front: entry i is read before anything overwrites it
      const int64_t base = (*taps)[static_cast<size_t>(i)];
      for (int64_t k = c; k-- > 0;)
        (*taps)[static_cast<size_t>(i * c + k)] = base + (range.first + k * g.step[d]) * g.in_strides[d];
    }
  }
  return padded;
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
