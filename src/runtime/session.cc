// Session: the public entry point. Loads and validates a model, checks inputs, runs it.
#include "hipinfer/session.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <thread>

#include "core/memory_budget.h"
#include "core/run_control.h"
#include "core/threading.h"
#include "backends/cpu/kernels/fastest.h"
#include "onnx/model_reader.h"
#include "ops/internal.h"
#include "passes/passes.h"
#include "runtime/backend.h"
#include "runtime/executor.h"
#include "runtime/partition.h"
#include "runtime/pass_target.h"
#include "runtime/placement.h"
#include "runtime/run_trace.h"
#include "runtime/tensor_info.h"

namespace hi {

struct Session::Impl {
  std::shared_ptr<MemoryBudget> budget;  // what the session holds; destroyed after what it counts
  ir::Model model;                       // owns the nodes the executor points into
  std::unique_ptr<ops::Executor> executor;
  std::vector<TensorInfo> inputs, outputs;
  ModelMetadata metadata;
  SessionOptions options;
  int threads = 1;                           // resolved intra-op thread count
  std::unique_ptr<ThreadGovernor> governor;  // the thread count of each run
  cpu::KernelTuning tuning;                  // from kernel_tuning and the kernel cache options
  passes::PassReport passes;                 // what the graph passes rewrote
  PlacementReport placement;                 // where each node runs
  std::vector<std::string> warnings;
  std::map<int64_t, ops::CompiledPartition> partitions;  // what its DevicePartition nodes run, by id
};

TensorInfo runtime::tensor_info(const ir::ValueInfo& vi) {
  TensorInfo t;
  t.name = vi.name;
  t.type = vi.type.ort_string();
  const ir::ValueType* type = &vi.type;
  switch (vi.type.kind) {
    case ir::ValueKind::kSequence: t.kind = "sequence"; break;
    case ir::ValueKind::kOptional: t.kind = "optional"; break;
    case ir::ValueKind::kMap: t.kind = "map"; break;
    default: break;
  }
  while (type->kind != ir::ValueKind::kTensor && type->elem) type = type->elem.get();
  t.dtype = type->dtype;
  t.rank_known = type->has_rank();
  if (type->shape)
    for (const auto& d : *type->shape) {
      t.shape.push_back(d.value);
      t.dim_names.push_back(d.is_known() ? "" : d.symbol);
    }
  return t;
}

namespace {

// The smallest axis that `input` indexes as a Gather's indices, with that axis's size known.
int64_t index_limit(const ops::Executor& ex, const std::string& input) {
  int64_t limit = 0;
  for (size_t i = 0; i < ex.num_nodes(); ++i) {
    const ir::Node& n = ex.node(i);
    if (n.op_type != "Gather" || !n.domain.empty() || n.inputs.size() < 2 || n.inputs[1] != input) continue;
    const ir::ValueType* data = ex.value_type(n.inputs[0]);
    if (!data || !data->has_rank() || data->rank() == 0) continue;
    int64_t axis = 0;
    if (const ir::Attribute* a = n.attr("axis"); a && a->kind == ir::Attribute::Kind::kInt) axis = a->i;
    if (axis < 0) axis += static_cast<int64_t>(data->rank());
    if (axis < 0 || axis >= static_cast<int64_t>(data->rank())) continue;
    const ir::Dim& d = (*data->shape)[static_cast<size_t>(axis)];
    if (d.is_known() && d.value > 0) limit = limit == 0 ? d.value : std::min(limit, d.value);
  }
  return limit;
}

// Replaces each run of nodes placed on a device by one DevicePartition node, compiles the run with
// the device's backend, and rebuilds the executor over the rewritten graph: it owns the runners.
Status split_into_partitions(Session::Impl& impl, const std::vector<const runtime::Backend*>& backends,
                             const runtime::HostInputsQuery& host_inputs, ops::BuildOptions bo, bool cpu_listed) {
  const ops::Executor& ex = *impl.executor;
  std::vector<const ir::Node*> executed;
  for (size_t i = 0; i < ex.num_nodes(); ++i) executed.push_back(&ex.node(i));
  std::vector<std::string> graph_outputs;
  for (const auto& o : impl.model.graph.outputs) graph_outputs.push_back(o.name);
  // Nodes the executor made itself (expanded model-local functions) are not in the graph's node
  // list, so they cannot be replaced there: they stay on the CPU.
  std::set<const ir::Node*> in_graph;
  for (const ir::Node& n : impl.model.graph.nodes) in_graph.insert(&n);
  for (size_t i = 0; i < executed.size(); ++i) {
    NodePlacement& p = impl.placement.nodes[i];
    if (in_graph.count(executed[i]) || p.device == "cpu") continue;
    p.device = "cpu";
    p.reason = "gpu: nodes expanded from a model-local function run on the CPU";
    ++impl.placement.fallbacks;
  }
  impl.warnings = runtime::placement_warnings(impl.placement);
  const std::vector<runtime::Partition> parts =
      runtime::find_partitions(executed, impl.placement, graph_outputs, host_inputs);
  auto typed = [&](const std::string& name) {
    const ir::ValueType* t = ex.value_type(name);
    return ir::ValueInfo{name, t ? *t : ir::ValueType{}};
  };
  std::map<const ir::Node*, size_t> first_of;  // first member -> partition index
  std::set<const ir::Node*> members;
  std::vector<ir::Node> partition_nodes;
  for (size_t p = 0; p < parts.size(); ++p) {
    const runtime::Partition& part = parts[p];
    runtime::PartitionSpec spec;
    spec.device = part.device;
    spec.opsets = impl.model.opsets;
    spec.graphs = impl.options.gpu_graphs;
    for (size_t i : part.nodes) {
      spec.nodes.push_back(*executed[i]);
      for (const auto* names : {&executed[i]->inputs, &executed[i]->outputs})
        for (const std::string& n : *names)
          if (!n.empty()) spec.types[n] = typed(n).type;
    }
    std::vector<ir::ValueType> output_types;
    for (const std::string& n : part.inputs) {
      spec.inputs.push_back(typed(n));
      if (const Tensor* c = ex.constant_value(n)) spec.constants[n] = *c;
    }
    for (const std::string& n : part.outputs) {
      spec.outputs.push_back(typed(n));
      output_types.push_back(typed(n).type);
    }
    const runtime::Backend* backend = runtime::backend_for(backends, part.device);
    HI_RETURN_IF(!backend, kInternal, "nodes were placed on ", part.device, ", which no backend of this build runs");
    auto runner = backend->compile(spec);
    if (!runner.is_ok()) {
      // A partition the device cannot take (its kernels failed their self-check, say) runs on the
      // CPU when the list allows, with the reason in the placement report and a warning.
      if (!cpu_listed || runner.status().code() != StatusCode::kUnsupported)
        return runner.status().with_context("partition " + std::to_string(p) + " on " + part.device);
      for (size_t i : part.nodes) {
        NodePlacement& np = impl.placement.nodes[i];
        np.device = "cpu";
        np.reason = "gpu: " + runner.status().message();
        ++impl.placement.fallbacks;
      }
      impl.warnings = runtime::placement_warnings(impl.placement);
      continue;
    }
    for (size_t i : part.nodes) members.insert(executed[i]);
    const auto id = static_cast<int64_t>(impl.partitions.size());
    impl.partitions[id] = {std::move(runner).value(), std::move(output_types)};
    ir::Node n;
    n.name = "DevicePartition_" + std::to_string(p) + "_" + part.device;
    n.op_type = runtime::kDevicePartitionOp;
    n.domain = ops::kInternalDomain;
    n.inputs = part.inputs;
    n.outputs = part.outputs;
    ir::Attribute a;
    a.kind = ir::Attribute::Kind::kInt;
    a.i = id;
    n.attributes["partition"] = a;
    first_of[executed[part.nodes.front()]] = partition_nodes.size();
    partition_nodes.push_back(std::move(n));
  }
  std::vector<ir::Node> rewritten;
  for (const ir::Node& n : impl.model.graph.nodes) {
    auto f = first_of.find(&n);
    if (f != first_of.end()) rewritten.push_back(partition_nodes[f->second]);
    else if (!members.count(&n)) rewritten.push_back(n);
  }
  impl.executor.reset();  // it points into the nodes about to be replaced
  impl.model.graph.nodes = std::move(rewritten);
  impl.model.opsets[ops::kInternalDomain] = 1;
  bo.partitions = impl.partitions;
  auto rebuilt = ops::Executor::build(impl.model.graph, impl.model.opsets, bo);
  if (!rebuilt.is_ok()) return rebuilt.status();
  impl.executor = std::move(rebuilt).value();
  return Status::ok();
}

// What an op refuses while the model is built comes from the model itself (its declared types and
// its constants, folded or read by inference), not from a caller's input: it is kInvalidModel.
Status model_fault(const Status& s) {
  return s.code() == StatusCode::kInvalidArgument ? Status(StatusCode::kInvalidModel, s.message()) : s;
}

ModelMetadata metadata_of(const ir::Model& m) {
  ModelMetadata md;
  md.producer_name = m.producer_name;
  md.producer_version = m.producer_version;
  md.domain = m.domain;
  md.description = m.doc_string;
  md.graph_name = m.graph.name;
  md.graph_description = m.graph_doc_string;
  md.version = m.model_version;
  md.custom_metadata_map = m.metadata_props;
  return md;
}

Status check_options(const SessionOptions& options) {
  HI_RETURN_IF(options.memory_limit < 0, kInvalidArgument, "memory_limit must be >= 0 (0: no limit of its own), got ",
               options.memory_limit);
  HI_RETURN_IF(options.constant_folding_limit < 0, kInvalidArgument,
               "constant_folding_limit must be >= 0 (0: no limit), got ", options.constant_folding_limit);
  HI_RETURN_IF(options.optimization_level < 0 || options.optimization_level > 3, kInvalidArgument,
               "optimization_level must be 0..3, got ", options.optimization_level);
  HI_RETURN_IF(options.threads < 0, kInvalidArgument, "threads must be >= 0 (0: the physical cores), got ",
               options.threads);
  // More threads than a few per logical CPU only oversubscribe, and tens of thousands make the
  // OpenMP runtime fail to start them (it aborts the process).
  const int max_threads =
      static_cast<int>(std::min<unsigned>(1024, 4 * std::max(1u, std::thread::hardware_concurrency())));
  HI_RETURN_IF(options.threads > max_threads, kInvalidArgument, "threads must be at most ", max_threads,
               " (4 per logical CPU, at most 1024), got ", options.threads);
  HI_RETURN_IF(options.kernel_tuning != "auto" && options.kernel_tuning != "time", kInvalidArgument,
               "kernel_tuning must be \"auto\" or \"time\", got \"", options.kernel_tuning, "\"");
  return Status::ok();
}

// SessionOptions::kernel_cache_dir when empty: $HIPINFER_CACHE_DIR, $XDG_CACHE_HOME/hipinfer,
// ~/.cache/hipinfer; "" when none of them is set.
std::string kernel_cache_dir(const SessionOptions& options) {
  if (!options.kernel_cache_dir.empty()) return options.kernel_cache_dir;
  auto env = [](const char* name) {
    const char* v = std::getenv(name);
    return std::string(v ? v : "");
  };
  if (std::string dir = env("HIPINFER_CACHE_DIR"); !dir.empty()) return dir;
  if (std::string dir = env("XDG_CACHE_HOME"); !dir.empty()) return dir + "/hipinfer";
  if (std::string home = env("HOME"); !home.empty()) return home + "/.cache/hipinfer";
  return "";
}

// SessionOptions::free_dimension_overrides: the named symbolic dims of the graph's inputs and
// outputs become known sizes. Returns a warning for each name that no input dim carries.
Result<std::vector<std::string>> override_free_dimensions(ir::Graph& graph,
                                                          const std::map<std::string, int64_t>& sizes) {
  std::vector<std::string> warnings;
  for (const auto& [name, size] : sizes)
    HI_RETURN_IF(size < 0, kInvalidArgument, "free dimension override '", name, "' is ", size,
                 ", expected a size of 0 or more");
  std::set<std::string> used;
  auto fix = [&](std::vector<ir::ValueInfo>& infos, bool record) {
    for (ir::ValueInfo& info : infos) {
      if (info.type.kind != ir::ValueKind::kTensor || !info.type.shape) continue;
      for (ir::Dim& d : *info.type.shape) {
        auto it = d.is_known() ? sizes.end() : sizes.find(d.symbol);
        if (it == sizes.end()) continue;
        d = ir::Dim::known(it->second);
        if (record) used.insert(it->first);
      }
    }
  };
  fix(graph.inputs, true);
  fix(graph.outputs, false);
  for (const auto& [name, size] : sizes)
    if (!used.count(name))
      warnings.push_back(
          str("free dimension override '", name, "' = ", size, " matches no symbolic dim of the model's inputs"));
  return warnings;
}

// SessionOptions::initializers: each replaces the model's initializer of that name, which must
// exist and have the same element type and shape.
Status replace_initializers(ir::Graph& graph, const std::map<std::string, Tensor>& replacements) {
  for (const auto& [name, t] : replacements) {
    auto it = graph.initializers.find(name);
    HI_RETURN_IF(it == graph.initializers.end(), kInvalidArgument, "initializer '", name,
                 "' given in the options is not an initializer of the model's graph");
    HI_RETURN_IF(!t.defined() || t.dtype() != it->second.dtype() || t.shape() != it->second.shape(), kInvalidArgument,
                 "initializer '", name, "' given in the options is ", t.type_string(), ", the model's is ",
                 it->second.type_string());
    it->second = t;
  }
  return Status::ok();
}

Result<std::unique_ptr<Session::Impl>> build(ir::Model model, const SessionOptions& options) {
  auto impl = std::make_unique<Session::Impl>();
  impl->options = options;
  impl->model = std::move(model);
  HI_ASSIGN_OR_RETURN(impl->warnings, override_free_dimensions(impl->model.graph, options.free_dimension_overrides));
  HI_RETURN_IF_ERROR(replace_initializers(impl->model.graph, options.initializers));
  impl->metadata = metadata_of(impl->model);
  impl->threads = resolve_threads(options.threads);
  impl->governor = std::make_unique<ThreadGovernor>(impl->threads, options.adapt_threads);
  impl->tuning.time_new_shapes = options.kernel_tuning == "time";
  if (const std::string dir = kernel_cache_dir(options); options.kernel_cache && !dir.empty())
    impl->tuning.cache_file = cpu::kernel_cache_file(dir);
  cpu::KernelTuningScope tuning_scope(&impl->tuning);  // constant folding may make kernels
  // Devices first: a bad list fails before the model is compiled. Only a list naming a GPU asks
  // the GPU runtimes (which initialises them).
  bool wants_gpu = false;
  for (const auto& d : options.devices) wants_gpu = wants_gpu || d != "cpu";
  const std::vector<const runtime::Backend*> backends = runtime::active_backends();
  HI_ASSIGN_OR_RETURN(
      auto devices,
      runtime::resolve_devices(options.devices, wants_gpu ? runtime::query_devices(backends) : GpuRuntimeInfo{}));
  ThreadScope thread_scope(impl->threads);
  ops::BuildOptions bo;
  bo.fold_constants = options.optimization_level >= 1;
  bo.fold_limit_bytes = options.constant_folding_limit;
  if (options.optimization_level >= 1 || options.precision != "fp32") {
    bo.memory_plan = false;  // the typing build only infers
    // The passes match on types and shapes: a first compile of the model as written infers them.
    auto typed = ops::Executor::build(impl->model.graph, impl->model.opsets, bo);
    if (!typed.is_ok()) return model_fault(typed.status()).with_context(impl->model.path);
    passes::PassOptions po;
    po.level = options.optimization_level;
    po.precision = options.precision;
    po.target = runtime::pass_target(devices.front().name.empty() ? "cpu" : devices.front().name);
    po.disabled.insert(options.disabled_passes.begin(), options.disabled_passes.end());
    const ops::Executor& t = *typed.value();
    HI_RETURN_IF_ERROR(passes::optimize(
                           impl->model, po, [&](const std::string& name) { return t.value_type(name); }, &impl->passes)
                           .with_context(impl->model.path));
  }
  bo.memory_plan = options.optimization_level >= 1;
  auto ex = ops::Executor::build(impl->model.graph, impl->model.opsets, bo);
  if (!ex.is_ok()) return model_fault(ex.status()).with_context(impl->model.path);
  impl->executor = std::move(ex).value();
  std::vector<runtime::NodeToPlace> to_place;
  for (size_t i = 0; i < impl->executor->num_nodes(); ++i) {
    runtime::NodeToPlace n;
    n.node = &impl->executor->node(i);
    for (const std::string& in : n.node->inputs) {
      const ir::ValueType* t = in.empty() ? nullptr : impl->executor->value_type(in);
      n.inputs.push_back(t ? *t : ir::ValueType{});
    }
    to_place.push_back(std::move(n));
  }
  // The backend of the first GPU listed answers placement's questions about GPU kernels (the GPU
  // backends compile one kernel source, so any answers for all).
  const runtime::Backend* gpu = runtime::first_gpu(backends);
  for (const runtime::DeviceSlot& d : devices)
    if (const runtime::Backend* b = runtime::backend_for(backends, d.name); b && d.name != "cpu") {
      gpu = b;
      break;
    }
  const runtime::GpuKernelQuery gpu_support = [gpu](const ir::Node& n, const std::vector<ir::ValueType>& in) {
    return gpu ? gpu->support(n, in) : "this build has no GPU backend (no kernel for " + n.op_type + ")";
  };
  const runtime::HostInputsQuery host_inputs = [gpu](const ir::Node& n) {
    return gpu ? gpu->host_inputs(n) : std::vector<bool>{};
  };
  auto placed = runtime::place_nodes(to_place, devices, gpu_support);
  if (!placed.is_ok()) return placed.status().with_context(impl->model.path);
  impl->placement = std::move(placed).value();
  std::vector<std::string> graph_outputs;
  for (const auto& o : impl->model.graph.outputs) graph_outputs.push_back(o.name);
  runtime::keep_shape_math_on_cpu(
      to_place, host_inputs, [&](const std::string& name) { return impl->executor->value_type(name); }, graph_outputs,
      &impl->placement);
  for (std::string& w : runtime::placement_warnings(impl->placement)) impl->warnings.push_back(std::move(w));
  if (impl->placement.count_on("cpu") < static_cast<int64_t>(impl->placement.nodes.size())) {
    bool cpu_listed = false;
    for (const auto& d : devices) cpu_listed = cpu_listed || d.name == "cpu";
    HI_RETURN_IF_ERROR(
        split_into_partitions(*impl, backends, host_inputs, bo, cpu_listed).with_context(impl->model.path));
  }
  for (const auto& in : impl->model.graph.inputs) {
    TensorInfo info = runtime::tensor_info(in);
    info.index_limit = index_limit(*impl->executor, in.name);
    impl->inputs.push_back(std::move(info));
  }
  for (const auto& out : impl->model.graph.outputs) {
    TensorInfo info = runtime::tensor_info(out);
    // Fill what the model leaves undeclared from inference.
    if (const ir::ValueType* t = impl->executor->value_type(out.name);
        t && t->kind == ir::ValueKind::kTensor && (info.dtype == DType::kUndefined || !info.rank_known)) {
      TensorInfo inferred = runtime::tensor_info({out.name, *t});
      if (info.dtype == DType::kUndefined) info.dtype = inferred.dtype;
      if (!info.rank_known) info = inferred;
    }
    impl->outputs.push_back(info);
  }
  return impl;
}

// Checks one input tensor against its declaration; binds symbolic dims.
Status check_input(const ir::ValueInfo& decl, const Tensor& t,
                   std::map<std::string, std::pair<int64_t, std::string>>& bound) {
  const ir::ValueType& type = decl.type;
  if (type.kind != ir::ValueKind::kTensor) return Status::ok();
  if (type.dtype != DType::kUndefined && t.dtype() != type.dtype)
    return error(StatusCode::kInvalidArgument, "input '", decl.name, "': expected ", dtype_name(type.dtype), ", got ",
                 dtype_name(t.dtype()));
  if (!type.shape) return Status::ok();
  const auto& dims = *type.shape;
  if (static_cast<int64_t>(dims.size()) != t.rank())
    return error(StatusCode::kInvalidArgument, "input '", decl.name, "': expected rank ", dims.size(), " (",
                 type.to_string(), "), got ", t.type_string());
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t actual = t.dim(static_cast<int64_t>(i));
    if (dims[i].is_known() && dims[i].value != actual)
      return error(StatusCode::kInvalidArgument, "input '", decl.name, "': dim ", i, " must be ", dims[i].value, " (",
                   type.to_string(), "), got ", t.type_string());
    if (!dims[i].is_known() && !dims[i].symbol.empty()) {
      auto [it, inserted] = bound.emplace(dims[i].symbol, std::make_pair(actual, decl.name));
      if (!inserted && it->second.first != actual)
        return error(StatusCode::kInvalidArgument, "dim '", dims[i].symbol, "' is ", it->second.first, " in input '",
                     it->second.second, "' but ", actual, " in input '", decl.name, "'");
    }
  }
  return Status::ok();
}

// A value of run_values() against its input's declared kind and element types (a tensor's
// shape is check_input's).
Status check_value_kind(const std::string& name, const ir::ValueType& type, const Value& v) {
  auto mismatch = [&] {
    return error(StatusCode::kInvalidArgument, "input '", name, "': expected ", type.to_string(), ", got ",
                 v.describe());
  };
  auto dtype_ok = [](const ir::ValueType* t, const Tensor& x) {
    return !t || t->kind != ir::ValueKind::kTensor || t->dtype == DType::kUndefined || t->dtype == x.dtype();
  };
  switch (type.kind) {
    case ir::ValueKind::kUnknown: return Status::ok();
    case ir::ValueKind::kTensor: return v.is_tensor() ? Status::ok() : mismatch();
    case ir::ValueKind::kOptional:
      return v.is_none() || !type.elem ? Status::ok() : check_value_kind(name, *type.elem, v);
    case ir::ValueKind::kSequence: {
      const ir::ValueType* elem = type.elem.get();
      if (elem && elem->kind == ir::ValueKind::kMap) {
        if (v.kind != Value::Kind::kMapSequence) return mismatch();
        for (const Map& m : v.maps) HI_RETURN_IF_ERROR(check_value_kind(name, *elem, Value::of_map(m)));
        return Status::ok();
      }
      if (v.kind != Value::Kind::kSequence) return mismatch();
      for (size_t i = 0; i < v.sequence.size(); ++i)
        if (!dtype_ok(elem, v.sequence[i]))
          return error(StatusCode::kInvalidArgument, "input '", name, "': element ", i, " must be ",
                       dtype_name(elem->dtype), ", got ", v.sequence[i].type_string());
      return Status::ok();
    }
    case ir::ValueKind::kMap: {
      if (v.kind != Value::Kind::kMap || v.maps.size() != 1) return mismatch();
      const Map& m = v.maps[0];
      if (m.keys.rank() != 1 || m.values.rank() < 1 || m.values.dim(0) != m.keys.numel())
        return error(StatusCode::kInvalidArgument, "input '", name, "': a map's keys must be 1-D and its values ",
                     "hold one entry per key, got keys ", m.keys.type_string(), " and values ", m.values.type_string());
      if ((type.dtype != DType::kUndefined && m.keys.dtype() != type.dtype) || !dtype_ok(type.elem.get(), m.values))
        return mismatch();
      return Status::ok();
    }
  }
  return mismatch();
}

// Reads and builds a session within its memory budget. The model's serialized bytes count while
// they are parsed: `parse_bytes` is what reading holds besides the tensors it makes.
template <typename Read>
Result<std::unique_ptr<Session::Impl>> create_impl(const SessionOptions& options, int64_t parse_bytes,
                                                   const std::string& what, Read&& read) {
  HI_RETURN_IF_ERROR(check_options(options));
  auto budget = std::make_shared<MemoryBudget>(options.memory_limit);
  MemoryBudgetScope scope(budget);
  Result<ir::Model> model = Status::ok();
  try {
    budget->charge(parse_bytes);
    model = read();
    budget->credit(parse_bytes);
  } catch (const OutOfMemory& e) {
    return error(StatusCode::kOutOfMemory, what, ": ", e.what);
  }
  if (!model.is_ok()) return model.status();
  auto impl = build(std::move(model).value(), options);
  if (impl.is_ok()) impl.value()->budget = std::move(budget);
  return impl;
}

// Every public entry point: no exception crosses the API. Kernels' are caught at their node
// already; these are what the code around them may throw (an allocation in a pass, say).
template <typename F>
auto at_api_boundary(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const OutOfMemory& e) {
    return error(StatusCode::kOutOfMemory, e.what);
  } catch (const std::bad_alloc&) {
    return error(StatusCode::kOutOfMemory, "out of host memory");
  } catch (const RunStopped& e) {
    return e.status;
  } catch (const TensorTypeMismatch& e) {
    return error(StatusCode::kInternal, e.what);
  } catch (const std::exception& e) {
    return error(StatusCode::kInternal, "unexpected exception: ", e.what());
  } catch (...) {
    return error(StatusCode::kInternal, "unexpected exception of an unknown type");
  }
}

}  // namespace

std::string TensorInfo::to_string() const {
  std::string s = dtype_name(dtype);
  if (!rank_known) s += "[...]";
  else {
    s += "[";
    for (size_t i = 0; i < shape.size(); ++i) {
      s += i ? ", " : "";
      s += shape[i] >= 0 ? std::to_string(shape[i]) : (dim_names[i].empty() ? "?" : dim_names[i]);
    }
    s += "]";
  }
  return kind == "tensor" ? s : kind + "<" + s + ">";
}

Session::Session(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Session::~Session() = default;

Result<std::unique_ptr<Session>> Session::create(const std::string& path, const SessionOptions& options) {
  return at_api_boundary([&]() -> Result<std::unique_ptr<Session>> {
    // Reading holds the file's bytes and the parsed protobuf besides the tensors it makes.
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    const int64_t parse_bytes = ec ? 0 : 2 * static_cast<int64_t>(std::min<uintmax_t>(size, INT64_MAX / 4));
    HI_ASSIGN_OR_RETURN(auto impl,
                        create_impl(options, parse_bytes, path, [&] { return onnx_reader::read_model_file(path); }));
    return std::unique_ptr<Session>(new Session(std::move(impl)));
  });
}

Result<std::unique_ptr<Session>> Session::create_from_bytes(const void* data, size_t size,
                                                            const SessionOptions& options) {
  return at_api_boundary([&]() -> Result<std::unique_ptr<Session>> {
    const int64_t parse_bytes = static_cast<int64_t>(std::min<size_t>(size, INT64_MAX / 4));
    HI_ASSIGN_OR_RETURN(auto impl, create_impl(options, parse_bytes, "the model bytes",
                                               [&] { return onnx_reader::read_model_bytes(data, size, ""); }));
    return std::unique_ptr<Session>(new Session(std::move(impl)));
  });
}

const std::vector<TensorInfo>& Session::inputs() const { return impl_->inputs; }
const std::vector<TensorInfo>& Session::outputs() const { return impl_->outputs; }
const PlacementReport& Session::placement() const { return impl_->placement; }
const ModelMetadata& Session::metadata() const { return impl_->metadata; }
const std::vector<std::string>& Session::warnings() const { return impl_->warnings; }

SessionMemoryStats Session::memory_stats() const {
  return {impl_->budget->used(), impl_->budget->peak(), impl_->budget->limit()};
}

PartitionGraphStats Session::graph_stats() const {
  PartitionGraphStats total;
  for (const auto& [id, p] : impl_->partitions) {
    const PartitionGraphStats s = p.runner->graph_stats();
    total.enabled = total.enabled || s.enabled;
    total.captures += s.captures;
    total.replays += s.replays;
    total.direct_runs += s.direct_runs;
    total.failures += s.failures;
    total.shape_inferences += s.shape_inferences;
    if (!s.last_failure.empty()) total.last_failure = s.last_failure;
  }
  return total;
}

Result<TensorMap> Session::run(const TensorMap& inputs, const std::vector<std::string>& output_names, RunStats* stats,
                               const RunOptions* run_options) const {
  return at_api_boundary([&]() -> Result<TensorMap> {
    std::vector<size_t> wanted;
    std::vector<Value> results;
    HI_RETURN_IF_ERROR(run_guarded(&inputs, nullptr, output_names, stats, run_options, &wanted, &results));
    TensorMap out;
    const auto& outs = impl_->executor->graph_outputs();
    for (size_t k = 0; k < wanted.size(); ++k) {
      if (!results[k].is_tensor())
        return error(StatusCode::kInvalidArgument, "output '", outs[wanted[k]].name, "' is ", results[k].describe(),
                     "; Session::run returns tensors only, use Session::run_values");
      out[outs[wanted[k]].name] = std::move(results[k].tensor);
    }
    return out;
  });
}

Result<ValueMap> Session::run_values(const ValueMap& inputs, const std::vector<std::string>& output_names,
                                     RunStats* stats, const RunOptions* run_options) const {
  return at_api_boundary([&]() -> Result<ValueMap> {
    std::vector<size_t> wanted;
    std::vector<Value> results;
    HI_RETURN_IF_ERROR(run_guarded(nullptr, &inputs, output_names, stats, run_options, &wanted, &results));
    ValueMap out;
    const auto& outs = impl_->executor->graph_outputs();
    for (size_t k = 0; k < wanted.size(); ++k) out[outs[wanted[k]].name] = std::move(results[k]);
    return out;
  });
}

Status Session::run_guarded(const TensorMap* tensors, const ValueMap* given,
                            const std::vector<std::string>& output_names, RunStats* stats,
                            const RunOptions* run_options, std::vector<size_t>* wanted,
                            std::vector<Value>* results) const {
  const auto start = std::chrono::steady_clock::now();
  if (run_options && run_options->timeout_ms < 0)
    return error(StatusCode::kInvalidArgument, "RunOptions::timeout_ms must be >= 0 (0: none), got ",
                 run_options->timeout_ms);
  RunControlScope control(run_options);
  HI_RETURN_IF_ERROR(run_stop_status());
  MemoryBudgetScope budget(impl_->budget);
  const auto& ex = *impl_->executor;
  // Inputs: every given name must be known; every required one present.
  std::set<std::string> known;
  for (const auto& in : ex.graph_inputs()) known.insert(in.name);
  for (const auto& in : ex.overridable()) known.insert(in.name);
  auto check_known = [&](const std::string& name) -> Status {
    if (known.count(name)) return Status::ok();
    std::string list;
    for (const auto& in : ex.graph_inputs()) list += (list.empty() ? "'" : ", '") + in.name + "'";
    return error(StatusCode::kInvalidArgument, "'", name, "' is not an input of the model; its inputs are ", list);
  };
  if (tensors)
    for (const auto& entry : *tensors) HI_RETURN_IF_ERROR(check_known(entry.first));
  if (given)
    for (const auto& entry : *given) HI_RETURN_IF_ERROR(check_known(entry.first));
  std::vector<ops::Value> values;
  std::map<std::string, std::pair<int64_t, std::string>> bound;
  // The caller's value for `decl`, checked against its declaration; false when not given.
  auto take = [&](const ir::ValueInfo& decl, bool* found) -> Status {
    *found = false;
    if (tensors) {
      auto it = tensors->find(decl.name);
      if (it == tensors->end()) return Status::ok();
      *found = true;
      HI_RETURN_IF_ERROR(check_input(decl, it->second, bound));
      values.push_back(ops::Value::of(it->second));
      return Status::ok();
    }
    auto it = given->find(decl.name);
    if (it == given->end()) return Status::ok();
    *found = true;
    if (it->second.is_tensor()) HI_RETURN_IF_ERROR(check_input(decl, it->second.tensor, bound));
    HI_RETURN_IF_ERROR(check_value_kind(decl.name, decl.type, it->second));
    values.push_back(it->second);
    return Status::ok();
  };
  std::vector<std::string> missing;
  for (const auto& decl : ex.graph_inputs()) {
    bool found = false;
    HI_RETURN_IF_ERROR(take(decl, &found));
    if (found) continue;
    // An optional input may be left out: it is absent.
    if (decl.type.kind == ir::ValueKind::kOptional) values.emplace_back();
    else missing.push_back(decl.name);
  }
  if (!missing.empty()) {
    std::string list;
    for (const auto& m : missing) list += (list.empty() ? "'" : ", '") + m + "'";
    return error(StatusCode::kInvalidArgument, "missing model input", missing.size() > 1 ? "s " : " ", list);
  }
  for (const auto& decl : ex.overridable()) {
    bool found = false;
    HI_RETURN_IF_ERROR(take(decl, &found));
    if (!found) values.emplace_back();
  }
  // Outputs asked for must exist.
  const auto& outs = ex.graph_outputs();
  if (output_names.empty()) {
    for (size_t i = 0; i < outs.size(); ++i) wanted->push_back(i);
  } else {
    for (const auto& name : output_names) {
      size_t i = 0;
      while (i < outs.size() && outs[i].name != name) ++i;
      if (i == outs.size()) return error(StatusCode::kInvalidArgument, "'", name, "' is not an output of the model");
      wanted->push_back(i);
    }
  }
  const int64_t host_before = host_memory_stats().allocated_bytes;
  const int threads = impl_->governor->threads_for_run();
  ThreadScope thread_scope(threads);
  RegionLoad region_load;
  region_load.full_threads = impl_->governor->full();
  cpu::KernelTuningScope tuning_scope(&impl_->tuning);
  const int64_t timed_before = cpu::shapes_timed();
  std::vector<ops::Value> all;
  int64_t arena_bytes = 0, activation_bytes = 0;
  std::vector<double> node_ms;
  const bool profile = impl_->options.profile && stats;
  std::vector<NodeTraffic> traffic;
  const GpuActivity gpu_before = stats ? gpu_activity() : GpuActivity{};
  {
    runtime::TrafficTrace trace(profile ? &traffic : nullptr);
    RegionLoadScope load_scope(&region_load);
    Status ran =
        ex.run(std::move(values), &all, nullptr, &arena_bytes, &activation_bytes, profile ? &node_ms : nullptr);
    impl_->governor->after_run(threads, region_load);
    HI_RETURN_IF_ERROR(ran);
  }
  for (size_t i : *wanted) results->push_back(all[i]);
  if (stats) {
    stats->latency_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    stats->nodes_executed = static_cast<int64_t>(ex.num_nodes());
    stats->peak_host_bytes = host_memory_stats().peak_bytes - host_before;
    stats->planned_arena_bytes = arena_bytes;
    stats->planned_activation_bytes = activation_bytes;
    stats->fallback_nodes = impl_->placement.fallbacks;
    stats->threads = threads;
    stats->shapes_timed = cpu::shapes_timed() - timed_before;
    stats->gpu = gpu_activity() - gpu_before;
    stats->node_traffic = std::move(traffic);
    stats->node_times.clear();
    for (size_t i = 0; i < node_ms.size(); ++i)
      stats->node_times.push_back(
          {runtime::node_label(ex.node(i), i), runtime::op_label(ex.node(i)), node_ms[i], ex.kernel_name(i)});
  }
  return Status::ok();
}

}  // namespace hi
