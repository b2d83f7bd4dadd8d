// QuantizeLinear / DequantizeLinear (see elementwise.h): one element per thread; the scale and
// zero point of the element's channel (per tensor: channel 0). Quantize divides in float32 and
// rounds half to even, as the CPU op does for a float32 scale.
// clang-format off
#include "backends/gpu/kernels/elementwise_util.cuh"  // first: the vendor header names HI_GPU_NS
#include "backends/gpu/kernels/elementwise.h"
// clang-format on

namespace hi::gpu::HI_GPU_NS {
namespace {

template <typename Q>
struct QRange {
  static constexpr float lo = static_cast<float>(std::numeric_limits<Q>::lowest());
  static constexpr float hi = static_cast<float>(std::numeric_limits<Q>::max());
};

template <typename T, typename Q>
__global__ void quantize_kernel(const T* __restrict__ x, const float* __restrict__ scale, const Q* __restrict__ zp,
                                Q* __restrict__ y, QuantDesc d, int64_t n) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const int64_t c = (i / d.inner) % d.channels;
    const float q = load_f(x, i) / scale[c];
    const float r = (q != q ? 0.f : rintf(q)) + (zp ? static_cast<float>(zp[c]) : 0.f);
    y[i] = static_cast<Q>(fminf(fmaxf(r, QRange<Q>::lo), QRange<Q>::hi));
  }
}

template <typename Q>
__global__ void dequantize_kernel(const Q* __restrict__ x, const float* __restrict__ scale, const Q* __restrict__ zp,
                                  float* __restrict__ y, QuantDesc d, int64_t n) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const int64_t c = (i / d.inner) % d.channels;
    const int64_t v = static_cast<int64_t>(x[i]) - (zp ? static_cast<int64_t>(zp[c]) : 0);
    y[i] = static_cast<float>(static_cast<double>(v) * static_cast<double>(scale[c]));  // exact, then one rounding
  }
}

template <typename Q>
void launch_quantize(DType xt, const void* x, const float* scale, const void* zp, void* y, const QuantDesc& d,
                     int64_t n, cudaStream_t s) {
  const unsigned blocks = elementwise_blocks(n);
  if (xt == DType::kFloat32)
    launch_kernel<quantize_kernel<float, Q>>(blocks, kElementwiseBlock, 0, s, static_cast<const float*>(x), scale,
                                             static_cast<const Q*>(zp), static_cast<Q*>(y), d, n);
  else
    launch_kernel<quantize_kernel<__half, Q>>(blocks, kElementwiseBlock, 0, s, static_cast<const __half*>(x), scale,
                                              static_cast<const Q*>(zp), static_cast<Q*>(y), d, n);
}

}  // namespace

bool quantized_type(DType t) { return t == DType::kInt8 || t == DType::kUInt8; }

Status quantize_linear(DType x_type, DType y_type, const void* x, const float* scale, const void* zero_point, void* y,
                       const QuantDesc& d, int64_t n, Stream stream) {
  HI_RETURN_IF(!quantized_type(y_type) || (x_type != DType::kFloat32 && x_type != DType::kFloat16), kUnsupported,
               "GPU QuantizeLinear: no kernel from ", dtype_name(x_type), " to ", dtype_name(y_type));
  if (n == 0) return Status::ok();
  HI_RETURN_IF(!x || !scale || !y || d.channels < 1 || d.inner < 1, kInvalidArgument,
               "GPU QuantizeLinear: bad arguments");
  const auto s = static_cast<cudaStream_t>(stream);
  if (y_type == DType::kInt8) launch_quantize<int8_t>(x_type, x, scale, zero_point, y, d, n, s);
  else launch_quantize<uint8_t>(x_type, x, scale, zero_point, y, d, n, s);
  return HI_GPU_CHECK(cudaGetLastError());
}

Status dequantize_linear(DType x_type, const void* x, const float* scale, const void* zero_point, float* y,
                         const QuantDesc& d, int64_t n, Stream stream) {
  HI_RETURN_IF(!quantized_type(x_type) && x_type != DType::kInt32, kUnsupported, "GPU DequantizeLinear: no kernel for ",
               dtype_name(x_type));
  if (n == 0) return Status::ok();
  HI_RETURN_IF(!x || !scale || !y || d.channels < 1 || d.inner < 1, kInvalidArgument,
               "GPU DequantizeLinear: bad arguments");
  const auto s = static_cast<cudaStream_t>(stream);
  const unsigned blocks = elementwise_blocks(n);
  if (x_type == DType::kInt8)
    launch_kernel<dequantize_kernel<int8_t>>(blocks, kElementwiseBlock, 0, s, static_cast<const int8_t*>(x), scale,
                                             static_cast<const int8_t*>(zero_point), y, d, n);
  else if (x_type == DType::kUInt8)
    launch_kernel<dequantize_kernel<uint8_t>>(blocks, kElementwiseBlock, 0, s, static_cast<const uint8_t*>(x), scale,
                                              static_cast<const uint8_t*>(zero_point), y, d, n);
  else
    launch_kernel<dequantize_kernel<int32_t>>(blocks, kElementwiseBlock, 0, s, static_cast<const int32_t*>(x), scale,
                                              static_cast<const int32_t*>(zero_point), y, d, n);
  return HI_GPU_CHECK(cudaGetLastError());
}

}  // namespace hi::gpu::HI_GPU_NS
