// Slice as one strided copy (kernels/strided_copy.cu): starts, ends, axes and steps are inputs
// read on the host from opset 10 (attributes before), any steps, negative ones included.
#include "backends/gpu/kernels/copy.h"
#include "backends/gpu/ops/ops.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

class Slice final : public GpuKernel {
 public:
  Status init(ops::InitContext& ctx) override {
    legacy_ = ctx.opset() < 10;
    if (legacy_) {
      starts_ = ctx.get_ints("starts");
      ends_ = ctx.get_ints("ends");
      axes_ = ctx.get_ints("axes");
    }
    return Status::ok();
  }
  bool reads_on_host(size_t input) const override { return input >= 1; }
  Status launch(LaunchContext& ctx) const override {
    std::vector<int64_t> starts = starts_, ends = ends_, axes = axes_, steps;
    if (!legacy_) {
      HI_ASSIGN_OR_RETURN(starts, host_ints(ctx, 1));
      HI_ASSIGN_OR_RETURN(ends, host_ints(ctx, 2));
      if (ctx.has_input(3)) {
        HI_ASSIGN_OR_RETURN(axes, host_ints(ctx, 3));
      }
      if (ctx.has_input(4)) {
        HI_ASSIGN_OR_RETURN(steps, host_ints(ctx, 4));
      }
    }
    const DeviceValue& x = ctx.input(0);
    DeviceValue& y = ctx.output(0);
    HI_ASSIGN_OR_RETURN(const StridedCopy c, slice_copy(x.shape, starts, ends, axes, steps));
    HI_RETURN_IF_ERROR(check_output_shape(ctx.node(), Shape(c.dims, c.dims + c.rank), y.shape));
    return strided_copy(c, static_cast<int>(dtype_size(x.dtype)), x.ptr, y.ptr, ctx.stream());
  }

 private:
  bool legacy_ = false;
  std::vector<int64_t> starts_, ends_, axes_;
};

}  // namespace

std::string slice_why_not(const ir::Node& node, const std::vector<ir::ValueType>& inputs) {
  if (std::string r = movable_reason(node, inputs); !r.empty()) return r;
  return rank_reason(node, inputs, 0, kMaxCopyRank);
}

std::unique_ptr<GpuKernel> make_slice(const ir::Node&) { return std::make_unique<Slice>(); }

}  // namespace hi::gpu::HI_GPU_NS
