// DevicePartition (com.hipinfer, made by the session, never read from a file): a run of nodes
// that placement put on one device, executed there as a unit by the PartitionRunner registered
// under the node's "partition" id (runtime/partition.h). Inputs and outputs are host tensors.
#include "ops/op.h"
#include "runtime/partition.h"

namespace hi::ops {
namespace {

class DevicePartitionOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    const int64_t id = ctx.require_int("partition");
    if (!ctx.status().is_ok()) return ctx.status();
    partition_ = runtime::find_partition_runner(id);
    if (!partition_.runner)
      return ctx.fail(StatusCode::kInvalidModel, "DevicePartition ", id,
                      " is not registered: the node is made by a session, not read from a model");
    return Status::ok();
  }

  Status infer(InferContext& ctx) const override {
    if (ctx.num_outputs() != partition_.output_types.size())
      return error(StatusCode::kInternal, "DevicePartition has ", ctx.num_outputs(), " outputs but its runner ",
                   partition_.output_types.size());
    for (size_t i = 0; i < ctx.num_outputs(); ++i) ctx.set_output_type(i, partition_.output_types[i]);
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    std::vector<const Tensor*> inputs;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) inputs.push_back(ctx.input(i));
    std::vector<Tensor> outputs;
    HI_RETURN_IF_ERROR(partition_.runner->run(inputs, &outputs));
    if (outputs.size() != ctx.num_outputs())
      return error(StatusCode::kInternal, "DevicePartition runner gave ", outputs.size(), " outputs, expected ",
                   ctx.num_outputs());
    for (size_t i = 0; i < outputs.size(); ++i) ctx.set_output(i, std::move(outputs[i]));
    return Status::ok();
  }

  // The device does the work; folding it at build time would run it on the host.
  bool is_deterministic() const override { return false; }

 private:
  runtime::RegisteredPartition partition_;
};

}  // namespace

HI_REGISTER_OP(DevicePartition, DevicePartitionOp)

}  // namespace hi::ops
