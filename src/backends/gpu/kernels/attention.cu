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

// Element offset of row s of head h in batch b, for a tensor of `heads` heads of `size` elements.
__device__ __forceinline__ int64_t row_offset(const AttentionDesc& d, int64_t b, int64_t h, int64_t s, int64_t seq,
                                              int64_t heads, int64_t size) {
  return d.heads_first ? ((b * heads + h) * seq + s) * size : ((b * seq + s) * heads + h) * size;
}

// The bias key j adds to query i's score: the mask, then the causal and window limits (-inf).
__device__ __forceinline__ float key_bias(const AttentionDesc& d, const void* mask, int64_t mask_row, int64_t i,
                                          int64_t j) {
  float x = 0.f;
  if (mask) {
    const int64_t len = d.mask_len < 0 ? d.kv_len : d.mask_len;
    if (j >= len) return -INFINITY;
    const int64_t at = mask_row + j * d.mask_strides[3];
    if (d.mask_is_bool) {
      if (!static_cast<const bool*>(mask)[at]) return -INFINITY;
    } else {
      x = static_cast<const float*>(mask)[at];
    }
  }
  const int64_t diff = i - j;  // how far key j lies before query i
  if ((d.causal && diff < 0) || (d.left_window >= 0 && diff > d.left_window) ||
      (d.right_window >= 0 && -diff > d.right_window))
    return -INFINITY;
  return x;
}

__global__ void attention_kernel(AttentionDesc d, const float* q, const float* k, const float* v, const void* mask,
                                 float* y) {
  HI_DYNAMIC_SHARED(float, shared);
  float* qrow = shared;             // head_size floats
  float* p = shared + d.head_size;  // kRowBlock floats: the chunk's scores, then exp(score - m)
  __shared__ float scratch[kRowBlock];
  const int64_t i = blockIdx.x, h = blockIdx.y, b = blockIdx.z;
  const int64_t kv_heads = d.kv_heads > 0 ? d.kv_heads : d.heads;
  const int64_t kvh = h / (d.heads / kv_heads);
  // Consecutive keys (and values) lie a row apart: one head's row, or all heads' rows.
  const int64_t row_stride = d.heads_first ? d.head_size : kv_heads * d.head_size;
  const int64_t v_row_stride = d.heads_first ? d.value_size : kv_heads * d.value_size;
  const float* qh = q + row_offset(d, b, h, i, d.q_len, d.heads, d.head_size);
  const float* kh = k + row_offset(d, b, kvh, 0, d.kv_len, kv_heads, d.head_size);
  const float* vh = v + row_offset(d, b, kvh, 0, d.kv_len, kv_heads, d.value_size);
  for (int64_t c = threadIdx.x; c < d.head_size; c += kRowBlock) qrow[c] = qh[c] * d.scale;
  const int64_t mask_row = b * d.mask_strides[0] + h * d.mask_strides[1] + i * d.mask_strides[2];
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
      if (d.softcap > 0.f) s = d.softcap * tanhf(s / d.softcap);
      s += key_bias(d, mask, mask_row, i, j);
    }
    const float chunk_max = block_reduce(s, scratch, MaxOp{});
    const float m_new = fmaxf(m, chunk_max);
    // A row masked to -inf so far keeps everything at zero (0 / 0 at the end, unless zeroed).
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
  float* yr = y + row_offset(d, b, h, i, d.q_len, d.heads, d.value_size);
  for (int a = 0; a < kAccumulators; ++a) {
    const int64_t col = threadIdx.x + static_cast<int64_t>(a) * kRowBlock;
    if (col < d.value_size) yr[col] = l == 0.f && d.masked_rows_zero ? 0.f : acc[a] / l;
  }
}

}  // namespace

Status attention(const AttentionDesc& d, const float* q, const float* k, const float* v, const void* mask, float* y,
                 Stream stream) {
  HI_RETURN_IF(d.batch < 0 || d.heads < 0 || d.q_len < 0 || d.kv_len < 0 || d.head_size < 0 || d.value_size < 0,
               kInvalidArgument, "GPU attention: negative size");
  HI_RETURN_IF(d.value_size > kMaxAttentionValueSize, kUnsupported, "GPU attention: value size ", d.value_size,
               " is above ", kMaxAttentionValueSize);
  HI_RETURN_IF(d.head_size > kMaxAttentionHeadSize, kUnsupported, "GPU attention: head size ", d.head_size,
               " is above ", kMaxAttentionHeadSize);
  HI_RETURN_IF(d.q_len > 0x7fffffff || d.heads > 65535 || d.batch > 65535, kUnsupported, "GPU attention: grid of ",
               d.q_len, " x ", d.heads, " x ", d.batch, " is above the launch limits");
  if (d.batch == 0 || d.heads == 0 || d.q_len == 0 || d.value_size == 0) return Status::ok();
  const int64_t kv_heads = d.kv_heads > 0 ? d.kv_heads : d.heads;
  HI_RETURN_IF(kv_heads <= 0 || d.heads % kv_heads != 0, kInvalidArgument, "GPU attention: ", d.heads,
               " query heads are not a multiple of ", kv_heads, " key/value heads");
  HI_RETURN_IF(!y, kInvalidArgument, "GPU attention: null output");
  const auto s = static_cast<cudaStream_t>(stream);
  if (d.kv_len == 0)  // no keys: zeros, as the CPU op gives
    return HI_GPU_CHECK(
        cudaMemsetAsync(y, 0, static_cast<size_t>(d.batch * d.q_len * d.heads * d.value_size) * sizeof(float), s));
  HI_RETURN_IF(!q || !k || !v, kInvalidArgument, "GPU attention: null buffer");
  const dim3 grid(static_cast<unsigned>(d.q_len), static_cast<unsigned>(d.heads), static_cast<unsigned>(d.batch));
  const size_t shared = static_cast<size_t>(d.head_size + kRowBlock) * sizeof(float);
  launch_kernel<attention_kernel>(grid, kRowBlock, shared, s, d, q, k, v, mask, y);
  return HI_GPU_CHECK(cudaGetLastError());
}

}  // namespace hi::gpu::HI_GPU_NS
