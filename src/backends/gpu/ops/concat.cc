// Concat: each input one strided copy into its place in the output (kernels/strided_copy.cu).
#include "backends/gpu/kernels/copy.h"
#include "backends/gpu/ops/ops.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

class Concat final : public GpuKernel {
 public:
  Status init(ops::InitContext& ctx) override {
    axis_ = ctx.get_int("axis", 0);
    return Status::ok();
  }
  Status launch(LaunchContext& ctx) const override {
    DeviceValue& y = ctx.output(0);
    const int64_t rank = static_cast<int64_t>(y.shape.size());
    const int64_t axis = axis_ < 0 ? axis_ + rank : axis_;
    int64_t offset = 0;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      if (!ctx.has_input(i)) continue;
      const DeviceValue& x = ctx.input(i);
      StridedCopy c;
      c.rank = static_cast<int>(rank);
      contiguous_strides(x.shape, c.src_strides);
      contiguous_strides(y.shape, c.dst_strides);
      for (int64_t k = 0; k < rank; ++k) c.dims[k] = x.shape[static_cast<size_t>(k)];
      c.dst_offset = offset * c.dst_strides[axis];
      HI_RETURN_IF_ERROR(strided_copy(c, static_cast<int>(dtype_size(x.dtype)), x.ptr, y.ptr, ctx.stream()));
      offset += x.shape[static_cast<size_t>(axis)];
    }
    return Status::ok();
  }

 private:
  int64_t axis_ = 0;
};

}  // namespace

std::string concat_why_not(const ir::Node& node, const std::vector<ir::ValueType>& inputs) {
  for (size_t i = 0; i < node.inputs.size(); ++i)
    if (dtype_of(inputs, i) != dtype_of(inputs, 0)) return "no GPU kernel for Concat of mixed dtypes";
  if (rank_of(inputs, 0) > kMaxCopyRank) return "no GPU kernel for Concat above rank 8";
  return movable_reason(node, inputs);
}

std::unique_ptr<GpuKernel> make_concat(const ir::Node&) { return std::make_unique<Concat>(); }

}  // namespace hi::gpu::HI_GPU_NS
