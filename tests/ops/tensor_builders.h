// Small builders for op tests beyond float32/int64: strings, bools, 16-bit floats, and a
// message check for error tests.
#pragma once

#include <cctype>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "ops/op_test_util.h"
#include "runtime/executor.h"

namespace hi::test {

inline Tensor strs(const Shape& shape, const std::vector<std::string>& v) {
  Tensor t = Tensor::empty(DType::kString, shape);
  EXPECT_EQ(static_cast<int64_t>(v.size()), t.numel()) << "test data size";
  for (int64_t i = 0; i < t.numel() && i < static_cast<int64_t>(v.size()); ++i)
    t.strings()[i] = v[static_cast<size_t>(i)];
  return t;
}
inline Tensor bools(const Shape& shape, const std::vector<int>& v) {
  std::vector<bool> b(v.begin(), v.end());
  Tensor t = Tensor::empty(DType::kBool, shape);
  EXPECT_EQ(static_cast<int64_t>(v.size()), t.numel()) << "test data size";
  for (int64_t i = 0; i < t.numel() && i < static_cast<int64_t>(v.size()); ++i)
    t.data<bool>()[i] = v[static_cast<size_t>(i)] != 0;
  return t;
}
inline Tensor i32(const Shape& shape, const std::vector<int32_t>& v) { return make<int32_t>(shape, v); }
inline Tensor f64(const Shape& shape, const std::vector<double>& v) { return make<double>(shape, v); }
inline Tensor f16(const Shape& shape, const std::vector<float>& v) {
  std::vector<Float16> h;
  for (float f : v) h.push_back(Float16(f));
  return make<Float16>(shape, h);
}
inline Tensor bf16(const Shape& shape, const std::vector<float>& v) {
  std::vector<BFloat16> h;
  for (float f : v) h.push_back(BFloat16(f));
  return make<BFloat16>(shape, h);
}
// Random int64 values in [lo, hi].
inline Tensor random_i64(const Shape& shape, uint64_t seed, int64_t lo, int64_t hi) {
  Tensor t = Tensor::empty(DType::kInt64, shape);
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int64_t> d(lo, hi);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<int64_t>()[i] = d(rng);
  return t;
}

// Runs a case that must fail and checks the message holds every fragment. With graph inputs
// (the default) the kernel's own run-time checks are what fail when inference cannot tell.
inline void expect_error(const OpCase& c, const std::vector<std::string>& fragments, bool inputs_as_constants = false) {
  auto r = run_op_once(c, inputs_as_constants);
  ASSERT_FALSE(r.is_ok()) << c.op_type << " should have failed";
  for (const auto& f : fragments)
    EXPECT_NE(r.status().message().find(f), std::string::npos)
        << "missing '" << f << "' in: " << r.status().to_string();
}

// An input for infer_types: a static type (dims may be symbolic), or a constant value.
struct TypedInput {
  ir::ValueType type;
  Tensor value;  // defined: the input is an initializer with this value
  bool absent = false;
};
inline TypedInput sym(DType dtype, const std::vector<std::string>& dims) {
  std::vector<ir::Dim> d;
  for (const auto& s : dims) {
    if (!s.empty() && (std::isdigit(static_cast<unsigned char>(s[0])) != 0)) d.push_back(ir::Dim::known(std::stoll(s)));
    else if (s == "?") d.emplace_back();
    else d.push_back(ir::Dim::named(s));
  }
  return {ir::ValueType::tensor(dtype, std::move(d)), {}};
}
inline TypedInput unranked(DType dtype) { return {ir::ValueType::tensor_unknown_shape(dtype), {}}; }
inline TypedInput constant(const Tensor& t) { return {ir::ValueType::concrete(t.dtype(), t.shape()), t}; }
inline TypedInput absent() { return {{}, {}, true}; }

// Builds (without running or folding) a one-node graph and returns its outputs' inferred types
// as strings ("float32[batch, 3]"), or the build error.
inline Result<std::vector<std::string>> infer_types(const std::string& op_type, int64_t opset,
                                                    const std::map<std::string, ir::Attribute>& attrs,
                                                    const std::vector<TypedInput>& inputs, int num_outputs = 1) {
  ir::Graph g;
  ir::Node n;
  n.op_type = op_type;
  n.name = "under_test";
  n.attributes = attrs;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].absent) {
      n.inputs.push_back("");
      continue;
    }
    const std::string name = "in" + std::to_string(i);
    n.inputs.push_back(name);
    if (inputs[i].value.defined() && inputs[i].value.dtype() != DType::kUndefined)
      g.initializers[name] = inputs[i].value;
    else g.inputs.push_back({name, inputs[i].type});
  }
  for (int i = 0; i < num_outputs; ++i) {
    n.outputs.push_back("out" + std::to_string(i));
    g.outputs.push_back({"out" + std::to_string(i), ir::ValueType::tensor_unknown_shape(DType::kUndefined)});
  }
  g.nodes.push_back(n);
  ops::BuildOptions bo;
  bo.fold_constants = false;
  HI_ASSIGN_OR_RETURN(auto ex, ops::Executor::build(g, {{"", opset}}, bo));
  std::vector<std::string> out;
  for (int i = 0; i < num_outputs; ++i) out.push_back(ex->value_type("out" + std::to_string(i))->to_string());
  return out;
}

// The single output type of infer_types, or "error: <message>".
inline std::string inferred(const std::string& op_type, int64_t opset,
                            const std::map<std::string, ir::Attribute>& attrs, const std::vector<TypedInput>& inputs) {
  auto r = infer_types(op_type, opset, attrs, inputs);
  if (!r.is_ok()) return "error: " + r.status().message();
  return r.value()[0];
}

}  // namespace hi::test
