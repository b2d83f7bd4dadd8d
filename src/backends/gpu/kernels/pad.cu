// Pad (see pad.h): one thread per output element, its source from pad_source().
// clang-format off
#include "backends/gpu/kernels/elementwise_util.cuh"  // first: the vendor header names HI_GPU_NS
#include "backends/gpu/kernels/pad.h"
// clang-format on

#include <algorithm>

namespace hi::gpu::HI_GPU_NS {
namespace {

template <typename Word>
__global__ void pad_kernel(const Word* __restrict__ x, Word* __restrict__ y, PadDesc d, int64_t n, Word value) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const int64_t s = pad_source(d, i);
    y[i] = s < 0 ? value : x[s];
  }
}

template <typename Word>
void launch(const PadDesc& d, const void* x, void* y, int64_t n, uint64_t value_bits, cudaStream_t s) {
  launch_kernel<pad_kernel<Word>>(elementwise_blocks(n), kElementwiseBlock, 0, s, static_cast<const Word*>(x),
                                  static_cast<Word*>(y), d, n, static_cast<Word>(value_bits));
}

}  // namespace

Result<PadDesc> make_pad_desc(const Shape& x, const std::vector<int64_t>& pads, PadMode mode) {
  const int64_t rank = static_cast<int64_t>(x.size());
  HI_RETURN_IF(rank > kMaxPadRank, kUnsupported, "GPU Pad: rank ", rank, " is above ", kMaxPadRank);
  HI_RETURN_IF(static_cast<int64_t>(pads.size()) != 2 * rank, kInvalidArgument, "Pad: pads ", shape_to_string(pads),
               " has ", pads.size(), " entries for a rank-", rank, " input (", 2 * rank, " expected)");
  PadDesc d;
  d.rank = static_cast<int>(rank);
  d.mode = mode;
  for (int64_t k = 0; k < rank; ++k) {
    const int64_t n = x[static_cast<size_t>(k)], begin = pads[static_cast<size_t>(k)],
                  end = pads[static_cast<size_t>(k + rank)];
    const int64_t crop_b = std::max<int64_t>(0, -begin), crop_e = std::max<int64_t>(0, -end);
    const int64_t m = n - crop_b - crop_e;
    HI_RETURN_IF(m < 0, kInvalidArgument, "Pad: pads ", begin, ", ", end, " crop more than the ", n,
                 " elements of axis ", k);
    const int64_t pb = std::max<int64_t>(0, begin), pe = std::max<int64_t>(0, end);
    HI_RETURN_IF(m == 0 && (pb > 0 || pe > 0) && mode != PadMode::kConstant, kInvalidArgument, "Pad: cannot pad axis ",
                 k, " in this mode: it is empty after cropping");
    d.in_dims[k] = n;
    d.out_dims[k] = pb + m + pe;
    d.pad_begin[k] = pb;
    d.crop_begin[k] = crop_b;
    d.kept[k] = m;
  }
  return d;
}

int64_t pad_numel(const PadDesc& d) {
  int64_t n = 1;
  for (int k = 0; k < d.rank; ++k) n *= d.out_dims[k];
  return n;
}

Status pad(const PadDesc& d, int elem_size, const void* x, void* y, uint64_t value_bits, Stream stream) {
  HI_RETURN_IF(d.rank < 0 || d.rank > kMaxPadRank, kInvalidArgument, "GPU Pad: rank ", d.rank, " outside 0..",
               kMaxPadRank);
  const int64_t n = pad_numel(d);
  if (n == 0) return Status::ok();
  HI_RETURN_IF(y == nullptr, kInvalidArgument, "GPU Pad: null output for ", n, " elements");
  const auto s = static_cast<cudaStream_t>(stream);
  const bool ok = with_word(elem_size, [&](auto word) { launch<decltype(word)>(d, x, y, n, value_bits, s); });
  HI_RETURN_IF(!ok, kUnsupported, "GPU Pad: element size ", elem_size, " (1, 2, 4 or 8 bytes)");
  return HI_GPU_CHECK(cudaGetLastError());
}

}  // namespace hi::gpu::HI_GPU_NS
