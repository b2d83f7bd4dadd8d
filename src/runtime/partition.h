// Device partitions: maximal runs of consecutive nodes (in execution order) that placement put on
// the same non-CPU device. Each run is replaced in the graph by one DevicePartition node (domain
// com.hipinfer), whose op hands the run to the PartitionRunner the device's backend compiled for it
// (held by the executor that runs the node): inputs come in as host tensors and outputs go back as
// host tensors, everything between stays on the device.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ops/op.h"
#include "runtime/backend.h"
#include "runtime/executor.h"
#include "runtime/placement.h"

namespace hi::runtime {

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

// The op a DevicePartition node (domain com.hipinfer, made by the session, never read from a
// file) runs: the partition `partitions` holds under the node's "partition" id, host tensors in
// and out. Error (kInvalidModel) when there is no such partition.
inline constexpr const char* kDevicePartitionOp = "DevicePartition";
Result<std::unique_ptr<ops::Op>> make_device_partition_op(const ir::Node& node,
                                                          const std::map<int64_t, ops::CompiledPartition>& partitions);

}  // namespace hi::runtime
