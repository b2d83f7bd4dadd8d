// Test helpers for ops outside the default domain (ai.onnx.ml) and for the string ops: a
// one-node runner that imports the op's domain at a chosen opset (op_test_util's run_op imports
// it at 1), and list attributes op_test_util does not build.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ops/op_test_util.h"
#include "ops/tensor_builders.h"
#include "runtime/executor.h"

namespace hi::test {

using Attrs = std::map<std::string, ir::Attribute>;

inline ir::Attribute attr_strings(const std::vector<std::string>& v) {
  ir::Attribute a;
  a.kind = ir::Attribute::Kind::kStrings;
  a.strings = v;
  return a;
}

// A one-node case in `domain` at `domain_opset` (the default domain at 21).
struct DomainCase {
  std::string op_type;
  std::string domain;
  int64_t domain_opset = 1;
  Attrs attrs;
  std::vector<Tensor> inputs;
  int num_outputs = 1;
};

// Runs the node with its inputs as graph inputs, or as initializers (folded at build time).
inline Result<std::vector<Tensor>> run_domain_once(const DomainCase& c, bool constants) {
  ir::Graph g;
  ir::Node n;
  n.op_type = c.op_type;
  n.domain = c.domain;
  n.name = "under_test";
  n.attributes = c.attrs;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    const std::string name = "in" + std::to_string(i);
    n.inputs.push_back(name);
    if (constants) g.initializers[name] = c.inputs[i];
    else g.inputs.push_back({name, ir::ValueType::concrete(c.inputs[i].dtype(), c.inputs[i].shape())});
  }
  for (int i = 0; i < c.num_outputs; ++i) {
    n.outputs.push_back("out" + std::to_string(i));
    g.outputs.push_back({"out" + std::to_string(i), ir::ValueType::tensor_unknown_shape(DType::kUndefined)});
  }
  g.nodes.push_back(n);
  std::map<std::string, int64_t> opsets = {{"", c.domain.empty() ? c.domain_opset : 21}};
  if (!c.domain.empty()) opsets[c.domain] = c.domain_opset;
  ops::BuildOptions bo;
  bo.fold_constants = constants;
  HI_ASSIGN_OR_RETURN(auto ex, ops::Executor::build(g, opsets, bo));
  std::vector<ops::Value> ins, outs;
  if (!constants)
    for (const Tensor& t : c.inputs) ins.push_back(ops::Value::of(t));
  HI_RETURN_IF_ERROR(ex->run(std::move(ins), &outs));
  std::vector<Tensor> result;
  for (int i = 0; i < c.num_outputs; ++i) {
    result.push_back(outs[static_cast<size_t>(i)].tensor);
    // The inferred type must agree with what ran.
    const ir::ValueType* t = ex->value_type("out" + std::to_string(i));
    if (t && t->dtype != DType::kUndefined) {
      EXPECT_EQ(t->dtype, result.back().dtype()) << c.op_type << " output " << i;
    }
    if (t && t->has_rank()) {
      EXPECT_EQ(t->rank(), result.back().rank()) << c.op_type << " output " << i << " inferred " << t->to_string();
      for (int64_t d = 0; d < t->rank() && d < result.back().rank(); ++d) {
        if ((*t->shape)[static_cast<size_t>(d)].is_known()) {
          EXPECT_EQ((*t->shape)[static_cast<size_t>(d)].value, result.back().dim(d))
              << c.op_type << " inferred " << t->to_string();
        }
      }
    }
  }
  return result;
}

// Runs both ways, checks they agree, and returns the outputs (empty tensors on failure).
inline std::vector<Tensor> run_domain(const DomainCase& c) {
  auto a = run_domain_once(c, false);
  EXPECT_TRUE(a.is_ok()) << c.op_type << ": " << a.status().to_string();
  if (!a.is_ok()) return std::vector<Tensor>(static_cast<size_t>(c.num_outputs));
  auto b = run_domain_once(c, true);
  EXPECT_TRUE(b.is_ok()) << c.op_type << " with constant inputs: " << b.status().to_string();
  if (b.is_ok())
    for (size_t i = 0; i < a.value().size(); ++i) expect_tensor_eq(b.value()[i], a.value()[i]);
  return a.value();
}
inline Tensor run_domain1(const DomainCase& c) { return run_domain(c)[0]; }

// A case that must fail: checks the code and that the message holds every fragment.
inline void expect_domain_error(const DomainCase& c, StatusCode code, const std::vector<std::string>& fragments) {
  auto r = run_domain_once(c, false);
  ASSERT_FALSE(r.is_ok()) << c.op_type << " should have failed";
  EXPECT_EQ(r.status().code(), code) << r.status().to_string();
  for (const auto& f : fragments)
    EXPECT_NE(r.status().message().find(f), std::string::npos)
        << "missing '" << f << "' in: " << r.status().to_string();
}

}  // namespace hi::test
