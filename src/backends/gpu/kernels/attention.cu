// Attention (see attention.h): per block one query row, the keys in chunks of kRowBlock. Each
// chunk: one thread per key computes its score into shared memory; the block's maximum updates
// the running maximum m, and the running sum l and the accumulators (a thread per output
// element, up to four) are rescaled by exp(m_old - m_new) before the chunk's terms are added.
// clang-format off
#include "backends/gpu/kernels/row_reduce.cuh"  // first: the vendor header names HI_GPU_NS
#include "backends/gpu/kernels/attention.h"
// clang-format on

namespace hi::gpu::HI_GPU_NS {
namespace {

constexpr int kAccumulators = static_cast<int>(kMaxAttentionValueSize / kRowBlock);

__global__ void attention_kernel(AttentionDesc d, const float* q, const float* k, const float* v, const float* mask,
                                 float* y) {
  extern __shared__ float shared[];
  float* qrow = shared;                // head_size floats
  float* p = shared + d.head_size;     // kRowBlock floats: the chunk's scores, then exp(score - m)
  __shared__ float scratch[kRowBlock];
  const int64_t i = blockIdx.x, h = blockIdx.y, b = blockIdx.z;
  const int64_t row_stride = d.heads * d.head_size, v_row_stride = d.heads * d.value_size;
  const float* qh = q + ((b * d.q_len + i) * d.heads + h) * d.head_size;
  const float* kh = k + (b * d.kv_len * d.heads + h) * d.head_size;
  const float* vh = v + (b * d.kv_len * d.heads + h) * d.value_size;
  for (int64_t c = threadIdx.x; c < d.head_size; c += kRowBlock) qrow[c] = qh[c] * d.scale;
  const float* mrow = mask ? mask + b * d.mask_strides[0] + h * d.mask_strides[1] + i * d.mask_strides[2] : nullptr;
  float m = -INFINITY, l = 0.f;
  float acc[kAccumulators];
  for (int a = 0; a < kAccumulators; ++a) acc[a] = 0.f;
  __syncthreads();
  for (int64_t start = 0; start < d.kv_len; start += kRowBlock) {
    const int64_t j = start + threadIdx.x;
    float s = -INFINITY;
    if (j < d.kv_len) {
      const float* kr = kh + j * row_stride;
      s = 0.f;
      for (int64_t c = 0; c < d.head_size; ++c) s += qrow[c] * kr[c];
      if (mrow) s += mrow[j * d.mask_strides[3]];
    }
    const float chunk_max = block_reduce(s, scratch, MaxOp{});
    const float m_new = fmaxf(m, chunk_max);
    // A row masked to -inf so far keeps everything at zero (the CPU op then gives NaN: 0 / 0).
    const float e = (j < d.kv_len && m_new != -INFINITY) ? expf(s - m_new) : 0.f;
    const float factor = m_new == -INFINITY ? 1.f : expf(m - m_new);
    p[threadIdx.x] = e;
    l = l * factor + block_reduce(e, scratch, SumOp{});  // its barriers also publish p
    m = m_new;
    const int64_t chunk = d.kv_len - start < kRowBlock ? d.kv_len - start : kRowBlock;
    for (int a = 0; a < kAccumulators; ++a) {
      const int64_t col = threadIdx.x + static_cast<int64_t>(a) * kRowBlock;
      if (col >= d.value_size) break;
      float sum = acc[a] * factor;
      for (int64_t t = 0; t < chunk; ++t) sum += p[t] * vh[(start + t) * v_row_stride + col];
      acc[a] = sum;
    }
    __syncthreads();  // p is rewritten by the next chunk
  }
  float* yr = y + ((b * d.q_len + i) * d.heads + h) * d.value_size;
  for (int a = 0; a < kAccumulators; ++a) {
    const int64_t col = threadIdx.x + static_cast<int64_t>(a) * kRowBlock;
    if (col < d.value_size) yr[col] = acc[a] / l;
  }
}

}  // namespace

Status attention(const AttentionDesc& d, const float* q, const float* k, const float* v, const float* mask, float* y,
                 Stream stream) {
  HI_RETURN_IF(d.batch < 0 || d.heads < 0 || d.q_len < 0 || d.kv_len < 0 || d.head_size < 0 || d.value_size < 0,
               kInvalidArgument, "GPU attention: negative size");
  HI_RETURN_IF(d.value_size > kMaxAttentionValueSize, kUnsupported, "GPU attention: value size ", d.value_size,
               " is above ", kMaxAttentionValueSize);
  HI_RETURN_IF(d.head_size > kMaxAttentionHeadSize, kUnsupported, "GPU attention: head size ", d.head_size, " is above ",
               kMaxAttentionHeadSize);
  HI_RETURN_IF(d.q_len > 0x7fffffff || d.heads > 65535 || d.batch > 65535, kUnsupported,
               "GPU attention: grid of ", d.q_len, " x ", d.heads, " x ", d.batch, " is above the launch limits");
  if (d.batch == 0 || d.heads == 0 || d.q_len == 0 || d.value_size == 0) return Status::ok();
  HI_RETURN_IF(!y, kInvalidArgument, "GPU attention: null output");
  const auto s = static_cast<cudaStream_t>(stream);
  if (d.kv_len == 0)  // no keys: zeros, as the CPU op gives
    return HI_GPU_CHECK(cudaMemsetAsync(
        y, 0, static_cast<size_t>(d.batch * d.q_len * d.heads * d.value_size) * sizeof(float), s));
  HI_RETURN_IF(!q || !k || !v, kInvalidArgument, "GPU attention: null buffer");
  const dim3 grid(static_cast<unsigned>(d.q_len), static_cast<unsigned>(d.heads), static_cast<unsigned>(d.batch));
  const size_t shared = static_cast<size_t>(d.head_size + kRowBlock) * sizeof(float);
  attention_kernel<<<grid, kRowBlock, shared, s>>>(d, q, k, v, mask, y);
  return HI_GPU_CHECK(cudaGetLastError());
}

}  // namespace hi::gpu::HI_GPU_NS
