// Test helpers for the nn, reduce, pool and norm op tests: float32 test data converted to and
// from the other element types, and static inference over symbolic input shapes.
#pragma once

#include <gtest/gtest.h>

#include <cctype>

#include "hipinfer/tensor.h"
#include "ops/op_test_util.h"
#include "runtime/executor.h"

namespace hi::test {

// The float32 tensor's values in `dtype` (float16, bfloat16 and float64; integers truncate).
inline Tensor cast_f32(const Tensor& t, DType dtype) {
  Tensor out = Tensor::empty(dtype, t.shape());
  const float* p = t.data<float>();
  for (int64_t i = 0; i < t.numel(); ++i) {
    switch (dtype) {
      case DType::kFloat32: out.data<float>()[i] = p[i]; break;
      case DType::kFloat64: out.data<double>()[i] = p[i]; break;
      case DType::kFloat16: out.data<Float16>()[i] = Float16(p[i]); break;
      case DType::kBFloat16: out.data<BFloat16>()[i] = BFloat16(p[i]); break;
      case DType::kInt8: out.data<int8_t>()[i] = static_cast<int8_t>(p[i]); break;
      case DType::kUInt8: out.data<uint8_t>()[i] = static_cast<uint8_t>(p[i]); break;
      case DType::kInt32: out.data<int32_t>()[i] = static_cast<int32_t>(p[i]); break;
      case DType::kInt64: out.data<int64_t>()[i] = static_cast<int64_t>(p[i]); break;
      case DType::kUInt32: out.data<uint32_t>()[i] = static_cast<uint32_t>(p[i]); break;
      case DType::kUInt64: out.data<uint64_t>()[i] = static_cast<uint64_t>(p[i]); break;
      default: ADD_FAILURE() << "cast_f32: unhandled dtype " << dtype_name(dtype); return out;
    }
  }
  return out;
}

// Any numeric tensor's values as float32.
inline Tensor as_f32(const Tensor& t) {
  Tensor out = Tensor::empty(DType::kFloat32, t.shape());
  for (int64_t i = 0; i < t.numel(); ++i) out.data<float>()[i] = static_cast<float>(t.as_double(i));
  return out;
}

// Dims from a compact spec: a number is a known dim, a name a symbolic one ("N", "3", "H").
inline std::vector<ir::Dim> dims(const std::vector<std::string>& spec) {
  std::vector<ir::Dim> d;
  for (const auto& s : spec)
    d.push_back(!s.empty() && std::isdigit(static_cast<unsigned char>(s[0])) ? ir::Dim::known(std::stoll(s))
                                                                             : ir::Dim::named(s));
  return d;
}

// Builds (but does not run) a one-node graph whose inputs have the given static types, and
// returns the inferred types of its outputs, or the build error. `constants` become
// initializers (for inputs such as axes that inference reads).
inline Result<std::vector<ir::ValueType>> infer_types(const OpCase& c, const std::vector<ir::ValueType>& input_types,
                                                      const std::map<size_t, Tensor>& constants = {}) {
  ir::Graph g;
  ir::Node n;
  n.op_type = c.op_type;
  n.name = "under_test";
  n.attributes = c.attrs;
  for (size_t i = 0; i < input_types.size(); ++i) {
    const std::string name = "in" + std::to_string(i);
    n.inputs.push_back(name);
    auto it = constants.find(i);
    if (it != constants.end()) g.initializers[name] = it->second;
    else g.inputs.push_back({name, input_types[i]});
  }
  for (int i = 0; i < c.num_outputs; ++i) {
    n.outputs.push_back("out" + std::to_string(i));
    g.outputs.push_back({"out" + std::to_string(i), ir::ValueType::tensor_unknown_shape(DType::kUndefined)});
  }
  g.nodes.push_back(n);
  HI_ASSIGN_OR_RETURN(auto ex, ops::Executor::build(g, {{"", c.opset}}, ops::BuildOptions{}));
  std::vector<ir::ValueType> out;
  for (int i = 0; i < c.num_outputs; ++i) out.push_back(*ex->value_type("out" + std::to_string(i)));
  return out;
}

// The inferred type as text ("float32[N, 3, ?, 4]"), or the error.
inline std::string inferred(const OpCase& c, const std::vector<ir::ValueType>& input_types, size_t output = 0,
                            const std::map<size_t, Tensor>& constants = {}) {
  auto r = infer_types(c, input_types, constants);
  if (!r.is_ok()) return r.status().to_string();
  return r.value()[output].to_string();
}

}  // namespace hi::test
