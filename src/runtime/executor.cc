// Executor: compile a graph (validate, order, infer, fold) and run it on the reference kernels.
#include "runtime/executor.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <mutex>

#include "core/memory_budget.h"
#include "core/run_control.h"
#include "ops/internal.h"
#include "backends/cpu/ops/cpu_ops.h"
#include "runtime/memory_plan.h"
#include "runtime/partition.h"
#include "runtime/placement.h"
#include "runtime/run_trace.h"
#include <new>
#include <set>

namespace hi::ops {

const ir::ValueType* OuterScope::find(const std::string& name) const {
  for (const OuterScope* s = this; s; s = s->parent) {
    auto it = s->types.find(name);
    if (it != s->types.end()) return &it->second;
  }
  return nullptr;
}

struct Executor::Frame {
  const Executor* exec;
  std::vector<Value>* values;
  const Frame* parent;

  const Value* lookup(const std::string& name) const {
    for (const Frame* f = this; f; f = f->parent) {
      const int s = f->exec->slot_of(name);
      if (s >= 0) return &(*f->values)[static_cast<size_t>(s)];
    }
    return nullptr;
  }
};

// Gives a running node's kernel access to its compiled subgraphs.
struct NodeSubgraphRunner final : SubgraphRunner {
  const std::map<std::string, std::unique_ptr<Executor>>* subgraphs;
  const std::map<std::string, Status>* failed_branches;
  const Executor::Frame* frame;

  Status run_subgraph(const std::string& attr, std::vector<Value> inputs, std::vector<Value>* outputs) const override {
    if (auto failed = failed_branches->find(attr); failed != failed_branches->end()) return failed->second;
    auto it = subgraphs->find(attr);
    HI_ASSERT(it != subgraphs->end(), "no compiled subgraph for attribute ", attr);
    return it->second->run(std::move(inputs), outputs, frame);
  }
};

namespace {

// Constant folding runs a node once when the graph is built instead of on every run. Inputs of
// up to 1M elements always fold; larger ones (a big weight's DequantizeLinear, Transpose or Cast)
// fold when no output is larger than the largest input, so folding never makes a constant much
// bigger than one the model already holds (an Expand of a large constant stays a node).
constexpr int64_t kSmallConstant = int64_t{1} << 20;

// With `limit_bytes`, outputs of a known size must also fit it together (those of unknown size
// are caught by the fold's own memory budget).
bool outputs_fit(const std::vector<ir::ValueType>& slot_types, const std::vector<int>& outputs, int64_t largest_input,
                 int64_t limit_bytes) {
  int64_t total = 0;
  for (int slot : outputs) {
    if (slot < 0) continue;
    const ir::ValueType& t = slot_types[static_cast<size_t>(slot)];
    const bool sized = t.kind == ir::ValueKind::kTensor && t.is_static();
    const int64_t numel = sized ? shape_numel(t.concrete_shape()) : -1;
    if (largest_input > kSmallConstant && (numel < 0 || numel > largest_input)) return false;
    if (limit_bytes > 0 && sized) {
      const int64_t elem = static_cast<int64_t>(std::max<size_t>(dtype_size(t.dtype), 1));
      if (numel < 0 || numel > (limit_bytes - total) / elem) return false;
      total += numel * elem;
    }
  }
  return true;
}

// A kernel failure at run or fold time, with the node named and allocation failures mapped.
template <typename F>
Status guarded(const ir::Node& node, F&& f) {
  try {
    Status s = f();
    if (!s.is_ok()) return s.with_context(node.describe());
    return s;
  } catch (const OutOfMemory& e) {
    return error(StatusCode::kOutOfMemory, node.describe(), ": ", e.what);
  } catch (const std::bad_alloc&) {
    return error(StatusCode::kOutOfMemory, node.describe(), ": out of host memory");
  } catch (const MissingInput& e) {
    return error(StatusCode::kInvalidModel, node.describe(), ": input ", e.index,
                 " is required but the node leaves it out (an empty name or too few inputs)");
  } catch (const RunStopped& e) {
    return e.status.with_context("in " + node.describe());
  } catch (const TensorTypeMismatch& e) {
    return error(StatusCode::kInternal, node.describe(), ": an input of a type its inference did not expect: ", e.what);
  }
}

// The more specific of a subgraph output's declared and inferred types (inference can lose what
// the model declares, e.g. through a body input declared without a shape).
ir::ValueType more_specific(const ir::ValueType& declared, const ir::ValueType* inferred) {
  if (!inferred || inferred->kind == ir::ValueKind::kUnknown) return declared;
  if (declared.kind != inferred->kind) return *inferred;
  ir::ValueType t = *inferred;
  if (t.kind == ir::ValueKind::kTensor) {
    if (t.dtype == DType::kUndefined) t.dtype = declared.dtype;
    if (!t.has_rank()) t.shape = declared.shape;
    else if (declared.has_rank() && declared.rank() == t.rank())
      for (size_t d = 0; d < t.shape->size(); ++d)
        if (!(*t.shape)[d].is_known() && (*declared.shape)[d].is_known()) (*t.shape)[d] = (*declared.shape)[d];
  } else if (declared.elem) {
    t.elem = std::make_shared<ir::ValueType>(more_specific(*declared.elem, t.elem.get()));
  }
  return t;
}

// A copy of `n` whose graph attributes are reduced to signatures (inputs, and outputs typed by
// the compiled subgraph): what If/Loop/Scan need to infer their output types.
ir::Node with_inferred_signatures(const ir::Node& n,
                                  const std::map<std::string, std::unique_ptr<Executor>>& subgraphs) {
  ir::Node typed = n;
  for (const auto& [attr_name, sub] : subgraphs) {
    auto sig = std::make_shared<ir::Graph>();
    const ir::Graph& g = *n.attr(attr_name)->g;
    sig->name = g.name;
    sig->inputs = g.inputs;
    sig->outputs = g.outputs;
    for (auto& o : sig->outputs) o.type = more_specific(o.type, sub->value_type(o.name));
    typed.attributes[attr_name].g = std::move(sig);
  }
  return typed;
}

// Records what each node output allocates, during the run that makes a plan.
struct RecordingAllocator final : OutputAllocator {
  int node = 0;
  std::vector<PlannedBuffer>* buffers = nullptr;
  std::map<const void*, size_t>* by_storage = nullptr;
  Tensor allocate(size_t index, DType dtype, const Shape& shape) const override {
    Tensor t = Tensor::empty(dtype, shape);
    if (dtype_size(dtype) == 0 || t.nbytes() == 0) return t;  // strings and empty tensors stay off the plan
    PlannedBuffer b;
    b.node = b.first = b.last = node;
    b.output = static_cast<int>(index);
    b.bytes = static_cast<int64_t>(t.nbytes());
    (*by_storage)[t.storage().get()] = buffers->size();
    buffers->push_back(b);
    return t;
  }
};

// Hands out the planned region of the arena for each planned node output.
struct PlannedAllocator final : OutputAllocator {
  int node = 0;
  const MemoryPlan* plan = nullptr;
  std::shared_ptr<void> arena;
  Tensor allocate(size_t index, DType dtype, const Shape& shape) const override {
    auto it = plan->by_output.find({node, static_cast<int>(index)});
    if (it == plan->by_output.end()) return Tensor();
    const PlannedBuffer& b = plan->buffers[it->second];
    const int64_t n = shape_numel(shape);
    if (dtype_size(dtype) == 0 || n < 0 || static_cast<int64_t>(dtype_size(dtype)) * n != b.bytes) return Tensor();
    return Tensor::wrap(dtype, shape, static_cast<char*>(arena.get()) + b.offset, arena);
  }
};

// While recording: each (output, input) pair of this node that its op may run in place, where
// the input is a whole recorded buffer that no other input of the node reads and the output a
// buffer made here; make_plan decides from the lifetimes which are granted.
void note_in_place(const Op& op, const std::vector<int>& inputs, int node, const std::vector<Value>& values,
                   const std::vector<Value>& outs, const std::vector<PlannedBuffer>& recorded,
                   const std::map<const void*, size_t>& by_storage, std::vector<InPlaceCandidate>* in_place) {
  auto input_tensor = [&](size_t i) -> const Tensor* {
    if (inputs[i] < 0) return nullptr;
    const Value& v = values[static_cast<size_t>(inputs[i])];
    return v.is_tensor() ? &v.tensor : nullptr;
  };
  for (size_t o = 0; o < outs.size(); ++o) {
    if (!outs[o].is_tensor()) continue;
    const auto out = by_storage.find(outs[o].tensor.storage().get());
    if (out == by_storage.end() || recorded[out->second].node != node) continue;
    for (size_t i = 0; i < inputs.size(); ++i) {
      const Tensor* t = input_tensor(i);
      if (!t || !op.may_run_in_place(o, i)) continue;
      const auto in = by_storage.find(t->storage().get());
      if (in == by_storage.end() || t->raw() != t->storage().get() ||
          static_cast<int64_t>(t->nbytes()) != recorded[in->second].bytes)
        continue;
      bool read_twice = false;
      for (size_t j = 0; j < inputs.size(); ++j)
        if (const Tensor* other = input_tensor(j); j != i && other && other->storage() == t->storage())
          read_twice = true;
      if (!read_twice) in_place->push_back({node, in->second, out->second});
    }
  }
}

}  // namespace

// Plans are kept for the most recently used input shapes only (a plan is a list of offsets, small).
// Idle arenas are pooled across shapes: an arena serves any plan it is large enough for, so a model
// fed ever new shapes reuses the memory it already touched instead of faulting in fresh pages,
// and holds at most kMaxIdleArenas of them.
struct Executor::Planner {
  static constexpr size_t kMaxPlans = 64;
  static constexpr size_t kMaxIdleArenas = 4;
  std::mutex mutex;
  struct Entry {
    std::shared_ptr<const MemoryPlan> plan;
    uint64_t last_used = 0;
  };
  std::map<std::vector<Shape>, Entry> entries;
  struct IdleArena {
    std::shared_ptr<void> memory;
    int64_t bytes = 0;
  };
  std::vector<IdleArena> idle;
  uint64_t clock = 0;

  // Adds a plan, dropping the least recently used one past kMaxPlans. Caller holds the mutex.
  void add(const std::vector<Shape>& signature, std::shared_ptr<const MemoryPlan> plan) {
    auto [it, inserted] = entries.emplace(signature, Entry{std::move(plan), ++clock});
    if (!inserted || entries.size() <= kMaxPlans) return;
    auto oldest = entries.begin();
    for (auto e = entries.begin(); e != entries.end(); ++e)
      if (e->second.last_used < oldest->second.last_used) oldest = e;
    entries.erase(oldest);
  }
  // The smallest idle arena of at least `bytes` (its size in *size), or null. Caller holds the mutex.
  std::shared_ptr<void> take(int64_t bytes, int64_t* size) {
    auto best = idle.end();
    for (auto it = idle.begin(); it != idle.end(); ++it)
      if (it->bytes >= bytes && (best == idle.end() || it->bytes < best->bytes)) best = it;
    if (best == idle.end()) return nullptr;
    std::shared_ptr<void> arena = std::move(best->memory);
    *size = best->bytes;
    idle.erase(best);
    return arena;
  }
  // Keeps an arena for later runs; past kMaxIdleArenas the smallest goes. Caller holds the mutex.
  void give_back(std::shared_ptr<void> arena, int64_t bytes) {
    idle.push_back({std::move(arena), bytes});
    if (idle.size() <= kMaxIdleArenas) return;
    idle.erase(std::min_element(idle.begin(), idle.end(),
                                [](const IdleArena& x, const IdleArena& y) { return x.bytes < y.bytes; }));
  }
  // Frees every idle arena (to make room under a memory limit). Caller holds the mutex.
  void drop_idle_arenas() { idle.clear(); }
};

Executor::~Executor() = default;

std::shared_ptr<void> Executor::new_arena(int64_t bytes) const {
  try {
    return Tensor::empty(DType::kUInt8, {bytes}).storage();
  } catch (const OutOfMemory&) {
    // Idle arenas of other shapes may be what fills the memory limit: free them and try again.
    {
      std::lock_guard<std::mutex> lock(planner_->mutex);
      planner_->drop_idle_arenas();
    }
    try {
      return Tensor::empty(DType::kUInt8, {bytes}).storage();
    } catch (const OutOfMemory&) {
      return nullptr;  // the run allocates node by node; the node that cannot fit is named
    }
  }
}

int Executor::slot_of(const std::string& name) const {
  auto it = slots_.find(name);
  return it == slots_.end() ? -1 : it->second;
}

const ir::ValueType* Executor::value_type(const std::string& name) const {
  const int s = slot_of(name);
  return s < 0 ? nullptr : &slot_types_[static_cast<size_t>(s)];
}

const Tensor* Executor::constant_value(const std::string& name) const {
  const int s = slot_of(name);
  if (s < 0) return nullptr;
  const size_t su = static_cast<size_t>(s);
  return is_constant_[su] && constants_[su].is_tensor() ? &constants_[su].tensor : nullptr;
}

Result<std::unique_ptr<Executor>> Executor::build(const ir::Graph& graph, const std::map<std::string, int64_t>& opsets,
                                                  const BuildOptions& options, const OuterScope* outer) {
  std::unique_ptr<Executor> e(new Executor());
  HI_RETURN_IF_ERROR(e->compile(graph, opsets, options, outer));
  return e;
}

namespace {

// Every node's op is one hipinfer has for the opset the model imports; the ones it lacks are
// named in one message.
Status check_ops_supported(const ir::Graph& graph, const std::map<std::string, int64_t>& opsets) {
  std::map<std::string, std::vector<std::string>> unsupported;  // "Op (domain, opset N)" -> nodes
  for (const auto& n : graph.nodes) {
    const OpEntry* entry = find_op(n.domain, n.op_type);
    auto ds = opsets.find(n.domain);
    const int64_t version = ds == opsets.end() ? 0 : ds->second;
    if (ds == opsets.end())
      return error(StatusCode::kInvalidModel, n.describe(), " uses domain '", n.domain,
                   "', which the model does not import");
    const bool device_partition = n.domain == kInternalDomain && n.op_type == runtime::kDevicePartitionOp;
    if (!device_partition && (!entry || version < entry->since_version)) {
      const std::string key =
          (n.domain.empty() ? "" : n.domain + ".") + n.op_type + " (opset " + std::to_string(version) + ")";
      unsupported[key].push_back(!n.name.empty()     ? n.name
                                 : n.outputs.empty() ? "#" + std::to_string(&n - graph.nodes.data())
                                                     : "producing " + n.outputs[0]);
    }
  }
  if (!unsupported.empty()) {
    std::string msg =
        std::to_string(unsupported.size()) + (unsupported.size() == 1 ? " op is" : " ops are") + " not supported: ";
    bool first = true;
    for (const auto& [op, nodes] : unsupported) {
      msg += (first ? "" : "; ") + op + " at node" + (nodes.size() > 1 ? "s " : " ");
      first = false;
      for (size_t i = 0; i < nodes.size() && i < 5; ++i) msg += (i ? ", '" : "'") + nodes[i] + "'";
      if (nodes.size() > 5) msg += str(" and ", nodes.size() - 5, " more");
    }
    return Status(StatusCode::kUnsupported, msg);
  }
  return Status::ok();
}

// The nodes in an order where each runs after the producers of what it reads (its subgraphs'
// reads from this graph included), stable where the file's order already is one; every input
// produced exactly once. `defined`: the graph's inputs and initializers.
Result<std::vector<size_t>> topological_order(const ir::Graph& graph, const std::map<std::string, int>& defined,
                                              const OuterScope* outer) {
  std::map<std::string, size_t> producer;
  for (size_t i = 0; i < graph.nodes.size(); ++i)
    for (const auto& o : graph.nodes[i].outputs) {
      if (o.empty()) continue;
      if (defined.count(o))
        return error(StatusCode::kInvalidModel, graph.nodes[i].describe(), " writes '", o,
                     "', which is already a graph input or initializer");
      if (!producer.emplace(o, i).second)
        return error(StatusCode::kInvalidModel, "value '", o,
                     "' is produced by two nodes: ", graph.nodes[producer[o]].describe(), " and ",
                     graph.nodes[i].describe());
    }
  // Names a subgraph reads from this graph count as inputs of its node for ordering.
  auto node_reads = [&](const ir::Node& n) {
    std::vector<std::string> reads(n.inputs.begin(), n.inputs.end());
    std::function<void(const ir::Graph&)> scan = [&](const ir::Graph& g) {
      for (const auto& sn : g.nodes) {
        for (const auto& in : sn.inputs) reads.push_back(in);
        for (const auto& [k, a] : sn.attributes) {
          if (a.g) scan(*a.g);
          for (const auto& gg : a.graphs) scan(*gg);
        }
      }
    };
    for (const auto& [k, a] : n.attributes) {
      if (a.g) scan(*a.g);
      for (const auto& gg : a.graphs) scan(*gg);
    }
    return reads;
  };
  std::vector<std::vector<size_t>> users(graph.nodes.size());
  std::vector<int> pending(graph.nodes.size(), 0);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const auto& n = graph.nodes[i];
    std::set<size_t> deps;
    for (const auto& in : node_reads(n)) {
      if (in.empty()) continue;
      auto p = producer.find(in);
      if (p != producer.end()) {
        if (p->second != i) deps.insert(p->second);
        else return error(StatusCode::kInvalidModel, n.describe(), " reads its own output '", in, "' (a cycle)");
      }
    }
    for (const auto& in : n.inputs) {
      if (in.empty() || producer.count(in) || defined.count(in) || (outer && outer->find(in))) continue;
      return error(StatusCode::kInvalidModel, n.describe(), ": input '", in,
                   "' is not a graph input, an initializer, or the output of any node");
    }
    for (size_t d : deps) users[d].push_back(i);
    pending[i] = static_cast<int>(deps.size());
  }
  std::vector<size_t> order, ready;
  for (size_t i = graph.nodes.size(); i-- > 0;)
    if (pending[i] == 0) ready.push_back(i);
  while (!ready.empty()) {  // stable: keeps the file's order where it is already valid
    std::sort(ready.begin(), ready.end(), std::greater<>());
    const size_t i = ready.back();
    ready.pop_back();
    order.push_back(i);
    for (size_t u : users[i])
      if (--pending[u] == 0) ready.push_back(u);
  }
  if (order.size() != graph.nodes.size()) {
    std::string cyc;
    int shown = 0;
    for (size_t i = 0; i < graph.nodes.size() && shown < 5; ++i)
      if (pending[i] > 0) cyc += (shown++ ? ", " : "") + graph.nodes[i].describe();
    return error(StatusCode::kInvalidModel, "the graph has a cycle among ", cyc);
  }
  return order;
}

}  // namespace

Status Executor::compile(const ir::Graph& graph, const std::map<std::string, int64_t>& opsets,
                         const BuildOptions& options, const OuterScope* outer) {
  auto new_slot = [&](const std::string& name, ir::ValueType type) {
    const int s = static_cast<int>(slot_types_.size());
    slots_[name] = s;
    slot_types_.push_back(std::move(type));
    constants_.emplace_back();
    is_constant_.push_back(false);
    return s;
  };

  // 1. Graph inputs and initializers.
  inputs_ = graph.inputs;
  outputs_ = graph.outputs;
  overridable_ = graph.overridable_initializers;
  for (const auto& in : graph.inputs) {
    if (in.type.kind == ir::ValueKind::kTensor && in.type.dtype != DType::kUndefined &&
        !dtype_is_supported(in.type.dtype))
      return error(StatusCode::kUnsupported, "input '", in.name, "' has data type ", dtype_name(in.type.dtype),
                   ", which hipinfer does not support");
    input_slots_.push_back(new_slot(in.name, in.type));
  }
  for (const auto& [name, t] : graph.initializers) {
    const int s = new_slot(name, ir::ValueType::concrete(t.dtype(), t.shape()));
    constants_[static_cast<size_t>(s)] = Value::of(t);
    is_constant_[static_cast<size_t>(s)] = true;
  }
  for (const auto& o : graph.overridable_initializers) overridable_slots_.push_back(slot_of(o.name));

  // 2. Every op known; the nodes in an order that runs producers first.
  HI_RETURN_IF_ERROR(check_ops_supported(graph, opsets));
  HI_ASSIGN_OR_RETURN(const std::vector<size_t> order, topological_order(graph, slots_, outer));

  // 3. Per node: init, compile subgraphs, infer, fold.
  for (size_t idx : order) {
    const ir::Node& n = graph.nodes[idx];
    CompiledNode cn;
    cn.node = &n;
    if (n.domain == kInternalDomain && n.op_type == runtime::kDevicePartitionOp) {
      auto op = runtime::make_device_partition_op(n, options.partitions);
      if (!op.is_ok()) return op.status();
      cn.op = std::move(op).value();
    }
    // The CPU backend's implementation where it has one (its fast kernels), else the reference.
    if (!cn.op && options.backend_ops) cn.op = cpu::make_cpu_op(n.domain, n.op_type);
    if (!cn.op) cn.op = find_op(n.domain, n.op_type)->make();
    InitContext ictx(n, opsets.at(n.domain));
    Status s = cn.op->init(ictx);
    if (s.is_ok()) s = ictx.status();
    if (!s.is_ok()) return s.with_context(n.describe());

    // Inputs: local slots, else enclosing graphs' values (made local slots filled at run).
    std::vector<const ir::ValueType*> in_types;
    std::vector<const Tensor*> in_values;
    bool all_constant = true;
    int64_t largest_input = 0;
    for (const auto& in : n.inputs) {
      if (in.empty()) {
        cn.inputs.push_back(-1);
        in_types.push_back(nullptr);
        in_values.push_back(nullptr);
        continue;
      }
      int slot = slot_of(in);
      if (slot < 0) {
        const ir::ValueType* t = outer ? outer->find(in) : nullptr;
        HI_ASSERT(t, "unresolved input ", in);
        slot = new_slot(in, *t);
        outer_slots_.push_back({slot, in});
      }
      cn.inputs.push_back(slot);
      const auto su = static_cast<size_t>(slot);
      in_types.push_back(&slot_types_[su]);
      const bool c = is_constant_[su] && constants_[su].is_tensor();
      in_values.push_back(c ? &constants_[su].tensor : nullptr);
      all_constant = all_constant && c;
      if (c) largest_input = std::max(largest_input, constants_[su].tensor.numel());
    }
    // new_slot() (for values of enclosing graphs, here and in the subgraphs below) may move
    // slot_types_ and constants_: the input types and values are taken again after each use.
    auto refresh_inputs = [&] {
      for (size_t i = 0; i < n.inputs.size(); ++i) {
        if (cn.inputs[i] < 0) continue;
        const auto su = static_cast<size_t>(cn.inputs[i]);
        in_types[i] = &slot_types_[su];
        in_values[i] = is_constant_[su] && constants_[su].is_tensor() ? &constants_[su].tensor : nullptr;
      }
    };
    refresh_inputs();
    // An If whose condition is known at build time compiles only the branch it takes: the other
    // need not type-check for these inputs (the expanded AffineGrid function holds both its 2-D
    // and its 3-D path). The kernel reads the same constant condition at run time.
    std::string dead_branch;
    if (n.op_type == "If" && n.domain.empty() && !in_values.empty() && in_values[0] &&
        in_values[0]->dtype() == DType::kBool && in_values[0]->numel() == 1)
      dead_branch = *in_values[0]->data<bool>() ? "else_branch" : "then_branch";
    for (const auto& [attr_name, a] : n.attributes) {
      if (a.kind != ir::Attribute::Kind::kGraph || attr_name == dead_branch) continue;
      OuterScope scope;
      scope.parent = outer;
      for (const auto& [name, slot] : slots_) scope.types[name] = slot_types_[static_cast<size_t>(slot)];
      auto sub = Executor::build(*a.g, opsets, options, &scope);
      if (!sub.is_ok()) {
        Status why = sub.status().with_context(n.describe() + " subgraph '" + attr_name + "'");
        // A branch of an If whose condition is not known yet that does not type-check for these
        // inputs (a shape error, not an op hipinfer lacks) fails only if a run takes it: without
        // constant folding (optimization level 0) the expanded AffineGrid function's 2-D path
        // meets its 3-D inputs here.
        const bool deferrable = n.op_type == "If" && n.domain.empty() && dead_branch.empty() &&
                                why.code() == StatusCode::kInvalidModel && cn.failed_branches.empty();
        if (!deferrable) return why;
        cn.failed_branches[attr_name] = std::move(why);
        continue;
      }
      // What the subgraph reads from this graph must be live while the node runs.
      for (const auto& [sslot, name] : sub.value()->outer_slots_) {
        int slot = slot_of(name);
        if (slot < 0) {
          slot = new_slot(name, *outer->find(name));
          outer_slots_.push_back({slot, name});
        }
        cn.inputs.push_back(slot);  // extra reads after the declared inputs: liveness only
      }
      cn.subgraphs[attr_name] = std::move(sub).value();
      all_constant = false;
    }
    if (!cn.failed_branches.empty() && cn.subgraphs.empty()) return cn.failed_branches.begin()->second;
    refresh_inputs();
    const size_t declared_inputs = n.inputs.size();
    // Ops with subgraphs type their outputs from the bodies' outputs: their infer() sees each
    // graph attribute as a signature whose output types are what the compiled subgraph inferred.
    const ir::Node infer_node = cn.subgraphs.empty() ? ir::Node{} : with_inferred_signatures(n, cn.subgraphs);
    InferContext xctx(cn.subgraphs.empty() ? n : infer_node, in_types, in_values, n.outputs.size());
    s = guarded(n, [&] { return cn.op->infer(xctx); });  // names the node on failure
    if (!s.is_ok()) return s;

    bool outputs_known = !n.outputs.empty();
    for (size_t i = 0; i < n.outputs.size(); ++i) {
      if (n.outputs[i].empty()) {
        cn.outputs.push_back(-1);
        continue;
      }
      const int slot = new_slot(n.outputs[i], xctx.output_type(i));
      cn.outputs.push_back(slot);
      if (xctx.output_value(i)) {
        constants_[static_cast<size_t>(slot)] = Value::of(*xctx.output_value(i));
        is_constant_[static_cast<size_t>(slot)] = true;
      } else {
        outputs_known = false;
      }
    }
    if (options.fold_constants && outputs_known) {
      ++folded_;
      continue;
    }
    if (options.fold_constants && all_constant && cn.op->is_deterministic() && !n.inputs.empty() &&
        outputs_fit(slot_types_, cn.outputs, largest_input, options.fold_limit_bytes)) {
      std::vector<const Value*> ins;
      for (size_t i = 0; i < declared_inputs; ++i)
        ins.push_back(cn.inputs[i] < 0 ? nullptr : &constants_[static_cast<size_t>(cn.inputs[i])]);
      std::vector<Value> outs(n.outputs.size());
      RunContext rctx(n, ins, &outs, nullptr);
      {
        // What the fold allocates counts against the session's budget and, on its own, the fold limit.
        MemoryBudgetScope fold_budget(
            options.fold_limit_bytes > 0
                ? std::make_shared<MemoryBudget>(options.fold_limit_bytes, current_memory_budget())
                : current_memory_budget());
        s = guarded(n, [&] { return cn.op->run(rctx); });
      }
      if (s.is_ok()) {
        for (size_t i = 0; i < n.outputs.size(); ++i) {
          if (cn.outputs[i] < 0) continue;
          const auto su = static_cast<size_t>(cn.outputs[i]);
          // An optional holding a tensor is a tensor Value too; it keeps its optional type.
          if (outs[i].is_tensor() && slot_types_[su].kind != ir::ValueKind::kOptional)
            slot_types_[su] = ir::ValueType::concrete(outs[i].tensor.dtype(), outs[i].tensor.shape());
          constants_[su] = std::move(outs[i]);
          is_constant_[su] = true;
        }
        ++folded_;
        continue;
      }
      // Too big to fold within the limit: the node stays and runs each time.
      if (s.code() != StatusCode::kOutOfMemory || options.fold_limit_bytes <= 0) return s;
    }
    nodes_.push_back(std::move(cn));
  }

  // 4. Outputs, and declared output types against inferred ones.
  for (const auto& o : graph.outputs) {
    int slot = slot_of(o.name);
    if (slot < 0 && outer && outer->find(o.name)) {
      slot = new_slot(o.name, *outer->find(o.name));
      outer_slots_.push_back({slot, o.name});
    }
    if (slot < 0)
      return error(StatusCode::kInvalidModel, "graph output '", o.name,
                   "' is not produced by any node, input or initializer");
    const ir::ValueType& inferred = slot_types_[static_cast<size_t>(slot)];
    if (o.type.kind == ir::ValueKind::kTensor && inferred.kind == ir::ValueKind::kTensor &&
        o.type.dtype != DType::kUndefined && inferred.dtype != DType::kUndefined && o.type.dtype != inferred.dtype)
      return error(StatusCode::kInvalidModel, "graph output '", o.name, "' is declared ", dtype_name(o.type.dtype),
                   " but computes ", dtype_name(inferred.dtype));
    output_slots_.push_back(slot);
  }

  // 5. Liveness: release each value after its last reader (outputs and constants stay).
  std::vector<int> last_use(slot_types_.size(), -1);
  for (size_t i = 0; i < nodes_.size(); ++i)
    for (int s : nodes_[i].inputs)
      if (s >= 0) last_use[static_cast<size_t>(s)] = static_cast<int>(i);
  for (int s : output_slots_) last_use[static_cast<size_t>(s)] = -1;
  for (size_t s = 0; s < last_use.size(); ++s)
    if (last_use[s] >= 0 && !is_constant_[s])
      nodes_[static_cast<size_t>(last_use[s])].release.push_back(static_cast<int>(s));

  // 6. Memory planning: main graphs whose values are all plain tensors (a sequence could hold a
  // planned buffer past its lifetime; subgraphs run inside their node's lifetime anyway).
  bool plain = !outer && options.memory_plan;
  for (const auto& t : slot_types_) plain = plain && t.kind == ir::ValueKind::kTensor;
  for (const auto& cn : nodes_) plain = plain && cn.subgraphs.empty();
  if (plain) planner_ = std::make_unique<Planner>();
  return Status::ok();
}

namespace {

int64_t value_bytes(const Value& v) { return v.is_tensor() ? v.tensor.nbytes() : 0; }

// A profiled run's traffic for a node the executor ran itself; a device partition notes its own
// nodes (runtime/run_trace.h).
void note_traffic(const ir::Node& n, size_t index, const RunContext& ctx, const std::vector<Value>& outs) {
  std::vector<NodeTraffic>* sink = runtime::TrafficTrace::current();
  if (!sink || n.op_type == runtime::kDevicePartitionOp) return;
  NodeTraffic t{runtime::node_label(n, index), runtime::op_label(n), "cpu", 0, 0};
  for (size_t i = 0; i < ctx.num_inputs(); ++i)
    if (const Value* v = ctx.input_value(i)) t.bytes_read += value_bytes(*v);
  for (const Value& v : outs) t.bytes_written += value_bytes(v);
  sink->push_back(std::move(t));
}

}  // namespace

Status Executor::run(std::vector<Value> inputs, std::vector<Value>* outputs, const Frame* parent, int64_t* arena_bytes,
                     int64_t* activation_bytes, std::vector<double>* node_ms) const {
  HI_ASSERT(inputs.size() == input_slots_.size() + overridable_slots_.size() || inputs.size() == input_slots_.size(),
            "executor got ", inputs.size(), " inputs, expects ", input_slots_.size());
  if (arena_bytes) *arena_bytes = 0;
  if (activation_bytes) *activation_bytes = 0;
  // A subgraph is compiled for its declared input types; its caller (Loop, Scan, If) may hand it
  // other ones at run time, which its kernels must never see.
  if (parent)
    for (size_t i = 0; i < input_slots_.size() && i < inputs.size(); ++i) {
      const ir::ValueType& t = inputs_[i].type;
      if (t.kind == ir::ValueKind::kTensor && t.dtype != DType::kUndefined && inputs[i].is_tensor() &&
          inputs[i].tensor.dtype() != t.dtype)
        return error(StatusCode::kInvalidModel, "the body's input '", inputs_[i].name, "' is declared ",
                     dtype_name(t.dtype), " but is given ", inputs[i].tensor.type_string());
    }
  // The plan for these input shapes, with an arena of its own for this run; or, for shapes not
  // seen yet, a recording of what this run allocates to make one.
  std::vector<Shape> signature;
  std::shared_ptr<const MemoryPlan> plan;
  std::shared_ptr<void> arena;
  int64_t arena_size = 0;  // may be larger than the plan's: an idle arena of another shape's
  bool recording = false;
  if (planner_) {
    for (const Value& v : inputs) signature.push_back(v.is_tensor() ? v.tensor.shape() : Shape{-1});
    std::lock_guard<std::mutex> lock(planner_->mutex);
    auto it = planner_->entries.find(signature);
    if (it == planner_->entries.end()) {
      recording = true;
    } else {
      plan = it->second.plan;
      it->second.last_used = ++planner_->clock;
      if (plan->arena_bytes > 0) arena = planner_->take(plan->arena_bytes, &arena_size);
    }
  }
  if (plan && !arena && plan->arena_bytes > 0) {
    arena = new_arena(plan->arena_bytes);
    arena_size = plan->arena_bytes;
  }
  if (plan && arena_bytes) *arena_bytes = plan->arena_bytes;
  if (plan && activation_bytes) *activation_bytes = plan->total_bytes;

  std::vector<Value> values(slot_types_.size());
  for (size_t s = 0; s < values.size(); ++s)
    if (is_constant_[s]) values[s] = constants_[s];
  for (size_t i = 0; i < input_slots_.size(); ++i) values[static_cast<size_t>(input_slots_[i])] = std::move(inputs[i]);
  for (size_t i = input_slots_.size(); i < inputs.size(); ++i)
    if (inputs[i].kind != Value::Kind::kNone)
      values[static_cast<size_t>(overridable_slots_[i - input_slots_.size()])] = std::move(inputs[i]);
  for (const auto& [slot, name] : outer_slots_) {
    const Value* v = parent ? parent->lookup(name) : nullptr;
    HI_ASSERT(v, "outer value ", name, " not found at run time");
    values[static_cast<size_t>(slot)] = *v;
  }
  std::vector<PlannedBuffer> recorded;
  std::vector<InPlaceCandidate> in_place;
  std::map<const void*, size_t> by_storage;
  std::vector<int> slot_buffer(recording ? values.size() : 0, -1);  // recorded buffer each slot views
  RecordingAllocator recorder;
  recorder.buffers = &recorded;
  recorder.by_storage = &by_storage;
  PlannedAllocator planned;
  planned.plan = plan.get();
  planned.arena = arena;
  Frame frame{this, &values, parent};
  if (node_ms) node_ms->assign(nodes_.size(), 0.0);
  for (size_t k = 0; k < nodes_.size(); ++k) {
    const CompiledNode& cn = nodes_[k];
    const ir::Node& n = *cn.node;
    if (Status stop = run_stop_status(); !stop.is_ok()) return stop.with_context("before " + n.describe());
    std::vector<const Value*> ins;
    ins.reserve(n.inputs.size());
    for (size_t i = 0; i < n.inputs.size(); ++i)
      ins.push_back(cn.inputs[i] < 0 ? nullptr : &values[static_cast<size_t>(cn.inputs[i])]);
    std::vector<Value> outs(n.outputs.size());
    NodeSubgraphRunner runner;
    runner.subgraphs = &cn.subgraphs;
    runner.failed_branches = &cn.failed_branches;
    runner.frame = &frame;
    RunContext ctx(n, std::move(ins), &outs, &runner);
    if (recording) {
      recorder.node = static_cast<int>(k);
      ctx.set_allocator(&recorder);
    } else if (plan && arena) {
      planned.node = static_cast<int>(k);
      ctx.set_allocator(&planned);
    }
    const auto started = node_ms ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
    HI_RETURN_IF_ERROR(guarded(n, [&] { return cn.op->run(ctx); }));
    if (node_ms) {
      (*node_ms)[k] = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
      note_traffic(n, k, ctx, outs);
    }
    if (recording) note_in_place(*cn.op, cn.inputs, static_cast<int>(k), values, outs, recorded, by_storage, &in_place);
    for (size_t i = 0; i < outs.size(); ++i) {
      if (cn.outputs[i] < 0) continue;
      const auto slot = static_cast<size_t>(cn.outputs[i]);
      values[slot] = std::move(outs[i]);
      if (recording && values[slot].is_tensor()) {
        auto b = by_storage.find(values[slot].tensor.storage().get());
        if (b != by_storage.end()) slot_buffer[slot] = static_cast<int>(b->second);
      }
    }
    for (int s : cn.release) {
      if (recording && slot_buffer[static_cast<size_t>(s)] >= 0) {
        PlannedBuffer& b = recorded[static_cast<size_t>(slot_buffer[static_cast<size_t>(s)])];
        b.last = std::max(b.last, static_cast<int>(k));
        slot_buffer[static_cast<size_t>(s)] = -2 - slot_buffer[static_cast<size_t>(s)];  // released
      }
      values[static_cast<size_t>(s)] = Value{};
    }
  }
  outputs->clear();
  for (int s : output_slots_) {
    Value v = values[static_cast<size_t>(s)];
    // An output must outlive the arena's next use.
    if (arena && v.is_tensor() && v.tensor.storage() == arena) v.tensor = v.tensor.clone();
    outputs->push_back(std::move(v));
  }
  values.clear();
  if (recording) {
    // A buffer some value still views after the run (a graph output, or one never released)
    // stays on the heap.
    std::vector<bool> escapes(recorded.size(), false);
    for (int b : slot_buffer)
      if (b >= 0) escapes[static_cast<size_t>(b)] = true;
    auto made = std::make_shared<MemoryPlan>(make_plan(std::move(recorded), escapes, in_place));
    std::lock_guard<std::mutex> lock(planner_->mutex);
    planner_->add(signature, std::move(made));
  } else if (arena) {
    std::lock_guard<std::mutex> lock(planner_->mutex);
    planner_->give_back(std::move(arena), arena_size);
  }
  return Status::ok();
}

}  // namespace hi::ops
