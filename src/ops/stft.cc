// STFT (opset 17): signal [batch, length, 1|2], frame_step (scalar), window (optional 1-D),
// frame_length (optional scalar) -> [batch, frames, bins, 2] with
//   frames = (length - frame_length) / frame_step + 1, bins = frame_length/2 + 1 (onesided, the
//   default) or frame_length,
// each frame the DFT of signal[f*frame_step + k] * window[k], k < frame_length. frame_length
// defaults to the window's length, else to the signal length; the window defaults to ones.
// Like the ONNX reference implementation, a complex signal with onesided=1 keeps the first
// half of its full spectrum.
#include <complex>

#include "ops/arity.h"
#include "ops/dft_util.h"
#include "ops/dispatch.h"
#include "ops/scalar_input.h"

namespace hi::ops {
namespace {

constexpr uint64_t kIndexTypes = bit(DType::kInt32) | bit(DType::kInt64);
enum Input : size_t { kSignal = 0, kFrameStep, kWindow, kFrameLength };

class StftOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    const int64_t onesided = ctx.get_int("onesided", 1);
    if (onesided != 0 && onesided != 1)
      return ctx.fail(StatusCode::kInvalidModel, "STFT: attribute 'onesided' must be 0 or 1, got ", onesided);
    onesided_ = onesided == 1;
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 2, 4, 1));
    const ir::ValueType& x = ctx.input_type(kSignal);
    if (x.dtype != DType::kUndefined && !in_set(kFloatTypes, x.dtype))
      return error(StatusCode::kUnsupported, "STFT (opset 17) does not support signal type ", dtype_name(x.dtype));
    HI_RETURN_IF_ERROR(check_scalar_type(ctx.node(), ctx.input_type(kFrameStep), kIndexTypes, "frame_step"));
    if (ctx.has_input(kFrameLength))
      HI_RETURN_IF_ERROR(check_scalar_type(ctx.node(), ctx.input_type(kFrameLength), kIndexTypes, "frame_length"));
    if (ctx.has_input(kWindow)) {
      const ir::ValueType& w = ctx.input_type(kWindow);
      if (w.dtype != DType::kUndefined && x.dtype != DType::kUndefined && w.dtype != x.dtype)
        return error(StatusCode::kInvalidModel, "STFT window is ", w.to_string(), " but the signal is ", x.to_string());
      if (w.has_rank() && w.rank() != 1)
        return error(StatusCode::kInvalidModel, "STFT window must be 1-D, got ", w.to_string());
    }
    if (x.has_rank() && x.rank() != 3)
      return error(StatusCode::kInvalidModel, "STFT signal must be [batch, length, 1 or 2], got ", x.to_string());
    // Frames and bins are known when the signal length, frame_step and frame_length are.
    const auto known = [](const ir::Dim& d) { return d.is_known() ? d.value : int64_t{-1}; };
    int64_t length = x.has_rank() ? known((*x.shape)[1]) : -1;
    int64_t step = -1, frame = -1;
    if (const Tensor* s = ctx.input_value(kFrameStep)) {
      HI_ASSIGN_OR_RETURN(step, scalar_int(*s, "frame_step"));
    }
    if (ctx.has_input(kFrameLength)) {
      if (const Tensor* f = ctx.input_value(kFrameLength)) {
        HI_ASSIGN_OR_RETURN(frame, scalar_int(*f, "frame_length"));
      }
    } else if (ctx.has_input(kWindow)) {
      const ir::ValueType& w = ctx.input_type(kWindow);
      if (w.has_rank()) frame = known((*w.shape)[0]);
    } else {
      frame = length;
    }
    ir::Dim frames, bins;
    if (frame > 0) bins = ir::Dim::known(onesided_ ? frame / 2 + 1 : frame);
    if (length >= 0 && step > 0 && frame > 0 && frame <= length) frames = ir::Dim::known((length - frame) / step + 1);
    const ir::Dim batch = x.has_rank() ? (*x.shape)[0] : ir::Dim{};
    ctx.set_output_type(0, ir::ValueType::tensor(x.dtype, {batch, frames, bins, ir::Dim::known(2)}));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(kSignal);
    if (!in_set(kFloatTypes, x.dtype()))
      return error(StatusCode::kUnsupported, "STFT (opset 17) does not support signal type ", dtype_name(x.dtype()));
    if (x.rank() != 3 || (x.dim(2) != 1 && x.dim(2) != 2))
      return error(StatusCode::kInvalidArgument, "STFT signal must be [batch, length, 1 or 2], got ", x.type_string());
    const int64_t batch = x.dim(0), length = x.dim(1), c_in = x.dim(2);
    HI_ASSIGN_OR_RETURN(const int64_t step, scalar_int(ctx.in(kFrameStep), "frame_step"));
    HI_RETURN_IF(step < 1, kInvalidArgument, "frame_step must be >= 1, got ", step);
    const Tensor* window = ctx.input(kWindow);
    if (window && (window->rank() != 1 || window->dtype() != x.dtype()))
      return error(StatusCode::kInvalidArgument, "STFT window must be a 1-D ", dtype_name(x.dtype()), " tensor, got ",
                   window->type_string());
    int64_t frame = window ? window->dim(0) : length;
    if (const Tensor* f = ctx.input(kFrameLength)) {
      HI_ASSIGN_OR_RETURN(frame, scalar_int(*f, "frame_length"));
      if (window && window->dim(0) != frame)
        return error(StatusCode::kInvalidArgument, "frame_length is ", frame, " but the window has ", window->dim(0),
                     " values; they must be equal");
    }
    HI_RETURN_IF(frame < 1 || frame > length, kInvalidArgument, "frame_length must be in [1, ", length,
                 "] (the signal length), got ", frame);
    const int64_t frames = (length - frame) / step + 1;
    const int64_t bins = onesided_ ? frame / 2 + 1 : frame;
    Tensor& y = ctx.output(0, x.dtype(), {batch, frames, bins, 2});

    dispatch<kFloatTypes>(x.dtype(), [&]<typename T>() {
      using C = compute_t<T>;
      const T* px = x.data<T>();
      const T* pw = window ? window->data<T>() : nullptr;
      T* py = y.data<T>();
      std::vector<std::complex<double>> v(static_cast<size_t>(frame));
      for (int64_t b = 0; b < batch; ++b)
        for (int64_t f = 0; f < frames; ++f) {
          for (int64_t k = 0; k < frame; ++k) {
            const T* s = px + (b * length + f * step + k) * c_in;
            const double w = pw ? static_cast<double>(static_cast<C>(pw[k])) : 1.0;
            const double re = static_cast<double>(static_cast<C>(s[0]));
            const double im = c_in == 2 ? static_cast<double>(static_cast<C>(s[1])) : 0.0;
            v[static_cast<size_t>(k)] = {re * w, im * w};
          }
          dft_in_place(v, false);
          T* dst = py + (b * frames + f) * bins * 2;
          for (int64_t k = 0; k < bins; ++k) {
            dst[2 * k] = static_cast<T>(static_cast<C>(v[static_cast<size_t>(k)].real()));
            dst[2 * k + 1] = static_cast<T>(static_cast<C>(v[static_cast<size_t>(k)].imag()));
          }
        }
    });
    return Status::ok();
  }

 private:
  bool onesided_ = true;
};

}  // namespace

HI_REGISTER_OP(STFT, StftOp)

}  // namespace hi::ops
