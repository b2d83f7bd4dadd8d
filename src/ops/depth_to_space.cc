// DepthToSpace: moves channel blocks of a 4-D [N, C, H, W] input into bs x bs spatial blocks,
// giving [N, C / bs^2, H * bs, W * bs] (bs = 'blocksize'). mode "DCR" (the default) takes the
// block offset from the high part of the channel: y[n, c, h*bs+i, w*bs+j] =
// x[n, (i*bs + j) * C/bs^2 + c, h, w]; "CRD" (opset 11) from the low part: x[n, c*bs^2 + i*bs + j, h, w].
// Any element type.
#include "ops/copy_util.h"
#include "ops/op_checks.h"

namespace hi::ops {
namespace {

class DepthToSpaceOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    bs_ = ctx.require_int("blocksize");
    const std::string mode = ctx.get_string("mode", "DCR");
    if (mode != "DCR" && mode != "CRD")
      return ctx.fail(StatusCode::kInvalidModel, "attribute 'mode' must be \"DCR\" or \"CRD\", got \"", mode, "\"");
    crd_ = mode == "CRD";
    if (ctx.status().is_ok() && bs_ <= 0)
      return ctx.fail(StatusCode::kInvalidModel, "attribute 'blocksize' must be positive, got ", bs_);
    if (ctx.status().is_ok() && !checked_mul(bs_, bs_))
      return ctx.fail(StatusCode::kInvalidModel, "attribute 'blocksize' = ", bs_,
                      ": blocksize^2 is larger than int64 can count");
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 1, 1, 1));
    const ir::ValueType& x = ctx.input_type(0);
    HI_RETURN_IF_ERROR(check_movable(ctx.node(), x.dtype));
    if (!x.has_rank()) {
      ctx.set_output_type(0, ir::ValueType::tensor(x.dtype, std::vector<ir::Dim>(4)));
      return Status::ok();
    }
    if (x.rank() != 4) return error(StatusCode::kInvalidModel, "input must be 4-D [N, C, H, W], got ", x.to_string());
    std::vector<ir::Dim> out = *x.shape;
    const ir::Dim& c = out[1];
    if (c.is_known() && c.value % (bs_ * bs_) != 0)
      return error(StatusCode::kInvalidModel, "channels (", c.value, ") must be a multiple of blocksize^2 (", bs_ * bs_,
                   "), input ", x.to_string());
    if (bs_ != 1)
      for (size_t d = 1; d < 4; ++d) {
        const ir::Dim& in = out[d];
        if (!in.is_known()) {
          out[d] = ir::Dim{};
          continue;
        }
        HI_ASSIGN_OR_RETURN(const int64_t size,
                            d == 1 ? in.value / (bs_ * bs_) : spread(in.value, d, StatusCode::kInvalidModel));
        out[d] = ir::Dim::known(size);
      }
    ctx.set_output_type(0, ir::ValueType::tensor(x.dtype, std::move(out)));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    if (x.rank() != 4)
      return error(StatusCode::kInvalidArgument, "input must be 4-D [N, C, H, W], got ", x.type_string());
    const int64_t n = x.dim(0), c = x.dim(1), h = x.dim(2), w = x.dim(3), bs = bs_;
    if (c % (bs * bs) != 0)
      return error(StatusCode::kInvalidArgument, "channels (", c, ") must be a multiple of blocksize^2 (", bs * bs,
                   "), input ", x.type_string());
    HI_ASSIGN_OR_RETURN(const int64_t oh, spread(h, 2, StatusCode::kInvalidArgument));
    HI_ASSIGN_OR_RETURN(const int64_t ow, spread(w, 3, StatusCode::kInvalidArgument));
    const int64_t oc = c / (bs * bs);
    Tensor& y = ctx.output(0, x.dtype(), {n, oc, oh, ow});
    if (!dispatch_storage(x.dtype(), [&]<typename U>() {
          const U* src = storage<U>(x);
          U* dst = storage<U>(y);
          int64_t o = 0;
          for (int64_t b = 0; b < n; ++b)
            for (int64_t ch = 0; ch < oc; ++ch)
              for (int64_t yy = 0; yy < oh; ++yy)
                for (int64_t xx = 0; xx < ow; ++xx, ++o) {
                  const int64_t i = yy % bs, j = xx % bs;
                  const int64_t in_c = crd_ ? (ch * bs + i) * bs + j : (i * bs + j) * oc + ch;
                  dst[o] = src[((b * c + in_c) * h + yy / bs) * w + xx / bs];
                }
        }))
      return check_movable(ctx.node(), x.dtype());
    return Status::ok();
  }

 private:
  // Spatial dim d of `size` times blocksize, when that fits in int64.
  Result<int64_t> spread(int64_t size, size_t d, StatusCode code) const {
    const auto r = checked_mul(size, bs_);
    if (!r)
      return error(code, "attribute 'blocksize' = ", bs_, " makes dim ", d, " of ", size,
                   " larger than int64 can count");
    return *r;
  }
  int64_t bs_ = 1;
  bool crd_ = false;
};

}  // namespace

HI_REGISTER_OP(DepthToSpace, DepthToSpaceOp)

}  // namespace hi::ops
