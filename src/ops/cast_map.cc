// CastMap (ai.onnx.ml opset 1): a map from int64 keys to float or string values becomes a row
// of cast_to's type (TO_FLOAT, TO_STRING, TO_INT64). map_form DENSE: the values in ascending key
// order, [1, entries]; SPARSE: [1, max_map] with each value at its key's index (keys outside
// [0, max_map) ignored) and 0 ("" for strings) elsewhere. Floats become strings as "%f" writes
// them and int64 by truncation; strings are parsed whole, and one that is not a number is an
// error naming its key.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>

#include "ops/ml_util.h"
#include "ops/op_checks.h"

namespace hi::ops {
namespace {

class CastMapOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    opset_ = ctx.opset();
    label_ = op_label(ctx.node(), opset_);
    const std::string cast_to = ctx.get_string("cast_to", "TO_FLOAT");
    const std::string form = ctx.get_string("map_form", "DENSE");
    max_map_ = ctx.get_int("max_map", 1);
    HI_RETURN_IF_ERROR(ctx.status());
    if (cast_to == "TO_FLOAT") to_ = DType::kFloat32;
    else if (cast_to == "TO_STRING") to_ = DType::kString;
    else if (cast_to == "TO_INT64") to_ = DType::kInt64;
    else
      return error(StatusCode::kInvalidModel, label_, ": cast_to must be TO_FLOAT, TO_STRING or TO_INT64, got '",
                   cast_to, "'");
    if (form != "DENSE" && form != "SPARSE")
      return error(StatusCode::kInvalidModel, label_, ": map_form must be DENSE or SPARSE, got '", form, "'");
    sparse_ = form == "SPARSE";
    if (sparse_ && max_map_ < 1)
      return error(StatusCode::kInvalidModel, label_, ": max_map must be >= 1 for SPARSE, got ", max_map_);
    return Status::ok();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_input_counts(ctx, 1, 1, 1));  // X is a map: not check_arity
    const ir::ValueType& x = ctx.input_type(0);
    if (x.kind != ir::ValueKind::kMap && x.kind != ir::ValueKind::kUnknown)
      return error(StatusCode::kInvalidModel, label_, ": X must be a map from int64, got ", x.to_string());
    if (x.kind == ir::ValueKind::kMap && x.dtype != DType::kInt64 && x.dtype != DType::kUndefined)
      return error(StatusCode::kInvalidModel, label_, ": X's keys must be int64, got ", x.to_string());
    ctx.set_output_type(
        0, ir::ValueType::tensor(to_, {ir::Dim::known(1), sparse_ ? ir::Dim::known(max_map_) : ir::Dim::named("")}));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Value* x = ctx.input_value(0);
    if (!x || x->kind != Value::Kind::kMap || x->maps.size() != 1)
      return error(StatusCode::kInvalidArgument, label_, ": X must be a map, got ",
                   x ? x->describe() : std::string("nothing"));
    const Map& m = x->maps[0];
    if (m.keys.dtype() != DType::kInt64 ||
        (m.values.dtype() != DType::kFloat32 && m.values.dtype() != DType::kString) ||
        m.values.numel() != m.keys.numel())
      return error(StatusCode::kInvalidArgument, label_, ": X must map int64 to float or string, got ", x->describe());
    const int64_t n = m.size();
    std::vector<int64_t> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    const int64_t* keys = m.keys.data<int64_t>();
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return keys[a] < keys[b]; });
    Tensor& y = ctx.output(0, to_, {1, sparse_ ? max_map_ : n});
    if (to_ != DType::kString) std::fill_n(static_cast<char*>(y.raw()), y.nbytes(), 0);
    for (int64_t k = 0; k < n; ++k) {
      const int64_t i = order[static_cast<size_t>(k)];
      const int64_t at = sparse_ ? keys[i] : k;
      if (at < 0 || at >= y.numel()) continue;  // SPARSE: a key outside [0, max_map)
      HI_RETURN_IF_ERROR(write(m.values, i, keys[i], y, at));
    }
    return Status::ok();
  }

 private:
  // y[at] = values[i] cast to the output type.
  Status write(const Tensor& values, int64_t i, int64_t key, Tensor& y, int64_t at) const {
    if (values.dtype() == DType::kFloat32) {
      const float v = values.data<float>()[i];
      if (to_ == DType::kFloat32) y.data<float>()[at] = v;
      else if (to_ == DType::kInt64) y.data<int64_t>()[at] = std::isfinite(v) ? static_cast<int64_t>(v) : 0;
      else {
        char text[64];
        std::snprintf(text, sizeof(text), "%f", static_cast<double>(v));
        y.strings()[at] = text;
      }
      return Status::ok();
    }
    const std::string& s = values.strings()[i];
    if (to_ == DType::kString) {
      y.strings()[at] = s;
      return Status::ok();
    }
    char* end = nullptr;
    if (to_ == DType::kFloat32) y.data<float>()[at] = std::strtof(s.c_str(), &end);
    else y.data<int64_t>()[at] = std::strtoll(s.c_str(), &end, 10);
    if (s.empty() || end != s.c_str() + s.size())
      return error(StatusCode::kInvalidArgument, label_, ": the value of key ", key, ", '", s, "', is not ",
                   to_ == DType::kFloat32 ? "a number" : "an integer");
    return Status::ok();
  }

  int64_t opset_ = 0, max_map_ = 1;
  std::string label_;
  DType to_ = DType::kFloat32;
  bool sparse_ = false;
};

}  // namespace

HI_REGISTER_OP(CastMap, CastMapOp)

}  // namespace hi::ops
