// ChannelsLastPool (com.hipinfer, made by the layout pass): MaxPool, AveragePool,
// GlobalAveragePool and GlobalMaxPool on float32 [N, spatial..., C] tensors, so a convolutional
// network stays channels-last between its convolutions. `mode` is max | average |
// global_average | global_max; the window attributes are those of MaxPool/AveragePool.
// Channels are the innermost loop: each tap is a contiguous, vectorisable run of C floats.
#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "core/threading.h"
#include "ops/internal.h"
#include "ops/pool_util.h"

namespace hi::ops {
namespace {

// The channel loops, compiled for AVX-512, AVX2 and baseline x86-64 and picked at load time (the
// library is built for baseline x86-64): y[ch] = reduce over the taps of x[tap * c + ch], times
// `scale` (1 / the divisor for an average). taps null: rows 0 .. count - 1 (a global pool). The
// max takes a NaN as std::max does: only from the first tap.
__attribute__((target_clones("avx512f", "avx2", "default"))) void pool_taps(const float* x, const int64_t* taps,
                                                                            int64_t count, int64_t c, bool max,
                                                                            float scale, float* y) {
  const float init = max ? -std::numeric_limits<float>::infinity() : 0.f;
  for (int64_t ch = 0; ch < c; ++ch) y[ch] = init;
  for (int64_t t = 0; t < count; ++t) {
    const float* row = x + (taps ? taps[t] : t) * c;
    if (max) {
      for (int64_t ch = 0; ch < c; ++ch) y[ch] = y[ch] < row[ch] ? row[ch] : y[ch];
    } else {
      for (int64_t ch = 0; ch < c; ++ch) y[ch] += row[ch];
    }
  }
  if (!max)
    for (int64_t ch = 0; ch < c; ++ch) y[ch] *= scale;
}

class ChannelsLastPoolOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    mode_ = ctx.get_string("mode", "");
    if (mode_ != "max" && mode_ != "average" && mode_ != "global_average" && mode_ != "global_max")
      return ctx.fail(StatusCode::kInvalidModel, "mode must be max, average, global_average or global_max, got '",
                      mode_, "'");
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
      HI_ASSIGN_OR_RETURN(PoolWindows w,
                          make_pool_windows(window_, channels_first(x.concrete_shape()),
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
      parallel_for(n, 1, [&](int64_t b0, int64_t b1) {
        for (int64_t b = b0; b < b1; ++b) {
          pool_taps(px + b * in_size * c, nullptr, in_size, c, max, max ? 1.f : 1.f / static_cast<float>(in_size),
                    py + b * c);
        }
      });
      return Status::ok();
    }
    const bool max = mode_ == "max";
    HI_ASSIGN_OR_RETURN(std::shared_ptr<const Windows> windows, windows_for(x.shape()));
    const Windows& w = *windows;
    Shape out = {n};
    out.insert(out.end(), w.out().begin(), w.out().end());
    out.push_back(c);
    float* py = ctx.output(0, DType::kFloat32, out).data<float>();
    const int64_t out_size = static_cast<int64_t>(w.divisor.size());
    parallel_for(n * out_size, 16, [&](int64_t p0, int64_t p1) {
      std::vector<int64_t> scratch;  // taps of one position when they are not cached
      for (int64_t p = p0; p < p1; ++p) {
        const int64_t b = p / out_size, pos = p % out_size;
        const int64_t* taps = nullptr;
        int64_t count = 0;
        if (w.cached()) {
          taps = w.taps.data() + w.first[static_cast<size_t>(pos)];
          count = w.first[static_cast<size_t>(pos) + 1] - w.first[static_cast<size_t>(pos)];
        } else {
          (void)window_taps(w.geometry, pos, &scratch);
          taps = scratch.data();
          count = static_cast<int64_t>(scratch.size());
        }
        pool_taps(px + b * in_size * c, taps, count, c, max, max ? 1.f : 1.f / w.divisor[static_cast<size_t>(pos)],
                  py + p * c);
      }
    });
    return Status::ok();
  }

 private:
  // Every output position's divisor and taps (in-plane offsets, flattened: position p's are
  // taps[first[p], first[p + 1])), made once per input shape: a run used to allocate a vector
  // per output position (3136 for ResNet-50's max pool, a third of a millisecond). Taps are
  // cached up to kMaxCachedTaps in all; past that (an auto_pad SAME window far larger than the
  // input reads a whole plane per position) each position's are made when it is reached.
  static constexpr int64_t kMaxCachedTaps = int64_t{1} << 22;
  struct Windows {
    PoolWindows geometry;
    std::vector<int64_t> taps, first;  // `first` empty: not cached
    std::vector<float> divisor;
    const std::vector<int64_t>& out() const { return geometry.out; }
    bool cached() const { return !first.empty(); }
  };
  Result<std::shared_ptr<const Windows>> windows_for(const Shape& x) const {
    std::lock_guard<std::mutex> lock(windows_mutex_);
    const Shape plane(x.begin() + 1, x.end());  // the batch does not change the windows
    if (auto it = windows_.find(plane); it != windows_.end()) return it->second;
    HI_ASSIGN_OR_RETURN(PoolWindows w,
                        make_pool_windows(window_, channels_first(x), mode_ == "max" || !count_include_pad_,
                                          StatusCode::kInvalidArgument));
    auto made = std::make_shared<Windows>();
    made->first.push_back(0);
    for_each_window(w, [&](int64_t, const std::vector<int64_t>& t, int64_t padded) {
      if (made->cached() && static_cast<int64_t>(made->taps.size() + t.size()) <= kMaxCachedTaps) {
        made->taps.insert(made->taps.end(), t.begin(), t.end());
        made->first.push_back(static_cast<int64_t>(made->taps.size()));
      } else {
        made->first.clear();
        made->taps = {};
      }
      made->divisor.push_back(static_cast<float>(count_include_pad_ ? padded : static_cast<int64_t>(t.size())));
    });
    made->geometry = std::move(w);
    if (windows_.size() >= 16) windows_.clear();
    windows_[plane] = made;
    return std::shared_ptr<const Windows>(made);
  }

  bool global() const { return mode_ == "global_average" || mode_ == "global_max"; }
  static Shape channels_first(const Shape& s) {
    Shape r = {s[0], s.back()};
    r.insert(r.end(), s.begin() + 1, s.end() - 1);
    return r;
  }

  std::string mode_;
  WindowParams window_;
  bool count_include_pad_ = false;
  mutable std::mutex windows_mutex_;
  mutable std::map<Shape, std::shared_ptr<const Windows>> windows_;
};

}  // namespace

HI_REGISTER_OP(ChannelsLastPool, ChannelsLastPoolOp)

}  // namespace hi::ops
