// The one interface a backend implements: the CPU (src/backends/cpu), the GPU from one kernel
// source for CUDA and HIP, and the emulated GPU (src/backends/gpu). A backend says which nodes it
// can run, with the reason for each it cannot; which inputs its kernels read on the host; compiles
// a partition of the graph into a runner that owns the partition's memory and streams; and reports
// and controls its memory. The backends of a build are listed in one place, backends/registry.cc,
// the only file that asks which ones were built (HI_HAVE_*).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "hipinfer/device.h"
#include "hipinfer/session.h"
#include "ir/graph.h"

namespace hi::runtime {

// What a backend needs to compile one partition.
struct PartitionSpec {
  std::string device;                          // "cuda:0"
  std::vector<ir::Node> nodes;                 // in execution order
  std::vector<ir::ValueInfo> inputs, outputs;  // with the types the session inferred
  std::map<std::string, Tensor> constants;     // inputs known at build time (weights)
  std::map<std::string, ir::ValueType> types;  // every value the nodes read or write
  std::map<std::string, int64_t> opsets;
  bool graphs = true;  // capture the launches per input signature and replay them (SessionOptions::gpu_graphs)
};

// A compiled partition. Inputs come in as host tensors and outputs go back as host tensors;
// everything between stays on the device.
class PartitionRunner {
 public:
  virtual ~PartitionRunner() = default;
  // How its runs went with graphs; all zero for runners without them.
  virtual PartitionGraphStats graph_stats() const { return {}; }
  // Runs the partition: `inputs` in PartitionSpec::inputs order; fills `outputs` (host tensors) in
  // PartitionSpec::outputs order. Safe to call from several threads at once.
  virtual Status run(const std::vector<const Tensor*>& inputs, std::vector<Tensor>* outputs) const = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  // The device kind it runs, as its device names begin: "cpu", "cuda", "hip", "emu".
  virtual std::string kind() const = 0;
  // Appends its runtime (GpuBackendInfo) and its devices to `info`. Never fails: a missing driver
  // is a reason in the answer. The CPU adds nothing.
  virtual void query(GpuRuntimeInfo& info) const { (void)info; }
  // Empty when it has a kernel for `node` with these input types (dtype and, where inference knows
  // it, shape; an absent input or a non-tensor is a default ValueType), else the reason it has
  // none: the op, its domain, the dtype or rank that is missing.
  virtual std::string support(const ir::Node& node, const std::vector<ir::ValueType>& inputs) const = 0;
  // Which inputs of `node` its kernel reads on the host (Reshape's shape, Slice's starts): their
  // values decide the launches, so they must come into a partition from outside it. Empty: none.
  virtual std::vector<bool> host_inputs(const ir::Node& node) const {
    (void)node;
    return {};
  }
  // Compiles one partition (nodes it supports, in execution order) into its runner.
  virtual Result<std::shared_ptr<PartitionRunner>> compile(const PartitionSpec& spec) const = 0;
  // Its memory: the caching allocators' statistics, giving cached blocks back, reserving ahead.
  virtual void append_memory_stats(std::vector<GpuMemoryStats>* out) const { (void)out; }
  virtual Status empty_caches() const { return Status::ok(); }
  virtual Status reserve(int device, int64_t bytes) const;
};

// Every backend of this build, the CPU first (backends/registry.cc).
const std::vector<const Backend*>& compiled_backends();

// The backends sessions see: compiled_backends(), or the stand-ins a test put in their place.
std::vector<const Backend*> active_backends();
class ScopedBackends {
 public:
  explicit ScopedBackends(std::vector<const Backend*> backends);
  ~ScopedBackends();
  ScopedBackends(const ScopedBackends&) = delete;
  ScopedBackends& operator=(const ScopedBackends&) = delete;

 private:
  std::vector<const Backend*> previous_;
};

// The backend whose kind begins `device` ("cuda:0" -> cuda), or null.
const Backend* backend_for(const std::vector<const Backend*>& backends, std::string_view device);
// The first backend that is not the CPU, or null: the one that answers placement's questions
// about GPU kernels (the GPU backends compile the same kernel sources, so any answers for all).
const Backend* first_gpu(const std::vector<const Backend*>& backends);
// The machine's GPUs as these backends see them, merged (hi::query_gpus() over
// compiled_backends()): versions joined, and a reason when there is no device.
GpuRuntimeInfo query_devices(const std::vector<const Backend*>& backends);

}  // namespace hi::runtime
