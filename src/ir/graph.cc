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
