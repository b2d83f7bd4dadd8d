#include "runtime/partition.h"

#include <set>

namespace hi::runtime {
namespace {

class DevicePartitionOp final : public ops::Op {
 public:
  explicit DevicePartitionOp(ops::CompiledPartition partition) : partition_(std::move(partition)) {}

  Status infer(ops::InferContext& ctx) const override {
    if (ctx.num_outputs() != partition_.output_types.size())
      return error(StatusCode::kInternal, "DevicePartition has ", ctx.num_outputs(), " outputs but its runner ",
                   partition_.output_types.size());
    for (size_t i = 0; i < ctx.num_outputs(); ++i) ctx.set_output_type(i, partition_.output_types[i]);
    return Status::ok();
  }

  Status run(ops::RunContext& ctx) const override {
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
  ops::CompiledPartition partition_;
};

}  // namespace

std::vector<Partition> find_partitions(const std::vector<const ir::Node*>& nodes, const PlacementReport& placement,
                                       const std::vector<std::string>& graph_outputs,
                                       const HostInputsQuery& host_inputs) {
  std::vector<Partition> parts;
  std::set<std::string> made_here;  // values the current run computes
  for (size_t i = 0; i < nodes.size(); ++i) {
    const std::string& device = placement.nodes.at(i).device;
    if (device == "cpu") continue;
    bool cut = parts.empty() || parts.back().device != device || parts.back().nodes.back() + 1 != i;
    const std::vector<bool> host = host_inputs ? host_inputs(*nodes[i]) : std::vector<bool>{};
    for (size_t k = 0; k < host.size() && k < nodes[i]->inputs.size() && !cut; ++k)
      cut = host[k] && made_here.count(nodes[i]->inputs[k]);
    if (cut) {
      parts.push_back({device, {}, {}, {}});
      made_here.clear();
    }
    parts.back().nodes.push_back(i);
    for (const std::string& out : nodes[i]->outputs) made_here.insert(out);
  }
  const std::set<std::string> wanted(graph_outputs.begin(), graph_outputs.end());
  for (Partition& p : parts) {
    std::set<std::string> produced, seen_inputs;
    for (size_t i : p.nodes) {
      for (const std::string& in : nodes[i]->inputs)
        if (!in.empty() && !produced.count(in) && seen_inputs.insert(in).second) p.inputs.push_back(in);
      for (const std::string& out : nodes[i]->outputs)
        if (!out.empty()) produced.insert(out);
    }
    // Outputs: read after the partition (by a later node, through a subgraph's outer scope
    // reads counted as the node's inputs) or by the graph.
    std::set<std::string> read_later;
    for (size_t j = p.nodes.back() + 1; j < nodes.size(); ++j)
      for (const std::string& in : nodes[j]->inputs) read_later.insert(in);
    for (size_t i : p.nodes)
      for (const std::string& out : nodes[i]->outputs)
        if (!out.empty() && (read_later.count(out) || wanted.count(out))) p.outputs.push_back(out);
  }
  return parts;
}

Result<std::unique_ptr<ops::Op>> make_device_partition_op(const ir::Node& node,
                                                          const std::map<int64_t, ops::CompiledPartition>& partitions) {
  auto attr = node.attributes.find("partition");
  const int64_t id = attr == node.attributes.end() ? -1 : attr->second.i;
  auto it = partitions.find(id);
  if (attr == node.attributes.end() || attr->second.kind != ir::Attribute::Kind::kInt || it == partitions.end() ||
      !it->second.runner)
    return error(StatusCode::kInvalidModel, node.describe(),
                 ": no compiled device partition for it (DevicePartition nodes are made by a session, not read from a "
                 "model)");
  return std::unique_ptr<ops::Op>(std::make_unique<DevicePartitionOp>(it->second));
}

}  // namespace hi::runtime
