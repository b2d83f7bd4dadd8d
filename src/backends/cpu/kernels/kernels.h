// The fast CPU kernels ops call when they exist (oneDNN, see cpu/dnnl_*.cc), with a portable
// fallback when hipinfer is built without oneDNN (backends/cpu/kernels/no_dnnl.cc). Ops keep their reference
// kernels; these are the paths taken for float32 (and bfloat16 compute) in normal runs.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/activation.h"
#include "hipinfer/status.h"

namespace hi::cpu {

// True when the oneDNN kernels are built in.
bool fast_kernels_available();
// "oneDNN 2.6.3 (avx512_core_bf16)" or "none".
std::string fast_kernels_description();
// True when this CPU computes bfloat16 products natively (AVX512_BF16 or AMX).
bool cpu_has_bf16();

// Row-major C[m,n] = alpha * op(A)[m,k] * op(B)[k,n] + beta * C, multithreaded.
// Products smaller than this many multiply-adds run on the calling thread alone: waking the pool
// costs more than it saves (an LSTM step of 64 hidden units, 16K multiply-adds, took 13 instead of
// 8 us with 2 threads). oneDNN's matmul kernel is made for one thread below it.
inline constexpr int64_t kSerialProductWork = int64_t{1} << 16;
void sgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
           const float* b, int64_t ldb, float beta, float* c, int64_t ldc);

enum class Precision { kFloat32, kBFloat16 };

// Packed weights shared by the kernels one op makes for its input shapes (backends/cpu/kernels/weight_cache.h).
// The makers below that pack weights take one, or null for weights packed for that kernel
// alone (the image kernel's few weights are copied per kernel).
class WeightCache;

struct ConvGeometry {
  int64_t batch = 0, in_channels = 0, out_channels = 0, groups = 1;
  std::vector<int64_t> in, out, kernel, strides, dilations, pads_begin, pads_end;  // spatial
  bool channels_last = false;         // activations N[D]HWC instead of NC[D]HW (weights stay O I kernel)
  bool input_channels_first = false;  // with channels_last: X alone is NC[D]HW (the first convolution)
};

// A convolution for one geometry, its weights reordered once into the layout the kernel wants.
// run() may be called from several threads at once.
class ConvKernel {
 public:
  virtual ~ConvKernel() = default;
  // y = act(conv(x, w) + bias + sum); `sum` may be null (no residual). Activations in the
  // geometry's layout (NC[D]HW or N[D]HWC).
  virtual Status run(const float* x, const float* sum, float* y) const = 0;
  virtual std::string describe() const = 0;  // implementation name, for profiling
};
// nullptr when no fast kernel handles this case (the caller uses its reference kernel).
std::unique_ptr<ConvKernel> make_conv_kernel(const ConvGeometry& g, const float* weights, const float* bias,
                                             const Activation& act, bool with_sum, Precision precision,
                                             WeightCache* cache = nullptr);
// Own AVX-512 direct convolution for a network's first layer: 2-D, 1-4 input channels read
// channels-first, output channels-last (backends/cpu/kernels/image_conv.cc); nullptr where it does not apply.
// make_conv_kernel times it against oneDNN's and keeps the faster.
std::unique_ptr<ConvKernel> make_image_conv_kernel(const ConvGeometry& g, const float* weights, const float* bias,
                                                   const Activation& act, bool with_sum);
// A convolution as one matrix product per image (im2col, then sgemm with the weights as they
// are): 2-D, one group, channels-first in and out (backends/cpu/kernels/columns_conv.cc); nullptr where it does
// not apply. make_conv_kernel times it against oneDNN's and keeps the faster.
std::unique_ptr<ConvKernel> make_columns_conv_kernel(const ConvGeometry& g, const float* weights, const float* bias,
                                                     const Activation& act, bool with_sum,
                                                     WeightCache* cache = nullptr);
// A quantized convolution as QLinearConv computes it: y = saturate(round_half_even((conv(x -
// x_zero_point, w) + bias) * multiplier[o]) + y_zero_point), channels-last, 8-bit x and y.
struct QuantizedConvParams {
  ConvGeometry geometry;                    // 2-D, channels_last, one group
  bool x_signed = false, y_signed = false;  // int8, else uint8
  int32_t x_zero_point = 0, y_zero_point = 0;
  const int8_t* weights = nullptr;  // [O, C, kh, kw], zero point 0; read when the kernel is made
  const int32_t* bias = nullptr;    // [O] or null
  std::vector<float> multipliers;   // [O]: x_scale * w_scale[o] / y_scale, in float32
  bool relu = false;                // a fused Relu: the floor is y's zero point
};
class QuantizedConvKernel {
 public:
  virtual ~QuantizedConvKernel() = default;
  virtual Status run(const void* x, void* y) const = 0;  // 8-bit NHWC in and out
  virtual std::string describe() const = 0;
};
// True when the CPU runs the own int8 kernels (AVX512_VNNI).
bool int8_kernels_available();
// The int8 implicit product on AVX512_VNNI (backends/cpu/kernels/int8_conv.cc), bit-identical to the reference;
// nullptr where it does not apply.
std::unique_ptr<QuantizedConvKernel> make_int8_conv_kernel(const QuantizedConvParams& q);

// Own packed product for channels-last 1x1 convolutions with stride 1 and no padding
// (backends/cpu/kernels/packed_matmul.cc); nullptr where it does not apply. Also timed against oneDNN's.
std::unique_ptr<ConvKernel> make_packed_pointwise_conv_kernel(const ConvGeometry& g, const float* weights,
                                                              const float* bias, const Activation& act, bool with_sum,
                                                              WeightCache* cache = nullptr);
// Own bfloat16 convolution for --precision bf16: channels-last 2-D, one group, any kernel size,
// stride, padding and dilation, as an implicit product on the bfloat16 packed product
// (backends/cpu/kernels/bf16_conv.cc); nullptr where it does not apply or the CPU lacks AVX512_BF16.
std::unique_ptr<ConvKernel> make_bf16_conv_kernel(const ConvGeometry& g, const float* weights, const float* bias,
                                                  const Activation& act, bool with_sum, WeightCache* cache = nullptr);
// Own Winograd F(2x2, 3x3) for channels-last 3x3 convolutions with stride 1 (backends/cpu/kernels/winograd_conv.cc),
// its products in float32 or bfloat16; nullptr where it does not apply. Also timed against oneDNN's.
std::unique_ptr<ConvKernel> make_winograd_conv_kernel(const ConvGeometry& g, const float* weights, const float* bias,
                                                      const Activation& act, bool with_sum,
                                                      Precision precision = Precision::kFloat32,
                                                      WeightCache* cache = nullptr);

}  // namespace hi::cpu

namespace hi::cpu {

// Y[rows, n] = act(A[rows, k] x W[k, n] + bias[n] + Z), W packed once when the kernel is made.
class MatMulKernel {
 public:
  virtual ~MatMulKernel() = default;
  // `z` may be null (no residual); rows must be the count the kernel was made for.
  virtual Status run(const float* a, const float* z, float* y) const = 0;
  virtual std::string describe() const = 0;  // implementation name, for profiling
};
// nullptr when no fast kernel exists (the caller uses sgemm and its own epilogue).
// bfloat16 (--precision bf16) runs on our bfloat16 packed product where the CPU has AVX512_BF16,
// else in float32.
std::unique_ptr<MatMulKernel> make_matmul_kernel(int64_t rows, int64_t k, int64_t n, const float* weights,
                                                 const float* bias, const Activation& act, bool with_sum,
                                                 Precision precision = Precision::kFloat32,
                                                 WeightCache* cache = nullptr);
// The same on oneDNN's matmul (backends/cpu/kernels/dnnl_matmul.cc), float32; nullptr without oneDNN.
// make_matmul_kernel times it against the packed product once.
std::unique_ptr<MatMulKernel> make_dnnl_matmul_kernel(int64_t rows, int64_t k, int64_t n, const float* weights,
                                                      const float* bias, const Activation& act, bool with_sum,
                                                      WeightCache* cache = nullptr);
// The same on our own packed AVX-512 product (backends/cpu/kernels/packed_matmul.cc), float32 or bfloat16; the
// activations vector_activation_supported names; nullptr where it does not apply.
// make_matmul_kernel times the float32 one against oneDNN's once.
std::unique_ptr<MatMulKernel> make_packed_matmul_kernel(int64_t rows, int64_t k, int64_t n, const float* weights,
                                                        const float* bias, const Activation& act, bool with_sum,
                                                        Precision precision = Precision::kFloat32,
                                                        WeightCache* cache = nullptr);

// Row-wise softmax of [rows, n] float32 (numerically stable); always available. y may be x.
// With `add`, of x + add: row r adds add[r * add_stride, + n) (stride 0: one row for all), an
// attention mask added in the same pass.
void softmax_rows(const float* x, float* y, int64_t rows, int64_t n, const float* add = nullptr,
                  int64_t add_stride = 0);
// y[i] = act(y[i]) for n floats, in registers where the CPU has AVX-512 (backends/cpu/kernels/avx512_util.h).
void activate_in_place(float* y, int64_t n, const Activation& act);
// LayerNormalization over the last n values of each row: y = (x - mean) / sqrt(var + eps) * scale + bias.
void layer_norm_rows(const float* x, const float* scale, const float* bias, float* y, int64_t rows, int64_t n,
                     float epsilon);

}  // namespace hi::cpu
