#include "backends/cpu/backend.h"

#include "ops/op.h"
#include "runtime/executor.h"

namespace hi::cpu {
namespace {

// The executor points into its graph's nodes, so the runner owns both. It is given every
// partition input; the constants are the executor's initializers, so only the others (`pass`)
// go on to it.
class CpuPartitionRunner final : public runtime::PartitionRunner {
 public:
  CpuPartitionRunner(std::unique_ptr<ir::Graph> graph, std::unique_ptr<ops::Executor> ex, std::vector<bool> pass)
      : graph_(std::move(graph)), ex_(std::move(ex)), pass_(std::move(pass)) {}
  Status run(const std::vector<const Tensor*>& inputs, std::vector<Tensor>* outputs) const override {
    std::vector<ops::Value> values;
    for (size_t i = 0; i < inputs.size(); ++i)
      if (pass_[i]) values.push_back(ops::Value::of(*inputs[i]));
    std::vector<ops::Value> results;
    HI_RETURN_IF_ERROR(ex_->run(std::move(values), &results));
    outputs->clear();
    for (auto& v : results) outputs->push_back(std::move(v.tensor));
    return Status::ok();
  }

 private:
  std::unique_ptr<ir::Graph> graph_;
  std::unique_ptr<ops::Executor> ex_;
  std::vector<bool> pass_;
};

class CpuBackend final : public runtime::Backend {
 public:
  std::string kind() const override { return "cpu"; }

  std::string support(const ir::Node& node, const std::vector<ir::ValueType>& inputs) const override {
    (void)inputs;
    if (ops::find_op(node.domain, node.op_type)) return {};
    return "no CPU kernel for " + (node.domain.empty() ? "" : node.domain + ".") + node.op_type;
  }

  Result<std::shared_ptr<runtime::PartitionRunner>> compile(const runtime::PartitionSpec& spec) const override {
    auto graph = std::make_unique<ir::Graph>();
    ir::Graph& g = *graph;
    g.name = "partition";
    g.nodes = spec.nodes;
    for (const ir::ValueInfo& in : spec.inputs) {
      auto c = spec.constants.find(in.name);
      if (c != spec.constants.end()) g.initializers[in.name] = c->second;
      else g.inputs.push_back(in);
    }
    g.outputs = spec.outputs;
    ops::BuildOptions bo;
    bo.fold_constants = false;
    HI_ASSIGN_OR_RETURN(auto ex, ops::Executor::build(g, spec.opsets, bo));
    std::vector<bool> pass;
    for (const ir::ValueInfo& in : spec.inputs) pass.push_back(!spec.constants.count(in.name));
    return std::shared_ptr<runtime::PartitionRunner>(
        std::make_shared<CpuPartitionRunner>(std::move(graph), std::move(ex), std::move(pass)));
  }
};

}  // namespace

const runtime::Backend& backend() {
  static const CpuBackend b;
  return b;
}

}  // namespace hi::cpu
