// DFT (opsets 17 and 20): a 1-D discrete Fourier transform along one signal axis of
// [..., 1] (real) or [..., 2] (complex, real then imaginary) input. Opset 17 takes the axis as
// an attribute (default 1), opset 20 as input 2 (default -2). dft_length (input 1) zero-pads or
// truncates the signal; onesided=1 keeps bins [0, n/2] of a forward transform (RFFT), and with
// inverse=1 reads those bins as a Hermitian spectrum and returns the real signal (IRFFT, default
// length 2*(bins-1)). The inverse divides by n. Like the ONNX reference implementation, a complex
// input with onesided=1 forward keeps the first half of its full spectrum.
#include <algorithm>
#include <complex>
#include <optional>

#include "ops/arity.h"
#include "ops/dft_util.h"
#include "ops/dispatch.h"
#include "ops/scalar_input.h"

namespace hi::ops {
namespace {

constexpr uint64_t kIndexTypes = bit(DType::kInt32) | bit(DType::kInt64);

class DftOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    opset_ = ctx.opset();
    const int64_t inverse = ctx.get_int("inverse", 0), onesided = ctx.get_int("onesided", 0);
    if (inverse != 0 && inverse != 1)
      return ctx.fail(StatusCode::kInvalidModel, "DFT: attribute 'inverse' must be 0 or 1, got ", inverse);
    if (onesided != 0 && onesided != 1)
      return ctx.fail(StatusCode::kInvalidModel, "DFT: attribute 'onesided' must be 0 or 1, got ", onesided);
    inverse_ = inverse == 1;
    onesided_ = onesided == 1;
    if (opset_ >= 20 && ctx.has("axis"))
      return ctx.fail(StatusCode::kInvalidModel, "DFT (opset ", opset_,
                      ") takes the axis as input 2, not as an attribute");
    axis_attr_ = ctx.get_int("axis", 1);
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 1, opset_ >= 20 ? 3 : 2, 1));
    const ir::ValueType& x = ctx.input_type(0);
    if (x.dtype != DType::kUndefined && !in_set(kFloatTypes, x.dtype))
      return error(StatusCode::kUnsupported, "DFT (opset ", opset_, ") does not support input type ",
                   dtype_name(x.dtype));
    if (ctx.has_input(1))
      HI_RETURN_IF_ERROR(check_scalar_type(ctx.node(), ctx.input_type(1), kIndexTypes, "dft_length"));
    if (ctx.has_input(2)) HI_RETURN_IF_ERROR(check_scalar_type(ctx.node(), ctx.input_type(2), kIndexTypes, "axis"));
    if (!x.has_rank()) {
      ctx.set_output_type(0, ir::ValueType::tensor_unknown_shape(x.dtype));
      return Status::ok();
    }
    const int64_t r = x.rank();
    std::vector<ir::Dim> dims = *x.shape;
    const int64_t last = r > 0 && dims.back().is_known() ? dims.back().value : -1;
    HI_RETURN_IF_ERROR(check_rank_and_last(r, last, StatusCode::kInvalidModel, x.to_string()));
    dims.back() = ir::Dim::known(complex_output() ? 2 : 1);
    // The axis and length when they are known now; otherwise the dims they may change are unknown.
    std::optional<int64_t> axis;
    if (opset_ < 20 || !ctx.has_input(2)) {
      HI_ASSIGN_OR_RETURN(axis, normalize_axis(opset_ < 20 ? axis_attr_ : -2, r, StatusCode::kInvalidModel));
    } else if (const Tensor* a = ctx.input_value(2)) {
      HI_ASSIGN_OR_RETURN(const int64_t v, scalar_int(*a, "axis"));
      HI_ASSIGN_OR_RETURN(axis, normalize_axis(v, r, StatusCode::kInvalidModel));
    }
    std::optional<int64_t> length;  // dft_length; nullopt: unknown
    bool length_known = true;
    if (ctx.has_input(1)) {
      if (const Tensor* l = ctx.input_value(1)) {
        HI_ASSIGN_OR_RETURN(const int64_t v, scalar_int(*l, "dft_length"));
        HI_RETURN_IF(v < 1, kInvalidModel, "DFT: dft_length must be >= 1, got ", v);
        length = v;
      } else {
        length_known = false;
      }
    }
    if (!axis) {
      // Without dft_length and onesided every dim keeps its length, whichever the axis.
      if (ctx.has_input(1) || onesided_)
        for (int64_t i = 0; i + 1 < r; ++i) dims[static_cast<size_t>(i)] = ir::Dim{};
    } else {
      ir::Dim& d = dims[static_cast<size_t>(*axis)];
      if (!length_known) {
        d = ir::Dim{};
      } else if (length || d.is_known()) {
        const int64_t n = length ? *length : default_length(d.value);
        d = ir::Dim::known(output_length(n));
      } else if (onesided_) {
        d = ir::Dim{};
      }
    }
    ctx.set_output_type(0, ir::ValueType::tensor(x.dtype, dims));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    if (!in_set(kFloatTypes, x.dtype()))
      return error(StatusCode::kUnsupported, "DFT (opset ", opset_, ") does not support input type ",
                   dtype_name(x.dtype()));
    const int64_t r = x.rank();
    HI_RETURN_IF_ERROR(
        check_rank_and_last(r, r > 0 ? x.dim(r - 1) : -1, StatusCode::kInvalidArgument, x.type_string()));
    int64_t axis_value = opset_ < 20 ? axis_attr_ : -2;
    if (opset_ >= 20 && ctx.input(2)) {
      HI_ASSIGN_OR_RETURN(axis_value, scalar_int(*ctx.input(2), "axis"));
    }
    HI_ASSIGN_OR_RETURN(const int64_t axis, normalize_axis(axis_value, r, StatusCode::kInvalidArgument));
    const int64_t m = x.dim(axis);  // input length along the axis
    int64_t n = default_length(m);
    if (const Tensor* l = ctx.input(1)) {
      HI_ASSIGN_OR_RETURN(n, scalar_int(*l, "dft_length"));
      HI_RETURN_IF(n < 1, kInvalidArgument, "dft_length must be >= 1, got ", n);
    }
    HI_RETURN_IF(n < 1, kInvalidArgument, "the DFT length must be >= 1, got ", n, " (from input ", x.type_string(),
                 " along axis ", axis, ")");
    const int64_t n_out = output_length(n);
    const int64_t c_in = x.dim(r - 1), c_out = complex_output() ? 2 : 1;
    int64_t outer = 1, inner = 1;
    for (int64_t i = 0; i < axis; ++i) outer *= x.dim(i);
    for (int64_t i = axis + 1; i + 1 < r; ++i) inner *= x.dim(i);
    Shape out_shape = x.shape();
    out_shape[static_cast<size_t>(axis)] = n_out;
    out_shape.back() = c_out;
    Tensor& y = ctx.output(0, x.dtype(), out_shape);

    dispatch<kFloatTypes>(x.dtype(), [&]<typename T>() {
      const T* px = x.data<T>();
      T* py = y.data<T>();
      std::vector<std::complex<double>> v(static_cast<size_t>(n));
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i) {
          const auto in_at = [&](int64_t k, int64_t c) {
            return static_cast<double>(static_cast<compute_t<T>>(px[((o * m + k) * inner + i) * c_in + c]));
          };
          std::fill(v.begin(), v.end(), std::complex<double>(0));
          if (inverse_ && onesided_) {
            // Bins 0..n/2 from the input, the rest by conjugate symmetry X[n-k] = conj(X[k]).
            for (int64_t k = 0; k <= n / 2 && k < m; ++k) {
              const std::complex<double> z(in_at(k, 0), c_in == 2 ? in_at(k, 1) : 0.0);
              v[static_cast<size_t>(k)] = z;
              if (k > 0 && n - k > n / 2) v[static_cast<size_t>(n - k)] = std::conj(z);
            }
          } else {
            for (int64_t k = 0; k < std::min(m, n); ++k)
              v[static_cast<size_t>(k)] = {in_at(k, 0), c_in == 2 ? in_at(k, 1) : 0.0};
          }
          dft_in_place(v, inverse_);
          const double scale = inverse_ ? 1.0 / static_cast<double>(n) : 1.0;
          for (int64_t k = 0; k < n_out; ++k) {
            T* dst = py + ((o * n_out + k) * inner + i) * c_out;
            dst[0] = static_cast<T>(static_cast<compute_t<T>>(v[static_cast<size_t>(k)].real() * scale));
            if (c_out == 2)
              dst[1] = static_cast<T>(static_cast<compute_t<T>>(v[static_cast<size_t>(k)].imag() * scale));
          }
        }
    });
    return Status::ok();
  }

 private:
  // The output is complex except for the IRFFT (inverse and onesided), which is real.
  bool complex_output() const { return !(inverse_ && onesided_); }
  // dft_length when the input does not give it: the axis length, or 2*(bins-1) for the IRFFT.
  int64_t default_length(int64_t m) const { return inverse_ && onesided_ ? 2 * (m - 1) : m; }
  // Output length along the axis: n, or n/2+1 bins for the RFFT.
  int64_t output_length(int64_t n) const { return onesided_ && !inverse_ ? n / 2 + 1 : n; }

  Status check_rank_and_last(int64_t rank, int64_t last, StatusCode code, const std::string& what) const {
    if (rank < 2) return error(code, "DFT input ", what, " must have rank >= 2 (signal dims and a last dim of 1 or 2)");
    if (last >= 0 && last != 1 && last != 2)
      return error(code, "DFT input ", what, " must end in a dim of 1 (real) or 2 (complex), got ", last);
    return Status::ok();
  }

  // Axis in [-r, -2] or [0, r-2]; the last dim holds the real/imaginary parts.
  Result<int64_t> normalize_axis(int64_t axis, int64_t rank, StatusCode code) const {
    if (axis < -rank || axis > rank - 2 || axis == -1)
      return error(code, "DFT (opset ", opset_, "): axis ", axis, " is out of range for rank ", rank, " (expected [",
                   -rank, ", -2] or [0, ", rank - 2, "])");
    return axis < 0 ? axis + rank : axis;
  }

  int64_t opset_ = 20;
  bool inverse_ = false;
  bool onesided_ = false;
  int64_t axis_attr_ = 1;
};

}  // namespace

HI_REGISTER_OP(DFT, DftOp)

}  // namespace hi::ops
