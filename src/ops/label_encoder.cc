// LabelEncoder (ai.onnx.ml, opsets 1-4): maps each element of X through a key -> value table;
// elements not among the keys get the default. The output has X's shape and the values' type.
//   - opset 1: `classes_strings`; a string input maps to its index in the list (default_int64,
//     default -1), an int64 input maps to the string at that index (default_string, "_Unused").
//   - opsets 2-3: one of keys_strings / keys_int64s / keys_floats and one of values_strings /
//     values_int64s / values_floats, with default_string, default_int64 (-1), default_float (-0.0).
//   - opset 4 adds keys_tensor / values_tensor / default_tensor (string, int64, int32, int16, float,
//     double); without default_tensor the default is "_Unused", -1 or -0.0 by the values' type.
// A NaN float key matches any NaN input; when a key repeats, its last value wins.
#include <cmath>
#include <cstring>
#include <map>
#include <unordered_map>

#include "ops/dispatch.h"
#include "ops/ml_util.h"
#include "ops/op_checks.h"

namespace hi::ops {
namespace {

constexpr uint64_t kTableTypes = bit(DType::kString) | bit(DType::kInt64) | bit(DType::kInt32) | bit(DType::kInt16) |
                                 bit(DType::kFloat32) | bit(DType::kFloat64);

// One key -> value table. keys and values are 1-D tensors of equal length; def holds one value.
struct Table {
  Tensor keys, values, def;
  std::unordered_map<std::string, int64_t> by_string;
  std::unordered_map<int64_t, int64_t> by_int;
  std::map<double, int64_t> by_float;
  int64_t nan_index = -1;

  void index() {
    for (int64_t i = 0; i < keys.numel(); ++i) {
      if (keys.dtype() == DType::kString) by_string[keys.strings()[i]] = i;
      else if (dtype_is_integer(keys.dtype())) by_int[keys.as_int64(i)] = i;
      else if (std::isnan(keys.as_double(i))) nan_index = i;
      else by_float[keys.as_double(i)] = i;
    }
  }
  // Index of element i of x among the keys, or -1. x has the keys' dtype.
  int64_t find(const Tensor& x, int64_t i) const {
    if (keys.dtype() == DType::kString) {
      auto it = by_string.find(x.strings()[i]);
      return it == by_string.end() ? -1 : it->second;
    }
    if (dtype_is_integer(keys.dtype())) {
      auto it = by_int.find(x.as_int64(i));
      return it == by_int.end() ? -1 : it->second;
    }
    const double v = x.as_double(i);
    if (std::isnan(v)) return nan_index;
    auto it = by_float.find(v);
    return it == by_float.end() ? -1 : it->second;
  }
};

Tensor string_list(const std::vector<std::string>& v) {
  Tensor t = Tensor::empty(DType::kString, {static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i) t.strings()[i] = v[i];
  return t;
}

// Copies element si of src into element di of dst (same dtype).
void copy_element(const Tensor& src, int64_t si, Tensor& dst, int64_t di) {
  if (src.dtype() == DType::kString) {
    dst.strings()[di] = src.strings()[si];
    return;
  }
  const size_t size = dtype_size(src.dtype());
  std::memcpy(static_cast<char*>(dst.raw()) + static_cast<size_t>(di) * size,
              static_cast<const char*>(src.raw()) + static_cast<size_t>(si) * size, size);
}

// The default value for a values type when no default attribute applies.
Tensor spec_default(DType t) {
  if (t == DType::kString) return string_list({"_Unused"});
  Tensor d = Tensor::empty(t, {1});
  const bool integer = dtype_is_integer(t);
  dispatch<kNumericTypes>(t,
                          [&]<typename T>() { d.data<T>()[0] = integer ? static_cast<T>(-1) : static_cast<T>(-0.0); });
  return d;
}

class LabelEncoderOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    opset_ = ctx.opset();
    label_ = op_label(ctx.node(), opset_);
    if (opset_ < 2) return init_v1(ctx);
    Tensor keys, values;
    HI_RETURN_IF_ERROR(read_list(ctx, "keys", &keys));
    HI_RETURN_IF_ERROR(read_list(ctx, "values", &values));
    if (keys.numel() != values.numel())
      return ctx.fail(StatusCode::kInvalidModel, label_, ": keys has ", keys.numel(), " entries, values has ",
                      values.numel());
    Table t;
    t.keys = keys;
    t.values = values;
    HI_RETURN_IF_ERROR(read_default(ctx, values.dtype(), &t.def));
    t.index();
    tables_.push_back(std::move(t));
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 1, 1, 1));
    const ir::ValueType& x = ctx.input_type(0);
    if (x.dtype == DType::kUndefined) {
      // The output type is known when there is one table.
      ctx.set_output_type(
          0, ir::ValueType{ir::ValueKind::kTensor, tables_.size() == 1 ? tables_[0].values.dtype() : DType::kUndefined,
                           x.shape, nullptr});
      return Status::ok();
    }
    HI_ASSIGN_OR_RETURN(const Table* t, table_for(x.dtype, StatusCode::kInvalidModel));
    ir::ValueType y = x;
    y.dtype = t->values.dtype();
    ctx.set_output_type(0, y);
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    HI_ASSIGN_OR_RETURN(const Table* t, table_for(x.dtype(), StatusCode::kInvalidArgument));
    Tensor& y = ctx.output(0, t->values.dtype(), x.shape());
    for (int64_t i = 0; i < x.numel(); ++i) {
      const int64_t k = t->find(x, i);
      if (k >= 0) copy_element(t->values, k, y, i);
      else copy_element(t->def, 0, y, i);
    }
    return Status::ok();
  }

 private:
  // Opset 1: classes_strings read both ways.
  Status init_v1(InitContext& ctx) {
    const std::vector<std::string> classes = ctx.get_strings("classes_strings");
    const int64_t default_int = ctx.get_int("default_int64", -1);
    const std::string default_string = ctx.get_string("default_string", "_Unused");
    HI_RETURN_IF_ERROR(ctx.status());
    const auto n = static_cast<int64_t>(classes.size());
    std::vector<int64_t> positions(classes.size());
    for (int64_t i = 0; i < n; ++i) positions[static_cast<size_t>(i)] = i;
    Table to_int, to_string;
    to_int.keys = string_list(classes);
    to_int.values = Tensor::from_vector(positions, {n});
    to_int.def = Tensor::from_vector<int64_t>({default_int}, {1});
    to_string.keys = to_int.values;
    to_string.values = to_int.keys;
    to_string.def = string_list({default_string});
    // Opset 1 has no "last key wins" rule; the first occurrence of a class names its index.
    for (int64_t i = n - 1; i >= 0; --i) to_int.by_string[classes[static_cast<size_t>(i)]] = i;
    to_string.index();
    tables_.push_back(std::move(to_int));
    tables_.push_back(std::move(to_string));
    return Status::ok();
  }

  // Reads exactly one of <what>_strings, <what>_int64s, <what>_floats, <what>_tensor as a 1-D tensor.
  Status read_list(InitContext& ctx, const std::string& what, Tensor* out) {
    int found = 0;
    if (ctx.has(what + "_strings")) {
      *out = string_list(ctx.get_strings(what + "_strings"));
      ++found;
    }
    if (ctx.has(what + "_int64s")) {
      const auto v = ctx.get_ints(what + "_int64s");
      *out = Tensor::from_vector(v, {static_cast<int64_t>(v.size())});
      ++found;
    }
    if (ctx.has(what + "_floats")) {
      const auto v = ctx.get_floats(what + "_floats");
      *out = Tensor::from_vector(v, {static_cast<int64_t>(v.size())});
      ++found;
    }
    if (ctx.has(what + "_tensor")) {
      const Tensor* t = ctx.get_tensor(what + "_tensor");
      if (t) {
        if (!in_set(kTableTypes, t->dtype()))
          return ctx.fail(StatusCode::kUnsupported, label_, ": ", what, "_tensor of type ", dtype_name(t->dtype()),
                          " is not supported");
        *out = t->reshaped({t->numel()});
      }
      ++found;
    }
    HI_RETURN_IF_ERROR(ctx.status());
    if (found != 1)
      return ctx.fail(StatusCode::kInvalidModel, label_, ": exactly one of ", what, "_strings, ", what, "_int64s, ",
                      what, "_floats, ", what, "_tensor must be set, found ", found);
    return Status::ok();
  }

  Status read_default(InitContext& ctx, DType values_type, Tensor* def) {
    if (ctx.has("default_tensor")) {
      const Tensor* t = ctx.get_tensor("default_tensor");
      HI_RETURN_IF_ERROR(ctx.status());
      if (t->dtype() != values_type || t->numel() != 1)
        return ctx.fail(StatusCode::kInvalidModel, label_, ": default_tensor must hold one ", dtype_name(values_type),
                        " value (the values' type), got ", t->type_string());
      *def = *t;
      return Status::ok();
    }
    if (values_type == DType::kString && ctx.has("default_string"))
      *def = string_list({ctx.get_string("default_string", "")});
    else if (values_type == DType::kInt64 && ctx.has("default_int64"))
      *def = Tensor::from_vector<int64_t>({ctx.get_int("default_int64", -1)}, {1});
    else if (values_type == DType::kFloat32 && ctx.has("default_float"))
      *def = Tensor::from_vector<float>({ctx.get_float("default_float", -0.f)}, {1});
    else *def = spec_default(values_type);
    return ctx.status();
  }

  Result<const Table*> table_for(DType x, StatusCode code) const {
    for (const Table& t : tables_)
      if (t.keys.dtype() == x) return &t;
    std::string keys;
    for (const Table& t : tables_) keys += (keys.empty() ? "" : " or ") + dtype_name(t.keys.dtype());
    return error(code, label_, ": input X has type ", dtype_name(x), ", the keys are ", keys);
  }

  int64_t opset_ = 0;
  std::string label_;
  std::vector<Table> tables_;
};

}  // namespace

HI_REGISTER_OP(LabelEncoder, LabelEncoderOp)

}  // namespace hi::ops
