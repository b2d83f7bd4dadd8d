#include "runtime/partition.h"

#include <atomic>
#include <mutex>
#include <set>

#include "runtime/executor.h"

namespace hi::runtime {
namespace {

std::mutex& backends_mutex() {
  static std::mutex m;
  return m;
}
DeviceBackends& current_backends() {
  static DeviceBackends b = [] {
    DeviceBackends d;
    d.query = [] { return query_gpus(); };
    d.gpu.supports = gpu_kernel_support;
    d.gpu.host_inputs = gpu_host_inputs;
    d.gpu.compile = compile_gpu_partition;
    return d;
  }();
  return b;
}

std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}
std::map<int64_t, RegisteredPartition>& registry() {
  static std::map<int64_t, RegisteredPartition> r;
  return r;
}

// The executor points into its graph's nodes, so the runner owns both. It is given every
// partition input; the constants are the executor's initializers, so only the others (`pass`)
// go on to it.
class CpuPartitionRunner final : public PartitionRunner {
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

}  // namespace

const DeviceBackends& device_backends() {
  std::lock_guard<std::mutex> lock(backends_mutex());
  return current_backends();
}

ScopedDeviceBackends::ScopedDeviceBackends(DeviceBackends backends) {
  std::lock_guard<std::mutex> lock(backends_mutex());
  previous_ = current_backends();
  current_backends() = std::move(backends);
}
ScopedDeviceBackends::~ScopedDeviceBackends() {
  std::lock_guard<std::mutex> lock(backends_mutex());
  current_backends() = std::move(previous_);
}

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

int64_t register_partition_runner(std::shared_ptr<const PartitionRunner> runner,
                                  std::vector<ir::ValueType> output_types) {
  static std::atomic<int64_t> next{1};
  const int64_t id = next++;
  std::lock_guard<std::mutex> lock(registry_mutex());
  registry()[id] = {std::move(runner), std::move(output_types)};
  return id;
}

RegisteredPartition find_partition_runner(int64_t id) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  auto it = registry().find(id);
  return it == registry().end() ? RegisteredPartition{} : it->second;
}

void unregister_partition_runner(int64_t id) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  registry().erase(id);
}

Result<std::shared_ptr<PartitionRunner>> compile_on_cpu(const PartitionSpec& spec) {
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
  return std::shared_ptr<PartitionRunner>(
      std::make_shared<CpuPartitionRunner>(std::move(graph), std::move(ex), std::move(pass)));
}

}  // namespace hi::runtime
