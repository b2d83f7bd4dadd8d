// GraphBuilder and Rng: the only zoo file that touches the ONNX protobuf classes.
#include "zoo/graph_builder.h"

#include <unistd.h>

#include <onnx/onnx_pb.h>

#include <bit>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <numbers>

#ifndef HI_ZOO_VERSION
#define HI_ZOO_VERSION "0"
#endif

namespace hi::zoo {
namespace {

static_assert(std::endian::native == std::endian::little, "raw_data is written in host byte order");

// Protobuf refuses messages of 2 GiB or more; keep headroom for the graph structure itself.
constexpr uint64_t kMaxInitializerBytes = static_cast<uint64_t>(INT_MAX) - (64u << 20);

uint64_t splitmix64_mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t fnv1a64(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (const char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

void set_dims(onnx::TensorProto* t, const std::vector<int64_t>& dims) {
  for (const int64_t d : dims) t->add_dims(d);
}

int64_t element_count(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (const int64_t d : dims) n *= d;
  return n;
}

void set_value_info(onnx::ValueInfoProto* vi, const std::string& name, ElemType type,
                    const std::vector<ShapeDim>& dims) {
  vi->set_name(name);
  auto* tensor_type = vi->mutable_type()->mutable_tensor_type();
  tensor_type->set_elem_type(static_cast<int32_t>(type));
  auto* shape = tensor_type->mutable_shape();
  for (const auto& d : dims) {
    auto* dim = shape->add_dim();
    if (!d.symbol.empty()) dim->set_dim_param(d.symbol);
    else if (d.value >= 0) dim->set_dim_value(d.value);
    // else: an unknown dim without a name
  }
}

}  // namespace

// ---- Rng ----

Rng::Rng(uint64_t seed, std::string_view stream)
    : state_(splitmix64_mix(seed + 0x9e3779b97f4a7c15ULL) ^ fnv1a64(stream)) {}

uint64_t Rng::next_u64() {
  state_ += 0x9e3779b97f4a7c15ULL;
  return splitmix64_mix(state_);
}

double Rng::uniform() { return (static_cast<double>(next_u64() >> 11) + 0.5) * 0x1.0p-53; }

double Rng::normal() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_;
  }
  const double r = std::sqrt(-2.0 * std::log(uniform()));
  const double theta = 2.0 * std::numbers::pi * uniform();
  spare_ = r * std::sin(theta);
  has_spare_ = true;
  return r * std::cos(theta);
}

std::vector<float> random_normal(Rng rng, size_t count, double mean, double stddev) {
  std::vector<float> v(count);
  for (auto& x : v) x = static_cast<float>(mean + stddev * rng.normal());
  return v;
}

int64_t ir_version_for_opset(int64_t opset) {
  // From ONNX's VERSION_TABLE: the IR version of the release that introduced each opset.
  if (opset <= 8) return 3;
  if (opset == 9) return 4;
  if (opset == 10) return 5;
  if (opset == 11) return 6;
  if (opset <= 14) return 7;
  if (opset <= 18) return 8;
  if (opset <= 20) return 9;
  return 10;  // 21, 22
}

// ---- GraphBuilder ----

GraphBuilder::GraphBuilder(std::string graph_name, int64_t opset, uint64_t seed)
    : model_(std::make_unique<onnx::ModelProto>()), opset_(opset), seed_(seed) {
  HI_ASSERT(opset >= kMinOpset && opset <= kMaxOpset, "opset ", opset, " is not checked by the caller");
  model_->mutable_graph()->set_name(std::move(graph_name));
}

GraphBuilder::~GraphBuilder() = default;

void GraphBuilder::add_input(const std::string& name, ElemType type, const std::vector<ShapeDim>& dims) {
  set_value_info(model_->mutable_graph()->add_input(), name, type, dims);
}

void GraphBuilder::add_output(const std::string& name, ElemType type, const std::vector<ShapeDim>& dims) {
  set_value_info(model_->mutable_graph()->add_output(), name, type, dims);
}

std::string GraphBuilder::unique_node_name(const std::string& scope, const std::string& op_type) {
  const std::string base = scope + "/" + op_type;
  const int n = name_counts_[base]++;
  return n == 0 ? base : base + "_" + std::to_string(n);
}

std::vector<std::string> GraphBuilder::add_node(const std::string& op_type, const std::string& scope,
                                                const std::vector<std::string>& inputs, const std::vector<Attr>& attrs,
                                                int num_outputs, const std::vector<std::string>& output_names) {
  HI_ASSERT(output_names.empty() || static_cast<int>(output_names.size()) == num_outputs, op_type, " in ", scope);
  auto* node = model_->mutable_graph()->add_node();
  node->set_op_type(op_type);
  node->set_name(unique_node_name(scope, op_type));
  for (const auto& in : inputs) node->add_input(in);
  std::vector<std::string> outputs;
  for (int i = 0; i < num_outputs; ++i) {
    outputs.push_back(output_names.empty() ? node->name() + "_output_" + std::to_string(i) : output_names[i]);
    node->add_output(outputs.back());
  }
  for (const auto& a : attrs) {
    auto* attr = node->add_attribute();
    attr->set_name(a.name);
    switch (a.kind) {
      case Attr::Kind::kInt:
        attr->set_type(onnx::AttributeProto::INT);
        attr->set_i(a.int_value);
        break;
      case Attr::Kind::kFloat:
        attr->set_type(onnx::AttributeProto::FLOAT);
        attr->set_f(a.float_value);
        break;
      case Attr::Kind::kInts:
        attr->set_type(onnx::AttributeProto::INTS);
        for (const int64_t v : a.ints) attr->add_ints(v);
        break;
    }
  }
  return outputs;
}

std::string GraphBuilder::op(const std::string& op_type, const std::string& scope,
                             const std::vector<std::string>& inputs, const std::vector<Attr>& attrs,
                             const std::string& output_name) {
  return add_node(op_type, scope, inputs, attrs, 1,
                  output_name.empty() ? std::vector<std::string>{} : std::vector<std::string>{output_name})[0];
}

bool GraphBuilder::reserve_bytes(const std::string& name, uint64_t bytes) {
  initializer_bytes_ += bytes;
  if (initializer_bytes_ <= kMaxInitializerBytes) return true;
  if (too_large_.empty()) too_large_ = name;
  return false;
}

std::string GraphBuilder::add_initializer(const std::string& name, const std::vector<int64_t>& dims,
                                          const std::vector<float>& values, bool is_buffer) {
  HI_ASSERT(element_count(dims) == static_cast<int64_t>(values.size()), "initializer ", name);
  if (!is_buffer) parameter_count_ += static_cast<int64_t>(values.size());
  if (!reserve_bytes(name, values.size() * sizeof(float))) return name;
  auto* t = model_->mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  set_dims(t, dims);
  t->set_raw_data(values.data(), values.size() * sizeof(float));
  return name;
}

std::string GraphBuilder::add_initializer_i64(const std::string& name, const std::vector<int64_t>& dims,
                                              const std::vector<int64_t>& values) {
  return add_raw_initializer(name, dims, onnx::TensorProto::INT64, values.data(), values.size(), sizeof(int64_t));
}

std::string GraphBuilder::add_raw_initializer(const std::string& name, const std::vector<int64_t>& dims, int32_t type,
                                              const void* data, size_t count, size_t element_size) {
  HI_ASSERT(element_count(dims) == static_cast<int64_t>(count), "initializer ", name);
  if (!reserve_bytes(name, count * element_size)) return name;
  auto* t = model_->mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(type);
  set_dims(t, dims);
  t->set_raw_data(data, count * element_size);
  return name;
}

std::string GraphBuilder::add_initializer_i8(const std::string& name, const std::vector<int64_t>& dims,
                                             const std::vector<int8_t>& values) {
  return add_raw_initializer(name, dims, onnx::TensorProto::INT8, values.data(), values.size(), 1);
}
std::string GraphBuilder::add_initializer_u8(const std::string& name, const std::vector<int64_t>& dims,
                                             const std::vector<uint8_t>& values) {
  return add_raw_initializer(name, dims, onnx::TensorProto::UINT8, values.data(), values.size(), 1);
}
std::string GraphBuilder::add_initializer_i32(const std::string& name, const std::vector<int64_t>& dims,
                                              const std::vector<int32_t>& values) {
  return add_raw_initializer(name, dims, onnx::TensorProto::INT32, values.data(), values.size(), sizeof(int32_t));
}

std::string GraphBuilder::constant_i64(const std::string& scope, const std::vector<int64_t>& dims,
                                       const std::vector<int64_t>& values) {
  HI_ASSERT(element_count(dims) == static_cast<int64_t>(values.size()), "constant in ", scope);
  auto* node = model_->mutable_graph()->add_node();
  node->set_op_type("Constant");
  node->set_name(unique_node_name(scope, "Constant"));
  node->add_output(node->name() + "_output_0");
  auto* attr = node->add_attribute();
  attr->set_name("value");
  attr->set_type(onnx::AttributeProto::TENSOR);
  auto* t = attr->mutable_t();
  t->set_data_type(onnx::TensorProto::INT64);
  set_dims(t, dims);
  for (const int64_t v : values) t->add_int64_data(v);
  return node->output(0);
}

std::string GraphBuilder::constant_f32(const std::string& scope, float value) {
  auto* node = model_->mutable_graph()->add_node();
  node->set_op_type("Constant");
  node->set_name(unique_node_name(scope, "Constant"));
  node->add_output(node->name() + "_output_0");
  auto* attr = node->add_attribute();
  attr->set_name("value");
  attr->set_type(onnx::AttributeProto::TENSOR);
  auto* t = attr->mutable_t();
  t->set_data_type(onnx::TensorProto::FLOAT);
  t->add_float_data(value);
  return node->output(0);
}

std::string GraphBuilder::unsqueeze(const std::string& scope, const std::string& x, const std::vector<int64_t>& axes) {
  if (opset_ >= 13) {
    const std::string a = constant_i64(scope, {static_cast<int64_t>(axes.size())}, axes);
    return op("Unsqueeze", scope, {x, a});
  }
  return op("Unsqueeze", scope, {x}, {Attr::ints_of("axes", axes)});
}

std::string GraphBuilder::reduce_mean(const std::string& scope, const std::string& x, const std::vector<int64_t>& axes,
                                      bool keepdims) {
  const Attr keep = Attr::i("keepdims", keepdims ? 1 : 0);
  if (opset_ >= 18) {
    const std::string a = constant_i64(scope, {static_cast<int64_t>(axes.size())}, axes);
    return op("ReduceMean", scope, {x, a}, {keep});
  }
  return op("ReduceMean", scope, {x}, {Attr::ints_of("axes", axes), keep});
}

std::string GraphBuilder::clip(const std::string& scope, const std::string& x, float lo, float hi) {
  if (opset_ >= 11) {
    const std::string min = constant_f32(scope, lo);
    const std::string max = constant_f32(scope, hi);
    return op("Clip", scope, {x, min, max});
  }
  return op("Clip", scope, {x}, {Attr::f("min", lo), Attr::f("max", hi)});
}

Status GraphBuilder::finish(const std::string& doc_string) {
  if (!too_large_.empty()) {
    return error(StatusCode::kInvalidArgument, "the weights would take ", initializer_bytes_ >> 20,
                 " MiB, over the 2 GiB that one ONNX protobuf can hold (the limit is reached at tensor '", too_large_,
                 "'); choose smaller sizes");
  }
  model_->set_ir_version(ir_version_for_opset(opset_));
  model_->set_producer_name("hipinfer-zoo");
  model_->set_producer_version(HI_ZOO_VERSION);
  model_->set_doc_string(doc_string);
  auto* os = model_->add_opset_import();
  os->set_domain("");
  os->set_version(opset_);
  const size_t bytes = model_->ByteSizeLong();
  HI_RETURN_IF(bytes > static_cast<size_t>(INT_MAX), kInvalidArgument, "the model would take ", bytes >> 20,
               " MiB, over the 2 GiB that one ONNX protobuf can hold; choose smaller sizes");
  byte_size_ = static_cast<int64_t>(bytes);
  return Status::ok();
}

Result<std::string> GraphBuilder::serialize() const {
  std::string bytes;
  if (!model_->SerializeToString(&bytes))
    return error(StatusCode::kInternal, "serializing the model '", model_->graph().name(), "' failed");
  return bytes;
}

// Writes a temporary file beside `path` and renames it over `path` once complete, so a failed
// write never leaves half a model, and removes nothing but its own temporary file. An existing
// `path` that is not a regular file (/dev/full, a FIFO) is refused: renaming over a device node
// would replace it.
Status GraphBuilder::write(const std::string& path) const {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path p(path);
  if (fs::is_directory(p, ec))
    return error(StatusCode::kInvalidArgument, "cannot write the model to '", path, "': it is a directory");
  if (fs::exists(fs::symlink_status(p, ec)) && !fs::is_regular_file(p, ec))
    return error(StatusCode::kInvalidArgument, "cannot write the model to '", path, "': not a regular file");
  const fs::path parent = p.parent_path();
  if (!parent.empty() && !fs::is_directory(parent, ec))
    return error(StatusCode::kNotFound, "cannot write the model to '", path, "': folder '", parent.string(),
                 "' does not exist");
  const fs::path temporary = p.string() + ".tmp-" + std::to_string(::getpid());
  std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
  if (!out)
    return error(StatusCode::kInvalidArgument, "cannot write the model to '", path, "': ", std::strerror(errno));
  const bool ok = model_->SerializeToOstream(&out);
  out.close();
  if (!ok || !out) {
    const int err = errno;
    fs::remove(temporary, ec);
    return error(StatusCode::kRuntimeError, "writing the model to '", path, "' failed",
                 err ? std::string(": ") + std::strerror(err) : std::string());
  }
  fs::rename(temporary, p, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    return error(StatusCode::kRuntimeError, "writing the model to '", path, "' failed: ", ec.message());
  }
  return Status::ok();
}

}  // namespace hi::zoo
