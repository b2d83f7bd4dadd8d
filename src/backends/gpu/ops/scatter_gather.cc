// GatherElements, and ScatterElements / ScatterND without reduction (kernels/scatter_gather.cu):
// int64 indices, any element type the copies move. The scatters copy data to the output, then
// write the updates. Out-of-range indices write zeros (gather) or nothing (scatter): the CPU ops
// reject them, and a GPU run cannot report them without waiting.
#include "backends/gpu/kernels/copy.h"
#include "backends/gpu/ops/ops.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

std::vector<int64_t> strides_of(const Shape& s) {
  std::vector<int64_t> st(s.size(), 1);
  for (size_t d = s.size(); d-- > 1;) st[d - 1] = st[d] * s[d];
  return st;
}

class ScatterGather final : public GpuKernel {
 public:
  explicit ScatterGather(std::string op) : op_(std::move(op)) {}
  Status init(ops::InitContext& ctx) override {
    axis_ = ctx.get_int("axis", 0);
    return Status::ok();
  }
  Status launch(LaunchContext& ctx) const override {
    const DeviceValue& data = ctx.input(0);
    const DeviceValue& idx = ctx.input(1);
    DeviceValue& y = ctx.output(0);
    const int es = static_cast<int>(dtype_size(data.dtype));
    const auto* indices = static_cast<const int64_t*>(idx.ptr);
    const std::vector<int64_t> ds = strides_of(data.shape);
    if (op_ == "ScatterND") {
      const DeviceValue& upd = ctx.input(2);
      const int64_t k = idx.shape.empty() ? 0 : idx.shape.back();
      HI_RETURN_IF(k < 1 || k > static_cast<int64_t>(data.shape.size()), kInvalidArgument, "ScatterND: indices ",
                   shape_to_string(idx.shape), " address ", k, " dims of data ", shape_to_string(data.shape));
      ScatterNdIndex d;
      d.k = static_cast<int>(k);
      for (int64_t j = 0; j < k; ++j) {
        d.data_dims[j] = data.shape[static_cast<size_t>(j)];
        d.data_strides[j] = ds[static_cast<size_t>(j)];
      }
      for (size_t j = static_cast<size_t>(k); j < data.shape.size(); ++j) d.slice *= data.shape[j];
      HI_RETURN_IF_ERROR(copy_data(data, y, ctx.stream()));
      return scatter_nd(es, indices, upd.ptr, y.ptr, d, shape_numel(upd.shape), ctx.stream());
    }
    const auto rank = static_cast<int64_t>(data.shape.size());
    const int64_t axis = axis_ < 0 ? axis_ + rank : axis_;
    HI_RETURN_IF(axis < 0 || axis >= rank || idx.shape.size() != data.shape.size(), kInvalidArgument, op_, ": axis ",
                 axis_, ", data ", shape_to_string(data.shape), ", indices ", shape_to_string(idx.shape));
    ElementsIndex d;
    d.rank = static_cast<int>(rank);
    d.axis = static_cast<int>(axis);
    d.axis_dim = data.shape[static_cast<size_t>(axis)];
    for (size_t j = 0; j < data.shape.size(); ++j) {
      d.dims[j] = idx.shape[j];
      d.data_strides[j] = ds[j];
    }
    if (op_ == "GatherElements")
      return gather_elements(es, data.ptr, indices, y.ptr, d, shape_numel(idx.shape), ctx.stream());
    HI_RETURN_IF_ERROR(copy_data(data, y, ctx.stream()));
    return scatter_elements(es, indices, ctx.input(2).ptr, y.ptr, d, shape_numel(idx.shape), ctx.stream());
  }

 private:
  static Status copy_data(const DeviceValue& data, DeviceValue& y, Stream stream) {
    const size_t bytes = static_cast<size_t>(shape_numel(data.shape)) * dtype_size(data.dtype);
    return bytes ? copy_async(y.ptr, data.ptr, bytes, CopyKind::kDeviceToDevice, stream) : Status::ok();
  }

  std::string op_;
  int64_t axis_ = 0;
};

}  // namespace

std::string scatter_gather_why_not(const ir::Node& node, const std::vector<ir::ValueType>& inputs) {
  if (std::string r = movable_reason(node, inputs); !r.empty()) return r;
  if (dtype_of(inputs, 1) != DType::kInt64)
    return "no GPU kernel for " + node.op_type + " with " + dtype_name(dtype_of(inputs, 1)) + " indices (int64)";
  if (node.op_type != "GatherElements" && attr_string(node, "reduction", "none") != "none")
    return "no GPU kernel for " + node.op_type + " with reduction " + attr_string(node, "reduction", "none");
  return rank_reason(node, inputs, 0, kMaxCopyRank, true);
}

std::unique_ptr<GpuKernel> make_scatter_gather(const ir::Node& node) {
  return std::make_unique<ScatterGather>(node.op_type);
}

}  // namespace hi::gpu::HI_GPU_NS
