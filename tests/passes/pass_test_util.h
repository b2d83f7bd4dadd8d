// Helpers shared by the pass tests: random inputs and weights, and a graph optimised at a level.
#pragma once

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>

#include "hipinfer/session.h"
#include "onnx/model_reader.h"
#include "passes/passes.h"
#include "runtime/executor.h"
#include "runtime/pass_target.h"
#include "zoo/graph_builder.h"

namespace hi {

inline Tensor random_tensor(const Shape& shape, uint32_t seed) {
  Tensor t = Tensor::empty(DType::kFloat32, shape);
  std::mt19937 gen(seed);
  std::normal_distribution<float> d(0.f, 1.f);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = d(gen);
  return t;
}

inline std::string weights(zoo::GraphBuilder& g, const std::string& name, const std::vector<int64_t>& dims,
                           double mean = 0.0, double stddev = 0.3) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return g.add_initializer(name, dims, zoo::random_normal(g.rng(name), static_cast<size_t>(n), mean, stddev));
}

// Optimises the model's graph and returns the pass report and the op types left.
inline passes::PassReport optimise(const std::string& bytes, std::multiset<std::string>* ops, int level = 3,
                                   const std::string& precision = "fp32") {
  auto model = onnx_reader::read_model_bytes(bytes.data(), bytes.size(), "");
  EXPECT_TRUE(model.is_ok()) << model.status().to_string();
  ir::Model m = std::move(model).value();
  auto typed = ops::Executor::build(m.graph, m.opsets, {});
  EXPECT_TRUE(typed.is_ok()) << typed.status().to_string();
  const ops::Executor& t = *typed.value();
  passes::PassReport report;
  passes::PassOptions po;
  po.level = level;
  po.precision = precision;
  po.target = runtime::pass_target("cpu");
  Status s = passes::optimize(
      m, po, [&](const std::string& n) { return t.value_type(n); }, &report);
  EXPECT_TRUE(s.is_ok()) << s.to_string();
  for (const auto& n : m.graph.nodes) ops->insert(n.op_type);
  return report;
}

}  // namespace hi
