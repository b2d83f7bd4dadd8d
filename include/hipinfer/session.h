// Session: a loaded, validated model ready to run. The main entry point of the C++ API.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "hipinfer/device.h"
#include "hipinfer/export.h"
#include "hipinfer/status.h"
#include "hipinfer/tensor.h"
#include "hipinfer/value.h"

HI_PUBLIC_BEGIN
namespace hi {

struct SessionOptions {
  // Graph optimisation level: 0 none, 1 basic (constant folding, dead nodes), 2 extended,
  // 3 all (default), as in ONNX Runtime.
  int optimization_level = 3;
  // Graph passes to skip by name (as `hipinfer inspect` and the pass report name them, e.g.
  // "fuse_inverted_residual"), to find out whether a pass changes a model's results or speed.
  // An unknown name makes create() fail, listing the passes.
  std::vector<std::string> disabled_passes;
  // Intra-op threads; 0 = the physical cores this process may use (its affinity mask, capped by
  // its cgroup's CPU quota).
  int threads = 0;
  // Run on fewer threads while other processes take cores: two runs within a second in which a
  // parallel region's helper thread started late (descheduled) make the next runs use a thread
  // fewer, and the full count is probed again after a hold that doubles while the machine stays
  // busy (0.5 s to 8 s). Kernels are made per thread count, so results may differ in the last
  // bits between runs on different counts. false: every run uses `threads`, and repeated runs of
  // one input give the same bits.
  bool adapt_threads = true;
  // How a CPU kernel is chosen for a shape without a known choice (convolutions, products with
  // constant weights and inverted residual blocks have several kernels each, and which is
  // fastest depends on the shape and the CPU). "auto" (default): a timed choice from memory or
  // the kernel cache, else a rule of thumb, untimed, so that the first run does no timing.
  // "time": the candidates for a new shape are timed on zeros during its first run (up to a few
  // hundred ms per model) and the winner kept in memory and the kernel cache, for every later
  // session of any model on this CPU; what `hipinfer run --tune` and `bench --tune` do.
  std::string kernel_tuning = "auto";
  // The kernel cache: a file of timed choices per CPU model and hipinfer build, in
  // kernel_cache_dir (empty: $HIPINFER_CACHE_DIR, else $XDG_CACHE_HOME/hipinfer, else
  // ~/.cache/hipinfer). false: nothing read or written.
  bool kernel_cache = true;
  std::string kernel_cache_dir;
  // Most host memory (bytes) this session may hold at once: its weights and folded constants,
  // memory-plan arenas, and the tensors of its runs (outputs count until the caller releases
  // them), summed over runs in flight. Creating or running past it fails with kOutOfMemory
  // naming the limit, before the allocation is made. 0 = no limit of its own: the session then
  // holds at most the machine's physical memory. Each session has its own; none is shared.
  int64_t memory_limit = 0;
  // Constant folding computes no node whose outputs would exceed this many bytes; such a node is
  // kept and runs each time (a 100-byte model asking for a 10 GB ConstantOfShape does not
  // allocate it at create()). 0 = no limit.
  int64_t constant_folding_limit = int64_t{64} << 20;
  // Compute precision on the CPU: "fp32" (default) or "bf16" (convolutions, and matrix products
  // with constant weights and a bias (FusedMatMul), in bfloat16 with fp32 accumulation where the
  // CPU has AVX512_BF16 or AMX; the attention core and other ops stay fp32; checked against fp32
  // by hipinfer bench's accuracy guard).
  std::string precision = "fp32";
  // Devices in order of preference: "gpu" (the first GPU of any built backend), "cuda", "hip",
  // "cpu". Each node runs on the first listed device with a kernel for it; a node that lands
  // anywhere else counts as a fallback, with its reason in Session::placement() and a warning.
  // Without "cpu", a node that no listed device runs makes create() fail, naming it.
  std::vector<std::string> devices = {"gpu", "cpu"};
  // GPU partitions capture their kernel launches as a graph (CUDA / HIP graphs) per input
  // signature on the first run and replay it on later ones; false launches every kernel on
  // every run (hipinfer --no-graph).
  bool gpu_graphs = true;
  // Record each node's wall time in every run's RunStats::node_times (hipinfer bench --profile).
  bool profile = false;
  // Symbolic dims of the model's inputs fixed to a size (onnxruntime's
  // add_free_dimension_override_by_name): {"batch", 1} makes every input dim named "batch" 1, so
  // shapes are known when the session is built (folding, planning) and inputs() reports the size.
  // A name no input dim carries gives a warning (Session::warnings()); a negative size fails create().
  std::map<std::string, int64_t> free_dimension_overrides;
  // Initializers of the model replaced by these tensors (onnxruntime's add_initializer): each name
  // must be an initializer of the main graph, with the same element type and shape. The tensors
  // are shared, not copied; keep them unchanged while the session lives.
  std::map<std::string, Tensor> initializers;
};

// Name, element type and shape of a model input or output. Unknown dims are -1, with the
// symbolic name (if any) in dim_names.
struct TensorInfo {
  std::string name;
  DType dtype = DType::kUndefined;
  bool rank_known = true;
  std::vector<int64_t> shape;
  std::vector<std::string> dim_names;  // same length as shape; "" for known or unnamed dims
  std::string kind = "tensor";         // "tensor", "sequence", "optional", "map"
  // The whole type as onnxruntime spells it: "tensor(float)", "seq(map(string,tensor(float)))",
  // "map(int64,tensor(double))", "optional(seq(tensor(int64)))". `dtype` and `shape` describe the
  // innermost tensor; a map's key type is only here.
  std::string type;
  // Integer inputs that index an axis directly (the indices of a Gather, e.g. token ids into an
  // embedding table): the smallest such axis size, so valid values are [0, index_limit). 0: none.
  int64_t index_limit = 0;
  std::string to_string() const;  // "float32[batch, 3, 224, 224]"
};

// What a model file says about itself (onnxruntime's ModelMetadata).
struct ModelMetadata {
  std::string producer_name, producer_version;
  std::string domain;       // ModelProto.domain
  std::string description;  // ModelProto.doc_string
  std::string graph_name, graph_description;
  int64_t version = 0;                                     // ModelProto.model_version
  std::map<std::string, std::string> custom_metadata_map;  // ModelProto.metadata_props
};

using TensorMap = std::map<std::string, Tensor>;

// Controls for one run (onnxruntime's RunOptions). One object may serve several runs at once.
struct RunOptions {
  // Wall-time limit of the run in milliseconds; 0 = none. A run past it stops at its next check
  // (between nodes, in every Loop and Scan iteration, inside long kernels) and returns
  // kDeadlineExceeded.
  double timeout_ms = 0;
  // Set to true from any thread to stop the runs using these options; they return kCancelled.
  // Runs started while it is true stop at once. The session serves later runs normally.
  std::atomic<bool> terminate{false};

  RunOptions() = default;
  RunOptions(const RunOptions& o) : timeout_ms(o.timeout_ms), terminate(o.terminate.load()) {}
  RunOptions& operator=(const RunOptions& o) {
    timeout_ms = o.timeout_ms;
    terminate = o.terminate.load();
    return *this;
  }
};

// One node's share of a run (SessionOptions::profile).
struct NodeTime {
  std::string node;     // the node's name ("#12" when it has none)
  std::string op_type;  // as in NodePlacement: "Conv", "com.hipinfer.FusedConv"
  double ms = 0;
  std::string kernel;  // the fast CPU kernel it ran on ("oneDNN brgconv_1x1:avx512_core"), empty: reference
};

// Tensor bytes one node read and wrote in a profiled run (SessionOptions::profile): what fusion
// and in-place execution save, independent of the machine's speed. Nodes inside a device
// partition are listed one by one; a node that only reinterprets its input (Reshape on a GPU)
// moves nothing.
struct NodeTraffic {
  std::string node;  // as in NodeTime
  std::string op_type;
  std::string device;  // "cpu", "emu:0", "cuda:0"
  int64_t bytes_read = 0;
  int64_t bytes_written = 0;
};

struct RunStats {
  double latency_ms = 0;  // wall time of the run
  int64_t nodes_executed = 0;
  int64_t peak_host_bytes = 0;            // high-water mark of live tensor memory during the run
  int64_t planned_arena_bytes = 0;        // size of the static memory plan's arena for these shapes (0: none)
  int64_t planned_activation_bytes = 0;   // the sum of the planned intermediate tensors the arena holds
  int64_t fallback_nodes = 0;             // nodes this run executed on a device other than the first listed
  int threads = 0;                        // intra-op threads this run used (SessionOptions::adapt_threads)
  int64_t shapes_timed = 0;               // shapes whose kernel candidates this run timed (kernel_tuning "time")
  std::vector<NodeTime> node_times;       // in execution order; empty unless SessionOptions::profile
  std::vector<NodeTraffic> node_traffic;  // likewise, with device partitions' nodes one by one
  GpuActivity gpu;  // this run's launches, synchronisations and allocations (all 0 without a GPU; counted
                    // process-wide, so exact while one run at a time uses the GPUs)
};

// Host memory a session holds: its constants, cached arenas and the live tensors of its runs
// (outputs included, until released). SessionOptions::memory_limit caps in_use_bytes.
struct SessionMemoryStats {
  int64_t in_use_bytes = 0;
  int64_t peak_bytes = 0;   // high-water mark since the session was created
  int64_t limit_bytes = 0;  // SessionOptions::memory_limit; 0: none of its own
};

// Graph capture and replay of a session's GPU partitions (SessionOptions::gpu_graphs), summed
// over its partitions since it was created.
struct PartitionGraphStats {
  bool enabled = false;
  int64_t captures = 0;          // graphs captured: one per partition and input signature
  int64_t replays = 0;           // partition runs that launched a captured graph
  int64_t direct_runs = 0;       // partition runs that launched each kernel (graphs off, a capture that
                                 // failed, a signature past the per-partition limit, or a graph busy in
                                 // another thread)
  int64_t failures = 0;          // captures that failed; the partition then ran directly
  int64_t shape_inferences = 0;  // partition runs that inferred their steps' shapes (once per input signature)
  std::string last_failure;      // why the last one failed
  std::string summary() const;   // "graphs on: 2 captured, 98 replays, 0 direct runs"
};

// Where one node runs, and why not on an earlier device of the list.
struct NodePlacement {
  std::string node;     // the node's name ("#12" when it has none)
  std::string op_type;  // "Conv"; fused nodes keep their domain: "com.hipinfer.FusedConv"
  std::string device;   // "cpu", "cuda:0"
  std::string reason;   // empty when on the first device; else why each earlier one did not take it
};

struct PlacementReport {
  std::vector<std::string> devices;  // the list as resolved: "cuda:0", "cpu"; "gpu (none)" when absent
  std::vector<NodePlacement> nodes;  // in execution order
  int64_t fallbacks = 0;             // nodes not on the first device
  int64_t count_on(const std::string& device) const;
  // "105 nodes: 105 on cpu; 105 fallbacks from gpu (105: no GPU: no CUDA driver)"
  std::string summary() const;
  // One line per node (hipinfer run --explain), then the summary.
  std::string table() const;
};

class Session {
 public:
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Loads, validates and prepares a model. Errors name the file, node, tensor and the
  // expected and actual values; every unsupported op is listed in one message.
  static Result<std::unique_ptr<Session>> create(const std::string& path, const SessionOptions& options = {});
  static Result<std::unique_ptr<Session>> create_from_bytes(const void* data, size_t size,
                                                            const SessionOptions& options = {});

  const std::vector<TensorInfo>& inputs() const;
  const std::vector<TensorInfo>& outputs() const;
  const ModelMetadata& metadata() const;

  // Runs the model. Inputs are checked (names, dtypes, shapes) before anything runs; symbolic
  // dims must agree across inputs. `output_names` empty = all outputs, in model order.
  // Safe to call from several threads at once.
  // `run_options` (may be null) sets a time limit and lets another thread cancel the run.
  // A model whose inputs or asked-for outputs are not all tensors needs run_values().
  Result<TensorMap> run(const TensorMap& inputs, const std::vector<std::string>& output_names = {},
                        RunStats* stats = nullptr, const RunOptions* run_options = nullptr) const;
  // run() for values of any kind (hipinfer/value.h): sequences, maps, sequences of maps (ZipMap)
  // and optionals (an absent optional input may be left out or given as a kNone Value). Each input
  // is checked against its declared kind and element types.
  Result<ValueMap> run_values(const ValueMap& inputs, const std::vector<std::string>& output_names = {},
                              RunStats* stats = nullptr, const RunOptions* run_options = nullptr) const;

  // Where each node runs and every fallback's reason (placement is decided at create()).
  const PlacementReport& placement() const;
  // What create() found worth telling the user (fallbacks); the CLI prints them, Python warns.
  const std::vector<std::string>& warnings() const;
  // Graph capture and replay of the GPU partitions so far; enabled is false without any.
  PartitionGraphStats graph_stats() const;
  SessionMemoryStats memory_stats() const;

  struct Impl;

 private:
  explicit Session(std::unique_ptr<Impl> impl);
  // The run behind both: exactly one of `tensors` and `values` is given; `results` receives the
  // outputs in the order of `wanted` (indices into outputs()).
  Status run_guarded(const TensorMap* tensors, const ValueMap* values, const std::vector<std::string>& output_names,
                     RunStats* stats, const RunOptions* run_options, std::vector<size_t>* wanted,
                     std::vector<Value>* results) const;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hi
HI_PUBLIC_END
