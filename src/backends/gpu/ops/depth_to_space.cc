// DepthToSpace (DCR and CRD) and SpaceToDepth: a reshape to 6-D, a transpose and a reshape back,
// done as one strided copy of the 6-D view (kernels/strided_copy.cu). Any element type.
#include "backends/gpu/kernels/copy.h"
#include "backends/gpu/ops/ops.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

class BlockShuffle final : public GpuKernel {
 public:
  explicit BlockShuffle(bool to_space) : to_space_(to_space) {}
  Status init(ops::InitContext& ctx) override {
    bs_ = ctx.get_int("blocksize", 1);
    crd_ = ctx.get_string("mode", "DCR") == "CRD";
    return Status::ok();
  }
  Status launch(LaunchContext& ctx) const override {
    const DeviceValue& x = ctx.input(0);
    const Shape& s = x.shape;
    HI_RETURN_IF(s.size() != 4 || bs_ <= 0, kInvalidArgument, ctx.node().op_type, ": input ", shape_to_string(s),
                 " must be 4-D and blocksize positive, got ", bs_);
    const int64_t n = s[0], c = s[1], h = s[2], w = s[3], b = bs_;
    Shape view;
    std::vector<int64_t> perm;
    if (!to_space_) {  // SpaceToDepth: [N, C, H/b, b, W/b, b] -> [N, b, b, C, H/b, W/b]
      HI_RETURN_IF(h % b != 0 || w % b != 0, kInvalidArgument, "SpaceToDepth: ", shape_to_string(s),
                   " is not a multiple of blocksize ", b);
      view = {n, c, h / b, b, w / b, b};
      perm = {0, 3, 5, 1, 2, 4};
    } else {
      HI_RETURN_IF(c % (b * b) != 0, kInvalidArgument, "DepthToSpace: channels of ", shape_to_string(s),
                   " are not a multiple of blocksize^2 ", b * b);
      if (crd_) {  // [N, C/b^2, b, b, H, W] -> [N, C/b^2, H, b, W, b]
        view = {n, c / (b * b), b, b, h, w};
        perm = {0, 1, 4, 2, 5, 3};
      } else {  // DCR: [N, b, b, C/b^2, H, W] -> [N, C/b^2, H, b, W, b]
        view = {n, b, b, c / (b * b), h, w};
        perm = {0, 3, 4, 1, 5, 2};
      }
    }
    HI_ASSIGN_OR_RETURN(const StridedCopy copy, transpose_copy(view, perm));
    return strided_copy(copy, static_cast<int>(dtype_size(x.dtype)), x.ptr, ctx.output(0).ptr, ctx.stream());
  }

 private:
  bool to_space_;
  int64_t bs_ = 1;
  bool crd_ = false;
};

}  // namespace

std::string depth_to_space_why_not(const ir::Node& node, const std::vector<ir::ValueType>& inputs) {
  if (std::string r = movable_reason(node, inputs); !r.empty()) return r;
  return rank_of(inputs, 0) == 4 ? "" : "no GPU kernel for " + node.op_type + " other than 4-D";
}

std::unique_ptr<GpuKernel> make_depth_to_space(const ir::Node& node) {
  return std::make_unique<BlockShuffle>(node.op_type == "DepthToSpace");
}

}  // namespace hi::gpu::HI_GPU_NS
