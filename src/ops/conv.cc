#include "ops/conv.h"

#include <algorithm>

#include "core/memory_budget.h"
#include "core/run_control.h"
#include "ops/dispatch.h"
#include "ops/elementwise.h"
#include "ops/gemm_ref.h"
#include "ops/internal.h"

namespace hi::ops {
namespace {

// Unfolds one image's group of channels into columns [C*K, O] for a GEMM with the weights.
template <typename T>
void im2col(const T* x, int64_t channels, const std::vector<int64_t>& in, const std::vector<int64_t>& out,
            const WindowParams& w, const std::vector<int64_t>& pads, T* col) {
  const size_t r = in.size();
  const int64_t in_size = shape_numel(in), out_size = shape_numel(out), k_size = shape_numel(w.kernel);
  std::vector<int64_t> kidx(r);
  for (int64_t c = 0; c < channels; ++c) {
    for (int64_t k = 0; k < k_size; ++k) {
      for (int64_t t = k, d = static_cast<int64_t>(r); d-- > 0;) {
        kidx[static_cast<size_t>(d)] = t % w.kernel[static_cast<size_t>(d)];
        t /= w.kernel[static_cast<size_t>(d)];
      }
      T* row = col + (c * k_size + k) * out_size;
      for (int64_t o = 0; o < out_size; ++o) {
        // Walk the dims from the last (fastest) to the first, building the input offset.
        int64_t lin = 0, mul = 1;
        bool inside = true;
        for (int64_t t = o, d = static_cast<int64_t>(r); d-- > 0 && inside;) {
          const size_t du = static_cast<size_t>(d);
          const int64_t od = t % out[du];
          t /= out[du];
          const int64_t pos = od * w.strides[du] - pads[du] + kidx[du] * w.dilations[du];
          inside = pos >= 0 && pos < in[du];
          lin += pos * mul;
          mul *= in[du];
        }
        row[o] = inside ? x[c * in_size + lin] : T(0);
      }
    }
  }
}

// [N, C, S...] <-> [N, S..., C]
Shape channels_last(const Shape& s) {
  Shape r = {s[0]};
  r.insert(r.end(), s.begin() + 2, s.end());
  r.push_back(s[1]);
  return r;
}
Shape channels_first(const Shape& s) {
  Shape r = {s[0], s.back()};
  r.insert(r.end(), s.begin() + 1, s.end() - 1);
  return r;
}

// Permutes values between channels-first and channels-last; `shape` is the channels-first
// shape; `to_last` gives the direction.
template <typename C>
std::vector<C> permute_channels(const std::vector<C>& v, const Shape& shape, bool to_last) {
  const int64_t n = shape[0], c = shape[1], sp = shape_numel(Shape(shape.begin() + 2, shape.end()));
  std::vector<C> r(v.size());
  for (int64_t i = 0; i < n; ++i)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t s = 0; s < sp; ++s) {
        const size_t first = static_cast<size_t>((i * c + ch) * sp + s),
                     last = static_cast<size_t>((i * sp + s) * c + ch);
        if (to_last) r[last] = v[first];
        else r[first] = v[last];
      }
  return r;
}

}  // namespace

Status ConvOp::init(InitContext& ctx) {
  window_.parse(ctx, true);
  group_ = ctx.get_int("group", 1);
  if (group_ <= 0) return ctx.fail(StatusCode::kInvalidModel, "group must be positive, got ", group_);
  if (ctx.node().domain == kInternalDomain) {
    parse_fused_epilogue(ctx, &activation_, &bf16_);
    // 1: X, Z and Y channels-last; 2: Y and Z channels-last, X channels-first (a network's
    // first convolution reads the image as given, with no transpose before it).
    const int64_t cl = ctx.get_int("channels_last", 0);
    if (cl < 0 || cl > 2) return ctx.fail(StatusCode::kInvalidModel, "channels_last must be 0, 1 or 2, got ", cl);
    channels_last_ = cl != 0;
    input_channels_last_ = cl == 1;
  }
  return ctx.status();
}

Status ConvOp::infer(InferContext& ctx) const {
  ir::ValueType x = ctx.input_type(0);
  const ir::ValueType& w = ctx.input_type(1);
  if (input_channels_last_ && x.has_rank() && x.rank() >= 3) {
    auto& d = *x.shape;
    std::rotate(d.begin() + 1, d.end() - 1, d.end());  // [N, S..., C] -> [N, C, S...]
  }
  if (!in_set(kFloatTypes, x.dtype)) return unsupported_dtype(ctx.node(), x.dtype);
  if (x.dtype != w.dtype)
    return error(StatusCode::kInvalidModel, "X is ", dtype_name(x.dtype), " but W is ", dtype_name(w.dtype));
  if (!x.has_rank() || !w.has_rank()) {
    ctx.set_output_type(0, ir::ValueType::tensor_unknown_shape(x.dtype));
    return Status::ok();
  }
  if (x.rank() < 3 || w.rank() != x.rank())
    return error(StatusCode::kInvalidModel, "X ", x.to_string(), " and W ", w.to_string(),
                 " must both be [N, C, spatial...]");
  const auto& xd = *x.shape;
  const auto& wd = *w.shape;
  if (xd[1].is_known() && wd[1].is_known() && xd[1].value != wd[1].value * group_)
    return error(StatusCode::kInvalidModel, "X has ", xd[1].value, " channels but W ", w.to_string(), " with group ",
                 group_, " expects ", wd[1].value * group_);
  if (wd[0].is_known() && wd[0].value % group_ != 0)
    return error(StatusCode::kInvalidModel, "W's ", wd[0].value, " output channels are not divisible by group ",
                 group_);
  weights_constant_ = ctx.input_value(1) != nullptr && (!ctx.has_input(2) || ctx.input_value(2) != nullptr);
  if (ctx.has_input(2)) {
    const ir::ValueType& b = ctx.input_type(2);
    if (b.has_rank() && (b.rank() != 1 || (b.is_static() && wd[0].is_known() && b.concrete_shape()[0] != wd[0].value)))
      return error(StatusCode::kInvalidModel, "bias ", b.to_string(), " must be [", wd[0].to_string(), "]");
  }
  std::vector<ir::Dim> out = {xd[0], wd[0]};
  WindowParams wp = window_;
  bool spatial_known = true;
  std::vector<int64_t> in_sp, k_sp;
  for (size_t i = 2; i < xd.size(); ++i) {
    spatial_known = spatial_known && xd[i].is_known() && wd[i].is_known();
    in_sp.push_back(xd[i].value);
    k_sp.push_back(wd[i].value);
  }
  if (wp.kernel.empty()) wp.kernel = k_sp;
  if (spatial_known) {
    HI_RETURN_IF_ERROR(wp.resolve_rank(in_sp.size()));
    std::vector<int64_t> pads, o;
    HI_RETURN_IF_ERROR(wp.output_dims(in_sp, &pads, &o));
    for (int64_t v : o) out.push_back(ir::Dim::known(v));
  } else {
    for (size_t i = 2; i < xd.size(); ++i) out.emplace_back();
  }
  if (channels_last_) std::rotate(out.begin() + 1, out.begin() + 2, out.end());  // -> [N, S..., M]
  ctx.set_output_type(0, ir::ValueType::tensor(x.dtype, out));
  return Status::ok();
}

Result<ConvOp::Geometry> ConvOp::geometry(const RunContext& ctx) const {
  const Tensor& x = ctx.in(0);
  const Tensor& w = ctx.in(1);
  const Tensor* b = ctx.input(2);
  const Tensor* z = ctx.input(3);
  if (x.rank() < 3 || w.rank() != x.rank())
    return error(StatusCode::kInvalidArgument, "X ", x.type_string(), " and W ", w.type_string(),
                 " must be [N, C, spatial...]");
  // Geometry from the channels-first view of X.
  const Shape xs = input_channels_last_ ? channels_first(x.shape()) : x.shape();
  const int64_t n = xs[0], c = xs[1], m = w.dim(0);
  if (c != w.dim(1) * group_ || m % group_ != 0)
    return error(StatusCode::kInvalidArgument, "X ", x.type_string(), " does not fit W ", w.type_string(),
                 " with group ", group_);
  if (b && (b->rank() != 1 || b->dim(0) != m))
    return error(StatusCode::kInvalidArgument, "bias ", b->type_string(), " must be [", m, "]");
  const std::vector<int64_t> in(xs.begin() + 2, xs.end());
  WindowParams wp = window_;
  if (wp.kernel.empty()) wp.kernel.assign(w.shape().begin() + 2, w.shape().end());
  HI_RETURN_IF_ERROR(wp.resolve_rank(in.size()));
  for (size_t i = 0; i < in.size(); ++i)
    if (wp.kernel[i] != w.dim(static_cast<int64_t>(i) + 2))
      return error(StatusCode::kInvalidArgument, "kernel_shape ", shape_to_string(wp.kernel), " does not match W ",
                   w.type_string());
  std::vector<int64_t> pads, out_sp;
  HI_RETURN_IF_ERROR(wp.output_dims(in, &pads, &out_sp));
  Shape out_shape = {n, m};
  out_shape.insert(out_shape.end(), out_sp.begin(), out_sp.end());
  const Shape y_shape = channels_last_ ? channels_last(out_shape) : out_shape;
  if (z && (z->dtype() != x.dtype() || z->shape() != y_shape))
    return error(StatusCode::kInvalidArgument, "residual Z ", z->type_string(), " must be ", dtype_name(x.dtype()),
                 shape_to_string(y_shape));
  return Geometry{n, c, m, in, out_sp, pads, wp, out_shape, y_shape};
}

Status ConvOp::run_reference(RunContext& ctx, const Geometry& g) const {
  const Tensor& x = ctx.in(0);
  const Tensor& w = ctx.in(1);
  const Tensor* b = ctx.input(2);
  const Tensor* z = ctx.input(3);
  const Shape xs = input_channels_last_ ? channels_first(x.shape()) : x.shape();
  Tensor& y = ctx.output(0, x.dtype(), g.y_shape);
  bool ok = dispatch<kFloatTypes>(x.dtype(), [&]<typename T>() {
    using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
    // The reference kernel works channels-first; a channels-last node (made by the layout
    // pass for the fast kernels) permutes around it when those are not available.
    // Compute-type copies of X (twice when permuted), W, B and Y (twice when permuted).
    const int64_t copied = 2 * x.numel() + w.numel() + (b ? b->numel() : 0) + 2 * y.numel();
    const ScratchBytes held(shape_numel({copied, int64_t{sizeof(C)}}));
    const auto xc = to_compute<T, C>(x), ws = to_compute<T, C>(w);
    const std::vector<C> xv = input_channels_last_ ? permute_channels<C>(xc, xs, false) : xc;
    std::vector<C> bs;
    if (b) bs = to_compute<T, C>(*b);
    std::vector<C> ys(static_cast<size_t>(y.numel()));
    run_typed<C>(xv.data(), ws.data(), b ? bs.data() : nullptr, ys.data(), g.batch, g.in_channels, g.out_channels, g.in,
                 g.out, g.window, g.pads);
    if (channels_last_) ys = permute_channels<C>(ys, g.out_shape, true);
    T* py = y.data<T>();
    const T* pz = z ? z->data<T>() : nullptr;
    for (size_t i = 0; i < ys.size(); ++i) {
      C v = ys[i];
      if (pz) v += static_cast<C>(pz[i]);
      if (activation_.kind != Activation::Kind::kNone) v = static_cast<C>(activation_.apply(static_cast<float>(v)));
      py[i] = static_cast<T>(v);
    }
  });
  if (!ok) return unsupported_dtype(ctx.node(), x.dtype());
  return Status::ok();
}

Status ConvOp::run(RunContext& ctx) const {
  HI_ASSIGN_OR_RETURN(const Geometry g, geometry(ctx));
  return run_reference(ctx, g);
}

template <typename C>
void ConvOp::run_typed(const C* x, const C* w, const C* bias, C* y, int64_t n, int64_t c, int64_t m,
                       const std::vector<int64_t>& in, const std::vector<int64_t>& out, const WindowParams& wp,
                       const std::vector<int64_t>& pads) const {
  const int64_t cg = c / group_, mg = m / group_;
  const int64_t in_size = shape_numel(in), out_size = shape_numel(out), k_size = shape_numel(wp.kernel);
  // A 1x1 convolution with stride 1 and no padding reads the image as its own column matrix.
  bool pointwise = k_size == 1;
  for (size_t i = 0; i < in.size(); ++i)
    pointwise = pointwise && wp.strides[i] == 1 && pads[i] == 0 && pads[i + in.size()] == 0;
  // The columns: a group's channels times the kernel times the output, counted before they are built.
  const ScratchBytes held(pointwise ? 0 : shape_numel({cg, k_size, out_size, int64_t{sizeof(C)}}));
  std::vector<C> col(pointwise ? 0 : static_cast<size_t>(cg * k_size * out_size));
  for (int64_t img = 0; img < n; ++img) {
    for (int64_t g = 0; g < group_; ++g) {
      check_run_stop();  // a large reference convolution stops between images and groups
      const C* xg = x + (img * c + g * cg) * in_size;
      if (!pointwise) im2col(xg, cg, in, out, wp, pads, col.data());
      C* yg = y + (img * m + g * mg) * out_size;
      gemm_ref<C>(false, false, mg, out_size, cg * k_size, C(1), w + g * mg * cg * k_size, cg * k_size,
                  pointwise ? xg : col.data(), out_size, C(0), yg, out_size);
      if (bias)
        for (int64_t o = 0; o < mg; ++o)
          for (int64_t s = 0; s < out_size; ++s) yg[o * out_size + s] += bias[g * mg + o];
    }
  }
}

HI_REGISTER_OP(Conv, ConvOp)
HI_REGISTER_OP(FusedConv, ConvOp)

}  // namespace hi::ops
