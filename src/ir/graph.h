// The in-memory graph every stage after the reader works on. No protobuf past src/onnx/.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "hipinfer/tensor.h"

namespace hi::ir {

// A dimension: a known size, or unknown with an optional symbol ("batch", "seq").
struct Dim {
  int64_t value = -1;
  std::string symbol;

  static Dim known(int64_t v) { return {v, {}}; }
  static Dim named(std::string s) { return {-1, std::move(s)}; }
  bool is_known() const { return value >= 0; }
  bool operator==(const Dim& o) const { return value == o.value && symbol == o.symbol; }
  std::string to_string() const { return is_known() ? std::to_string(value) : (symbol.empty() ? "?" : symbol); }
};

enum class ValueKind { kTensor, kSequence, kOptional, kMap, kUnknown };

// The static type of a graph value. For tensors, `shape` is empty when the rank is unknown.
struct ValueType {
  ValueKind kind = ValueKind::kTensor;
  DType dtype = DType::kUndefined;
  std::optional<std::vector<Dim>> shape;
  std::shared_ptr<ValueType> elem;  // sequence and optional element type; a map's value type
  // (a map's key type is `dtype`: int64 or string)

  static ValueType tensor(DType dtype, std::vector<Dim> dims) {
    return {ValueKind::kTensor, dtype, std::move(dims), nullptr};
  }
  static ValueType tensor_unknown_shape(DType dtype) { return {ValueKind::kTensor, dtype, std::nullopt, nullptr}; }
  static ValueType concrete(DType dtype, const Shape& shape);
  bool has_rank() const { return shape.has_value(); }
  int64_t rank() const { return shape ? static_cast<int64_t>(shape->size()) : -1; }
  // True when every dim is known; then `concrete_shape()` is valid.
  bool is_static() const;
  Shape concrete_shape() const;
  std::string to_string() const;  // "float32[batch, 3, 224, 224]"
  // The type as onnxruntime spells it: "tensor(float)", "seq(map(int64,tensor(float)))".
  std::string ort_string() const;
  // The kinds and element types of an ort_string() (shapes unknown); nullopt when it does not read.
  static std::optional<ValueType> from_ort_string(std::string_view text);
};

struct Graph;

struct Attribute {
  enum class Kind {
    kFloat,
    kInt,
    kString,
    kTensor,
    kGraph,
    kFloats,
    kInts,
    kStrings,
    kTensors,
    kGraphs,
    kTypeProto,
    kUndefined
  };
  Kind kind = Kind::kUndefined;
  float f = 0;
  int64_t i = 0;
  std::string s;
  Tensor t;
  std::shared_ptr<Graph> g;
  std::vector<float> floats;
  std::vector<int64_t> ints;
  std::vector<std::string> strings;
  std::vector<Tensor> tensors;
  std::vector<std::shared_ptr<Graph>> graphs;
  ValueType type;  // kTypeProto
};
const char* attribute_kind_name(Attribute::Kind k);

struct Node {
  std::string name;
  std::string op_type;
  std::string domain;                // "" for the default ai.onnx domain
  std::vector<std::string> inputs;   // "" marks an absent optional input
  std::vector<std::string> outputs;  // "" marks an unused optional output
  std::map<std::string, Attribute> attributes;

  const Attribute* attr(const std::string& key) const {
    auto it = attributes.find(key);
    return it == attributes.end() ? nullptr : &it->second;
  }
  // "node 'conv1' (Conv)" for error messages; falls back to the first output's name.
  std::string describe() const;
};

struct ValueInfo {
  std::string name;
  ValueType type;
};

struct Graph {
  std::string name;
  std::vector<Node> nodes;
  std::vector<ValueInfo> inputs;  // graph inputs that are not initializers
  std::vector<ValueInfo> outputs;
  std::vector<ValueInfo> value_infos;  // optional annotations of intermediate values
  std::map<std::string, Tensor> initializers;
  // Initializers that the model also lists as graph inputs: users may override them (IR < 4).
  std::vector<ValueInfo> overridable_initializers;
};

// A model-local function (FunctionProto), expanded into nodes when it is called.
struct Function {
  std::string name;
  std::string domain;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  std::vector<std::string> attribute_names;
  std::map<std::string, Attribute> attribute_defaults;
  std::vector<Node> nodes;
  std::map<std::string, int64_t> opsets;
};

struct Model {
  int64_t ir_version = 0;
  std::map<std::string, int64_t> opsets;  // domain ("" for ai.onnx) -> version
  std::string producer_name;
  std::string producer_version;
  // What the file says about itself (Session::metadata(), onnxruntime's ModelMetadata).
  std::string domain, doc_string, graph_doc_string;
  int64_t model_version = 0;
  std::map<std::string, std::string> metadata_props;
  std::string path;  // where it was read from, for messages ("<memory>" for bytes)
  Graph graph;
  std::vector<Function> functions;

  int64_t opset(const std::string& domain) const {
    auto it = opsets.find(domain == "ai.onnx" ? "" : domain);
    return it == opsets.end() ? 0 : it->second;
  }
};

}  // namespace hi::ir
