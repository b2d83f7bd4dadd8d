// libFuzzer target for the whole library: every input is a model that goes through
// Session::create_from_bytes and, when that succeeds, one run on small inputs, as a service
// loading models it did not write would do it. The session has a memory limit (kMemoryLimit),
// constant folding a small limit and the run a timeout, so a model may fail in any way that
// returns a Status: invalid, unsupported, out of memory, past its deadline. The bugs are what a
// Status cannot say: crashes and aborts (HI_ASSERT included), sanitizer reports (ASan, UBSan,
// LeakSanitizer), a run that libFuzzer's -timeout stops (create() has no deadline, and a run
// must stop at its own), memory past -rss_limit_mb, or one allocation past -malloc_limit_mb
// (the session's limit is to refuse before allocating), and one oracle of our own: every output
// tensor is read to its last byte, so one whose buffer is smaller than its shape says shows up.
// Internal errors (kInternal: a bug in hipinfer by its own definition) are printed once each,
// as "session_fuzz: internal error:", and abort with HI_FUZZ_INTERNAL_IS_BUG=1.
//
// The mutator is structure-aware (LLVMFuzzerCustomMutator): it parses the input as an ONNX
// ModelProto and changes one to three things, with boundary values: an attribute (ints, floats,
// lists, strings, its type, its presence), a dim or element type of a graph input, output or
// value_info, an initializer's dims, type or bytes, a node's op_type (swapped within a family of
// similar ops), inputs (dropped, duplicated, rewired, emptied), domain or position, an opset
// version; in the main graph or any subgraph (Loop, If, Scan bodies). A quarter of the time, and
// whenever the bytes do not parse, it falls back to libFuzzer's byte-level mutation, so broken
// protobufs are fuzzed too. The cross-over transplants a node of one model into another.
//
// Run it through scripts/fuzz-session.
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "hipinfer/session.h"
#include "hipinfer/tensor.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {

constexpr int64_t kMemoryLimit = int64_t{256} << 20;    // per session
constexpr int64_t kFoldingLimit = int64_t{1} << 20;     // constant folding computes no more per node
constexpr double kRunTimeoutMs = 2000;                  // libFuzzer's -timeout is 10 s (scripts/fuzz-session)
constexpr int64_t kMaxFeedElements = int64_t{1} << 18;  // per input; a larger declared input is not run

// splitmix64: small, fast, and the same sequence everywhere (the inputs of a run depend only on
// the model's bytes, so every finding replays).
struct Rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  uint64_t below(uint64_t n) { return n ? next() % n : 0; }
  bool one_in(uint64_t n) { return below(n) == 0; }
};

uint64_t hash_bytes(const uint8_t* data, size_t size) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 1099511628211ull;
  return h;
}

// ---- inputs ------------------------------------------------------------------------------------

double draw_float(Rng& rng) {
  static constexpr double kSpecial[] = {0.0, -0.0, NAN, INFINITY, -INFINITY, 1e30, -1e30, 1e-40, 65504.0, 1.0};
  if (rng.one_in(32)) return kSpecial[rng.below(std::size(kSpecial))];
  return static_cast<double>(static_cast<int64_t>(rng.below(4001)) - 2000) / 1000.0;  // [-2, 2]
}

// Integers: [0, index_limit) for an index input; else small, mostly non-negative (they are often
// shapes, axes, counts or indices).
int64_t draw_int(Rng& rng, int64_t index_limit, bool is_signed) {
  if (index_limit > 0) return static_cast<int64_t>(rng.below(static_cast<uint64_t>(index_limit)));
  const int64_t v = static_cast<int64_t>(rng.below(5));  // 0..4
  return is_signed && rng.one_in(8) ? -v : v;
}

template <typename T>
void put(hi::Tensor& t, int64_t i, T v) {
  std::memcpy(static_cast<char*>(t.raw()) + i * static_cast<int64_t>(sizeof(T)), &v, sizeof(T));
}

// False for types this harness cannot fill (the run is skipped).
bool fill(hi::Tensor& t, Rng& rng, int64_t index_limit) {
  using hi::DType;
  const DType d = t.dtype();
  for (int64_t i = 0; i < t.numel(); ++i) {
    const double f = draw_float(rng);
    const int64_t n = draw_int(rng, index_limit, hi::dtype_is_signed(d));
    switch (d) {
      case DType::kFloat32: put(t, i, static_cast<float>(f)); break;
      case DType::kFloat64: put(t, i, f); break;
      case DType::kFloat16: put(t, i, hi::Float16(static_cast<float>(f)).bits); break;
      case DType::kBFloat16: put(t, i, hi::BFloat16(static_cast<float>(f)).bits); break;
      case DType::kFloat8E4M3FN: put(t, i, hi::Float8E4M3FN::from_double(f)); break;
      case DType::kFloat8E4M3FNUZ: put(t, i, hi::Float8E4M3FNUZ::from_double(f)); break;
      case DType::kFloat8E5M2: put(t, i, hi::Float8E5M2::from_double(f)); break;
      case DType::kFloat8E5M2FNUZ: put(t, i, hi::Float8E5M2FNUZ::from_double(f)); break;
      case DType::kFloat4E2M1: put(t, i, hi::Float4E2M1::from_double(f)); break;
      case DType::kFloat8E8M0: put(t, i, hi::Float8E8M0::from_double(std::fabs(f) + 0.5)); break;
      case DType::kInt8:
      case DType::kInt4:
      case DType::kInt2: put(t, i, static_cast<int8_t>(std::clamp<int64_t>(n, -2, 1))); break;
      case DType::kUInt8:
      case DType::kUInt4:
      case DType::kUInt2: put(t, i, static_cast<uint8_t>(std::clamp<int64_t>(n, 0, 3))); break;
      case DType::kInt16: put(t, i, static_cast<int16_t>(n)); break;
      case DType::kUInt16: put(t, i, static_cast<uint16_t>(std::max<int64_t>(n, 0))); break;
      case DType::kInt32: put(t, i, static_cast<int32_t>(n)); break;
      case DType::kUInt32: put(t, i, static_cast<uint32_t>(std::max<int64_t>(n, 0))); break;
      case DType::kInt64: put(t, i, n); break;
      case DType::kUInt64: put(t, i, static_cast<uint64_t>(std::max<int64_t>(n, 0))); break;
      case DType::kBool: put(t, i, static_cast<uint8_t>(n & 1)); break;
      case DType::kString: t.strings()[i] = std::string(static_cast<size_t>(n), 'a'); break;
      default: return false;
    }
  }
  return true;
}

// Small inputs of the declared types: unknown dims 1..4, one value per symbolic name (symbolic
// dims must agree across inputs); an unknown rank is rank 1. False: do not run (a type we cannot
// make, an input declared too large to be small, or not a plain tensor).
bool make_feeds(const hi::Session& s, Rng& rng, hi::TensorMap* feeds) {
  std::map<std::string, int64_t> symbols;
  for (const hi::TensorInfo& info : s.inputs()) {
    if (info.kind != "tensor" || !hi::dtype_is_supported(info.dtype)) return false;
    hi::Shape shape;
    if (!info.rank_known) shape.push_back(1 + static_cast<int64_t>(rng.below(4)));
    for (size_t i = 0; i < info.shape.size(); ++i) {
      int64_t d = info.shape[i];
      if (d < 0) {
        const std::string& name = i < info.dim_names.size() ? info.dim_names[i] : std::string();
        auto it = name.empty() ? symbols.end() : symbols.find(name);
        d = it != symbols.end() ? it->second : 1 + static_cast<int64_t>(rng.below(4));
        if (!name.empty()) symbols[name] = d;
      }
      shape.push_back(d);
    }
    const int64_t n = hi::shape_numel(shape);
    if (n < 0 || n > kMaxFeedElements) return false;
    hi::Tensor t = hi::Tensor::empty(info.dtype, shape);
    if (!fill(t, rng, info.index_limit)) return false;
    (*feeds)[info.name] = std::move(t);
  }
  return true;
}

// Reads every byte (or string) of an output: a tensor whose buffer is shorter than its shape
// says is a heap-buffer-overflow under ASan here.
uint64_t touch(const hi::Tensor& t) {
  if (!t.defined()) {
    std::fprintf(stderr, "session_fuzz: a run returned an undefined tensor %s\n", t.type_string().c_str());
    std::abort();
  }
  if (hi::shape_numel(t.shape()) != t.numel()) {
    std::fprintf(stderr, "session_fuzz: output %s holds %lld elements\n", t.type_string().c_str(),
                 static_cast<long long>(t.numel()));
    std::abort();
  }
  uint64_t sum = 0;
  if (t.dtype() == hi::DType::kString) {
    for (int64_t i = 0; i < t.numel(); ++i) sum += t.strings()[i].size();
    return sum;
  }
  const auto* p = static_cast<const uint8_t*>(t.raw());
  for (size_t i = 0; i < t.nbytes(); ++i) sum += p[i];
  return sum;
}

void note_status(const hi::Status& s) {
  if (s.code() != hi::StatusCode::kInternal) return;
  static std::mutex mu;
  static std::set<std::string> seen;
  static const bool fatal = std::getenv("HI_FUZZ_INTERNAL_IS_BUG") != nullptr;
  std::lock_guard<std::mutex> lock(mu);
  if (seen.insert(s.message()).second || fatal)
    std::fprintf(stderr, "session_fuzz: internal error: %s\n", s.message().c_str());
  if (fatal) std::abort();
}

// ---- the structure-aware mutator ---------------------------------------------------------------

int64_t boundary_int(Rng& rng, int64_t old) {
  static constexpr int64_t kValues[] = {0,
                                        1,
                                        -1,
                                        2,
                                        3,
                                        -2,
                                        4,
                                        7,
                                        8,
                                        16,
                                        255,
                                        256,
                                        65535,
                                        int64_t{1} << 31,
                                        (int64_t{1} << 31) - 1,
                                        -(int64_t{1} << 31),
                                        int64_t{1} << 32,
                                        int64_t{1} << 62,
                                        -(int64_t{1} << 62),
                                        std::numeric_limits<int64_t>::max(),
                                        std::numeric_limits<int64_t>::min()};
  const auto u = static_cast<uint64_t>(old);  // wrapping: old may be INT64_MIN or INT64_MAX
  switch (rng.below(4)) {
    case 0: return static_cast<int64_t>(u + 1);
    case 1: return static_cast<int64_t>(u - 1);
    case 2: return static_cast<int64_t>(0 - u);
    default: return kValues[rng.below(std::size(kValues))];
  }
}

float boundary_float(Rng& rng, float old) {
  static constexpr float kValues[] = {0.f,    -0.f,   1.f,     -1.f,     0.5f,  2.f,     NAN,   INFINITY,    -INFINITY,
                                      1e-45f, 1e-38f, 3.4e38f, -3.4e38f, 1e30f, 65504.f, 1e-7f, 4294967296.f};
  switch (rng.below(4)) {
    case 0: return old * 2;
    case 1: return -old;
    default: return kValues[rng.below(std::size(kValues))];
  }
}

// Families of ops that take similar inputs: a swap within one makes a model that mostly still
// validates, so the new op's kernel runs.
const std::vector<std::vector<std::string>>& op_families() {
  static const std::vector<std::vector<std::string>> families = {
      {"Relu",
       "Sigmoid",
       "Tanh",
       "Abs",
       "Neg",
       "Exp",
       "Log",
       "Sqrt",
       "Reciprocal",
       "Floor",
       "Ceil",
       "Round",
       "Erf",
       "Identity",
       "Softplus",
       "Softsign",
       "Sign",
       "Sin",
       "Cos",
       "Tan",
       "Asin",
       "Acos",
       "Atan",
       "Sinh",
       "Cosh",
       "Asinh",
       "Acosh",
       "Atanh",
       "HardSigmoid",
       "HardSwish",
       "Elu",
       "Selu",
       "LeakyRelu",
       "Celu",
       "Mish",
       "Gelu",
       "ThresholdedRelu",
       "Shrink",
       "IsNaN",
       "IsInf",
       "Not",
       "BitwiseNot",
       "Dropout"},
      {"Add",      "Sub",        "Mul",       "Div",        "Pow",         "Max",
       "Min",      "Mean",       "Sum",       "Mod",        "And",         "Or",
       "Xor",      "Equal",      "Less",      "Greater",    "LessOrEqual", "GreaterOrEqual",
       "BitShift", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "PRelu",       "MatMul",
       "Expand",   "Reshape",    "Tile"},
      {"ReduceSum",    "ReduceMean",      "ReduceMax",       "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
       "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare", "ArgMax",    "ArgMin",     "Softmax",  "LogSoftmax",
       "Hardmax",      "CumSum",          "LpNormalization", "Flatten",   "Squeeze",    "Unsqueeze"},
      {"Conv", "ConvTranspose", "MaxPool", "AveragePool", "LpPool", "GlobalAveragePool", "GlobalMaxPool",
       "GlobalLpPool", "InstanceNormalization", "LRN", "DepthToSpace", "SpaceToDepth", "MaxRoiPool", "ConvInteger",
       "QLinearConv"},
      {"Gather", "GatherElements",  "GatherND", "ScatterElements", "ScatterND", "Scatter", "OneHot", "Slice",
       "Pad",    "Resize",          "Upsample", "Compress",        "TopK",      "Split",   "Concat", "Trilu",
       "Range",  "ConstantOfShape", "NonZero",  "Where",           "Transpose", "Einsum"},
      {"LayerNormalization", "BatchNormalization", "GroupNormalization", "MeanVarianceNormalization",
       "RMSNormalization", "Gemm", "MatMulInteger", "QLinearMatMul", "Attention", "QuantizeLinear", "DequantizeLinear",
       "DynamicQuantizeLinear", "Cast", "CastLike", "Clip"},
      {"Loop", "If", "Scan", "SequenceMap"},
      {"LSTM", "GRU", "RNN"},
  };
  return families;
}

const std::string& swap_op(Rng& rng, const std::string& op) {
  const auto& families = op_families();
  for (const auto& f : families)
    if (std::find(f.begin(), f.end(), op) != f.end() && !rng.one_in(8)) return f[rng.below(f.size())];
  const auto& f = families[rng.below(families.size())];
  return f[rng.below(f.size())];
}

// Every graph of the model: the main one and the bodies of Loop, If, Scan & co., depth first.
void collect_graphs(onnx::GraphProto* g, std::vector<onnx::GraphProto*>* out, int depth = 0) {
  out->push_back(g);
  if (depth > 8) return;
  for (auto& n : *g->mutable_node())
    for (auto& a : *n.mutable_attribute()) {
      if (a.has_g()) collect_graphs(a.mutable_g(), out, depth + 1);
      for (auto& sub : *a.mutable_graphs()) collect_graphs(&sub, out, depth + 1);
    }
}

// Names a node may read in graph g before its node `before`: inputs, initializers, earlier
// outputs (and, in a subgraph, whatever the outer scope has, which the caller does not track).
std::vector<std::string> visible_names(const onnx::GraphProto& g, int before) {
  std::vector<std::string> names;
  for (const auto& i : g.input()) names.push_back(i.name());
  for (const auto& t : g.initializer()) names.push_back(t.name());
  for (int i = 0; i < before && i < g.node_size(); ++i)
    for (const auto& o : g.node(i).output()) names.push_back(o);
  return names;
}

const char* const kAttrNames[] = {"axis",
                                  "axes",
                                  "perm",
                                  "keepdims",
                                  "group",
                                  "pads",
                                  "strides",
                                  "dilations",
                                  "kernel_shape",
                                  "to",
                                  "mode",
                                  "k",
                                  "alpha",
                                  "beta",
                                  "epsilon",
                                  "transA",
                                  "transB",
                                  "auto_pad",
                                  "ceil_mode",
                                  "blocksize",
                                  "largest",
                                  "sorted",
                                  "exclusive",
                                  "reverse",
                                  "upper",
                                  "batch_dims",
                                  "reduction",
                                  "noop_with_empty_axes",
                                  "output_padding",
                                  "output_shape",
                                  "split",
                                  "num_outputs",
                                  "coordinate_transformation_mode",
                                  "value",
                                  "direction",
                                  "hidden_size",
                                  "saturate",
                                  "stash_type",
                                  "select_last_index"};
const char* const kStrings[] = {"",
                                "constant",
                                "reflect",
                                "edge",
                                "wrap",
                                "nearest",
                                "linear",
                                "cubic",
                                "NOTSET",
                                "SAME_UPPER",
                                "SAME_LOWER",
                                "VALID",
                                "asymmetric",
                                "half_pixel",
                                "align_corners",
                                "tf_crop_and_resize",
                                "round_prefer_floor",
                                "floor",
                                "ceil",
                                "forward",
                                "reverse",
                                "bidirectional",
                                "add",
                                "mul",
                                "max",
                                "min",
                                "none",
                                "tanh",
                                "DCR",
                                "CRD",
                                "x",
                                "\xff\xfe",
                                "ij,jk->ik",
                                "...ii->...i",
                                "ab,ab->"};

void mutate_tensor(Rng& rng, onnx::TensorProto* t) {
  switch (rng.below(6)) {
    case 0: {  // a dim
      if (t->dims_size() == 0 || rng.one_in(4)) t->add_dims(boundary_int(rng, 1));
      else t->set_dims(static_cast<int>(rng.below(t->dims_size())), boundary_int(rng, t->dims(0)));
      break;
    }
    case 1:  // drop a dim
      if (t->dims_size() > 0) t->mutable_dims()->RemoveLast();
      break;
    case 2:  // the element type
      t->set_data_type(
          static_cast<int32_t>(rng.one_in(16) ? boundary_int(rng, 0) : static_cast<int64_t>(rng.below(27))));
      break;
    case 3: {  // bytes of raw_data: special bytes, truncation, extension
      std::string* raw = t->mutable_raw_data();
      if (!raw->empty() && !rng.one_in(4)) {
        static constexpr uint8_t kBytes[] = {0x00, 0xff, 0x7f, 0x80, 0x7c, 0xfc, 0x01};
        for (uint64_t k = 1 + rng.below(4); k > 0; --k)
          (*raw)[rng.below(raw->size())] = static_cast<char>(kBytes[rng.below(std::size(kBytes))]);
      } else if (rng.one_in(2) && !raw->empty()) {
        raw->resize(rng.below(raw->size()));
      } else {
        raw->append(1 + rng.below(16), static_cast<char>(rng.below(256)));
      }
      break;
    }
    case 4:  // typed data
      if (t->int64_data_size() > 0)
        t->set_int64_data(static_cast<int>(rng.below(t->int64_data_size())), boundary_int(rng, t->int64_data(0)));
      else if (t->int32_data_size() > 0)
        t->set_int32_data(static_cast<int>(rng.below(t->int32_data_size())),
                          static_cast<int32_t>(boundary_int(rng, 0)));
      else if (t->float_data_size() > 0)
        t->set_float_data(static_cast<int>(rng.below(t->float_data_size())), boundary_float(rng, t->float_data(0)));
      else if (rng.one_in(2)) t->add_int64_data(boundary_int(rng, 0));
      else t->add_float_data(boundary_float(rng, 1.f));
      break;
    default:  // typed data and raw_data both, or neither
      if (rng.one_in(2)) t->clear_raw_data();
      else t->add_int32_data(static_cast<int32_t>(boundary_int(rng, 0)));
      break;
  }
}

void mutate_attribute(Rng& rng, onnx::AttributeProto* a) {
  using A = onnx::AttributeProto;
  if (rng.one_in(16)) {  // another type, the old value left in place
    a->set_type(static_cast<A::AttributeType>(1 + rng.below(14)));
    return;
  }
  switch (a->type()) {
    case A::INT: a->set_i(boundary_int(rng, a->i())); break;
    case A::FLOAT: a->set_f(boundary_float(rng, a->f())); break;
    case A::STRING: a->set_s(kStrings[rng.below(std::size(kStrings))]); break;
    case A::INTS:
      if (a->ints_size() == 0 || rng.one_in(4)) a->add_ints(boundary_int(rng, 0));
      else if (rng.one_in(4)) a->mutable_ints()->RemoveLast();
      else a->set_ints(static_cast<int>(rng.below(a->ints_size())), boundary_int(rng, a->ints(0)));
      break;
    case A::FLOATS:
      if (a->floats_size() == 0 || rng.one_in(4)) a->add_floats(boundary_float(rng, 1.f));
      else if (rng.one_in(4)) a->mutable_floats()->RemoveLast();
      else a->set_floats(static_cast<int>(rng.below(a->floats_size())), boundary_float(rng, a->floats(0)));
      break;
    case A::TENSOR: mutate_tensor(rng, a->mutable_t()); break;
    case A::STRINGS: a->add_strings(kStrings[rng.below(std::size(kStrings))]); break;
    default: a->set_i(boundary_int(rng, 0)); break;
  }
}

// A dim or the element type of a declared input, output or intermediate.
void mutate_value_info(Rng& rng, onnx::ValueInfoProto* v) {
  onnx::TypeProto_Tensor* tt = v->mutable_type()->mutable_tensor_type();
  if (rng.one_in(4)) {
    tt->set_elem_type(
        static_cast<int32_t>(rng.one_in(16) ? boundary_int(rng, 0) : static_cast<int64_t>(rng.below(27))));
    return;
  }
  onnx::TensorShapeProto* shape = tt->mutable_shape();
  switch (rng.below(6)) {
    case 0: shape->add_dim()->set_dim_value(boundary_int(rng, 1)); break;
    case 1:
      if (shape->dim_size() > 0) shape->mutable_dim()->RemoveLast();
      break;
    case 2: tt->clear_shape(); break;
    default: {
      if (shape->dim_size() == 0) {
        shape->add_dim()->set_dim_param("N");
        break;
      }
      auto* d = shape->mutable_dim(static_cast<int>(rng.below(shape->dim_size())));
      if (rng.one_in(3)) d->set_dim_param(rng.one_in(2) ? "N" : rng.one_in(2) ? "M" : "");
      else if (rng.one_in(4)) d->Clear();
      else d->set_dim_value(boundary_int(rng, d->dim_value()));
    }
  }
}

bool mutate_node(Rng& rng, onnx::GraphProto* g) {
  if (g->node_size() == 0) return false;
  const int index = static_cast<int>(rng.below(g->node_size()));
  onnx::NodeProto* n = g->mutable_node(index);
  switch (rng.below(12)) {
    case 0:
    case 1:
    case 2:
    case 3:  // an attribute's value (most models' semantics live there)
      if (n->attribute_size() == 0) return false;
      mutate_attribute(rng, n->mutable_attribute(static_cast<int>(rng.below(n->attribute_size()))));
      return true;
    case 4: {  // a new attribute, or one removed
      if (n->attribute_size() > 0 && rng.one_in(2)) {
        n->mutable_attribute()->DeleteSubrange(static_cast<int>(rng.below(n->attribute_size())), 1);
        return true;
      }
      onnx::AttributeProto* a = n->add_attribute();
      a->set_name(kAttrNames[rng.below(std::size(kAttrNames))]);
      switch (rng.below(4)) {
        case 0:
          a->set_type(onnx::AttributeProto::INT);
          a->set_i(boundary_int(rng, 0));
          break;
        case 1:
          a->set_type(onnx::AttributeProto::FLOAT);
          a->set_f(boundary_float(rng, 1.f));
          break;
        case 2:
          a->set_type(onnx::AttributeProto::STRING);
          a->set_s(kStrings[rng.below(std::size(kStrings))]);
          break;
        default:
          a->set_type(onnx::AttributeProto::INTS);
          for (uint64_t k = rng.below(5); k > 0; --k) a->add_ints(boundary_int(rng, 1));
      }
      return true;
    }
    case 5: n->set_op_type(swap_op(rng, n->op_type())); return true;
    case 6: {  // an input dropped, emptied (an optional input left out) or duplicated
      if (n->input_size() == 0) return false;
      const int i = static_cast<int>(rng.below(n->input_size()));
      if (rng.one_in(3)) n->mutable_input()->DeleteSubrange(i, 1);
      else if (rng.one_in(2)) n->set_input(i, "");
      else n->add_input(n->input(i));
      return true;
    }
    case 7: {  // an input rewired to another visible name (or a later one: out of order, a cycle)
      const auto names = visible_names(*g, rng.one_in(8) ? g->node_size() : index);
      if (names.empty() || n->input_size() == 0) return false;
      n->set_input(static_cast<int>(rng.below(n->input_size())), names[rng.below(names.size())]);
      return true;
    }
    case 8: {  // an output: duplicated, renamed to an existing name, or dropped
      if (n->output_size() == 0) return false;
      const int i = static_cast<int>(rng.below(n->output_size()));
      if (rng.one_in(3)) n->add_output(n->output(i));
      else if (rng.one_in(2) && n->output_size() > 1) n->mutable_output()->DeleteSubrange(i, 1);
      else {
        const auto names = visible_names(*g, g->node_size());
        if (names.empty()) return false;
        n->set_output(i, names[rng.below(names.size())]);
      }
      return true;
    }
    case 9: {  // domain
      static const char* const kDomains[] = {"", "ai.onnx", "com.microsoft", "ai.onnx.ml", "com.hipinfer", "x"};
      n->set_domain(kDomains[rng.below(std::size(kDomains))]);
      return true;
    }
    case 10: {  // removed, duplicated, or moved
      if (rng.one_in(3)) {
        g->mutable_node()->DeleteSubrange(index, 1);
      } else if (rng.one_in(2)) {
        *g->add_node() = *n;
      } else {
        const int other = static_cast<int>(rng.below(g->node_size()));
        g->mutable_node()->SwapElements(index, other);
      }
      return true;
    }
    default:  // the node's name (names appear in messages, traces and placement)
      n->set_name(rng.one_in(2) ? "" : n->name() + "\n%s\x7f");
      return true;
  }
}

bool mutate_graph(Rng& rng, onnx::GraphProto* g) {
  switch (rng.below(8)) {
    case 0:
    case 1:
    case 2:
    case 3: return mutate_node(rng, g);
    case 4: {  // an input, output or value_info
      const int n = g->input_size() + g->output_size() + g->value_info_size();
      if (n == 0) return false;
      int i = static_cast<int>(rng.below(n));
      if (i < g->input_size()) mutate_value_info(rng, g->mutable_input(i));
      else if ((i -= g->input_size()) < g->output_size()) mutate_value_info(rng, g->mutable_output(i));
      else mutate_value_info(rng, g->mutable_value_info(i - g->output_size()));
      return true;
    }
    case 5:
    case 6: {  // an initializer (or a Constant's value, through its attribute)
      if (g->initializer_size() == 0) return false;
      mutate_tensor(rng, g->mutable_initializer(static_cast<int>(rng.below(g->initializer_size()))));
      return true;
    }
    default: {  // inputs and initializers: one dropped, an initializer shadowing an input, or an output removed
      if (rng.one_in(3) && g->input_size() > 0) {
        g->mutable_input()->DeleteSubrange(static_cast<int>(rng.below(g->input_size())), 1);
      } else if (rng.one_in(2) && g->input_size() > 0) {
        onnx::TensorProto* t = g->add_initializer();
        t->set_name(g->input(static_cast<int>(rng.below(g->input_size()))).name());
        t->set_data_type(onnx::TensorProto::FLOAT);
        t->add_dims(1);
        t->add_float_data(boundary_float(rng, 1.f));
      } else if (g->output_size() > 1) {
        g->mutable_output()->DeleteSubrange(static_cast<int>(rng.below(g->output_size())), 1);
      } else {
        return false;
      }
      return true;
    }
  }
}

bool mutate_model(Rng& rng, onnx::ModelProto* m) {
  if (rng.one_in(16)) {  // the opset or IR version
    static constexpr int64_t kOpsets[] = {1,  6,  7,  9,  10, 11, 12, 13, 14,  15, 16, 17,
                                          18, 19, 20, 21, 22, 23, 28, 29, 100, 0,  -1};
    if (rng.one_in(4)) {
      m->set_ir_version(boundary_int(rng, m->ir_version()));
    } else if (m->opset_import_size() > 0) {
      m->mutable_opset_import(static_cast<int>(rng.below(m->opset_import_size())))
          ->set_version(kOpsets[rng.below(std::size(kOpsets))]);
    }
    return true;
  }
  std::vector<onnx::GraphProto*> graphs;
  collect_graphs(m->mutable_graph(), &graphs);
  // Bodies are few and small: give them a fair share.
  onnx::GraphProto* g = graphs[rng.below(graphs.size())];
  return mutate_graph(rng, g);
}

size_t write_back(const onnx::ModelProto& m, uint8_t* data, size_t max_size) {
  std::string out;
  if (!m.SerializeToString(&out) || out.size() > max_size) return 0;
  std::memcpy(data, out.data(), out.size());
  return out.size();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  hi::SessionOptions options;
  options.memory_limit = kMemoryLimit;
  options.constant_folding_limit = kFoldingLimit;
  options.threads = 1;
  options.devices = {"cpu"};
  auto session = hi::Session::create_from_bytes(data, size, options);
  if (!session.is_ok()) {
    note_status(session.status());
    return 0;
  }
  const hi::Session& s = *session.value();
  Rng rng{hash_bytes(data, size)};
  hi::TensorMap feeds;
  if (!make_feeds(s, rng, &feeds)) return 0;
  hi::RunOptions run_options;
  run_options.timeout_ms = kRunTimeoutMs;
  auto outputs = s.run(feeds, {}, nullptr, &run_options);
  if (!outputs.is_ok()) {
    note_status(outputs.status());
    return 0;
  }
  uint64_t sum = 0;
  for (const auto& [name, t] : outputs.value()) sum += touch(t) + name.size();
  if (sum == 1) std::fprintf(stderr, " ");  // keeps the reads from being optimised away
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
  Rng rng{seed};
  if (rng.one_in(4)) return LLVMFuzzerMutate(data, size, max_size);
  onnx::ModelProto m;
  if (!m.ParseFromArray(data, static_cast<int>(size)) || !m.has_graph()) return LLVMFuzzerMutate(data, size, max_size);
  bool changed = false;
  for (uint64_t k = 1 + (rng.one_in(3) ? rng.below(3) : 0); k > 0; --k)
    for (int tries = 0; tries < 4; ++tries)
      if (mutate_model(rng, &m)) {
        changed = true;
        break;
      }
  const size_t n = changed ? write_back(m, data, max_size) : 0;
  return n ? n : LLVMFuzzerMutate(data, size, max_size);
}

// Transplants a node of the second model into the first: its inputs rewired to names the first
// model has at that point, its first output read by a later node or made a graph output.
extern "C" size_t LLVMFuzzerCustomCrossOver(const uint8_t* data1, size_t size1, const uint8_t* data2, size_t size2,
                                            uint8_t* out, size_t max_out_size, unsigned int seed) {
  Rng rng{seed};
  onnx::ModelProto a, b;
  if (!a.ParseFromArray(data1, static_cast<int>(size1)) || !b.ParseFromArray(data2, static_cast<int>(size2)) ||
      b.graph().node_size() == 0)
    return 0;
  onnx::GraphProto* g = a.mutable_graph();
  const int at = static_cast<int>(rng.below(g->node_size() + 1));
  onnx::NodeProto node = b.graph().node(static_cast<int>(rng.below(b.graph().node_size())));
  const auto names = visible_names(*g, at);
  if (names.empty()) return 0;
  for (int i = 0; i < node.input_size(); ++i)
    if (!node.input(i).empty()) node.set_input(i, names[rng.below(names.size())]);
  for (int i = 0; i < node.output_size(); ++i)
    node.set_output(i, "xo_" + std::to_string(seed) + "_" + std::to_string(i));
  if (node.output_size() == 0) node.add_output("xo_" + std::to_string(seed));
  g->add_node()->Swap(&node);
  for (int i = g->node_size() - 1; i > at; --i) g->mutable_node()->SwapElements(i, i - 1);
  const std::string produced = g->node(at).output(0);
  if (at + 1 < g->node_size() && g->node(at + 1).input_size() > 0 && !rng.one_in(4)) {
    onnx::NodeProto* next = g->mutable_node(at + 1 + static_cast<int>(rng.below(g->node_size() - at - 1)));
    if (next->input_size() > 0) next->set_input(static_cast<int>(rng.below(next->input_size())), produced);
  } else {
    g->add_output()->set_name(produced);
  }
  for (const auto& op : b.opset_import()) {  // the op's opset, if the first model lacks its domain
    bool have = false;
    for (const auto& o : a.opset_import()) have |= o.domain() == op.domain();
    if (!have) *a.add_opset_import() = op;
  }
  return write_back(a, out, max_out_size);
}
