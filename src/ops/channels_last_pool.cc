// ChannelsLastPool (com.hipinfer, made by the layout pass): MaxPool, AveragePool,
// GlobalAveragePool and GlobalMaxPool on float32 [N, spatial..., C] tensors, so a convolutional
// network stays channels-last between its convolutions. `mode` is max | average |
// global_average | global_max; the window attributes are those of MaxPool/AveragePool.
// Channels are the innermost loop: each tap is a contiguous, vectorisable run of C floats.
#include <algorithm>
#include <limits>

#include "cpu/threading.h"
#include "ops/internal.h"
#include "ops/pool_util.h"

namespace hi::ops {
namespace {

class ChannelsLastPoolOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    mode_ = ctx.get_string("mode", "");
    if (mode_ != "max" && mode_ != "average" && mode_ != "global_average" && mode_ != "global_max")
      return ctx.fail(StatusCode::kInvalidModel, "mode must be max, average, global_average or global_max, got '", mode_, "'");
    if (!global()) HI_RETURN_IF_ERROR(parse_pool_window(ctx, &window_));
    count_include_pad_ = ctx.get_int("count_include_pad", 0) != 0;
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    const ir::ValueType& x = ctx.input_type(0);
    if (x.dtype != DType::kFloat32) return unsupported_dtype(ctx.node(), x.dtype);
    if (!x.has_rank()) {
      ctx.set_output_type(0, ir::ValueType::tensor_unknown_shape(x.dtype));
      return Status::ok();
    }
    if (x.rank() < 3) return error(StatusCode::kInvalidModel, "input ", x.to_string(), " must be [N, spatial..., C]");
    std::vector<ir::Dim> out = *x.shape;
    if (global()) {
      for (size_t i = 1; i + 1 < out.size(); ++i) out[i] = ir::Dim::known(1);
    } else if (x.is_static()) {
      HI_ASSIGN_OR_RETURN(PoolWindows w, make_pool_windows(window_, channels_first(x.concrete_shape()),
                                                           mode_ == "max" || !count_include_pad_, StatusCode::kInvalidModel));
      for (size_t i = 0; i < w.out.size(); ++i) out[i + 1] = ir::Dim::known(w.out[i]);
    } else {
      for (size_t i = 1; i + 1 < out.size(); ++i) out[i] = ir::Dim();
    }
    ctx.set_output_type(0, ir::ValueType::tensor(x.dtype, out));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    if (x.dtype() != DType::kFloat32 || x.rank() < 3)
      return error(StatusCode::kInvalidArgument, "input ", x.type_string(), " must be float32 [N, spatial..., C]");
    const int64_t n = x.dim(0), c = x.dim(x.rank() - 1);
    const int64_t in_size = x.numel() / std::max<int64_t>(1, n * c);
    const float* px = x.data<float>();
    if (global()) {
      Shape out = x.shape();
      for (size_t i = 1; i + 1 < out.size(); ++i) out[i] = 1;
      float* py = ctx.output(0, DType::kFloat32, out).data<float>();
      const bool max = mode_ == "global_max";
      cpu::parallel_for(n, 1, [&](int64_t b0, int64_t b1) {
        for (int64_t b = b0; b < b1; ++b) {
          float* acc = py + b * c;
          std::fill(acc, acc + c, max ? -std::numeric_limits<float>::infinity() : 0.f);
          for (int64_t s = 0; s < in_size; ++s) {
            const float* row = px + (b * in_size + s) * c;
            if (max) {
              for (int64_t ch = 0; ch < c; ++ch) acc[ch] = std::max(acc[ch], row[ch]);
            } else {
              for (int64_t ch = 0; ch < c; ++ch) acc[ch] += row[ch];
            }
          }
          if (!max)
            for (int64_t ch = 0; ch < c; ++ch) acc[ch] /= static_cast<float>(in_size);
        }
      });
      return Status::ok();
    }
    const bool max = mode_ == "max";
    HI_ASSIGN_OR_RETURN(PoolWindows w, make_pool_windows(window_, channels_first(x.shape()), max || !count_include_pad_,
                                                         StatusCode::kInvalidArgument));
    // Every output position's taps (in-plane offsets) and divisor, then channels-last loops.
    std::vector<std::vector<int64_t>> taps(static_cast<size_t>(w.out_size()));
    std::vector<float> divisor(taps.size());
    for_each_window(w, [&](int64_t pos, const std::vector<int64_t>& t, int64_t padded) {
      taps[static_cast<size_t>(pos)] = t;
      divisor[static_cast<size_t>(pos)] = static_cast<float>(count_include_pad_ ? padded : static_cast<int64_t>(t.size()));
    });
    Shape out = {n};
    out.insert(out.end(), w.out.begin(), w.out.end());
    out.push_back(c);
    float* py = ctx.output(0, DType::kFloat32, out).data<float>();
    const int64_t out_size = w.out_size();
    cpu::parallel_for(n * out_size, 16, [&](int64_t p0, int64_t p1) {
      for (int64_t p = p0; p < p1; ++p) {
        const int64_t b = p / out_size;
        const auto& t = taps[static_cast<size_t>(p % out_size)];
        float* acc = py + p * c;
        std::fill(acc, acc + c, max ? -std::numeric_limits<float>::infinity() : 0.f);
        for (int64_t off : t) {
          const float* row = px + (b * in_size + off) * c;
          if (max) {
            for (int64_t ch = 0; ch < c; ++ch) acc[ch] = std::max(acc[ch], row[ch]);
          } else {
            for (int64_t ch = 0; ch < c; ++ch) acc[ch] += row[ch];
          }
        }
        if (!max) {
          const float inv = 1.f / divisor[static_cast<size_t>(p % out_size)];
          for (int64_t ch = 0; ch < c; ++ch) acc[ch] *= inv;
        }
      }
    });
    return Status::ok();
  }

 private:
  bool global() const { return mode_ == "global_average" || mode_ == "global_max"; }
  static Shape channels_first(const Shape& s) {
    Shape r = {s[0], s.back()};
    r.insert(r.end(), s.begin() + 1, s.end() - 1);
    return r;
  }

  std::string mode_;
  WindowParams window_;
  bool count_include_pad_ = false;
};

}  // namespace

HI_REGISTER_OP(ChannelsLastPool, ChannelsLastPoolOp)

}  // namespace hi::ops
