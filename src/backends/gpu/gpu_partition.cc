// The GPU executor (see gpu_partition.h). A partition compiles into steps, one per node: the
// node's GPU op (gpu_op.h) reads its attributes once, and the node's CPU op is kept for its
// shape inference, which gives each step its output shapes at run time (symbolic dims are only
// known then). Constants (weights) go to the device once per runner. A run then either
//   - runs directly: the other inputs to the device, the steps in order on the calling thread's
//     stream, each output from the device's caching allocator and each buffer back after its last
//     reader (stream-ordered, so the next step may reuse it at once), or
//   - replays a graph: per input signature (the shapes, and the values of inputs read on the
//     host), the first run goes direct, the second plans every buffer into one arena and
//     captures the steps' launches into a graph; it and later runs copy the inputs into the
//     arena and launch the graph.
// Either way the outputs come back to host tensors and the run synchronises once.
#include "backends/gpu/gpu_partition.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <set>

#include "backends/gpu/device_allocator.h"
#include "backends/gpu/gpu_op.h"
#include "backends/gpu/kernel_self_check.h"
#include "ops/op.h"
#include "runtime/memory_plan.h"
#include "runtime/placement.h"
#include "runtime/run_trace.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

struct Step {
  ir::Node node;
  std::unique_ptr<ops::Op> cpu_op;  // for shape inference
  std::unique_ptr<GpuKernel> kernel;
  std::vector<int> in, out;  // value slots (-1: absent)
};

// The graph of one input signature: its values at fixed addresses in one arena, and the
// instantiated graph of the partition's launches over them.
struct GraphEntry {
  std::mutex busy;  // held by the run replaying it
  void* arena = nullptr;
  std::vector<DeviceValue> values;
  GraphExec exec = nullptr;
};

// At most this many graphs per partition: inputs whose shapes change on every run (dynamic
// sequence lengths) would otherwise hold an arena each, forever. Later signatures run directly.
constexpr size_t kMaxGraphsPerPartition = 8;

class GpuPartitionRunner final : public runtime::PartitionRunner {
 public:
  ~GpuPartitionRunner() override;
  static Result<std::shared_ptr<GpuPartitionRunner>> compile(const runtime::PartitionSpec& spec);
  Status run(const std::vector<const Tensor*>& inputs, std::vector<Tensor>* outputs) const override;
  PartitionGraphStats graph_stats() const override;
  // A profiled run's traffic: every step's input and output bytes (an aliasing step moves none).
  void note_traffic(const std::vector<DeviceValue>& v) const;
  int device() const { return device_; }

 private:
  int device_ = 0;
  std::string device_name_;  // "emu:0": what the traffic of its nodes says
  bool use_graphs_ = true;
  std::map<std::string, int> slots_;
  std::vector<std::string> names_;
  std::vector<int> input_slots_, output_slots_;
  std::vector<bool> input_constant_;
  std::vector<bool> input_read_on_host_;  // some step reads this input's values on the host
  std::vector<Step> steps_;
  std::vector<int> last_use_;  // per slot: the last step reading it (outputs: steps_.size())
  // Weights on the device, uploaded on the first run.
  mutable std::mutex constants_mutex_;
  mutable std::map<int, void*> constants_;
  // Graphs by input signature.
  mutable std::mutex graphs_mutex_;
  mutable std::map<std::string, std::unique_ptr<GraphEntry>> graphs_;
  mutable std::set<std::string> warmed_;  // signatures run once, directly
  // Inferred values (dtypes, shapes, aliases) by input signature, at most kMaxShapeSignatures.
  static constexpr size_t kMaxShapeSignatures = 64;
  mutable std::mutex shapes_mutex_;
  mutable std::map<std::string, std::vector<DeviceValue>> shapes_;
  mutable PartitionGraphStats stats_;  // under graphs_mutex_

  int slot(const std::string& name) {
    auto [it, inserted] = slots_.emplace(name, static_cast<int>(names_.size()));
    if (inserted) names_.push_back(name);
    return it->second;
  }
  Status infer_shapes(const std::vector<const Tensor*>& inputs, const std::vector<const Tensor*>& host,
                      std::vector<DeviceValue>* v) const;
  // infer_shapes once per input signature (`key`, signature(): the inputs' shapes and the values
  // of those read on the host, which are all a step's output shape can depend on, as a graph's
  // replay assumes too): a run of a known signature infers nothing.
  Status shapes_for(const std::string& key, const std::vector<const Tensor*>& inputs,
                    const std::vector<const Tensor*>& host, std::vector<DeviceValue>* v) const;
  Result<void*> constant_on_device(int slot, const Tensor& t) const;
  std::string signature(const std::vector<const Tensor*>& inputs) const;
  // Launches every step; workspaces[k]: step k's scratch memory (pointer, bytes).
  Status launch_steps(std::vector<DeviceValue>& v, const std::vector<const Tensor*>& host,
                      const std::vector<std::pair<void*, size_t>>& workspaces, Stream stream) const;
  Status run_direct(const std::vector<const Tensor*>& inputs, std::vector<DeviceValue> v,
                    const std::vector<const Tensor*>& host, std::vector<Tensor>* outputs) const;
  Result<std::unique_ptr<GraphEntry>> capture(const std::vector<const Tensor*>& inputs, std::vector<DeviceValue> v,
                                              const std::vector<const Tensor*>& host) const;
  void release(GraphEntry& g) const;
  Status replay(GraphEntry& g, const std::vector<const Tensor*>& inputs, std::vector<Tensor>* outputs) const;
  void count(int64_t PartitionGraphStats::*field) const {
    std::lock_guard<std::mutex> lock(graphs_mutex_);
    ++(stats_.*field);
  }
};

GpuPartitionRunner::~GpuPartitionRunner() {
  if (!set_device(device_).is_ok()) return;
  for (auto& [key, g] : graphs_) release(*g);
  for (auto& [slot, ptr] : constants_) (void)device_free(ptr);
}

// A graph's instance and arena, once no run uses them (the current device is the runner's).
void GpuPartitionRunner::release(GraphEntry& g) const {
  if (g.exec) (void)graph_destroy(g.exec);
  auto alloc = device_allocator(device_);
  if (g.arena && alloc.is_ok()) (void)alloc.value()->free(g.arena, per_thread_stream());
  g.exec = nullptr;
  g.arena = nullptr;
}

Result<std::shared_ptr<GpuPartitionRunner>> GpuPartitionRunner::compile(const runtime::PartitionSpec& spec) {
  auto r = std::make_shared<GpuPartitionRunner>();
  const size_t colon = spec.device.find(':');
  r->device_name_ = spec.device;
  r->device_ = colon == std::string::npos ? 0 : std::stoi(spec.device.substr(colon + 1));
  r->use_graphs_ = spec.graphs;
  for (const ir::ValueInfo& in : spec.inputs) {
    r->input_slots_.push_back(r->slot(in.name));
    r->input_constant_.push_back(spec.constants.count(in.name) > 0);
  }
  r->input_read_on_host_.assign(r->input_slots_.size(), false);
  for (const ir::Node& n : spec.nodes) {
    std::vector<ir::ValueType> in_types;
    for (const std::string& i : n.inputs) in_types.push_back(i.empty() ? ir::ValueType{} : spec.types.at(i));
    const std::string reason = gpu_why_not(n, in_types);
    if (!reason.empty()) return error(StatusCode::kUnsupported, n.describe(), ": ", reason);
    Step s;
    s.node = n;
    const std::string domain = n.domain == "ai.onnx" ? "" : n.domain;
    const ops::OpEntry* entry = ops::find_op(domain, n.op_type);
    HI_RETURN_IF(!entry, kInternal, n.describe(), ": no op to infer its shapes");
    s.cpu_op = entry->make();
    auto opset = spec.opsets.find(domain);
    ops::InitContext ictx(s.node, opset == spec.opsets.end() ? 1 : opset->second);
    HI_RETURN_IF_ERROR(s.cpu_op->init(ictx));
    s.kernel = find_gpu_op(domain, n.op_type)->make(n);
    HI_RETURN_IF_ERROR(s.kernel->init(ictx).with_context(n.describe()));
    HI_RETURN_IF_ERROR(ictx.status());
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      const std::string& name = n.inputs[i];
      s.in.push_back(name.empty() ? -1 : r->slot(name));
      if (name.empty() || !s.kernel->reads_on_host(i)) continue;
      auto it =
          std::find_if(spec.inputs.begin(), spec.inputs.end(), [&](const ir::ValueInfo& v) { return v.name == name; });
      HI_RETURN_IF(it == spec.inputs.end(), kUnsupported, n.describe(), ": reads '", name,
                   "' on the host, but it is computed on the GPU");
      r->input_read_on_host_[static_cast<size_t>(it - spec.inputs.begin())] = true;
    }
    for (const std::string& o : n.outputs) s.out.push_back(o.empty() ? -1 : r->slot(o));
    r->steps_.push_back(std::move(s));
  }
  for (const ir::ValueInfo& out : spec.outputs) r->output_slots_.push_back(r->slot(out.name));
  r->last_use_.assign(r->names_.size(), -1);
  for (size_t k = 0; k < r->steps_.size(); ++k)
    for (int i : r->steps_[k].in)
      if (i >= 0) r->last_use_[static_cast<size_t>(i)] = static_cast<int>(k);
  for (int o : r->output_slots_) r->last_use_[static_cast<size_t>(o)] = static_cast<int>(r->steps_.size());
  return r;
}

// Every slot's dtype, shape and root (aliases point at the slot that owns the bytes), from the
// ops' own inference over the concrete input shapes.
Status GpuPartitionRunner::infer_shapes(const std::vector<const Tensor*>& inputs,
                                        const std::vector<const Tensor*>& host,
                                        std::vector<DeviceValue>* values) const {
  std::vector<DeviceValue>& v = *values;
  v.assign(names_.size(), DeviceValue{});
  for (size_t i = 0; i < inputs.size(); ++i) {
    DeviceValue& d = v[static_cast<size_t>(input_slots_[i])];
    d.dtype = inputs[i]->dtype();
    d.shape = inputs[i]->shape();
    d.root = input_slots_[i];
  }
  for (const Step& s : steps_) {
    std::vector<ir::ValueType> types;
    std::vector<const ir::ValueType*> type_ptrs;
    std::vector<const Tensor*> known;
    types.reserve(s.in.size());
    for (int i : s.in) {
      if (i < 0) {
        type_ptrs.push_back(nullptr);
        known.push_back(nullptr);
        continue;
      }
      const DeviceValue& d = v[static_cast<size_t>(i)];
      types.push_back(ir::ValueType::concrete(d.dtype, d.shape));
      type_ptrs.push_back(&types.back());
      known.push_back(host[static_cast<size_t>(i)]);  // Reshape & co. read their shape input
    }
    ops::InferContext ictx(s.node, type_ptrs, known, s.out.size());
    HI_RETURN_IF_ERROR(s.cpu_op->infer(ictx).with_context(s.node.describe()));
    for (size_t o = 0; o < s.out.size(); ++o) {
      if (s.out[o] < 0) continue;
      const ir::ValueType& t = ictx.output_type(o);
      HI_RETURN_IF(!t.is_static(), kInternal, s.node.describe(), ": output ", o, " has no concrete shape on the GPU");
      DeviceValue& d = v[static_cast<size_t>(s.out[o])];
      d.dtype = t.dtype;
      d.shape = t.concrete_shape();
      d.root = s.out[o];
    }
    if (s.kernel->aliases_input()) v[static_cast<size_t>(s.out[0])].root = v[static_cast<size_t>(s.in[0])].root;
  }
  return Status::ok();
}

Status GpuPartitionRunner::shapes_for(const std::string& key, const std::vector<const Tensor*>& inputs,
                                      const std::vector<const Tensor*>& host, std::vector<DeviceValue>* v) const {
  {
    std::lock_guard<std::mutex> lock(shapes_mutex_);
    if (auto it = shapes_.find(key); it != shapes_.end()) {
      *v = it->second;
      return Status::ok();
    }
  }
  HI_RETURN_IF_ERROR(infer_shapes(inputs, host, v));
  count(&PartitionGraphStats::shape_inferences);
  std::lock_guard<std::mutex> lock(shapes_mutex_);
  if (shapes_.size() >= kMaxShapeSignatures) shapes_.clear();  // ever-new shapes: start over
  shapes_.emplace(key, *v);
  return Status::ok();
}

Result<void*> GpuPartitionRunner::constant_on_device(int slot, const Tensor& t) const {
  std::lock_guard<std::mutex> lock(constants_mutex_);
  auto it = constants_.find(slot);
  if (it == constants_.end()) {
    void* p = nullptr;
    HI_RETURN_IF_ERROR(device_malloc(&p, t.nbytes()));  // held for the runner's life
    HI_RETURN_IF_ERROR(copy_to_device(p, t.raw(), t.nbytes()));
    it = constants_.emplace(slot, p).first;
  }
  return it->second;
}

// Dtypes and shapes of the inputs that change between runs, and the values of those read on the
// host (Reshape's shape): what a graph's launches depend on.
std::string GpuPartitionRunner::signature(const std::vector<const Tensor*>& inputs) const {
  std::string key;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (input_constant_[i]) continue;
    const Tensor& t = *inputs[i];
    key += std::to_string(static_cast<int>(t.dtype())) + shape_to_string(t.shape());
    if (input_read_on_host_[i]) key += std::string(static_cast<const char*>(t.raw()), t.nbytes());
    key += ';';
  }
  return key;
}

Status GpuPartitionRunner::launch_steps(std::vector<DeviceValue>& v, const std::vector<const Tensor*>& host,
                                        const std::vector<std::pair<void*, size_t>>& workspaces, Stream stream) const {
  for (size_t k = 0; k < steps_.size(); ++k) {
    const Step& s = steps_[k];
    if (s.kernel->aliases_input()) {
      v[static_cast<size_t>(s.out[0])].ptr = v[static_cast<size_t>(s.in[0])].ptr;
      continue;
    }
    LaunchContext ctx(s.node, s.in, s.out, v, host, stream);
    ctx.set_workspace(workspaces[k].first, workspaces[k].second);
    HI_RETURN_IF_ERROR(s.kernel->launch(ctx).with_context(s.node.describe()));
  }
  return Status::ok();
}

// Each step's outputs from the caching allocator just before it runs, each buffer back after its
// last reader (stream-ordered: the next step may reuse it at once).
Status GpuPartitionRunner::run_direct(const std::vector<const Tensor*>& inputs, std::vector<DeviceValue> v,
                                      const std::vector<const Tensor*>& host, std::vector<Tensor>* outputs) const {
  HI_ASSIGN_OR_RETURN(CachingAllocator * alloc, device_allocator(device_));
  const Stream stream = per_thread_stream();
  std::vector<bool> owned(names_.size(), false);    // the buffer is this run's to free
  std::vector<int> readers_left(names_.size(), 0);  // per owning slot: aliases not yet past their last reader
  // Returns every buffer this run still holds, also on the way out of an error.
  struct Release {
    std::vector<DeviceValue>& v;
    std::vector<bool>& owned;
    CachingAllocator* alloc;
    Stream stream;
    ~Release() {
      for (size_t i = 0; i < v.size(); ++i)
        if (owned[i] && v[i].ptr) (void)alloc->free(v[i].ptr, stream);
    }
  } release{v, owned, alloc, stream};
  auto take = [&](int slot) -> Status {
    DeviceValue& d = v[static_cast<size_t>(slot)];
    const size_t bytes = static_cast<size_t>(shape_numel(d.shape)) * dtype_size(d.dtype);
    if (bytes == 0) return Status::ok();
    HI_ASSIGN_OR_RETURN(d.ptr, alloc->allocate(bytes, stream));
    owned[static_cast<size_t>(slot)] = true;
    return Status::ok();
  };

  for (size_t i = 0; i < inputs.size(); ++i) {
    const int slot = input_slots_[i];
    const Tensor& t = *inputs[i];
    if (t.nbytes() == 0) continue;
    if (input_constant_[i]) {
      HI_ASSIGN_OR_RETURN(v[static_cast<size_t>(slot)].ptr, constant_on_device(slot, t));
      continue;
    }
    HI_RETURN_IF_ERROR(take(slot));
    HI_RETURN_IF_ERROR(
        copy_async(v[static_cast<size_t>(slot)].ptr, t.raw(), t.nbytes(), CopyKind::kHostToDevice, stream));
  }
  for (size_t k = 0; k < steps_.size(); ++k) {
    const Step& s = steps_[k];
    if (s.kernel->aliases_input()) {
      DeviceValue& y = v[static_cast<size_t>(s.out[0])];
      y.ptr = v[static_cast<size_t>(s.in[0])].ptr;
      ++readers_left[static_cast<size_t>(y.root)];
    } else {
      for (int o : s.out)
        if (o >= 0) HI_RETURN_IF_ERROR(take(o));
      LaunchContext ctx(s.node, s.in, s.out, v, host, stream);
      const Result<size_t> wanted = s.kernel->workspace_bytes(ctx);
      HI_RETURN_IF_ERROR(wanted.status().with_context(s.node.describe()));
      const size_t ws = wanted.value();
      void* scratch = nullptr;
      if (ws > 0) {
        HI_ASSIGN_OR_RETURN(scratch, alloc->allocate(ws, stream));
        ctx.set_workspace(scratch, ws);
      }
      const Status launched = s.kernel->launch(ctx).with_context(s.node.describe());
      if (scratch) HI_RETURN_IF_ERROR(alloc->free(scratch, stream));  // stream-ordered: after the launch
      HI_RETURN_IF_ERROR(launched);
    }
    // Buffers whose last reader this was go back to the allocator, once no alias of them is
    // live either.
    for (int i : s.in) {
      if (i < 0 || last_use_[static_cast<size_t>(i)] != static_cast<int>(k)) continue;
      const int root = v[static_cast<size_t>(i)].root;
      if (root != i) {
        if (--readers_left[static_cast<size_t>(root)] > 0 || last_use_[static_cast<size_t>(root)] > static_cast<int>(k))
          continue;
      } else if (readers_left[static_cast<size_t>(i)] > 0) {
        continue;
      }
      if (root >= 0 && owned[static_cast<size_t>(root)] && v[static_cast<size_t>(root)].ptr) {
        HI_RETURN_IF_ERROR(alloc->free(v[static_cast<size_t>(root)].ptr, stream));
        owned[static_cast<size_t>(root)] = false;
      }
    }
  }
  outputs->clear();
  for (int slot : output_slots_) {
    const DeviceValue& d = v[static_cast<size_t>(slot)];
    Tensor t = Tensor::empty(d.dtype, d.shape);
    if (t.nbytes() > 0) HI_RETURN_IF_ERROR(copy_async(t.raw(), d.ptr, t.nbytes(), CopyKind::kDeviceToHost, stream));
    outputs->push_back(std::move(t));
  }
  return synchronize(stream);
}

// Plans every owned buffer of the signature into one arena (the static memory plan's greedy
// offsets over the steps' liveness), then records the launches on a capture stream.
Result<std::unique_ptr<GraphEntry>> GpuPartitionRunner::capture(const std::vector<const Tensor*>& inputs,
                                                                std::vector<DeviceValue> v,
                                                                const std::vector<const Tensor*>& host) const {
  auto g = std::make_unique<GraphEntry>();
  // Liveness per owning slot: defined at step `first` (inputs: -1), read until `last`.
  ops::MemoryPlan plan;
  std::vector<int> buffer_of(names_.size(), -1);
  auto add = [&](int slot, int first) {
    const DeviceValue& d = v[static_cast<size_t>(slot)];
    buffer_of[static_cast<size_t>(slot)] = static_cast<int>(plan.buffers.size());
    ops::PlannedBuffer b;
    b.node = slot;
    b.bytes = shape_numel(d.shape) * static_cast<int64_t>(dtype_size(d.dtype));
    b.first = first + 1;  // shifted so that the inputs (step -1) start at 0
    b.last = b.first;
    plan.buffers.push_back(b);
  };
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!input_constant_[i]) add(input_slots_[i], -1);
  for (size_t k = 0; k < steps_.size(); ++k)
    if (!steps_[k].kernel->aliases_input())
      for (int o : steps_[k].out)
        if (o >= 0) add(o, static_cast<int>(k));
  for (size_t slot = 0; slot < names_.size(); ++slot) {
    const int root = v[slot].root;
    if (root < 0 || buffer_of[static_cast<size_t>(root)] < 0) continue;
    ops::PlannedBuffer& b = plan.buffers[static_cast<size_t>(buffer_of[static_cast<size_t>(root)])];
    b.last = std::max(b.last, last_use_[slot] + 1);
  }
  // Each step's scratch memory lives during that step only; asked here, outside the capture.
  const Stream stream = per_thread_stream();
  std::vector<int> workspace_of(steps_.size(), -1);
  for (size_t k = 0; k < steps_.size(); ++k) {
    const Step& s = steps_[k];
    if (s.kernel->aliases_input()) continue;
    const LaunchContext ctx(s.node, s.in, s.out, v, host, stream);
    const Result<size_t> wanted = s.kernel->workspace_bytes(ctx);
    HI_RETURN_IF_ERROR(wanted.status().with_context(s.node.describe()));
    if (wanted.value() == 0) continue;
    workspace_of[k] = static_cast<int>(plan.buffers.size());
    ops::PlannedBuffer b;
    b.node = static_cast<int>(names_.size() + k);  // any key no slot uses
    b.bytes = static_cast<int64_t>(wanted.value());
    b.first = b.last = static_cast<int>(k) + 1;
    plan.buffers.push_back(b);
  }
  ops::plan_offsets(&plan);
  HI_ASSIGN_OR_RETURN(CachingAllocator * alloc, device_allocator(device_));
  if (plan.arena_bytes > 0) {
    HI_ASSIGN_OR_RETURN(g->arena, alloc->allocate(static_cast<size_t>(plan.arena_bytes), stream));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!input_constant_[i] || inputs[i]->nbytes() == 0) continue;
    HI_ASSIGN_OR_RETURN(v[static_cast<size_t>(input_slots_[i])].ptr, constant_on_device(input_slots_[i], *inputs[i]));
  }
  for (size_t slot = 0; slot < names_.size(); ++slot) {
    const int b = buffer_of[slot];
    if (b >= 0 && plan.buffers[static_cast<size_t>(b)].bytes > 0)
      v[slot].ptr = static_cast<char*>(g->arena) + plan.buffers[static_cast<size_t>(b)].offset;
  }
  std::vector<std::pair<void*, size_t>> workspaces(steps_.size(), {nullptr, 0});
  for (size_t k = 0; k < steps_.size(); ++k) {
    if (workspace_of[k] < 0) continue;
    const ops::PlannedBuffer& b = plan.buffers[static_cast<size_t>(workspace_of[k])];
    workspaces[k] = {static_cast<char*>(g->arena) + b.offset, static_cast<size_t>(b.bytes)};
  }
  // Capture on a stream of its own: the calling thread's default stream may not be capturable.
  HI_ASSIGN_OR_RETURN(Stream capture_stream, stream_create());
  Status launched = begin_capture(capture_stream, CaptureMode::kThreadLocal);
  if (launched.is_ok()) launched = launch_steps(v, host, workspaces, capture_stream);
  Result<GraphExec> exec = end_capture(capture_stream);  // ends a started capture also after an error
  (void)stream_destroy(capture_stream);
  Status captured = !launched.is_ok() ? launched : exec.status();
  if (!captured.is_ok()) {
    if (exec.is_ok()) (void)graph_destroy(exec.value());
    if (g->arena) (void)alloc->free(g->arena, stream);
    return captured;
  }
  g->exec = exec.value();
  g->values = std::move(v);
  return g;
}

Status GpuPartitionRunner::replay(GraphEntry& g, const std::vector<const Tensor*>& inputs,
                                  std::vector<Tensor>* outputs) const {
  const Stream stream = per_thread_stream();
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (input_constant_[i] || inputs[i]->nbytes() == 0) continue;
    HI_RETURN_IF_ERROR(copy_async(g.values[static_cast<size_t>(input_slots_[i])].ptr, inputs[i]->raw(),
                                  inputs[i]->nbytes(), CopyKind::kHostToDevice, stream));
  }
  HI_RETURN_IF_ERROR(graph_launch(g.exec, stream));
  outputs->clear();
  for (int slot : output_slots_) {
    const DeviceValue& d = g.values[static_cast<size_t>(slot)];
    Tensor t = Tensor::empty(d.dtype, d.shape);
    if (t.nbytes() > 0) HI_RETURN_IF_ERROR(copy_async(t.raw(), d.ptr, t.nbytes(), CopyKind::kDeviceToHost, stream));
    outputs->push_back(std::move(t));
  }
  return synchronize(stream);
}

Status GpuPartitionRunner::run(const std::vector<const Tensor*>& inputs, std::vector<Tensor>* outputs) const {
  HI_RETURN_IF(inputs.size() != input_slots_.size(), kInternal, "GPU partition got ", inputs.size(),
               " inputs, expected ", input_slots_.size());
  std::vector<const Tensor*> host(names_.size(), nullptr);  // host values known here (inputs)
  for (size_t i = 0; i < inputs.size(); ++i) {
    HI_RETURN_IF(!inputs[i], kInvalidArgument, "GPU partition input '", names_[static_cast<size_t>(input_slots_[i])],
                 "' is absent");
    host[static_cast<size_t>(input_slots_[i])] = inputs[i];
  }
  HI_RETURN_IF_ERROR(set_device(device_));
  const std::string key = signature(inputs);
  if (!use_graphs_) {
    count(&PartitionGraphStats::direct_runs);
    std::vector<DeviceValue> v;
    HI_RETURN_IF_ERROR(shapes_for(key, inputs, host, &v));
    note_traffic(v);
    return run_direct(inputs, std::move(v), host, outputs);
  }
  GraphEntry* entry = nullptr;
  bool capture_now = false;
  {
    std::lock_guard<std::mutex> lock(graphs_mutex_);
    auto it = graphs_.find(key);
    if (it != graphs_.end()) {
      entry = it->second.get();
    } else if (graphs_.size() < kMaxGraphsPerPartition) {
      // The first run of a signature runs directly: vendor libraries create their handles and
      // the runtime loads kernels lazily then, neither of which may happen inside a capture.
      // The second captures.
      capture_now = !warmed_.insert(key).second;
      if (warmed_.size() > 4 * kMaxGraphsPerPartition) warmed_.clear();
    }
  }
  // A replay needs the entry's buffers to itself; another thread replaying the same signature
  // makes this run go direct rather than wait.
  if (entry) {
    std::unique_lock<std::mutex> busy(entry->busy, std::try_to_lock);
    if (busy.owns_lock()) {
      count(&PartitionGraphStats::replays);
      note_traffic(entry->values);
      return replay(*entry, inputs, outputs);
    }
  }
  std::vector<DeviceValue> v;
  HI_RETURN_IF_ERROR(shapes_for(key, inputs, host, &v));
  note_traffic(v);
  if (!capture_now) {
    count(&PartitionGraphStats::direct_runs);
    return run_direct(inputs, std::move(v), host, outputs);
  }
  Result<std::unique_ptr<GraphEntry>> captured = capture(inputs, v, host);
  if (!captured.is_ok()) {
    // The partition still runs; the failure is counted and kept for the session's report.
    {
      std::lock_guard<std::mutex> lock(graphs_mutex_);
      ++stats_.failures;
      stats_.last_failure = captured.status().message();
    }
    count(&PartitionGraphStats::direct_runs);
    return run_direct(inputs, std::move(v), host, outputs);
  }
  GraphEntry* g = nullptr;
  std::unique_ptr<GraphEntry> ours = std::move(captured).value();
  {
    std::lock_guard<std::mutex> lock(graphs_mutex_);
    auto it = graphs_.find(key);
    if (it == graphs_.end()) {
      it = graphs_.emplace(key, std::move(ours)).first;
      ++stats_.captures;
    }
    g = it->second.get();
  }
  if (ours) release(*ours);  // another thread captured the same signature meanwhile: keep theirs
  std::unique_lock<std::mutex> busy(g->busy, std::try_to_lock);
  if (!busy.owns_lock()) {
    count(&PartitionGraphStats::direct_runs);
    return run_direct(inputs, std::move(v), host, outputs);
  }
  count(&PartitionGraphStats::replays);
  return replay(*g, inputs, outputs);
}

void GpuPartitionRunner::note_traffic(const std::vector<DeviceValue>& v) const {
  std::vector<NodeTraffic>* sink = runtime::TrafficTrace::current();
  if (!sink) return;
  auto bytes = [&](int slot) {
    if (slot < 0) return int64_t{0};
    const DeviceValue& d = v[static_cast<size_t>(slot)];
    return shape_numel(d.shape) * static_cast<int64_t>(dtype_size(d.dtype));
  };
  for (const Step& s : steps_) {
    NodeTraffic t{s.node.name.empty() ? "#" : s.node.name, runtime::op_label(s.node), device_name_, 0, 0};
    if (!s.kernel->aliases_input()) {
      for (int i : s.in) t.bytes_read += bytes(i);
      for (int o : s.out) t.bytes_written += bytes(o);
    }
    sink->push_back(std::move(t));
  }
}

PartitionGraphStats GpuPartitionRunner::graph_stats() const {
  std::lock_guard<std::mutex> lock(graphs_mutex_);
  PartitionGraphStats s = stats_;
  s.enabled = use_graphs_;
  return s;
}

}  // namespace

std::string partition_support(const ir::Node& node, const std::vector<ir::ValueType>& inputs) {
  return gpu_why_not(node, inputs);
}

std::vector<bool> partition_host_inputs(const ir::Node& node) {
  const GpuOpEntry* e = find_gpu_op(node.domain, node.op_type);
  if (!e) return {};
  std::vector<bool> host(node.inputs.size(), false);
  const std::unique_ptr<GpuKernel> k = e->make(node);
  for (size_t i = 0; i < host.size(); ++i) host[i] = k->reads_on_host(i);
  return host;
}

Result<std::shared_ptr<runtime::PartitionRunner>> compile_partition(const runtime::PartitionSpec& spec) {
  HI_ASSIGN_OR_RETURN(auto runner, GpuPartitionRunner::compile(spec));
  HI_RETURN_IF_ERROR(kernel_self_check(runner->device()));
  return std::shared_ptr<runtime::PartitionRunner>(std::move(runner));
}

}  // namespace hi::gpu::HI_GPU_NS
