// Single-node graphs through the real executor.
#include "ops/op_test_util.h"

#include <cmath>
#include <random>

#include "runtime/executor.h"

namespace hi::test {

Result<std::vector<Tensor>> run_op_once(const OpCase& c, bool inputs_as_constants, bool backend_ops) {
  ir::Graph g;
  ir::Node n;
  n.op_type = c.op_type;
  n.domain = c.domain;
  n.name = "under_test";
  n.attributes = c.attrs;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    const Tensor& t = c.inputs[i];
    if (!t.defined() || t.dtype() == DType::kUndefined) {
      n.inputs.push_back("");
      continue;
    }
    const std::string name = "in" + std::to_string(i);
    n.inputs.push_back(name);
    if (inputs_as_constants) g.initializers[name] = t;
    else g.inputs.push_back({name, ir::ValueType::concrete(t.dtype(), t.shape())});
  }
  for (int i = 0; i < c.num_outputs; ++i) {
    n.outputs.push_back("out" + std::to_string(i));
    g.outputs.push_back({"out" + std::to_string(i), ir::ValueType::tensor_unknown_shape(DType::kUndefined)});
  }
  g.nodes.push_back(n);
  std::map<std::string, int64_t> opsets = {{"", c.opset}};
  if (!c.domain.empty()) opsets[c.domain] = 1;
  ops::BuildOptions bo;
  bo.fold_constants = inputs_as_constants;
  bo.backend_ops = backend_ops;
  HI_ASSIGN_OR_RETURN(auto ex, ops::Executor::build(g, opsets, bo));
  std::vector<ops::Value> ins, outs;
  if (!inputs_as_constants)
    for (const Tensor& t : c.inputs)
      if (t.defined() && t.dtype() != DType::kUndefined) ins.push_back(ops::Value::of(t));
  HI_RETURN_IF_ERROR(ex->run(std::move(ins), &outs));
  std::vector<Tensor> result;
  for (auto& v : outs) result.push_back(v.tensor);
  // Inferred static shapes must agree with what the kernel produced.
  for (int i = 0; i < c.num_outputs; ++i) {
    const ir::ValueType* t = ex->value_type("out" + std::to_string(i));
    if (!t || !t->has_rank() || !result[static_cast<size_t>(i)].defined()) continue;
    const Tensor& r = result[static_cast<size_t>(i)];
    EXPECT_EQ(t->rank(), r.rank()) << c.op_type << " output " << i << " inferred " << t->to_string() << " but ran "
                                   << r.type_string();
    if (t->rank() == r.rank()) {
      for (int64_t d = 0; d < r.rank(); ++d) {
        if ((*t->shape)[static_cast<size_t>(d)].is_known()) {
          EXPECT_EQ((*t->shape)[static_cast<size_t>(d)].value, r.dim(d))
              << c.op_type << " output " << i << " inferred " << t->to_string() << " but ran " << r.type_string();
        }
      }
    }
    if (t->dtype != DType::kUndefined) {
      EXPECT_EQ(t->dtype, r.dtype()) << c.op_type << " output " << i << " dtype";
    }
  }
  return result;
}

Result<std::vector<Tensor>> run_op(const OpCase& c) {
  HI_ASSIGN_OR_RETURN(auto a, run_op_once(c, false));
  auto b = run_op_once(c, true);
  EXPECT_TRUE(b.is_ok()) << c.op_type << " failed with constant inputs: " << b.status().to_string();
  if (b.is_ok()) {
    EXPECT_EQ(a.size(), b.value().size());
    for (size_t i = 0; i < a.size() && i < b.value().size(); ++i) expect_tensor_eq(b.value()[i], a[i]);
  }
  return a;
}

ir::Attribute attr_int(int64_t v) {
  ir::Attribute a;
  a.kind = ir::Attribute::Kind::kInt;
  a.i = v;
  return a;
}
ir::Attribute attr_float(float v) {
  ir::Attribute a;
  a.kind = ir::Attribute::Kind::kFloat;
  a.f = v;
  return a;
}
ir::Attribute attr_string(const std::string& v) {
  ir::Attribute a;
  a.kind = ir::Attribute::Kind::kString;
  a.s = v;
  return a;
}
ir::Attribute attr_ints(const std::vector<int64_t>& v) {
  ir::Attribute a;
  a.kind = ir::Attribute::Kind::kInts;
  a.ints = v;
  return a;
}
ir::Attribute attr_floats(const std::vector<float>& v) {
  ir::Attribute a;
  a.kind = ir::Attribute::Kind::kFloats;
  a.floats = v;
  return a;
}
ir::Attribute attr_tensor(const Tensor& t) {
  ir::Attribute a;
  a.kind = ir::Attribute::Kind::kTensor;
  a.t = t;
  return a;
}

Tensor random_f32(const Shape& shape, uint64_t seed, float lo, float hi) {
  Tensor t = Tensor::empty(DType::kFloat32, shape);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = d(rng);
  return t;
}

void expect_tensor_near(const Tensor& actual, const Tensor& expected, double rtol, double atol) {
  ASSERT_EQ(actual.dtype(), expected.dtype()) << "dtype";
  ASSERT_EQ(actual.shape(), expected.shape()) << "shape " << actual.type_string() << " vs " << expected.type_string();
  int reported = 0;
  for (int64_t i = 0; i < actual.numel(); ++i) {
    const double a = actual.as_double(i), e = expected.as_double(i);
    if (std::isnan(a) && std::isnan(e)) continue;
    if (std::isinf(e) && a == e) continue;
    if (!(std::abs(a - e) <= atol + rtol * std::abs(e)) && reported++ < 5)
      ADD_FAILURE() << "element " << i << ": got " << a << ", expected " << e;
  }
}

void expect_tensor_eq(const Tensor& actual, const Tensor& expected) {
  ASSERT_EQ(actual.dtype(), expected.dtype()) << "dtype";
  ASSERT_EQ(actual.shape(), expected.shape()) << "shape " << actual.type_string() << " vs " << expected.type_string();
  if (actual.dtype() == DType::kString) {
    for (int64_t i = 0; i < actual.numel(); ++i)
      EXPECT_EQ(actual.strings()[i], expected.strings()[i]) << "element " << i;
    return;
  }
  expect_tensor_near(actual, expected, 0, 0);
}

}  // namespace hi::test
