// Trilu: the upper or lower triangle of each matrix in the last two dims, the diagonal moved by
// the optional k input (read on the host) (kernels/trilu.cu). Any element type the copies move.
#include "backends/gpu/kernels/index_ops.h"
#include "backends/gpu/ops/ops.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

class Trilu final : public GpuKernel {
 public:
  Status init(ops::InitContext& ctx) override {
    upper_ = ctx.get_int("upper", 1) != 0;
    return Status::ok();
  }
  bool reads_on_host(size_t input) const override { return input == 1; }
  Status launch(LaunchContext& ctx) const override {
    const DeviceValue& x = ctx.input(0);
    int64_t k = 0;
    if (ctx.has_input(1)) {
      HI_ASSIGN_OR_RETURN(const std::vector<int64_t> ks, host_ints(ctx, 1));
      HI_RETURN_IF(ks.size() != 1, kInvalidArgument, "Trilu: k must be one value, got ", ks.size());
      k = ks[0];
    }
    const size_t r = x.shape.size();
    HI_RETURN_IF(r < 2, kInvalidArgument, "Trilu: input must have rank >= 2, got ", shape_to_string(x.shape));
    return trilu(static_cast<int>(dtype_size(x.dtype)), x.ptr, ctx.output(0).ptr, shape_numel(x.shape), x.shape[r - 2],
                 x.shape[r - 1], k, upper_, ctx.stream());
  }

 private:
  bool upper_ = true;
};

}  // namespace

std::string trilu_why_not(const ir::Node& node, const std::vector<ir::ValueType>& inputs) {
  return movable_reason(node, inputs);
}

std::unique_ptr<GpuKernel> make_trilu(const ir::Node&) { return std::make_unique<Trilu>(); }

}  // namespace hi::gpu::HI_GPU_NS
