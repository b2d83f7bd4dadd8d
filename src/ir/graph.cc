// Printing helpers for the IR.
#include "ir/graph.h"

namespace hi::ir {

ValueType ValueType::concrete(DType dtype, const Shape& shape) {
  std::vector<Dim> dims;
  for (int64_t d : shape) dims.push_back(Dim::known(d));
  return tensor(dtype, std::move(dims));
}

bool ValueType::is_static() const {
  if (kind != ValueKind::kTensor || !shape) return false;
  for (const Dim& d : *shape)
    if (!d.is_known()) return false;
  return true;
}

Shape ValueType::concrete_shape() const {
  Shape s;
  if (shape)
    for (const Dim& d : *shape) s.push_back(d.value);
  return s;
}

namespace {

// ONNX's names of element types ("float", "double", "int64", ...), as onnxruntime prints them.
std::string onnx_type_name(DType d) {
  if (d == DType::kFloat32) return "float";
  if (d == DType::kFloat64) return "double";
  return dtype_name(d);
}

// Reads one type from the front of `text`, advancing it past what it read.
std::optional<ValueType> read_ort_type(std::string_view& text) {
  auto take = [&](std::string_view word) {
    if (text.substr(0, word.size()) != word) return false;
    text.remove_prefix(word.size());
    return true;
  };
  auto elem_type = [&](ValueKind kind, DType key) -> std::optional<ValueType> {
    std::optional<ValueType> inner = read_ort_type(text);
    if (!inner || !take(")")) return std::nullopt;
    ValueType t{kind, key, std::nullopt, std::make_shared<ValueType>(std::move(*inner))};
    return t;
  };
  if (take("tensor(")) {
    const size_t close = text.find(')');
    if (close == std::string_view::npos) return std::nullopt;
    const DType d = dtype_from_name(std::string(text.substr(0, close)));
    if (d == DType::kUndefined) return std::nullopt;
    text.remove_prefix(close + 1);
    return ValueType::tensor_unknown_shape(d);
  }
  if (take("seq(")) return elem_type(ValueKind::kSequence, DType::kUndefined);
  if (take("optional(")) return elem_type(ValueKind::kOptional, DType::kUndefined);
  if (take("map(")) {
    const size_t comma = text.find(',');
    if (comma == std::string_view::npos) return std::nullopt;
    const DType key = dtype_from_name(std::string(text.substr(0, comma)));
    if (key == DType::kUndefined) return std::nullopt;
    text.remove_prefix(comma + 1);
    return elem_type(ValueKind::kMap, key);
  }
  return std::nullopt;
}

}  // namespace

std::string ValueType::ort_string() const {
  auto inner = [&] { return elem ? elem->ort_string() : std::string("unknown"); };
  switch (kind) {
    case ValueKind::kTensor: return "tensor(" + onnx_type_name(dtype) + ")";
    case ValueKind::kSequence: return "seq(" + inner() + ")";
    case ValueKind::kOptional: return "optional(" + inner() + ")";
    case ValueKind::kMap: return "map(" + onnx_type_name(dtype) + "," + inner() + ")";
    case ValueKind::kUnknown: break;
  }
  return "unknown";
}

std::optional<ValueType> ValueType::from_ort_string(std::string_view text) {
  std::optional<ValueType> t = read_ort_type(text);
  if (!t || !text.empty()) return std::nullopt;
  return t;
}

std::string ValueType::to_string() const {
  switch (kind) {
    case ValueKind::kSequence: return "sequence<" + (elem ? elem->to_string() : "?") + ">";
    case ValueKind::kOptional: return "optional<" + (elem ? elem->to_string() : "?") + ">";
    case ValueKind::kMap:
      return "map<" + std::string(dtype_name(dtype)) + ", " + (elem ? elem->to_string() : "?") + ">";
    case ValueKind::kUnknown: return "?";
    case ValueKind::kTensor: break;
  }
  std::string s = dtype_name(dtype);
  if (!shape) return s + "[...]";
  s += "[";
  for (size_t i = 0; i < shape->size(); ++i) s += (i ? ", " : "") + (*shape)[i].to_string();
  return s + "]";
}

const char* attribute_kind_name(Attribute::Kind k) {
  switch (k) {
    case Attribute::Kind::kFloat: return "float";
    case Attribute::Kind::kInt: return "int";
    case Attribute::Kind::kString: return "string";
    case Attribute::Kind::kTensor: return "tensor";
    case Attribute::Kind::kGraph: return "graph";
    case Attribute::Kind::kFloats: return "floats";
    case Attribute::Kind::kInts: return "ints";
    case Attribute::Kind::kStrings: return "strings";
    case Attribute::Kind::kTensors: return "tensors";
    case Attribute::Kind::kGraphs: return "graphs";
    case Attribute::Kind::kTypeProto: return "type_proto";
    case Attribute::Kind::kUndefined: return "undefined";
  }
  return "?";
}

std::string Node::describe() const {
  std::string id = name;
  if (id.empty()) {
    for (const auto& o : outputs)
      if (!o.empty()) {
        id = "producing '" + o + "'";
        return "node " + id + " (" + op_type + ")";
      }
  }
  return "node '" + id + "' (" + (domain.empty() ? "" : domain + ".") + op_type + ")";
}

}  // namespace hi::ir
