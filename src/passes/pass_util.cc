#include "passes/pass_util.h"

#include <functional>

#include "ops/internal.h"

namespace hi::passes {

GraphIndex::GraphIndex(const ir::Graph& g) {
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const ir::Node& n = g.nodes[i];
    for (const auto& o : n.outputs)
      if (!o.empty()) producer_[o] = static_cast<int>(i);
    std::set<std::string> reads(n.inputs.begin(), n.inputs.end());
    std::function<void(const ir::Graph&)> scan = [&](const ir::Graph& sg) {
      for (const auto& sn : sg.nodes) {
        reads.insert(sn.inputs.begin(), sn.inputs.end());
        for (const auto& [k, a] : sn.attributes) {
          if (a.g) scan(*a.g);
          for (const auto& gg : a.graphs) scan(*gg);
        }
      }
      for (const auto& o : sg.outputs) reads.insert(o.name);
    };
    for (const auto& [k, a] : n.attributes) {
      if (a.g) scan(*a.g);
      for (const auto& gg : a.graphs) scan(*gg);
    }
    for (const auto& r : reads)
      if (!r.empty()) consumers_[r].push_back(static_cast<int>(i));
  }
  for (const auto& o : g.outputs) outputs_.insert(o.name);
}

int GraphIndex::producer(const std::string& value) const {
  auto it = producer_.find(value);
  return it == producer_.end() ? -1 : it->second;
}

const std::vector<int>& GraphIndex::consumers(const std::string& value) const {
  auto it = consumers_.find(value);
  return it == consumers_.end() ? none_ : it->second;
}

bool GraphIndex::single_use(const std::string& value) const {
  return consumers(value).size() == 1 && !is_graph_output(value);
}

const Tensor* constant(const ir::Graph& g, const GraphIndex& index, const std::string& name) {
  for (const auto& o : g.overridable_initializers)
    if (o.name == name) return nullptr;  // the caller may replace it at run time
  auto it = g.initializers.find(name);
  if (it != g.initializers.end()) return &it->second;
  const int p = index.producer(name);
  if (p < 0) return nullptr;
  const ir::Node& n = g.nodes[static_cast<size_t>(p)];
  if (n.op_type != "Constant" || !n.domain.empty()) return nullptr;
  const ir::Attribute* v = n.attr("value");
  return v && v->kind == ir::Attribute::Kind::kTensor ? &v->t : nullptr;
}

int64_t int_attr(const ir::Node& n, const char* key, int64_t def) {
  const ir::Attribute* a = n.attr(key);
  return a ? a->i : def;
}
float float_attr(const ir::Node& n, const char* key, float def) {
  const ir::Attribute* a = n.attr(key);
  return a ? a->f : def;
}
std::vector<int64_t> ints_attr(const ir::Node& n, const char* key) {
  const ir::Attribute* a = n.attr(key);
  return a ? a->ints : std::vector<int64_t>{};
}

std::string other_input(const ir::Node& n, const std::string& known) {
  if (n.inputs.size() != 2) return "";
  if (n.inputs[0] == known) return n.inputs[1];
  if (n.inputs[1] == known) return n.inputs[0];
  return "";
}

std::vector<double> as_doubles(const Tensor& t) {
  std::vector<double> v(static_cast<size_t>(t.numel()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = t.as_double(static_cast<int64_t>(i));
  return v;
}

Tensor from_doubles(DType dtype, const Shape& shape, const std::vector<double>& v) {
  Tensor t = Tensor::empty(dtype, shape);
  for (size_t i = 0; i < v.size(); ++i) {
    if (dtype == DType::kFloat32) t.data<float>()[i] = static_cast<float>(v[i]);
    else t.data<double>()[i] = v[i];
  }
  return t;
}

namespace {
// w[o, ...] * scale[o] in double, rounded once to T: one pass over the weights, no copy in double
// (ResNet-50's 25M weights took 100 ms as vectors of double).
template <typename T>
Tensor scaled_per_output(const Tensor& w, const std::vector<double>& scale) {
  Tensor out = Tensor::empty(w.dtype(), w.shape());
  const T* src = w.data<T>();
  T* dst = out.data<T>();
  const size_t per_out = static_cast<size_t>(w.numel()) / scale.size();
  for (size_t o = 0; o < scale.size(); ++o)
    for (size_t k = o * per_out; k < (o + 1) * per_out; ++k)
      dst[k] = static_cast<T>(static_cast<double>(src[k]) * scale[o]);
  return out;
}
}  // namespace

void fold_channel_affine_into_conv(ir::Graph& g, ir::Node& conv, const Tensor& w, const Tensor* b,
                                   const std::vector<double>& scale, const std::vector<double>& shift,
                                   const std::string& tag) {
  const int64_t mo = w.dim(0);
  std::vector<double> bv = b ? as_doubles(*b) : std::vector<double>(static_cast<size_t>(mo), 0.0);
  for (size_t o = 0; o < static_cast<size_t>(mo); ++o) bv[o] = bv[o] * scale[o] + shift[o];
  const std::string wname = fresh_name(g, conv.inputs[1] + "_" + tag);
  g.initializers[wname] =
      w.dtype() == DType::kFloat32 ? scaled_per_output<float>(w, scale) : scaled_per_output<double>(w, scale);
  const std::string bname = fresh_name(g, (b ? conv.inputs[2] : conv.outputs[0]) + "_" + tag + "_bias");
  g.initializers[bname] = from_doubles(w.dtype(), {mo}, bv);
  conv.inputs.resize(3);
  conv.inputs[1] = wname;
  conv.inputs[2] = bname;
}

bool is_hard_swish(const ir::Node& n) {
  return n.op_type == "HardSwish" && (n.domain.empty() || n.domain == ops::kInternalDomain);
}

bool scalar_constant(const ir::Graph& g, const GraphIndex& index, const std::string& name, float* value) {
  const Tensor* t = constant(g, index, name);
  if (!t || t->numel() != 1 || !dtype_is_float(t->dtype())) return false;
  *value = static_cast<float>(t->as_double(0));
  return true;
}

bool topo_sort(ir::Graph& g) {
  GraphIndex index(g);
  const size_t count = g.nodes.size();
  std::vector<std::vector<size_t>> users(count);
  std::vector<int> pending(count, 0);
  for (size_t i = 0; i < count; ++i) {
    std::set<size_t> deps;
    for (const auto& in : g.nodes[i].inputs) {
      const int p = in.empty() ? -1 : index.producer(in);
      if (p >= 0 && static_cast<size_t>(p) != i) deps.insert(static_cast<size_t>(p));
    }
    for (size_t d : deps) users[d].push_back(i);
    pending[i] = static_cast<int>(deps.size());
  }
  std::set<size_t> ready;
  for (size_t i = 0; i < count; ++i)
    if (pending[i] == 0) ready.insert(i);
  std::vector<size_t> order;
  while (!ready.empty()) {
    const size_t i = *ready.begin();
    ready.erase(ready.begin());
    order.push_back(i);
    for (size_t u : users[i])
      if (--pending[u] == 0) ready.insert(u);
  }
  if (order.size() != count) return false;
  std::vector<ir::Node> sorted;
  sorted.reserve(count);
  for (size_t i : order) sorted.push_back(std::move(g.nodes[i]));
  g.nodes = std::move(sorted);
  return true;
}

void erase_nodes(ir::Graph& g, const std::set<int>& dead) {
  std::vector<ir::Node> kept;
  kept.reserve(g.nodes.size() - dead.size());
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (!dead.count(static_cast<int>(i))) kept.push_back(std::move(g.nodes[i]));
  g.nodes = std::move(kept);
}

std::string fresh_name(const ir::Graph& g, const std::string& base) {
  std::set<std::string> used;
  for (const auto& [k, v] : g.initializers) used.insert(k);
  for (const auto& n : g.nodes) used.insert(n.outputs.begin(), n.outputs.end());
  for (const auto& i : g.inputs) used.insert(i.name);
  std::string name = base;
  for (int i = 1; used.count(name); ++i) name = base + "_" + std::to_string(i);
  return name;
}

namespace {
// Two tensor values of one dtype and rank whose dims pass `dims_match` pairwise.
template <typename DimsMatch>
bool shapes_match(const TypeOracle& types, const std::string& a, const std::string& b, DimsMatch dims_match) {
  const ir::ValueType* ta = types ? types(a) : nullptr;
  const ir::ValueType* tb = types ? types(b) : nullptr;
  if (!ta || !tb || ta->kind != ir::ValueKind::kTensor || tb->kind != ir::ValueKind::kTensor) return false;
  if (ta->dtype != tb->dtype || !ta->has_rank() || !tb->has_rank() || ta->rank() != tb->rank()) return false;
  for (size_t i = 0; i < ta->shape->size(); ++i)
    if (!dims_match((*ta->shape)[i], (*tb->shape)[i])) return false;
  return true;
}
}  // namespace

bool same_shape(const TypeOracle& types, const std::string& a, const std::string& b) {
  return shapes_match(types, a, b, [](const ir::Dim& x, const ir::Dim& y) {
    if (x.is_known() != y.is_known()) return false;
    return x.is_known() ? x.value == y.value : !x.symbol.empty() && x.symbol == y.symbol;
  });
}

bool maybe_same_shape(const TypeOracle& types, const std::string& a, const std::string& b) {
  return shapes_match(types, a, b, [](const ir::Dim& x, const ir::Dim& y) {
    if (x.is_known() && y.is_known()) return x.value == y.value;
    // Two different names may not be the same size; a missing name may be anything.
    return x.is_known() || y.is_known() || x.symbol.empty() || y.symbol.empty() || x.symbol == y.symbol;
  });
}

DType dtype_of_value(const TypeOracle& types, const std::string& name) {
  const ir::ValueType* t = types ? types(name) : nullptr;
  return t && t->kind == ir::ValueKind::kTensor ? t->dtype : DType::kUndefined;
}

void set_precision(ir::Node& n, const std::string& precision) {
  if (precision != "bf16") return;
  ir::Attribute a;
  a.kind = ir::Attribute::Kind::kString;
  a.s = precision;
  n.attributes["precision"] = a;
}

bool is_8bit_tensor(const Tensor* t) { return t && (t->dtype() == DType::kInt8 || t->dtype() == DType::kUInt8); }
bool is_float_scale(const Tensor* t) { return t && t->dtype() == DType::kFloat32; }

const ir::Node* per_tensor_dequantize(const ir::Graph& g, const GraphIndex& index, const std::string& value) {
  const int p = index.producer(value);
  if (p < 0) return nullptr;
  const ir::Node& n = g.nodes[static_cast<size_t>(p)];
  if (!n.domain.empty() || n.op_type != "DequantizeLinear" || n.inputs.size() != 3) return nullptr;
  const Tensor* scale = constant(g, index, n.inputs[1]);
  const Tensor* zp = constant(g, index, n.inputs[2]);
  return is_float_scale(scale) && scale->numel() == 1 && is_8bit_tensor(zp) && zp->numel() == 1 ? &n : nullptr;
}

int per_tensor_quantize_reader(const ir::Graph& g, const GraphIndex& index, const std::string& value) {
  if (!index.single_use(value)) return -1;
  const int r = index.consumers(value)[0];
  const ir::Node& q = g.nodes[static_cast<size_t>(r)];
  if (!q.domain.empty() || q.op_type != "QuantizeLinear" || q.inputs.size() != 3 || q.inputs[0] != value) return -1;
  const Tensor* scale = constant(g, index, q.inputs[1]);
  const Tensor* zp = constant(g, index, q.inputs[2]);
  return is_float_scale(scale) && scale->numel() == 1 && is_8bit_tensor(zp) && zp->numel() == 1 ? r : -1;
}

void drop_unread(const ir::Graph& g, const GraphIndex& index, const std::set<int>& candidates, std::set<int>* dead) {
  for (int d : candidates) {
    if (d < 0) continue;
    const std::string& v = g.nodes[static_cast<size_t>(d)].outputs[0];
    bool read = index.is_graph_output(v);
    for (size_t j = 0; j < g.nodes.size() && !read; ++j)
      if (!dead->count(static_cast<int>(j)))
        for (const auto& in : g.nodes[j].inputs) read = read || in == v;
    if (!read) dead->insert(d);
  }
}

}  // namespace hi::passes
