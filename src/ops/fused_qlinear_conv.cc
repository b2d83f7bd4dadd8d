// FusedQLinearConv (com.hipinfer): QLinearConv channels-last, x and y [N, H, W, C], with an
// optional Relu (attribute activation), as the QDQ pass (fuse_qdq_conv) makes it from a QDQ
// model's DequantizeLinear -> Conv -> QuantizeLinear. Inputs are QLinearConv's. It runs on the
// int8 implicit product (cpu/int8_conv.cc) where the CPU has AVX512_VNNI, the weights, scales
// and zero points are constants, w's zero point is 0 and the convolution is 2-D with one group;
// elsewhere on QLinearConv's reference arithmetic between two permutations. Both give the same
// codes.
#include <cstring>

#include "cpu/kernels.h"
#include "ops/arity.h"
#include "ops/integer_conv.h"
#include "ops/internal.h"
#include "cpu/kernel_cache.h"
#include "ops/quantize_util.h"

namespace hi::ops {
namespace {

constexpr const char* kOp = "FusedQLinearConv";

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

class FusedQLinearConvOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    window_.parse(ctx, true);
    group_ = ctx.get_int("group", 1);
    if (group_ <= 0) return ctx.fail(StatusCode::kInvalidModel, kOp, ": group must be positive, got ", group_);
    const std::string act = ctx.get_string("activation", "");
    if (act != "" && act != "Relu")
      return ctx.fail(StatusCode::kInvalidModel, kOp, ": activation must be Relu or absent, got '", act, "'");
    relu_ = act == "Relu";
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
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
    constants_ = true;
    for (size_t i = 1; i < 9; ++i) constants_ = constants_ && (!ctx.has_input(i) || ctx.input_value(i) != nullptr);
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    if (x.rank() != 4)
      return error(StatusCode::kInvalidArgument, kOp, " takes a 4-D channels-last x, got ", x.type_string());
    if (auto kernel = fast_kernel(ctx)) {
      HI_ASSIGN_OR_RETURN(qconv::ConvGeometry g,
                          qconv::conv_geometry(kOp, permute_type_shape(x.shape()), ctx.in(3).shape(), group_, window_));
      Tensor& y = ctx.output(0, ctx.in(7).dtype(), {g.n, g.out[0], g.out[1], g.m});
      return kernel->run(x.raw(), y.raw());
    }
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

  std::string kernel_name() const override { return kernels_.describe(); }

 private:
  static Shape permute_type_shape(const Shape& s) { return {s[0], s[3], s[1], s[2]}; }

  // The int8 kernel for this input shape, made once (the weights and scales are constants), or
  // null where it does not apply.
  std::shared_ptr<const cpu::QuantizedConvKernel> fast_kernel(RunContext& ctx) const {
    if (!constants_ || !cpu::int8_kernels_available() || group_ != 1) return nullptr;
    const Tensor& x = ctx.in(0);
    return kernels_.get(x.shape(), [&](cpu::WeightCache*) { return make_kernel(ctx); });
  }

  std::shared_ptr<const cpu::QuantizedConvKernel> make_kernel(RunContext& ctx) const {
    const Tensor& x = ctx.in(0);
    const Tensor& w = ctx.in(3);
    const Tensor& w_scale = ctx.in(4);
    const Tensor& w_zp = ctx.in(5);
    const Tensor* bias = ctx.input(8);
    if (w.dtype() != DType::kInt8 || w.rank() != 4) return nullptr;
    for (size_t s : {1, 2, 6, 7})
      if (ctx.in(s).numel() != 1) return nullptr;
    for (int64_t i = 0; i < w_zp.numel(); ++i)
      if (w_zp.data<int8_t>()[i] != 0) return nullptr;
    auto geometry = qconv::conv_geometry(kOp, permute_type_shape(x.shape()), w.shape(), group_, window_);
    if (!geometry.is_ok() || geometry.value().in.size() != 2) return nullptr;
    const qconv::ConvGeometry& g = geometry.value();
    if (w_scale.numel() != 1 && w_scale.numel() != g.m) return nullptr;
    if (bias && (bias->rank() != 1 || bias->dim(0) != g.m)) return nullptr;
    cpu::QuantizedConvParams q;
    cpu::ConvGeometry& cg = q.geometry;
    cg.batch = g.n;
    cg.in_channels = g.c;
    cg.out_channels = g.m;
    cg.groups = 1;
    cg.in = g.in;
    cg.out = g.out;
    cg.kernel = g.window.kernel;
    cg.strides = g.window.strides;
    cg.dilations = g.window.dilations;
    cg.pads_begin = {g.pads[0], g.pads[1]};
    cg.pads_end = {g.pads[2], g.pads[3]};
    cg.channels_last = true;
    q.x_signed = x.dtype() == DType::kInt8;
    q.y_signed = ctx.in(7).dtype() == DType::kInt8;
    auto zero_point = [](const Tensor& t) {
      return t.dtype() == DType::kInt8 ? int32_t{t.data<int8_t>()[0]} : int32_t{t.data<uint8_t>()[0]};
    };
    q.x_zero_point = zero_point(ctx.in(2));
    q.y_zero_point = zero_point(ctx.in(7));
    q.weights = w.data<int8_t>();
    q.bias = bias ? bias->data<int32_t>() : nullptr;
    q.relu = relu_;
    const float x_scale = ctx.in(1).data<float>()[0], y_scale = ctx.in(6).data<float>()[0];
    for (int64_t o = 0; o < g.m; ++o)  // as the reference: x_scale * w_scale / y_scale in float32
      q.multipliers.push_back(x_scale * w_scale.data<float>()[w_scale.numel() == 1 ? 0 : o] / y_scale);
    return cpu::make_int8_conv_kernel(q);
  }

  WindowParams window_;
  int64_t group_ = 1;
  bool relu_ = false;
  mutable bool constants_ = false;  // every input but x is a constant (set when the session is built)
  mutable cpu::KernelCache<cpu::QuantizedConvKernel> kernels_;
};

}  // namespace

HI_REGISTER_OP(FusedQLinearConv, FusedQLinearConvOp)

}  // namespace hi::ops
