// Device partitions: maximal runs of consecutive nodes (in execution order) that placement put on
// the same non-CPU device. Each run is replaced in the graph by one DevicePartition node (domain
// com.hipinfer), whose kernel hands the run to that device's PartitionRunner: inputs come in as
// host tensors and outputs go back as host tensors, everything between stays on the device.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "hipinfer/device.h"
#include "hipinfer/session.h"
#include "ir/graph.h"
#include "runtime/placement.h"

namespace hi::runtime {

// What a device needs to compile one partition.
struct PartitionSpec {
  std::string device;                          // "cuda:0"
  std::vector<ir::Node> nodes;                 // in execution order
  std::vector<ir::ValueInfo> inputs, outputs;  // with the types the session inferred
  std::map<std::string, Tensor> constants;     // inputs known at build time (weights)
  std::map<std::string, ir::ValueType> types;  // every value the nodes read or write
  std::map<std::string, int64_t> opsets;
  bool graphs = true;  // capture the launches per input signature and replay them (SessionOptions::gpu_graphs)
};

class PartitionRunner {
 public:
  virtual ~PartitionRunner() = default;
  // How its runs went with graphs; all zero for runners without them.
  virtual PartitionGraphStats graph_stats() const { return {}; }
  // Runs the partition: `inputs` in PartitionSpec::inputs order; fills `outputs` (host tensors) in
  // PartitionSpec::outputs order. Safe to call from several threads at once.
  virtual Status run(const std::vector<const Tensor*>& inputs, std::vector<Tensor>* outputs) const = 0;
};

// A device kind the session can hand partitions to: which nodes it has kernels for (the
// placement query), and how it compiles a partition.
struct DeviceBackend {
  GpuKernelQuery supports;
  HostInputsQuery host_inputs;  // which inputs its kernels read on the host
  std::function<Result<std::shared_ptr<PartitionRunner>>(const PartitionSpec&)> compile;
};

// The GPU backends of this build, as the session sees them: the machine's GPUs and the partition
// compiler. Tests replace them (ScopedDeviceBackends) to exercise partitioning without a GPU.
struct DeviceBackends {
  std::function<GpuRuntimeInfo()> query;
  DeviceBackend gpu;
};
const DeviceBackends& device_backends();
class ScopedDeviceBackends {
 public:
  explicit ScopedDeviceBackends(DeviceBackends backends);
  ~ScopedDeviceBackends();
  ScopedDeviceBackends(const ScopedDeviceBackends&) = delete;
  ScopedDeviceBackends& operator=(const ScopedDeviceBackends&) = delete;

 private:
  DeviceBackends previous_;
};

struct Partition {
  std::string device;
  std::vector<size_t> nodes;  // indices into the executed node list
  std::vector<std::string> inputs, outputs;
};

// Maximal runs of consecutive nodes on one non-CPU device, cut where a node reads on the host
// (`host_inputs`) a value its own run computes: that value leaves the device at the cut and comes
// back as the next run's input. Inputs: what the run reads and does not produce (first-read
// order); outputs: what it produces and something after it, or the graph, reads.
std::vector<Partition> find_partitions(const std::vector<const ir::Node*>& nodes, const PlacementReport& placement,
                                       const std::vector<std::string>& graph_outputs,
                                       const HostInputsQuery& host_inputs = {});

// The registry the DevicePartition op finds its runner in, by the id in its "partition" attribute.
int64_t register_partition_runner(std::shared_ptr<const PartitionRunner> runner,
                                  std::vector<ir::ValueType> output_types);
struct RegisteredPartition {
  std::shared_ptr<const PartitionRunner> runner;
  std::vector<ir::ValueType> output_types;
};
RegisteredPartition find_partition_runner(int64_t id);
void unregister_partition_runner(int64_t id);

// Compiles a partition with the GPU backend its device names ("cuda:0", "hip:1"); defined by
// src/backends/gpu/gpu_backends.cc.
Result<std::shared_ptr<PartitionRunner>> compile_gpu_partition(const PartitionSpec& spec);

// Runs a partition's nodes with a CPU executor: the reference a device's runner is tested
// against, and what tests use as a stand-in device.
Result<std::shared_ptr<PartitionRunner>> compile_on_cpu(const PartitionSpec& spec);

}  // namespace hi::runtime
