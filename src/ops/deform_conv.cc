// DeformConv (opset 19): convolution whose kernel taps are moved by learned offsets. For output
// position o, tap k of offset group og samples input channel c (of that group) at
//   p = o * stride - pad_begin + k * dilation + offset[n, og, k, :, o]
// by N-linear interpolation (zero outside the input), scaled by mask[n, og, k, o] (default 1).
// Offsets are [N, offset_group * K * r, out...] laid out (offset_group, kernel..., r); the mask
// is [N, offset_group * K, out...]. The sampled columns go through the reference GEMM per group.
#include "core/memory_budget.h"
#include "core/run_control.h"
#include "ops/conv_util.h"
#include "ops/dispatch.h"
#include "ops/elementwise.h"
#include "ops/gemm_ref.h"
#include "ops/index_util.h"

namespace hi::ops {
namespace {

class DeformConvOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    kernel_ = ctx.get_ints("kernel_shape");
    strides_ = ctx.get_ints("strides");
    dilations_ = ctx.get_ints("dilations");
    pads_ = ctx.get_ints("pads");
    group_ = ctx.get_int("group", 1);
    offset_group_ = ctx.get_int("offset_group", 1);
    if (group_ <= 0) return ctx.fail(StatusCode::kInvalidModel, "group must be positive, got ", group_);
    if (offset_group_ <= 0)
      return ctx.fail(StatusCode::kInvalidModel, "offset_group must be positive, got ", offset_group_);
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 3, 5));
    const ir::ValueType& x = ctx.input_type(0);
    if (x.dtype != DType::kUndefined && !in_set(kFloatTypes, x.dtype))
      return unsupported_dtype(ctx.node(), x.dtype, "X");
    for (size_t i = 1; i < 5; ++i)
      if (ctx.has_input(i) && ctx.input_type(i).dtype != DType::kUndefined && x.dtype != DType::kUndefined &&
          ctx.input_type(i).dtype != x.dtype)
        return error(StatusCode::kInvalidModel, "input ", i, " is ", ctx.input_type(i).to_string(), " but X is ",
                     dtype_name(x.dtype));
    const ir::ValueType& w = ctx.input_type(1);
    if (!x.has_rank() || !w.has_rank()) {
      ctx.set_output_type(0, ir::ValueType::tensor_unknown_shape(x.dtype));
      return Status::ok();
    }
    if (x.rank() < 3 || w.rank() != x.rank())
      return error(StatusCode::kInvalidModel, "X ", x.to_string(), " and W ", w.to_string(),
                   " must be [N, C, spatial...] and [M, C/group, kernel...]");
    const auto& xd = *x.shape;
    const auto& wd = *w.shape;
    HI_RETURN_IF_ERROR(check_spatial_rank(x.rank() - 2, StatusCode::kInvalidModel));
    if (xd[1].is_known() && wd[1].is_known()) {
      const auto want = checked_mul(wd[1].value, group_);
      if (!want || xd[1].value != *want)
        return error(StatusCode::kInvalidModel, "X has ", xd[1].value, " channels but W ", w.to_string(),
                     " with group ", group_, " expects ", want ? std::to_string(*want) : "more than int64 can count");
    }
    std::vector<ir::Dim> out = {xd[0], wd[0]};
    std::vector<int64_t> in_sp, k_sp;
    bool kernel_known = true;
    for (size_t i = 2; i < xd.size(); ++i) {
      kernel_known = kernel_known && wd[i].is_known();
      // An unknown spatial dim is computed from a large stand-in and reported unknown.
      in_sp.push_back(xd[i].is_known() ? xd[i].value : int64_t{1} << 20);
      k_sp.push_back(wd[i].value);
    }
    if (kernel_known) {
      HI_ASSIGN_OR_RETURN(WindowParams wp, window(in_sp.size(), k_sp, StatusCode::kInvalidModel));
      std::vector<int64_t> pads, o;
      HI_RETURN_IF_ERROR(wp.output_dims(in_sp, &pads, &o));
      for (size_t i = 0; i < o.size(); ++i) out.push_back(xd[i + 2].is_known() ? ir::Dim::known(o[i]) : ir::Dim{});
    } else {
      for (size_t i = 2; i < xd.size(); ++i) out.emplace_back();
    }
    ctx.set_output_type(0, ir::ValueType::tensor(x.dtype, std::move(out)));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    const Tensor& w = ctx.in(1);
    const Tensor& offset = ctx.in(2);
    const Tensor* b = ctx.input(3);
    const Tensor* mask = ctx.input(4);
    if (x.rank() < 3 || w.rank() != x.rank())
      return error(StatusCode::kInvalidArgument, "X ", x.type_string(), " and W ", w.type_string(),
                   " must be [N, C, spatial...] and [M, C/group, kernel...]");
    for (const Tensor* t : {&w, &offset, b, mask})
      if (t && t->dtype() != x.dtype())
        return error(StatusCode::kInvalidArgument, t->type_string(), " does not have X's type ", dtype_name(x.dtype()));
    HI_RETURN_IF_ERROR(check_spatial_rank(x.rank() - 2, StatusCode::kInvalidArgument));
    const int64_t n = x.dim(0), c = x.dim(1), m = w.dim(0);
    if (checked_mul(w.dim(1), group_) != c || m % group_ != 0)
      return error(StatusCode::kInvalidArgument, "X ", x.type_string(), " does not fit W ", w.type_string(),
                   " with group ", group_);
    if (c % offset_group_ != 0)
      return error(StatusCode::kInvalidArgument, "X's ", c, " channels are not divisible by offset_group ",
                   offset_group_);
    if (b && (b->rank() != 1 || b->dim(0) != m))
      return error(StatusCode::kInvalidArgument, "B ", b->type_string(), " must be [", m, "]");
    const std::vector<int64_t> in(x.shape().begin() + 2, x.shape().end());
    const std::vector<int64_t> kw(w.shape().begin() + 2, w.shape().end());
    HI_ASSIGN_OR_RETURN(WindowParams wp, window(in.size(), kw, StatusCode::kInvalidArgument));
    std::vector<int64_t> pads, out;
    HI_RETURN_IF_ERROR(wp.output_dims(in, &pads, &out));
    const int64_t r = static_cast<int64_t>(in.size()), k_size = shape_numel(kw);
    // offset_group is only checked to divide C, and C may be 0.
    const auto taps = checked_mul(offset_group_, k_size);
    const auto coords = taps ? checked_mul(*taps, r) : std::nullopt;
    if (!coords)
      return error(StatusCode::kInvalidArgument, "offset_group ", offset_group_, " times the kernel's ", k_size,
                   " taps and ", r, " coordinates is more offset channels than int64 can count");
    Shape want_offset = {n, *coords}, want_mask = {n, *taps};
    want_offset.insert(want_offset.end(), out.begin(), out.end());
    want_mask.insert(want_mask.end(), out.begin(), out.end());
    if (offset.shape() != want_offset)
      return error(StatusCode::kInvalidArgument, "offset ", offset.type_string(), " must be ",
                   shape_to_string(want_offset), " ([N, offset_group * prod(kernel) * ", r, ", output spatial...])");
    if (mask && mask->shape() != want_mask)
      return error(StatusCode::kInvalidArgument, "mask ", mask->type_string(), " must be ", shape_to_string(want_mask),
                   " ([N, offset_group * prod(kernel), output spatial...])");
    Shape out_shape = {n, m};
    out_shape.insert(out_shape.end(), out.begin(), out.end());
    Tensor& y = ctx.output(0, x.dtype(), out_shape);
    if (y.numel() == 0) return Status::ok();
    bool ok = dispatch<kFloatTypes>(x.dtype(), [&]<typename T>() {
      using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
      auto conv = [](const Tensor* t) {
        std::vector<C> v;
        if (!t) return v;
        v.resize(static_cast<size_t>(t->numel()));
        for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<C>(t->data<T>()[i]);
        return v;
      };
      // Compute-type copies of every input and of the output, counted before they are made.
      const auto numel = [](const Tensor* t) { return t ? t->numel() : 0; };
      const ScratchBytes held(shape_numel(
          {numel(&x) + numel(&w) + numel(&offset) + numel(b) + numel(mask) + y.numel(), int64_t{sizeof(C)}}));
      const auto xs = conv(&x), ws = conv(&w), os = conv(&offset), bs = conv(b), ms = conv(mask);
      std::vector<C> ys(static_cast<size_t>(y.numel()), C(0));
      run_typed<C>(xs, ws, os, bs, ms, ys, n, c, m, in, out, wp, pads);
      T* py = y.data<T>();
      for (size_t i = 0; i < ys.size(); ++i) py[i] = static_cast<T>(ys[i]);
    });
    if (!ok) return unsupported_dtype(ctx.node(), x.dtype(), "X");
    return Status::ok();
  }

 private:
  // Each sample interpolates between 2^(spatial dims) corners: a model declaring dozens of dims
  // would never finish (and 1 << 64 is undefined). Convolutions have 1 to 3.
  static constexpr int64_t kMaxSpatialDims = 8;
  static Status check_spatial_rank(int64_t spatial, StatusCode code) {
    if (spatial > kMaxSpatialDims)
      return error(code, "X has ", spatial, " spatial dims; DeformConv supports up to ", kMaxSpatialDims,
                   " (its interpolation reads 2^dims corners per tap)");
    return Status::ok();
  }
  Result<WindowParams> window(size_t spatial, const std::vector<int64_t>& wk, StatusCode code) const {
    WindowParams wp;
    wp.kernel = kernel_.empty() ? wk : kernel_;
    wp.strides = strides_;
    wp.dilations = dilations_;
    wp.pads = pads_;
    Status s = wp.resolve_rank(spatial);
    if (!s.is_ok()) return Status(code, s.message());
    if (wp.kernel != wk)
      return error(code, "kernel_shape ", shape_to_string(wp.kernel), " does not match W's kernel dims ",
                   shape_to_string(wk));
    return wp;
  }

  // N-linear interpolation of one input plane at position p (zero outside the plane).
  template <typename C>
  static C sample(const C* plane, const std::vector<int64_t>& in, const std::vector<C>& p) {
    const size_t r = in.size();
    // Beyond one pixel outside (or NaN) every corner is outside: this also keeps the casts
    // below in range.
    for (size_t d = 0; d < r; ++d)
      if (!(p[d] > C(-1) && p[d] < static_cast<C>(in[d]))) return C(0);
    C total = C(0);
    for (int64_t corner = 0; corner < (int64_t{1} << r); ++corner) {
      C weight = C(1);
      int64_t off = 0;
      bool inside = true;
      for (size_t d = 0; d < r && inside; ++d) {
        const C f = std::floor(p[d]);
        const C t = p[d] - f;
        const bool hi = ((corner >> d) & 1) != 0;
        const int64_t i = static_cast<int64_t>(f) + (hi ? 1 : 0);
        inside = i >= 0 && i < in[d];
        weight *= hi ? t : C(1) - t;
        off = off * in[d] + i;
      }
      if (inside && weight != C(0)) total += weight * plane[off];
    }
    return total;
  }

  template <typename C>
  void run_typed(const std::vector<C>& x, const std::vector<C>& w, const std::vector<C>& offset,
                 const std::vector<C>& bias, const std::vector<C>& mask, std::vector<C>& y, int64_t n, int64_t c,
                 int64_t m, const std::vector<int64_t>& in, const std::vector<int64_t>& out, const WindowParams& wp,
                 const std::vector<int64_t>& pads) const {
    const size_t r = in.size();
    const int64_t cg = c / group_, mg = m / group_, c_per_og = c / offset_group_;
    const int64_t in_size = shape_numel(in), out_size = shape_numel(out), k_size = shape_numel(wp.kernel);
    // The columns (every channel times every tap times every output position) can be far larger
    // than the input or the output: counted, and overflow-checked, before they are built.
    const ScratchBytes held(shape_numel({c, k_size, out_size, int64_t{sizeof(C)}}));
    std::vector<C> col(static_cast<size_t>(c * k_size * out_size));
    std::vector<C> p(r);
    for (int64_t img = 0; img < n; ++img) {
      check_run_stop();  // a large reference kernel stops between images
      // Columns for every channel: col[ch * K + k, o].
      for (int64_t ch = 0; ch < c; ++ch) {
        const int64_t og = ch / c_per_og;
        const C* plane = x.data() + (img * c + ch) * in_size;
        for_each_index(wp.kernel, [&](int64_t k, const std::vector<int64_t>& kidx) {
          for_each_index(out, [&](int64_t o, const std::vector<int64_t>& oidx) {
            for (size_t d = 0; d < r; ++d) {
              const int64_t off_channel =
                  ((img * offset_group_ + og) * k_size + k) * static_cast<int64_t>(r) + static_cast<int64_t>(d);
              p[d] = static_cast<C>(oidx[d] * wp.strides[d] - pads[d] + kidx[d] * wp.dilations[d]) +
                     offset[static_cast<size_t>(off_channel * out_size + o)];
            }
            C v = sample(plane, in, p);
            if (!mask.empty()) v *= mask[static_cast<size_t>(((img * offset_group_ + og) * k_size + k) * out_size + o)];
            col[static_cast<size_t>((ch * k_size + k) * out_size + o)] = v;
          });
        });
      }
      for (int64_t g = 0; g < group_; ++g) {
        C* yg = y.data() + (img * m + g * mg) * out_size;
        gemm_ref<C>(false, false, mg, out_size, cg * k_size, C(1), w.data() + g * mg * cg * k_size, cg * k_size,
                    col.data() + g * cg * k_size * out_size, out_size, C(0), yg, out_size);
        if (!bias.empty())
          for (int64_t o = 0; o < mg; ++o)
            for (int64_t s = 0; s < out_size; ++s) yg[o * out_size + s] += bias[static_cast<size_t>(g * mg + o)];
      }
    }
  }

  std::vector<int64_t> kernel_, strides_, dilations_, pads_;
  int64_t group_ = 1, offset_group_ = 1;
};

}  // namespace

HI_REGISTER_OP(DeformConv, DeformConvOp)

}  // namespace hi::ops
