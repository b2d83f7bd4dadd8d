// Placement: which device runs each node. The session's device list is an order of preference
// ("gpu", "cuda", "hip", "cpu"); a node goes to the first listed device that has a kernel for it,
// and every node that does not land on the first device is a fallback with a reason, reported by
// Session::placement(), `hipinfer run --explain` and a warning. Nothing falls back silently.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "hipinfer/device.h"
#include "hipinfer/session.h"
#include "ir/graph.h"

namespace hi::runtime {

// How reports name a node ("#12" when it has none, `index` in execution order) and its op
// ("Conv"; other domains prefixed: "com.hipinfer.FusedConv").
std::string node_label(const ir::Node& n, size_t index);
std::string op_label(const ir::Node& n);

// One entry of the user's list, resolved against the machine.
struct DeviceSlot {
  std::string requested;  // as written: "gpu", "cuda", "hip", "cpu"
  std::string name;       // "cuda:0", "cpu"; empty when the request found no device
  std::string missing;    // why `name` is empty: "no GPU: <the runtime's reason>"
};

// Parses and resolves a device list. Errors (kInvalidArgument): an empty list, an unknown name,
// a name listed twice.
Result<std::vector<DeviceSlot>> resolve_devices(const std::vector<std::string>& requested, const GpuRuntimeInfo& gpus);

// Whether a GPU backend has a kernel for `node` with these input types (dtype and, where inference
// knows it, shape; an absent input or a non-tensor is a default ValueType): empty when it does,
// else the reason it does not (the op, its domain, the dtype or rank that is missing).
using GpuKernelQuery = std::function<std::string(const ir::Node&, const std::vector<ir::ValueType>& inputs)>;
// This build's answer: the first GPU backend's kernel table (runtime/backend.cc).
std::string gpu_kernel_support(const ir::Node& node, const std::vector<ir::ValueType>& inputs);

struct NodeToPlace {
  const ir::Node* node = nullptr;
  std::vector<ir::ValueType> inputs;  // as inferred; default for absent inputs
};

// Places `nodes` (in execution order). Error (kUnsupported) when some node fits no listed device,
// which only happens without "cpu" in the list: the message lists such nodes and why.
Result<PlacementReport> place_nodes(const std::vector<NodeToPlace>& nodes, const std::vector<DeviceSlot>& devices,
                                    const GpuKernelQuery& gpu_query = gpu_kernel_support);

// Which inputs of a node the GPU kernel reads on the host (Reshape's shape, Slice's starts): their
// values decide the launches, so they must come into a partition from outside it. Empty when none.
using HostInputsQuery = std::function<std::vector<bool>(const ir::Node&)>;
// This build's answer (the first GPU backend's); empty for nodes without a GPU kernel.
std::vector<bool> gpu_host_inputs(const ir::Node& node);

// Shape arithmetic stays on the CPU, as in ONNX Runtime's CUDA provider: a GPU-placed node whose
// outputs are all integer or bool and are read only on the host (by GPU kernels through
// `host_inputs`, or by nodes this moved) goes to the CPU, walking back from the readers, so that a
// Shape -> Gather -> Concat -> Reshape chain neither splits a GPU partition nor copies its few
// integers back and forth. Each moved node is a fallback with that reason. `types` gives each
// output's type (null when unknown: the node stays).
void keep_shape_math_on_cpu(const std::vector<NodeToPlace>& nodes, const HostInputsQuery& host_inputs,
                            const std::function<const ir::ValueType*(const std::string&)>& types,
                            const std::vector<std::string>& graph_outputs, PlacementReport* report);

// One warning per distinct fallback reason ("12 of 80 nodes run on cpu instead of cuda:0: ..."),
// none when every node is on the first device.
std::vector<std::string> placement_warnings(const PlacementReport& report);

}  // namespace hi::runtime
