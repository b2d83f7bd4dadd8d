// GridSample: samples X [N, C, D1..Dr] at the normalised positions in grid [N, O1..Or, r]
// (grid's last dim lists the coordinate of the last spatial dim first: (x, y[, z])), giving
// [N, C, O1..Or]. Opset 16 takes 4-D X and modes bilinear/nearest/bicubic; opset 20 any r and
// modes linear/nearest/cubic. The steps follow the ONNX reference implementation (and PyTorch):
//   1. denormalise: align_corners ? (g + 1) / 2 * (L - 1) : ((g + 1) * L - 1) / 2 (kept as float)
//   2. nearest rounds half to even here, before padding
//   3. outside [-0.5, L - 0.5] (align_corners: [0, L - 1]): 'border' clamps to [0, L - 1],
//      'reflection' reflects about those bounds
//   4. interpolate: taps at floor(x) (+1 for linear, -1..+2 for cubic with a = -0.75); a tap
//      outside the input reads 0 ('zeros'), the nearest edge ('border') or its reflection.
// Weights are shared by all channels, so each output point's taps are computed once.
#include <cmath>

#include "ops/elementwise.h"
#include "ops/index_util.h"

namespace hi::ops {
namespace {

enum class Mode { kLinear, kNearest, kCubic };
enum class Padding { kZeros, kBorder, kReflection };

class GridSampleOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    opset_ = ctx.opset();
    const bool old = opset_ < 20;
    const std::string mode = ctx.get_string("mode", old ? "bilinear" : "linear");
    if (mode == (old ? "bilinear" : "linear")) mode_ = Mode::kLinear;
    else if (mode == "nearest") mode_ = Mode::kNearest;
    else if (mode == (old ? "bicubic" : "cubic")) mode_ = Mode::kCubic;
    else
      return ctx.fail(StatusCode::kInvalidModel, "mode '", mode, "' is not one of ",
                      old ? "bilinear, nearest, bicubic" : "linear, nearest, cubic", " (opset ", opset_, ")");
    const std::string pad = ctx.get_string("padding_mode", "zeros");
    if (pad == "zeros") padding_ = Padding::kZeros;
    else if (pad == "border") padding_ = Padding::kBorder;
    else if (pad == "reflection") padding_ = Padding::kReflection;
    else return ctx.fail(StatusCode::kInvalidModel, "padding_mode '", pad, "' is not one of zeros, border, reflection");
    align_corners_ = ctx.get_int("align_corners", 0) != 0;
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 2, 2));
    const ir::ValueType& x = ctx.input_type(0);
    const ir::ValueType& grid = ctx.input_type(1);
    if (x.dtype != DType::kUndefined && !in_set(kNumericTypes, x.dtype))
      return unsupported_dtype(ctx.node(), x.dtype, "X");
    if (grid.dtype != DType::kUndefined && !in_set(kFloatTypes, grid.dtype))
      return unsupported_dtype(ctx.node(), grid.dtype, "grid");
    if (!x.has_rank() && !grid.has_rank()) {
      ctx.set_output_type(0, ir::ValueType::tensor_unknown_shape(x.dtype));
      return Status::ok();
    }
    const int64_t rank = x.has_rank() ? x.rank() : grid.rank();
    HI_RETURN_IF_ERROR(check_rank(rank, StatusCode::kInvalidModel));
    if (x.has_rank() && grid.has_rank()) {
      if (grid.rank() != x.rank())
        return error(StatusCode::kInvalidModel, "grid ", grid.to_string(), " must have the rank of X ", x.to_string());
      if (!dims_may_match((*x.shape)[0], (*grid.shape)[0]))
        return error(StatusCode::kInvalidModel, "X ", x.to_string(), " and grid ", grid.to_string(),
                     " differ in batch size");
    }
    if (grid.has_rank()) {
      const ir::Dim& last = grid.shape->back();
      if (last.is_known() && last.value != rank - 2)
        return error(StatusCode::kInvalidModel, "grid ", grid.to_string(), " must end in ", rank - 2,
                     " (one coordinate per spatial dim)");
    }
    std::vector<ir::Dim> out(static_cast<size_t>(rank));
    if (x.has_rank()) out[0] = (*x.shape)[0], out[1] = (*x.shape)[1];
    if (grid.has_rank()) {
      if (!out[0].is_known()) out[0] = (*grid.shape)[0];
      for (size_t d = 1; d + 1 < grid.shape->size(); ++d) out[d + 1] = (*grid.shape)[d];
    }
    ctx.set_output_type(0, ir::ValueType::tensor(x.dtype, std::move(out)));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    const Tensor& grid = ctx.in(1);
    HI_RETURN_IF_ERROR(check_rank(x.rank(), StatusCode::kInvalidArgument));
    const int64_t r = x.rank() - 2;
    if (grid.rank() != x.rank() || grid.dim(0) != x.dim(0) || grid.dim(grid.rank() - 1) != r)
      return error(StatusCode::kInvalidArgument, "grid ", grid.type_string(), " must be [", x.dim(0),
                   ", out spatial..., ", r, "] for X ", x.type_string());
    if (!in_set(kFloatTypes, grid.dtype())) return unsupported_dtype(ctx.node(), grid.dtype(), "grid");
    const int64_t n = x.dim(0), c = x.dim(1);
    const Shape in(x.shape().begin() + 2, x.shape().end());
    const Shape out_sp(grid.shape().begin() + 1, grid.shape().end() - 1);
    Shape out_shape = {n, c};
    out_shape.insert(out_shape.end(), out_sp.begin(), out_sp.end());
    Tensor& y = ctx.output(0, x.dtype(), out_shape);
    if (y.numel() == 0) return Status::ok();
    const int64_t in_size = shape_numel(in), points = shape_numel(out_sp);
    if (in_size == 0)  // nothing to sample: every padding mode reads zeros
      return dispatch<kNumericTypes>(x.dtype(),
                                     [&]<typename T>() { std::fill(y.data<T>(), y.data<T>() + y.numel(), T{}); })
                 ? Status::ok()
                 : unsupported_dtype(ctx.node(), x.dtype(), "X");
    std::vector<double> coords(static_cast<size_t>(r));
    std::vector<Tap> taps;
    const bool ok = dispatch<kNumericTypes>(x.dtype(), [&]<typename T>() {
      const T* px = x.data<T>();
      T* py = y.data<T>();
      for (int64_t b = 0; b < n; ++b)
        for (int64_t p = 0; p < points; ++p) {
          for (int64_t d = 0; d < r; ++d)  // grid lists the last spatial dim first
            coords[static_cast<size_t>(d)] = grid.as_double((b * points + p) * r + (r - 1 - d));
          taps_for(coords, in, &taps);
          for (int64_t ch = 0; ch < c; ++ch) {
            const T* plane = px + (b * c + ch) * in_size;
            double v = 0;
            for (const Tap& t : taps) v += t.weight * static_cast<double>(static_cast<compute_t<T>>(plane[t.offset]));
            py[(b * c + ch) * points + p] = saturate_cast<T>(v);
          }
        }
    });
    if (!ok) return unsupported_dtype(ctx.node(), x.dtype(), "X");
    return Status::ok();
  }

 private:
  struct Tap {
    int64_t offset;
    double weight;
  };

  Status check_rank(int64_t rank, StatusCode code) const {
    if (opset_ < 20 && rank != 4)
      return error(code, "GridSample-", opset_, " takes 4-D X [N, C, H, W] and grid [N, H_out, W_out, 2]; got rank ",
                   rank, " (N-d needs opset 20)");
    if (rank < 3) return error(code, "X must be [N, C, spatial...] (rank >= 3), got rank ", rank);
    return Status::ok();
  }

  // Reflects x about [lo, hi] until it lies inside.
  static double reflect(double x, double lo, double hi) {
    const double range = hi - lo;
    if (!std::isfinite(x) || range <= 0) return lo;
    if (x < lo) {
      const double dx = lo - x;
      const double k = std::floor(dx / range), rest = dx - k * range;
      return std::fmod(k, 2.0) == 0 ? lo + rest : hi - rest;
    }
    if (x > hi) {
      const double dx = x - hi;
      const double k = std::floor(dx / range), rest = dx - k * range;
      return std::fmod(k, 2.0) == 0 ? hi - rest : lo + rest;
    }
    return x;
  }

  // Index i of a dim of length len after padding: -1 reads as zero.
  int64_t pad_index(int64_t i, int64_t len) const {
    if (i >= 0 && i < len) return i;
    switch (padding_) {
      case Padding::kZeros: return -1;
      case Padding::kBorder: return std::clamp<int64_t>(i, 0, len - 1);
      case Padding::kReflection: {
        const double lo = align_corners_ ? 0.0 : -0.5,
                     hi = align_corners_ ? static_cast<double>(len - 1) : static_cast<double>(len) - 0.5;
        const auto j =
            static_cast<int64_t>(reflect(static_cast<double>(i), lo, hi));  // truncates, as the reference does
        return std::clamp<int64_t>(j, 0, len - 1);
      }
    }
    return -1;
  }

  static void cubic_coeffs(double t, double* w) {
    constexpr double a = -0.75;
    w[0] = ((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a;
    w[1] = ((a + 2) * t - (a + 3)) * t * t + 1;
    w[2] = ((a + 2) * (1 - t) - (a + 3)) * (1 - t) * (1 - t) + 1;
    w[3] = ((a * (2 - t) - 5 * a) * (2 - t) + 8 * a) * (2 - t) - 4 * a;
  }

  // The taps (input offset, weight) of one output point with normalised coordinates g.
  void taps_for(const std::vector<double>& g, const Shape& in, std::vector<Tap>* taps) const {
    const size_t r = in.size();
    // Per dim: up to four (index after padding, weight) pairs.
    std::vector<std::vector<std::pair<int64_t, double>>> axis(r);
    for (size_t d = 0; d < r; ++d) {
      const int64_t len = in[d];
      const double l = static_cast<double>(len);
      // Denormalised, stored as float like the reference.
      double v = static_cast<float>(align_corners_ ? (g[d] + 1) / 2.0 * (l - 1) : ((g[d] + 1) * l - 1) / 2.0);
      if (mode_ == Mode::kNearest) v = std::nearbyint(v);  // half to even
      const double lo = align_corners_ ? 0.0 : -0.5, hi = align_corners_ ? l - 1 : l - 0.5;
      if (!(v >= lo && v <= hi)) {
        if (padding_ == Padding::kBorder) v = std::isnan(v) ? 0.0 : std::clamp(v, 0.0, l - 1);
        else if (padding_ == Padding::kReflection) v = reflect(v, lo, hi);
      }
      // Far outside (or NaN) only zeros can result; keep the integer conversions in range.
      if (!(v >= -4.0)) v = -4.0;
      if (!(v <= l + 3.0)) v = l + 3.0;
      auto& ax = axis[d];
      if (mode_ == Mode::kNearest) {
        ax.emplace_back(pad_index(static_cast<int64_t>(v), len), 1.0);  // truncation, as the reference's astype(int32)
      } else if (mode_ == Mode::kLinear) {
        const double f = std::floor(v), t = v - f;
        const auto i0 = static_cast<int64_t>(f);
        ax.emplace_back(pad_index(i0, len), 1.0 - t);
        ax.emplace_back(pad_index(i0 + 1, len), t);
      } else {
        const double f = std::floor(v), t = v - f;
        const auto i0 = static_cast<int64_t>(f);
        double w[4];
        cubic_coeffs(t, w);
        for (int k = 0; k < 4; ++k) ax.emplace_back(pad_index(i0 - 1 + k, len), w[k]);
      }
    }
    // The tensor product over dims; a tap with any index reading zero is dropped.
    taps->clear();
    taps->push_back({0, 1.0});
    for (size_t d = 0; d < r; ++d) {
      std::vector<Tap> next;
      for (const Tap& t : *taps)
        for (const auto& [i, w] : axis[d])
          if (i >= 0) next.push_back({t.offset * in[d] + i, t.weight * w});
      taps->swap(next);
    }
  }

  int64_t opset_ = 22;
  Mode mode_ = Mode::kLinear;
  Padding padding_ = Padding::kZeros;
  bool align_corners_ = false;
};

}  // namespace

HI_REGISTER_OP(GridSample, GridSampleOp)

}  // namespace hi::ops
