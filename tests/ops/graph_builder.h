// Small graphs with subgraphs, sequences and optionals, built by hand and run through the real
// executor: what the control-flow and sequence tests need beyond op_test_util's single node.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ops/op_test_util.h"
#include "runtime/executor.h"

namespace hi::test {

using ops::Value;

inline ir::Node node(const std::string& op, std::vector<std::string> inputs, std::vector<std::string> outputs,
                     std::map<std::string, ir::Attribute> attrs = {}) {
  ir::Node n;
  n.op_type = op;
  n.name = op + "_" + (outputs.empty() ? std::string("x") : outputs[0]);
  n.inputs = std::move(inputs);
  n.outputs = std::move(outputs);
  n.attributes = std::move(attrs);
  return n;
}

inline ir::Attribute attr_graph(ir::Graph g) {
  ir::Attribute a;
  a.kind = ir::Attribute::Kind::kGraph;
  a.g = std::make_shared<ir::Graph>(std::move(g));
  return a;
}

inline ir::Attribute attr_type(ir::ValueType t) {
  ir::Attribute a;
  a.kind = ir::Attribute::Kind::kTypeProto;
  a.type = std::move(t);
  return a;
}

inline ir::ValueType tensor_type(DType dtype, const std::vector<int64_t>& dims) {
  return ir::ValueType::concrete(dtype, dims);
}
inline ir::ValueType unknown_type() {
  return ir::ValueType{ir::ValueKind::kUnknown, DType::kUndefined, std::nullopt, nullptr};
}
inline ir::ValueType seq_type(ir::ValueType elem) {
  ir::ValueType t;
  t.kind = ir::ValueKind::kSequence;
  t.elem = std::make_shared<ir::ValueType>(std::move(elem));
  return t;
}
inline ir::ValueType opt_type(ir::ValueType elem) {
  ir::ValueType t;
  t.kind = ir::ValueKind::kOptional;
  t.elem = std::make_shared<ir::ValueType>(std::move(elem));
  return t;
}

// A node producing a constant tensor.
inline ir::Node constant(const std::string& name, const Tensor& t) {
  return node("Constant", {}, {name}, {{"value", attr_tensor(t)}});
}

inline Value val(Tensor t) { return Value::of(std::move(t)); }
inline Value seq(std::vector<Tensor> s) { return Value::of_sequence(std::move(s)); }

// Builds and runs `g` (opset `opset` of the default domain); the build error or run error, or
// the outputs.
inline Result<std::vector<Value>> run_graph(const ir::Graph& g, std::vector<Value> inputs, int64_t opset) {
  ops::BuildOptions bo;
  HI_ASSIGN_OR_RETURN(auto ex, ops::Executor::build(g, {{"", opset}}, bo));
  std::vector<Value> outs;
  HI_RETURN_IF_ERROR(ex->run(std::move(inputs), &outs));
  return outs;
}

// The static type the executor inferred for `name` ("" when the build fails).
inline std::string inferred_type(const ir::Graph& g, const std::string& name, int64_t opset) {
  ops::BuildOptions bo;
  auto ex = ops::Executor::build(g, {{"", opset}}, bo);
  if (!ex.is_ok()) return "build failed: " + ex.status().message();
  const ir::ValueType* t = ex.value()->value_type(name);
  return t ? t->to_string() : "?";
}

// Expects the run to fail with a message holding every piece.
inline void expect_run_error(const ir::Graph& g, std::vector<Value> inputs, int64_t opset,
                             const std::vector<std::string>& pieces) {
  auto r = run_graph(g, std::move(inputs), opset);
  ASSERT_FALSE(r.is_ok()) << "expected an error";
  for (const auto& p : pieces)
    EXPECT_NE(r.status().message().find(p), std::string::npos) << r.status().message() << "\nlacks: " << p;
}

inline void expect_sequence_eq(const Value& v, const std::vector<Tensor>& expected) {
  ASSERT_EQ(v.kind, Value::Kind::kSequence);
  ASSERT_EQ(v.sequence.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) expect_tensor_eq(v.sequence[i], expected[i]);
}

}  // namespace hi::test
