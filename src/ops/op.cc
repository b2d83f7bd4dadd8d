// InitContext, InferContext and RunContext, and the registry built from op_list.def.
#include "ops/op.h"

#include <map>

namespace hi::ops {

// ---- registry ----------------------------------------------------------------------------

#define HI_OP_IN(name, op_type, domain, since) std::unique_ptr<Op> make_op_##name();
#define HI_OP(name, domain, since) HI_OP_IN(name, name, domain, since)
#include "ops/op_list.def"
#undef HI_OP
#undef HI_OP_IN

const std::vector<OpEntry>& all_ops() {
  static const std::vector<OpEntry> ops = {
#define HI_OP_IN(name, op_type, domain, since) {#op_type, domain, since, &make_op_##name},
#define HI_OP(name, domain, since) HI_OP_IN(name, name, domain, since)
#include "ops/op_list.def"
#undef HI_OP
#undef HI_OP_IN
  };
  return ops;
}

const OpEntry* find_op(const std::string& domain, const std::string& op_type) {
  static const auto index = [] {
    std::map<std::pair<std::string, std::string>, const OpEntry*> m;
    for (const auto& e : all_ops()) m[{e.domain, e.op_type}] = &e;
    return m;
  }();
  auto it = index.find({domain == "ai.onnx" ? "" : domain, op_type});
  return it == index.end() ? nullptr : it->second;
}

// ---- InitContext ---------------------------------------------------------------------------

const ir::Attribute* InitContext::find(const std::string& name, ir::Attribute::Kind kind) {
  const ir::Attribute* a = node_.attr(name);
  if (!a) return nullptr;
  if (a->kind != kind) {
    // An int where a float is expected (or one value where a list is) is a common exporter
    // slip that ONNX Runtime accepts too; anything else is an error.
    (void)fail(StatusCode::kInvalidModel, "attribute '", name, "' is ", ir::attribute_kind_name(a->kind), ", expected ",
               ir::attribute_kind_name(kind));
    return nullptr;
  }
  return a;
}

int64_t InitContext::get_int(const std::string& name, int64_t def) {
  const ir::Attribute* a = find(name, ir::Attribute::Kind::kInt);
  return a ? a->i : def;
}

float InitContext::get_float(const std::string& name, float def) {
  const ir::Attribute* a = node_.attr(name);
  if (a && a->kind == ir::Attribute::Kind::kInt) return static_cast<float>(a->i);
  a = find(name, ir::Attribute::Kind::kFloat);
  return a ? a->f : def;
}

std::string InitContext::get_string(const std::string& name, const std::string& def) {
  const ir::Attribute* a = find(name, ir::Attribute::Kind::kString);
  return a ? a->s : def;
}

std::vector<int64_t> InitContext::get_ints(const std::string& name, const std::vector<int64_t>& def) {
  const ir::Attribute* a = node_.attr(name);
  if (a && a->kind == ir::Attribute::Kind::kInt) return {a->i};
  a = find(name, ir::Attribute::Kind::kInts);
  return a ? a->ints : def;
}

std::vector<float> InitContext::get_floats(const std::string& name, const std::vector<float>& def) {
  const ir::Attribute* a = node_.attr(name);
  if (a && a->kind == ir::Attribute::Kind::kFloat) return {a->f};
  a = find(name, ir::Attribute::Kind::kFloats);
  return a ? a->floats : def;
}

std::vector<std::string> InitContext::get_strings(const std::string& name, const std::vector<std::string>& def) {
  const ir::Attribute* a = find(name, ir::Attribute::Kind::kStrings);
  return a ? a->strings : def;
}

const Tensor* InitContext::get_tensor(const std::string& name) {
  const ir::Attribute* a = find(name, ir::Attribute::Kind::kTensor);
  return a ? &a->t : nullptr;
}

const ir::Graph* InitContext::get_graph(const std::string& name) {
  const ir::Attribute* a = find(name, ir::Attribute::Kind::kGraph);
  return a ? a->g.get() : nullptr;
}

int64_t InitContext::require_int(const std::string& name) {
  if (!has(name)) {
    (void)fail(StatusCode::kInvalidModel, "required attribute '", name, "' is missing");
    return 0;
  }
  return get_int(name, 0);
}

// ---- InferContext --------------------------------------------------------------------------

const ir::ValueType& InferContext::input_type(size_t i) const {
  if (!has_input(i)) throw MissingInput{i};
  return *input_types_[i];
}

void InferContext::set_output_value(size_t i, Tensor value) {
  output_types_.at(i) = ir::ValueType::concrete(value.dtype(), value.shape());
  output_values_.at(i) = std::move(value);
}

// ---- RunContext ----------------------------------------------------------------------------

const Tensor* RunContext::input(size_t i) const {
  if (i >= inputs_.size() || !inputs_[i] || !inputs_[i]->is_tensor()) return nullptr;
  return &inputs_[i]->tensor;
}

const Tensor& RunContext::in(size_t i) const {
  const Tensor* t = input(i);
  if (!t) throw MissingInput{i};
  return *t;
}

Tensor& RunContext::output(size_t i, DType dtype, const Shape& shape) {
  Value& v = outputs_->at(i);
  v.kind = Value::Kind::kTensor;
  if (allocator_) {
    v.tensor = allocator_->allocate(i, dtype, shape);
    if (v.tensor.defined() && v.tensor.raw() != nullptr) return v.tensor;
  }
  v.tensor = Tensor::empty(dtype, shape);
  return v.tensor;
}

void RunContext::set_output(size_t i, Tensor t) { outputs_->at(i) = Value::of(std::move(t)); }
void RunContext::set_output_value(size_t i, Value v) { outputs_->at(i) = std::move(v); }

}  // namespace hi::ops
