// SpaceToDepth: moves bs x bs spatial blocks of a 4-D [N, C, H, W] input into channels, giving
// [N, C * bs^2, H / bs, W / bs] (bs = 'blocksize'); the inverse of DepthToSpace. mode "DCR" (the
// default) puts the block offset in the high part of the channel: y[n, (i*bs + j) * C + c, h, w] =
// x[n, c, h*bs+i, w*bs+j]; "CRD" (opset 28) in the low part: y[n, c*bs^2 + i*bs + j, h, w].
// Any element type.
#include "ops/copy_util.h"
#include "ops/op_checks.h"

namespace hi::ops {
namespace {

class SpaceToDepthOp final : public Op {
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
    for (size_t d = 2; d < 4; ++d)
      if (out[d].is_known() && out[d].value % bs_ != 0)
        return error(StatusCode::kInvalidModel, "height and width must be multiples of blocksize (", bs_, "), input ",
                     x.to_string());
    if (bs_ != 1)
      for (size_t d = 1; d < 4; ++d) {
        const ir::Dim& in = out[d];
        if (!in.is_known()) {
          out[d] = ir::Dim{};
          continue;
        }
        HI_ASSIGN_OR_RETURN(const int64_t size,
                            d == 1 ? channels(in.value, StatusCode::kInvalidModel) : in.value / bs_);
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
    if (h % bs != 0 || w % bs != 0)
      return error(StatusCode::kInvalidArgument, "height and width must be multiples of blocksize (", bs, "), input ",
                   x.type_string());
    HI_ASSIGN_OR_RETURN(const int64_t oc, channels(c, StatusCode::kInvalidArgument));
    const int64_t oh = h / bs, ow = w / bs;
    Tensor& y = ctx.output(0, x.dtype(), {n, oc, oh, ow});
    if (!dispatch_storage(x.dtype(), [&]<typename U>() {
          const U* src = storage<U>(x);
          U* dst = storage<U>(y);
          int64_t o = 0;
          for (int64_t b = 0; b < n; ++b)
            for (int64_t ch = 0; ch < oc; ++ch) {
              // Which input channel and which offset (i, j) inside the block this channel holds.
              const int64_t in_c = crd_ ? ch / (bs * bs) : ch % c;
              const int64_t blk = crd_ ? ch % (bs * bs) : ch / c;
              const int64_t i = blk / bs, j = blk % bs;
              for (int64_t yy = 0; yy < oh; ++yy)
                for (int64_t xx = 0; xx < ow; ++xx, ++o)
                  dst[o] = src[((b * c + in_c) * h + yy * bs + i) * w + xx * bs + j];
            }
        }))
      return check_movable(ctx.node(), x.dtype());
    return Status::ok();
  }

 private:
  // C times blocksize^2, when that fits in int64.
  Result<int64_t> channels(int64_t c, StatusCode code) const {
    const auto r = checked_mul(c, bs_ * bs_);
    if (!r)
      return error(code, "attribute 'blocksize' = ", bs_, " makes the ", c,
                   " channels times blocksize^2 larger than int64 can count");
    return *r;
  }
  int64_t bs_ = 1;
  bool crd_ = false;
};

}  // namespace

HI_REGISTER_OP(SpaceToDepth, SpaceToDepthOp)

}  // namespace hi::ops
