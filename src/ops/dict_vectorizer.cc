// DictVectorizer (ai.onnx.ml opset 1): a map becomes a row. Each key is looked up in the
// vocabulary (string_vocabulary or int64_vocabulary, whichever the key type uses) and its value
// lands at that index; vocabulary entries the map lacks are 0 ("" for strings), map keys outside
// the vocabulary are ignored. One map gives Y [1, V]; a sequence of maps, one row each.
#include <cstring>
#include <unordered_map>

#include "ops/ml_util.h"
#include "ops/op_checks.h"

namespace hi::ops {
namespace {

constexpr uint64_t kValueTypes = bit(DType::kFloat32) | bit(DType::kFloat64) | bit(DType::kInt64) | bit(DType::kString);

class DictVectorizerOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    opset_ = ctx.opset();
    label_ = op_label(ctx.node(), opset_);
    const std::vector<std::string> strings = ctx.get_strings("string_vocabulary");
    const std::vector<int64_t> ints = ctx.get_ints("int64_vocabulary");
    HI_RETURN_IF_ERROR(ctx.status());
    if (strings.empty() == ints.empty())
      return error(StatusCode::kInvalidModel, label_,
                   ": exactly one of string_vocabulary and int64_vocabulary must be set, got ",
                   strings.empty() ? "neither" : "both");
    string_keys_ = !strings.empty();
    size_ = static_cast<int64_t>(string_keys_ ? strings.size() : ints.size());
    for (int64_t i = 0; i < size_; ++i) {
      if (string_keys_) by_string_.emplace(strings[static_cast<size_t>(i)], i);
      else by_int_.emplace(ints[static_cast<size_t>(i)], i);
    }
    return Status::ok();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_input_counts(ctx, 1, 1, 1));  // X is a map: not check_arity
    const ir::ValueType& x = ctx.input_type(0);
    const ir::ValueType* map = &x;
    ir::Dim rows = ir::Dim::known(1);
    if (x.kind == ir::ValueKind::kSequence && x.elem) {
      map = x.elem.get();
      rows = ir::Dim::named("");
    }
    if (map->kind == ir::ValueKind::kUnknown) {
      ctx.set_output_type(0, ir::ValueType::tensor(DType::kUndefined, {rows, ir::Dim::known(size_)}));
      return Status::ok();
    }
    if (map->kind != ir::ValueKind::kMap)
      return error(StatusCode::kInvalidModel, label_, ": X must be a map or a sequence of maps, got ", x.to_string());
    HI_RETURN_IF_ERROR(check_key_type(map->dtype, StatusCode::kInvalidModel));
    const DType value = map->elem ? map->elem->dtype : DType::kUndefined;
    if (value != DType::kUndefined && !in_set(kValueTypes, value))
      return unsupported_type(ctx.node(), opset_, "X's values", value);
    ctx.set_output_type(0, ir::ValueType::tensor(value, {rows, ir::Dim::known(size_)}));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Value* x = ctx.input_value(0);
    if (!x || (x->kind != Value::Kind::kMap && x->kind != Value::Kind::kMapSequence))
      return error(StatusCode::kInvalidArgument, label_, ": X must be a map or a sequence of maps, got ",
                   x ? x->describe() : std::string("nothing"));
    const std::vector<Map>& maps = x->maps;
    if (maps.empty()) {
      ctx.output(0, DType::kFloat32, {0, size_});
      return Status::ok();
    }
    const DType value = maps[0].values.dtype();
    if (!in_set(kValueTypes, value)) return unsupported_type(ctx.node(), opset_, "X's values", value);
    Tensor& y = ctx.output(0, value, {static_cast<int64_t>(maps.size()), size_});
    if (value != DType::kString) std::memset(y.raw(), 0, y.nbytes());
    for (size_t r = 0; r < maps.size(); ++r) {
      const Map& m = maps[r];
      HI_RETURN_IF_ERROR(check_key_type(m.keys.dtype(), StatusCode::kInvalidArgument));
      if (m.values.dtype() != value || m.values.numel() != m.keys.numel())
        return error(StatusCode::kInvalidArgument, label_, ": map ", r, " has values ", m.values.type_string(),
                     " for keys ", m.keys.type_string(), "; expected ", m.keys.numel(), " values of ",
                     dtype_name(value));
      for (int64_t i = 0; i < m.size(); ++i) {
        const int64_t col = column(m.keys, i);
        if (col < 0) continue;
        const int64_t at = static_cast<int64_t>(r) * size_ + col;
        switch (value) {
          case DType::kFloat32: y.data<float>()[at] = m.values.data<float>()[i]; break;
          case DType::kFloat64: y.data<double>()[at] = m.values.data<double>()[i]; break;
          case DType::kInt64: y.data<int64_t>()[at] = m.values.data<int64_t>()[i]; break;
          default: y.strings()[at] = m.values.strings()[i]; break;
        }
      }
    }
    return Status::ok();
  }

 private:
  Status check_key_type(DType key, StatusCode code) const {
    const DType want = string_keys_ ? DType::kString : DType::kInt64;
    if (key == DType::kUndefined || key == want) return Status::ok();
    return error(code, label_, ": the vocabulary is ", dtype_name(want), " but X's keys are ", dtype_name(key));
  }

  // The vocabulary index of key i, or -1 when the vocabulary lacks it.
  int64_t column(const Tensor& keys, int64_t i) const {
    if (string_keys_) {
      auto it = by_string_.find(keys.strings()[i]);
      return it == by_string_.end() ? -1 : it->second;
    }
    auto it = by_int_.find(keys.data<int64_t>()[i]);
    return it == by_int_.end() ? -1 : it->second;
  }

  int64_t opset_ = 0;
  std::string label_;
  bool string_keys_ = false;
  int64_t size_ = 0;
  std::unordered_map<std::string, int64_t> by_string_;
  std::unordered_map<int64_t, int64_t> by_int_;
};

}  // namespace

HI_REGISTER_OP(DictVectorizer, DictVectorizerOp)

}  // namespace hi::ops
