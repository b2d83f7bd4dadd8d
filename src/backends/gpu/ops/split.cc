// Split: each output one strided copy of its block along the axis (kernels/strided_copy.cu). The
// sizes (the 'split' attribute or input, read on the host, or equal parts) are the output shapes
// the op's inference gives.
#include "backends/gpu/kernels/copy.h"
#include "backends/gpu/ops/ops.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

class Split final : public GpuKernel {
 public:
  Status init(ops::InitContext& ctx) override {
    axis_ = ctx.get_int("axis", 0);
    return Status::ok();
  }
  bool reads_on_host(size_t input) const override { return input == 1; }
  Status launch(LaunchContext& ctx) const override {
    const DeviceValue& x = ctx.input(0);
    const int64_t rank = static_cast<int64_t>(x.shape.size());
    const int64_t axis = axis_ < 0 ? axis_ + rank : axis_;
    HI_RETURN_IF(axis < 0 || axis >= rank, kInvalidArgument, "Split: axis ", axis_, " is out of range for rank ", rank);
    int64_t x_strides[kMaxCopyRank];
    contiguous_strides(x.shape, x_strides);
    int64_t start = 0;
    for (size_t i = 0; i < ctx.num_outputs(); ++i) {
      DeviceValue& y = ctx.output(i);
      HI_RETURN_IF(y.shape.size() != x.shape.size(), kInternal, "GPU Split: output ", i, " is ",
                   shape_to_string(y.shape), " for input ", shape_to_string(x.shape));
      StridedCopy c;
      c.rank = static_cast<int>(rank);
      for (int64_t k = 0; k < rank; ++k) {
        c.dims[k] = y.shape[static_cast<size_t>(k)];
        c.src_strides[k] = x_strides[k];
      }
      contiguous_strides(y.shape, c.dst_strides);
      c.src_offset = start * x_strides[axis];
      start += y.shape[static_cast<size_t>(axis)];
      HI_RETURN_IF(start > x.shape[static_cast<size_t>(axis)], kInternal, "GPU Split: the outputs' sizes exceed axis ",
                   axis, " of ", shape_to_string(x.shape));
      HI_RETURN_IF_ERROR(strided_copy(c, static_cast<int>(dtype_size(x.dtype)), x.ptr, y.ptr, ctx.stream()));
    }
    return Status::ok();
  }

 private:
  int64_t axis_ = 0;
};

}  // namespace

std::string split_why_not(const ir::Node& node, const std::vector<ir::ValueType>& inputs) {
  if (std::string r = movable_reason(node, inputs); !r.empty()) return r;
  if (has_unnamed_output(node)) return "no GPU kernel for Split with an unnamed output";
  return rank_reason(node, inputs, 0, kMaxCopyRank);
}

std::unique_ptr<GpuKernel> make_split(const ir::Node&) { return std::make_unique<Split>(); }

}  // namespace hi::gpu::HI_GPU_NS
