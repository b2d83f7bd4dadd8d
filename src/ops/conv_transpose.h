// ConvTranspose: the gradient of Conv with respect to its input, N-d with groups, strides,
// dilations, pads, output_padding, output_shape and auto_pad. W is [C, M / group, k...]. Per
// image and group the kernel computes columns W_g^T X_g ([M/g * K, in]) with ProductOp::product_f32
// (the CPU backend's sgemm; the reference GEMM here) and sums them into the output (col2im). Output size per spatial
// dim, as the spec gives it:
//   natural = stride * (in - 1) + output_padding + (kernel - 1) * dilation + 1
//   out     = natural - pad_begin - pad_end           (explicit pads)
// With output_shape (or SAME_UPPER/SAME_LOWER, where out = in * stride) the pads come from
// total = natural - out: SAME_UPPER puts the odd one at the end, otherwise at the beginning.
// An output larger than `natural` (negative total) is extended with zeros (plus bias) at the
// end, as ONNX Runtime and the ONNX reference implementation do.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "core/memory_budget.h"
#include "core/run_control.h"
#include "core/threading.h"
#include "ops/conv_util.h"
#include "ops/dispatch.h"
#include "ops/elementwise.h"
#include "ops/gemm_ref.h"
#include "ops/index_util.h"

namespace hi::ops {

class ConvTransposeOp : public ProductOp {
 public:
  static constexpr int64_t kUnknownStandIn = int64_t{1} << 20;
  struct Geometry {
    std::vector<int64_t> in, out, kernel, strides, dilations, begin;  // begin: leading pad per dim
  };

  Status init(InitContext& ctx) override {
    kernel_ = ctx.get_ints("kernel_shape");
    strides_ = ctx.get_ints("strides");
    dilations_ = ctx.get_ints("dilations");
    pads_ = ctx.get_ints("pads");
    output_padding_ = ctx.get_ints("output_padding");
    output_shape_ = ctx.get_ints("output_shape");
    auto_pad_ = ctx.get_string("auto_pad", "NOTSET");
    group_ = ctx.get_int("group", 1);
    if (auto_pad_ != "NOTSET" && auto_pad_ != "SAME_UPPER" && auto_pad_ != "SAME_LOWER" && auto_pad_ != "VALID")
      return ctx.fail(StatusCode::kInvalidModel, "auto_pad '", auto_pad_,
                      "' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID");
    if (group_ <= 0) return ctx.fail(StatusCode::kInvalidModel, "group must be positive, got ", group_);
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 2, 3));
    const ir::ValueType& x = ctx.input_type(0);
    const ir::ValueType& w = ctx.input_type(1);
    if (x.dtype != DType::kUndefined && !in_set(kFloatTypes, x.dtype))
      return unsupported_dtype(ctx.node(), x.dtype, "X");
    if (w.dtype != DType::kUndefined && x.dtype != DType::kUndefined && x.dtype != w.dtype)
      return error(StatusCode::kInvalidModel, "X is ", dtype_name(x.dtype), " but W is ", dtype_name(w.dtype));
    if (!x.has_rank() || !w.has_rank()) {
      ctx.set_output_type(0, ir::ValueType::tensor_unknown_shape(x.dtype));
      return Status::ok();
    }
    if (x.rank() < 3 || w.rank() != x.rank())
      return error(StatusCode::kInvalidModel, "X ", x.to_string(), " and W ", w.to_string(),
                   " must be [N, C, spatial...] and [C, M/group, kernel...]");
    const auto& xd = *x.shape;
    const auto& wd = *w.shape;
    if (xd[1].is_known() && wd[0].is_known() && xd[1].value != wd[0].value)
      return error(StatusCode::kInvalidModel, "X has ", xd[1].value, " channels but W ", w.to_string(), " expects ",
                   wd[0].value);
    if (xd[1].is_known() && xd[1].value % group_ != 0)
      return error(StatusCode::kInvalidModel, "X's ", xd[1].value, " channels are not divisible by group ", group_);
    ir::Dim m;
    if (wd[1].is_known()) {
      HI_ASSIGN_OR_RETURN(const int64_t mv, output_channels(wd[1].value, StatusCode::kInvalidModel));
      m = ir::Dim::known(mv);
    }
    if (ctx.has_input(2)) {
      const ir::ValueType& b = ctx.input_type(2);
      if (b.has_rank() &&
          (b.rank() != 1 || (m.is_known() && (*b.shape)[0].is_known() && (*b.shape)[0].value != m.value)))
        return error(StatusCode::kInvalidModel, "B ", b.to_string(), " must be [", m.to_string(),
                     "] (the output channels)");
    }
    std::vector<ir::Dim> out = {xd[0], m};
    std::vector<int64_t> in_sp, k_sp;
    bool kernel_known = true;
    for (size_t i = 2; i < xd.size(); ++i) {
      kernel_known = kernel_known && wd[i].is_known();
      // Each spatial dim's size depends on its own input size only: an unknown one is computed
      // from a large stand-in (so no spurious error) and reported unknown.
      in_sp.push_back(xd[i].is_known() ? xd[i].value : kUnknownStandIn);
      k_sp.push_back(wd[i].value);
    }
    if (kernel_known) {
      HI_ASSIGN_OR_RETURN(Geometry g, geometry(in_sp, k_sp, StatusCode::kInvalidModel));
      const bool fixed = !output_shape_.empty();  // output_shape fixes every size
      for (size_t i = 0; i < g.out.size(); ++i)
        out.push_back(fixed || xd[i + 2].is_known() ? ir::Dim::known(g.out[i]) : ir::Dim{});
      HI_RETURN_IF_ERROR(check_output_dims(out, source()));
    } else {
      for (size_t i = 2; i < xd.size(); ++i) out.emplace_back();
    }
    ctx.set_output_type(0, ir::ValueType::tensor(x.dtype, std::move(out)));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    const Tensor& w = ctx.in(1);
    const Tensor* b = ctx.input(2);
    if (x.rank() < 3 || w.rank() != x.rank())
      return error(StatusCode::kInvalidArgument, "X ", x.type_string(), " and W ", w.type_string(),
                   " must be [N, C, spatial...] and [C, M/group, kernel...]");
    if (w.dtype() != x.dtype())
      return error(StatusCode::kInvalidArgument, "X is ", dtype_name(x.dtype()), " but W is ", dtype_name(w.dtype()));
    const int64_t n = x.dim(0), c = x.dim(1), mg = w.dim(1);
    HI_ASSIGN_OR_RETURN(const int64_t m, output_channels(mg, StatusCode::kInvalidArgument));
    if (c != w.dim(0) || c % group_ != 0)
      return error(StatusCode::kInvalidArgument, "X ", x.type_string(), " does not fit W ", w.type_string(),
                   " with group ", group_);
    if (b && (b->dtype() != x.dtype() || b->rank() != 1 || b->dim(0) != m))
      return error(StatusCode::kInvalidArgument, "B ", b->type_string(), " must be [", m, "] of X's type");
    const std::vector<int64_t> in(x.shape().begin() + 2, x.shape().end());
    const std::vector<int64_t> kw(w.shape().begin() + 2, w.shape().end());
    HI_ASSIGN_OR_RETURN(Geometry g, geometry(in, kw, StatusCode::kInvalidArgument));
    Shape out_shape = {n, m};
    out_shape.insert(out_shape.end(), g.out.begin(), g.out.end());
    HI_RETURN_IF_ERROR(check_output_shape(out_shape, source(), StatusCode::kInvalidArgument));
    Tensor& y = ctx.output(0, x.dtype(), out_shape);
    if (y.numel() == 0) return Status::ok();
    bool ok = dispatch<kFloatTypes>(x.dtype(), [&]<typename T>() {
      using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
      if constexpr (std::is_same_v<T, C>) {  // float32 and float64: no copies in and out
        T* py = y.data<T>();
        std::fill(py, py + y.numel(), T(0));
        run_typed<C>(x.data<T>(), w.data<T>(), b ? b->data<T>() : nullptr, py, n, c, mg, g);
        return;
      }
      // float16 and bfloat16 compute on float copies of the inputs and the output.
      const int64_t copied = x.numel() + w.numel() + (b ? b->numel() : 0) + y.numel();
      const ScratchBytes held(shape_numel({copied, int64_t{sizeof(C)}}));
      const auto xs = to_compute<T, C>(x), ws = to_compute<T, C>(w);
      std::vector<C> bs;
      if (b) bs = to_compute<T, C>(*b);
      std::vector<C> ys(static_cast<size_t>(y.numel()), C(0));
      run_typed<C>(xs.data(), ws.data(), b ? bs.data() : nullptr, ys.data(), n, c, mg, g);
      T* py = y.data<T>();
      for (size_t i = 0; i < ys.size(); ++i) py[i] = static_cast<T>(ys[i]);
    });
    if (!ok) return unsupported_dtype(ctx.node(), x.dtype(), "X");
    return Status::ok();
  }

 private:
  template <typename C>
  void run_typed(const C* x, const C* w, const C* bias, C* y, int64_t n, int64_t c, int64_t mg,
                 const Geometry& g) const {
    const size_t r = g.in.size();
    const int64_t cg = c / group_, m = mg * group_;
    const int64_t in_size = shape_numel(g.in), out_size = shape_numel(g.out), k_size = shape_numel(g.kernel);
    // The columns and the tap table grow with the kernel times the input, which a model can make
    // far larger than either: counted (and overflow-checked) before they are built.
    const ScratchBytes held(shape_numel({k_size, in_size, mg * int64_t{sizeof(C)} + int64_t{sizeof(int64_t)}}));
    std::vector<C> col(static_cast<size_t>(mg * k_size * in_size));
    // For each kernel tap and input position, the output offset it adds to (-1: outside).
    std::vector<int64_t> target(static_cast<size_t>(k_size * in_size));
    for_each_index(g.kernel, [&](int64_t k, const std::vector<int64_t>& kidx) {
      for_each_index(g.in, [&](int64_t i, const std::vector<int64_t>& iidx) {
        int64_t off = 0;
        for (size_t d = 0; d < r; ++d) {
          const int64_t pos = iidx[d] * g.strides[d] - g.begin[d] + kidx[d] * g.dilations[d];
          if (pos < 0 || pos >= g.out[d]) {
            off = -1;
            break;
          }
          off = off * g.out[d] + pos;
        }
        target[static_cast<size_t>(k * in_size + i)] = off;
      });
    });
    for (int64_t img = 0; img < n; ++img) {
      check_run_stop();  // a large reference kernel stops between images
      for (int64_t grp = 0; grp < group_; ++grp) {
        const C* xg = x + (img * c + grp * cg) * in_size;
        const C* wg = w + grp * cg * mg * k_size;
        if constexpr (std::is_same_v<C, float>)  // the backend's product (the CPU's sgemm)
          product_f32(true, false, mg * k_size, in_size, cg, 1.f, wg, mg * k_size, xg, in_size, 0.f, col.data(),
                      in_size);
        else
          gemm_ref<C>(true, false, mg * k_size, in_size, cg, C(1), wg, mg * k_size, xg, in_size, C(0), col.data(),
                      in_size);
        // Each output channel's scatter is its own (output channels shared among the threads).
        parallel_for(mg, std::max<int64_t>(1, 8192 / std::max<int64_t>(1, k_size * in_size)),
                     [&](int64_t o0, int64_t o1) {
                       for (int64_t o = o0; o < o1; ++o) {
                         C* yo = y + (img * m + grp * mg + o) * out_size;
                         for (int64_t k = 0; k < k_size; ++k) {
                           const C* row = col.data() + (o * k_size + k) * in_size;
                           const int64_t* t = target.data() + k * in_size;
                           for (int64_t i = 0; i < in_size; ++i)
                             if (t[i] >= 0) yo[t[i]] += row[i];
                         }
                         if (bias)
                           for (int64_t s = 0; s < out_size; ++s) yo[s] += bias[grp * mg + o];
                       }
                     });
      }
    }
  }

  // M = W's dim 1 times group, when that fits in int64.
  Result<int64_t> output_channels(int64_t mg, StatusCode code) const {
    const auto m = checked_mul(mg, group_);
    if (!m)
      return error(code, "W's dim 1 (", mg, ") times group ", group_, " is more output channels than int64 can count");
    return *m;
  }
  // What the output's spatial size came from, for errors.
  std::string source() const {
    if (!output_shape_.empty()) return "attribute 'output_shape' " + shape_to_string(output_shape_);
    return "strides " + shape_to_string(strides_) + ", pads " + shape_to_string(pads_) + " and output_padding " +
           shape_to_string(output_padding_);
  }
  // Sizes and leading pads for input spatial dims `in` and W's kernel dims.
  Result<Geometry> geometry(const std::vector<int64_t>& in, const std::vector<int64_t>& wk, StatusCode code) const {
    const size_t r = in.size();
    Geometry g;
    g.in = in;
    g.kernel = kernel_.empty() ? wk : kernel_;
    g.strides = strides_.empty() ? std::vector<int64_t>(r, 1) : strides_;
    g.dilations = dilations_.empty() ? std::vector<int64_t>(r, 1) : dilations_;
    std::vector<int64_t> pads = pads_.empty() ? std::vector<int64_t>(2 * r, 0) : pads_;
    std::vector<int64_t> opad = output_padding_.empty() ? std::vector<int64_t>(r, 0) : output_padding_;
    std::vector<int64_t> oshape = output_shape_;
    if (oshape.size() == r + 2) oshape.erase(oshape.begin(), oshape.begin() + 2);  // [N, C, spatial...] form
    if (g.kernel.size() != r || g.strides.size() != r || g.dilations.size() != r || pads.size() != 2 * r ||
        opad.size() != r || (!oshape.empty() && oshape.size() != r))
      return error(code, "kernel_shape/strides/dilations/pads/output_padding/output_shape have ", g.kernel.size(), "/",
                   g.strides.size(), "/", g.dilations.size(), "/", pads.size(), "/", opad.size(), "/",
                   output_shape_.size(), " values for ", r, " spatial dims");
    if (g.kernel != wk)
      return error(code, "kernel_shape ", shape_to_string(g.kernel), " does not match W's kernel dims ",
                   shape_to_string(wk));
    g.out.assign(r, 0);
    g.begin.assign(r, 0);
    for (size_t d = 0; d < r; ++d) {
      if (g.kernel[d] <= 0 || g.strides[d] <= 0 || g.dilations[d] <= 0)
        return error(code, "kernel, stride and dilation must be positive (dim ", d, ")");
      if (opad[d] < 0 || opad[d] >= std::max(g.strides[d], g.dilations[d]))
        return error(code, "output_padding ", shape_to_string(opad), " must be in [0, max(stride, dilation)) (dim ", d,
                     ")");
      if (pads[d] < 0 || pads[d + r] < 0) return error(code, "pads ", shape_to_string(pads), " must be non-negative");
      // Hostile attributes must not overflow the size arithmetic (checked in double first).
      const double natural_d = static_cast<double>(g.strides[d]) * static_cast<double>(in[d] - 1) +
                               static_cast<double>(opad[d]) +
                               static_cast<double>(g.kernel[d] - 1) * static_cast<double>(g.dilations[d]) + 1;
      if (natural_d > 4e18 || static_cast<double>(pads[d]) + static_cast<double>(pads[d + r]) > 4e18)
        return error(code, "spatial dim ", d, ": strides/dilations/kernel/pads are too large (output size ", natural_d,
                     ")");
      const int64_t natural = g.strides[d] * (in[d] - 1) + opad[d] + (g.kernel[d] - 1) * g.dilations[d] + 1;
      const bool same = auto_pad_ == "SAME_UPPER" || auto_pad_ == "SAME_LOWER";
      if (!oshape.empty() || same) {
        const int64_t out = !oshape.empty() ? oshape[d] : in[d] * g.strides[d];
        const int64_t total = natural - out;
        if (total >= 0) g.begin[d] = auto_pad_ == "SAME_UPPER" ? total / 2 : total - total / 2;
        g.out[d] = out;
      } else if (auto_pad_ == "VALID") {
        g.out[d] = natural;
      } else {
        g.begin[d] = pads[d];
        g.out[d] = natural - pads[d] - pads[d + r];
      }
      if (g.out[d] < 0)
        return error(code, "output size ", g.out[d], " of spatial dim ", d, " is negative (input ", in[d], ", kernel ",
                     g.kernel[d], ", pads ", shape_to_string(pads), ")");
    }
    return g;
  }

  std::vector<int64_t> kernel_, strides_, dilations_, pads_, output_padding_, output_shape_;
  std::string auto_pad_ = "NOTSET";
  int64_t group_ = 1;
};

}  // namespace hi::ops
