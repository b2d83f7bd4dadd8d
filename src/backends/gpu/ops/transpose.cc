// Transpose as one strided copy (kernels/strided_copy.cu).
#include "backends/gpu/kernels/copy.h"
#include "backends/gpu/ops/ops.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

class Transpose final : public GpuKernel {
 public:
  Status init(ops::InitContext& ctx) override {
    perm_ = ctx.get_ints("perm");
    return Status::ok();
  }
  Status launch(LaunchContext& ctx) const override {
    const DeviceValue& x = ctx.input(0);
    std::vector<int64_t> perm = perm_;
    if (perm.empty())
      for (size_t i = x.shape.size(); i-- > 0;) perm.push_back(static_cast<int64_t>(i));
    HI_ASSIGN_OR_RETURN(const StridedCopy c, transpose_copy(x.shape, perm));
    return strided_copy(c, static_cast<int>(dtype_size(x.dtype)), x.ptr, ctx.output(0).ptr, ctx.stream());
  }

 private:
  std::vector<int64_t> perm_;
};

}  // namespace

std::string transpose_why_not(const ir::Node& node, const std::vector<ir::ValueType>& inputs) {
  if (std::string r = movable_reason(node, inputs); !r.empty()) return r;
  return rank_of(inputs, 0) > kMaxCopyRank ? "no GPU kernel for Transpose above rank 8" : "";
}

std::unique_ptr<GpuKernel> make_transpose(const ir::Node&) { return std::make_unique<Transpose>(); }

}  // namespace hi::gpu::HI_GPU_NS
