// MelWeightMatrix (opset 17): the [dft_length / 2 + 1, num_mel_bins] matrix that maps a linear
// magnitude spectrum to mel bands: triangular filters whose edges are num_mel_bins + 2 points
// evenly spaced on the mel scale (mel = 2595 log10(1 + hz / 700)) between lower_edge_hertz and
// upper_edge_hertz, each snapped to the spectrogram bin floor((dft_length + 1) * hz / sample_rate).
// The spacing, snapping and filling follow the ONNX reference implementation exactly (including
// its mel step of (high - low) / (num_mel_bins + 2)). Computed in double, converted to
// 'output_datatype' (default float32).
#include <cmath>
#include <utility>

#include "ops/window_util.h"

namespace hi::ops {
namespace {

constexpr uint64_t kCountTypes = bit(DType::kInt32) | bit(DType::kInt64);

struct MelParams {
  int64_t mel_bins = 0, dft_length = 0, sample_rate = 0;
  double lower = 0, upper = 0;
};

Result<MelParams> read_params(const Tensor& m, const Tensor& d, const Tensor& s, const Tensor& lo, const Tensor& hi) {
  MelParams p;
  HI_ASSIGN_OR_RETURN(p.mel_bins, scalar_int(m, "num_mel_bins"));
  HI_ASSIGN_OR_RETURN(p.dft_length, scalar_int(d, "dft_length"));
  HI_ASSIGN_OR_RETURN(p.sample_rate, scalar_int(s, "sample_rate"));
  HI_ASSIGN_OR_RETURN(p.lower, scalar_double(lo, "lower_edge_hertz"));
  HI_ASSIGN_OR_RETURN(p.upper, scalar_double(hi, "upper_edge_hertz"));
  if (p.mel_bins <= 0 || p.mel_bins > (int64_t{1} << 24))
    return error(StatusCode::kInvalidArgument, "num_mel_bins must be positive, got ", p.mel_bins);
  if (p.dft_length <= 0 || p.dft_length > (int64_t{1} << 40))
    return error(StatusCode::kInvalidArgument, "dft_length must be positive, got ", p.dft_length);
  if (p.sample_rate <= 0)
    return error(StatusCode::kInvalidArgument, "sample_rate must be positive, got ", p.sample_rate);
  if (p.lower < 0 || p.upper <= p.lower || std::isinf(p.upper))
    return error(StatusCode::kInvalidArgument, "expected 0 <= lower_edge_hertz < upper_edge_hertz, got ", p.lower,
                 " and ", p.upper);
  return p;
}

// The spectrogram bin of each of the num_mel_bins + 2 filter edges; an error if one falls past
// the last bin.
Result<std::vector<int64_t>> edge_bins(const MelParams& p) {
  const int64_t spec_bins = p.dft_length / 2 + 1;
  const int64_t points = p.mel_bins + 2;
  auto hz_to_mel = [](double hz) { return 2595.0 * std::log1p(hz / 700.0) / std::log(10.0); };
  const double low_mel = hz_to_mel(p.lower), high_mel = hz_to_mel(p.upper);
  const double step = (high_mel - low_mel) / static_cast<double>(points);
  std::vector<int64_t> bins(static_cast<size_t>(points));
  for (int64_t i = 0; i < points; ++i) {
    const double mel = static_cast<double>(i) * step + low_mel;
    const double hz = 700.0 * std::expm1(mel / 2595.0 * std::log(10.0));
    const double b = std::floor(static_cast<double>(p.dft_length + 1) * hz / static_cast<double>(p.sample_rate));
    if (!(b >= 0 && b < static_cast<double>(spec_bins)))
      return error(StatusCode::kInvalidArgument, "upper_edge_hertz ", p.upper, " lies past the last spectrogram bin (",
                   spec_bins - 1, ") for dft_length ", p.dft_length, " and sample_rate ", p.sample_rate, " (edge ", i,
                   " maps to bin ", b, ")");
    bins[static_cast<size_t>(i)] = static_cast<int64_t>(b);
  }
  return bins;
}

// Calls set(row, col, weight) for every nonzero weight (later calls overwrite earlier ones, as
// the reference's assignments do).
template <typename Set>
void fill_weights(const std::vector<int64_t>& bins, int64_t mel_bins, Set set) {
  for (int64_t i = 0; i < mel_bins; ++i) {
    const int64_t left = bins[static_cast<size_t>(i)], center = bins[static_cast<size_t>(i + 1)];
    const int64_t right = bins[static_cast<size_t>(i + 2)];
    if (center == left) {
      set(center, i, 1.0);
    } else {
      for (int64_t j = left; j <= center; ++j)
        set(j, i, static_cast<double>(j - left) / static_cast<double>(center - left));
    }
    if (right > center)
      for (int64_t j = center; j < right; ++j)
        set(j, i, static_cast<double>(right - j) / static_cast<double>(right - center));
  }
}

class MelWeightMatrixOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    dtype_ = parse_output_datatype(ctx, kWindowOutputTypes);
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 5, 5, 1));
    const char* names[] = {"num_mel_bins", "dft_length", "sample_rate", "lower_edge_hertz", "upper_edge_hertz"};
    for (size_t i = 0; i < 5; ++i)
      HI_RETURN_IF_ERROR(check_scalar_type(ctx.node(), ctx.input_type(i), i < 3 ? kCountTypes : kFloatTypes, names[i]));
    ir::Dim rows, cols;
    if (const Tensor* d = ctx.input_value(1)) {
      HI_ASSIGN_OR_RETURN(const int64_t n, scalar_int(*d, "dft_length"));
      if (n > 0) rows = ir::Dim::known(n / 2 + 1);
    }
    if (const Tensor* m = ctx.input_value(0)) {
      HI_ASSIGN_OR_RETURN(const int64_t n, scalar_int(*m, "num_mel_bins"));
      if (n > 0) cols = ir::Dim::known(n);
    }
    ctx.set_output_type(0, ir::ValueType::tensor(dtype_, {rows, cols}));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    HI_ASSIGN_OR_RETURN(const MelParams p, read_params(ctx.in(0), ctx.in(1), ctx.in(2), ctx.in(3), ctx.in(4)));
    HI_ASSIGN_OR_RETURN(const std::vector<int64_t> bins, edge_bins(p));
    // Zero bits are zero in every output type; the filters then set their nonzero weights.
    Tensor y = Tensor::zeros(dtype_, {p.dft_length / 2 + 1, p.mel_bins});
    dispatch<kWindowOutputTypes>(dtype_, [&]<typename T>() {
      T* py = y.data<T>();
      fill_weights(bins, p.mel_bins,
                   [&](int64_t row, int64_t col, double v) { py[row * p.mel_bins + col] = saturate_cast<T>(v); });
    });
    ctx.set_output(0, std::move(y));
    return Status::ok();
  }

 private:
  DType dtype_ = DType::kFloat32;
};

}  // namespace

HI_REGISTER_OP(MelWeightMatrix, MelWeightMatrixOp)

}  // namespace hi::ops
