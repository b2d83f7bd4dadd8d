// Reshape, Flatten, Squeeze, Unsqueeze, Identity and Dropout (at inference): the output is the
// input's buffer under the shape the op's inference gives; nothing runs on the device.
#include "backends/gpu/ops/ops.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

class Alias final : public GpuKernel {
 public:
  bool aliases_input() const override { return true; }
  explicit Alias(bool dropout) : dropout_(dropout) {}
  bool reads_on_host(size_t input) const override { return input >= 1 && !dropout_; }  // shape, axes
  Status launch(LaunchContext&) const override { return Status::ok(); }

 private:
  bool dropout_;  // Dropout's ratio input does not matter at inference
};

}  // namespace

std::string reshape_why_not(const ir::Node& node, const std::vector<ir::ValueType>& inputs) {
  if (node.op_type == "Dropout") {  // inference: the identity; a mask or a training_mode input is not
    if (node.outputs.size() > 1 && !node.outputs[1].empty()) return "no GPU kernel for Dropout's mask output";
    if (node.inputs.size() > 2 && !node.inputs[2].empty())
      return "no GPU kernel for Dropout with a training_mode input";
  }
  return movable_reason(node, inputs);
}

std::unique_ptr<GpuKernel> make_reshape(const ir::Node& node) {
  return std::make_unique<Alias>(node.op_type == "Dropout");
}

}  // namespace hi::gpu::HI_GPU_NS
