// Pad (kernels/pad.cu): every output element reads one input element, or is the constant, per
// axis mode constant, reflect, edge or wrap; negative pads crop. The element is moved by size (1, 2,
// 4 or 8 bytes), so the constant is given as the bit pattern of one element of the tensor's type.
#pragma once

#include <cstdint>
#include <vector>

#include "backends/gpu/device_api.h"
#include "backends/gpu/kernels/host_device.h"
#include "hipinfer/tensor.h"

namespace hi::gpu::HI_GPU_NS {

constexpr int kMaxPadRank = 8;

enum class PadMode : int { kConstant, kReflect, kEdge, kWrap };

// Per axis: the output is pad_begin new elements, then `kept` input elements from crop_begin on,
// then the rest new (out_dims - pad_begin - kept).
struct PadDesc {
  int rank = 0;
  PadMode mode = PadMode::kConstant;
  int64_t in_dims[kMaxPadRank] = {};
  int64_t out_dims[kMaxPadRank] = {};
  int64_t pad_begin[kMaxPadRank] = {};
  int64_t crop_begin[kMaxPadRank] = {};
  int64_t kept[kMaxPadRank] = {};
};

// The ONNX Pad of a tensor of shape x: `pads` holds begin then end for every axis (2 * rank
// values; negative crops). Errors (kInvalidArgument) as the CPU op's: cropping more than an axis
// has, or padding an axis emptied by cropping in a mode other than constant.
Result<PadDesc> make_pad_desc(const Shape& x, const std::vector<int64_t>& pads, PadMode mode);

// The output's element count.
int64_t pad_numel(const PadDesc& d);

// Where output element o reads: an element index into x, or -1 for the constant.
HI_HOST_DEVICE inline int64_t pad_source(const PadDesc& d, int64_t o) {
  int64_t offset = 0, stride = 1;
  bool inside = true;
  for (int k = d.rank - 1; k >= 0; --k) {
    const int64_t coord = o % d.out_dims[k];
    o /= d.out_dims[k];
    const int64_t m = d.kept[k];
    int64_t j = coord - d.pad_begin[k];  // index into the kept part
    if (j < 0 || j >= m) {
      switch (d.mode) {
        case PadMode::kConstant: inside = false; break;
        case PadMode::kEdge: j = j < 0 ? 0 : m - 1; break;
        case PadMode::kWrap: j = ((j % m) + m) % m; break;
        case PadMode::kReflect:
          if (m == 1) {
            j = 0;
          } else {  // about the end elements, without repeating them: period 2 (m - 1)
            const int64_t period = 2 * (m - 1);
            j = ((j % period) + period) % period;
            if (j >= m) j = period - j;
          }
          break;
      }
    }
    offset += (j + d.crop_begin[k]) * stride;
    stride *= d.in_dims[k];
  }
  return inside ? offset : -1;
}

// y = pad(x) for elements of elem_size bytes (1, 2, 4 or 8); value_bits holds the constant's bytes
// (the low elem_size of them).
Status pad(const PadDesc& d, int elem_size, const void* x, void* y, uint64_t value_bits, Stream stream);

}  // namespace hi::gpu::HI_GPU_NS
