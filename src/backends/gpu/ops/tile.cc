// Tile as one strided copy, each output dim viewed as [repeats, input dim] with source stride 0
// along the repeats (kernels/strided_copy.cu); the repeats input is read on the host.
#include "backends/gpu/kernels/copy.h"
#include "backends/gpu/ops/ops.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

class Tile final : public GpuKernel {
 public:
  bool reads_on_host(size_t input) const override { return input >= 1; }
  Status launch(LaunchContext& ctx) const override {
    const DeviceValue& x = ctx.input(0);
    DeviceValue& y = ctx.output(0);
    HI_ASSIGN_OR_RETURN(const std::vector<int64_t> repeats, host_ints(ctx, 1));
    HI_ASSIGN_OR_RETURN(const StridedCopy c, tile_copy(x.shape, repeats));
    Shape tiled = x.shape;
    for (size_t d = 0; d < tiled.size(); ++d) tiled[d] *= repeats[d];
    HI_RETURN_IF_ERROR(check_output_shape(ctx.node(), tiled, y.shape));
    return strided_copy(c, static_cast<int>(dtype_size(x.dtype)), x.ptr, y.ptr, ctx.stream());
  }
};

}  // namespace

// Rank 4 at most: each repeated dim takes two of the copy's 8.
std::string tile_why_not(const ir::Node& node, const std::vector<ir::ValueType>& inputs) {
  if (std::string r = movable_reason(node, inputs); !r.empty()) return r;
  if (node.inputs.size() != 2) return "no GPU kernel for Tile-1 (tiles and axis inputs)";
  return rank_reason(node, inputs, 0, kMaxCopyRank / 2);
}

std::unique_ptr<GpuKernel> make_tile(const ir::Node&) { return std::make_unique<Tile>(); }

}  // namespace hi::gpu::HI_GPU_NS
