// The static memory plan: offsets never let two live buffers overlap, buffers that are not
// alive together share bytes, and planned runs give the same outputs as unplanned ones.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <thread>

#include "hipinfer/session.h"
#include "runtime/memory_plan.h"
#include "zoo/graph_builder.h"

namespace hi {
namespace {

using ops::MemoryPlan;
using ops::PlannedBuffer;

PlannedBuffer buffer(int node, int64_t bytes, int first, int last) {
  PlannedBuffer b;
  b.node = node;
  b.bytes = bytes;
  b.first = first;
  b.last = last;
  return b;
}

// Standard normal values of the given shape.
Tensor random_input(const Shape& shape, uint32_t seed) {
  Tensor t = Tensor::empty(DType::kFloat32, shape);
  std::mt19937 gen(seed);
  std::normal_distribution<float> d(0.f, 1.f);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = d(gen);
  return t;
}

// Runs `in` through the unoptimised, unplanned session and the planned one; every element of "y"
// must agree within tol (relative to 1 + |value|). Returns the planned run's stats.
RunStats expect_planned_matches(Session& unplanned, Session& planned, const TensorMap& in, float tol) {
  RunStats stats;
  auto a = unplanned.run(in);
  auto b = planned.run(in, {}, &stats);
  EXPECT_TRUE(a.is_ok() && b.is_ok());
  if (!a.is_ok() || !b.is_ok()) return stats;
  const Tensor& ya = a.value().at("y");
  const Tensor& yb = b.value().at("y");
  EXPECT_EQ(ya.shape(), yb.shape());
  for (int64_t i = 0; i < ya.numel() && i < yb.numel(); ++i) {
    if (std::fabs(ya.data<float>()[i] - yb.data<float>()[i]) > tol * (1 + std::fabs(ya.data<float>()[i]))) {
      ADD_FAILURE() << "y[" << i << "]: " << yb.data<float>()[i] << " planned, " << ya.data<float>()[i] << " unplanned";
      break;
    }
  }
  return stats;
}

void expect_no_live_overlap(const MemoryPlan& p) {
  for (size_t i = 0; i < p.buffers.size(); ++i)
    for (size_t j = i + 1; j < p.buffers.size(); ++j) {
      const auto& a = p.buffers[i];
      const auto& b = p.buffers[j];
      const bool live_together = a.first <= b.last && b.first <= a.last;
      const bool share_bytes = a.offset < b.offset + b.bytes && b.offset < a.offset + a.bytes;
      EXPECT_FALSE(live_together && share_bytes) << "buffers " << i << " and " << j;
    }
}

TEST(MemoryPlan, ChainReusesBytes) {
  // a -> b -> c -> d: each buffer dies when the next is made from it.
  MemoryPlan p;
  p.buffers = {buffer(0, 1000, 0, 1), buffer(1, 3000, 1, 2), buffer(2, 1000, 2, 3), buffer(3, 64, 3, 4)};
  ops::plan_offsets(&p);
  expect_no_live_overlap(p);
  EXPECT_EQ(p.total_bytes, 1024 + 3008 + 1024 + 64);
  EXPECT_EQ(p.arena_bytes, 3008 + 1024);  // never more than two alive at once
  EXPECT_EQ(p.by_output.size(), 4u);
}

TEST(MemoryPlan, RandomLifetimesNeverOverlap) {
  std::mt19937 gen(5);
  for (int round = 0; round < 50; ++round) {
    MemoryPlan p;
    const int n = 1 + static_cast<int>(gen() % 40);
    for (int i = 0; i < n; ++i) {
      const int first = static_cast<int>(gen() % 30);
      p.buffers.push_back(
          buffer(i, 1 + static_cast<int64_t>(gen() % 5000), first, first + static_cast<int>(gen() % 10)));
    }
    ops::plan_offsets(&p);
    expect_no_live_overlap(p);
    EXPECT_LE(p.arena_bytes, p.total_bytes);
    for (const auto& b : p.buffers) EXPECT_EQ(b.offset % 64, 0);
  }
}

TEST(MemoryPlan, InPlaceTakesTheInputsBytesOnlyWhereItDies) {
  using ops::InPlaceCandidate;
  // 0: a made at node 0, last read at node 1, where b (same size) is made: granted.
  // 1: b -> c at node 2, but b is read again at node 3: refused.
  // 2: c -> d at node 3, different size: refused. 3: e made at 4 from d (dies at 4): granted.
  // 4: f at node 5 from e, which shares a's bytes now, dies at 5: granted (a chain).
  const std::vector<PlannedBuffer> recorded = {buffer(0, 4096, 0, 1), buffer(1, 4096, 1, 3), buffer(2, 4096, 2, 3),
                                               buffer(3, 2048, 3, 4), buffer(4, 2048, 4, 5), buffer(5, 2048, 5, 6),
                                               buffer(6, 512, 6, 7)};
  const std::vector<InPlaceCandidate> in_place = {{1, 0, 1}, {2, 1, 2}, {3, 2, 3}, {4, 3, 4}, {5, 4, 5}};
  MemoryPlan p = ops::make_plan(recorded, std::vector<bool>(recorded.size(), false), in_place);
  expect_no_live_overlap(p);
  auto offset = [&](int node) { return p.buffers[p.by_output.at({node, 0})].offset; };
  EXPECT_EQ(offset(1), offset(0));
  EXPECT_NE(offset(2), offset(1));  // b is still read at node 3
  EXPECT_EQ(offset(4), offset(3));
  EXPECT_EQ(offset(5), offset(3));
  EXPECT_EQ(p.buffers.size(), 4u);  // a+b, c, d+e+f, g
  EXPECT_EQ(p.by_output.size(), recorded.size());
  for (const auto& b : p.buffers) {
    if (b.node == 3) {
      EXPECT_EQ(b.last, 6);  // d's bytes live on through f's last reader
    }
  }

  // A buffer some value views after the run is never shared, in either role.
  std::vector<bool> escapes(recorded.size(), false);
  escapes[1] = true;
  escapes[3] = true;
  p = ops::make_plan(recorded, escapes, in_place);
  EXPECT_EQ(p.by_output.count({1, 0}), 0u);
  EXPECT_NE(p.buffers[p.by_output.at({4, 0})].offset + 0, -1);
  EXPECT_EQ(p.by_output.at({5, 0}), p.by_output.at({4, 0}));  // e -> f still granted
  expect_no_live_overlap(p);
}

// t = dense(x), y1 = dense(dense(t)) + t (t dies there: in place), y2 = dense(y1) + y1 (y1 is
// the product's A too: not in place), y = dense(y2) + x (x is an input, not planned): the cases
// of the residual products, planned against unplanned (and with convolutions below).
std::string residual_model() {
  zoo::GraphBuilder g("residual", 14, 9);
  g.add_input("x", zoo::ElemType::kFloat, {{-1, "batch"}, {24, {}}});
  // MatMul + bias: what the fusion pass makes a FusedMatMul of.
  auto dense = [&](const std::string& a, int i) {
    const std::string w = str("w", i), b = str("b", i), scope = str("/l", i);
    return g.op(
        "Add", scope,
        {g.op("MatMul", scope, {a, g.add_initializer(w, {24, 24}, zoo::random_normal(g.rng(w), 576, 0.0, 0.2))}),
         g.add_initializer(b, {24}, zoo::random_normal(g.rng(b), 24, 0.0, 0.2))});
  };
  const std::string t = dense("x", 0);
  const std::string y1 = g.op("Add", "/y1", {dense(dense(t, 1), 2), t});
  const std::string y2 = g.op("Add", "/y2", {dense(y1, 3), y1});
  g.op("Add", "/y", {dense(y2, 4), "x"}, {}, "y");
  g.add_output("y", zoo::ElemType::kFloat, {});
  EXPECT_TRUE(g.finish("test").is_ok());
  return g.serialize().value();
}

// The same shape of graph with 3x3 convolutions (FusedConv's residual): [1, 8, 11, 13].
std::string conv_residual_model() {
  zoo::GraphBuilder g("conv_residual", 14, 9);
  g.add_input("x", zoo::ElemType::kFloat, {{1, {}}, {8, {}}, {11, {}}, {13, {}}});
  using zoo::Attr;
  auto conv = [&](const std::string& a, int i) {
    const std::string w = str("w", i), b = str("b", i), scope = str("/c", i);
    return g.op("Conv", scope,
                {a, g.add_initializer(w, {8, 8, 3, 3}, zoo::random_normal(g.rng(w), 576, 0.0, 0.2)),
                 g.add_initializer(b, {8}, zoo::random_normal(g.rng(b), 8, 0.0, 0.2))},
                {Attr::ints_of("kernel_shape", {3, 3}), Attr::ints_of("pads", {1, 1, 1, 1})});
  };
  const std::string t = conv("x", 0);
  const std::string y1 = g.op("Relu", "/r1", {g.op("Add", "/y1", {conv(conv(t, 1), 2), t})});
  const std::string y2 = g.op("Add", "/y2", {conv(y1, 3), y1});
  g.op("Add", "/y", {conv(y2, 4), "x"}, {}, "y");
  g.add_output("y", zoo::ElemType::kFloat, {});
  EXPECT_TRUE(g.finish("test").is_ok());
  return g.serialize().value();
}

TEST(MemoryPlan, ResidualsRunInPlaceWithTheSameResults) {
  for (const bool convolutions : {false, true}) {
    const std::string bytes = convolutions ? conv_residual_model() : residual_model();
    const Shape shape = convolutions ? Shape{1, 8, 11, 13} : Shape{37, 24};
    SessionOptions unplanned;
    unplanned.optimization_level = 0;
    auto ref = Session::create_from_bytes(bytes.data(), bytes.size(), unplanned);
    auto planned = Session::create_from_bytes(bytes.data(), bytes.size());
    ASSERT_TRUE(ref.is_ok() && planned.is_ok());
    const int64_t buffer_bytes = (shape_numel(shape) * 4 + 63) / 64 * 64;
    for (int run = 0; run < 3; ++run) {
      const Tensor x = random_input(shape, static_cast<uint32_t>(run));
      const RunStats stats = expect_planned_matches(*ref.value(), *planned.value(), {{"x", x}}, 1e-4f);
      // t and y1 share bytes; the middle product and y2 have their own; y escapes. Channels-last,
      // x is transposed once for the last residual, whose convolution then runs on its bytes.
      const int64_t buffers = convolutions ? 4 : 3;
      if (run > 0) {
        EXPECT_EQ(stats.planned_activation_bytes, buffers * buffer_bytes) << (convolutions ? "conv" : "matmul");
      }
    }
  }
}

// Elementwise and row ops run in place along a chain: x -> Relu -> LayerNormalization ->
// Softmax -> Sigmoid -> LogSoftmax(axis 0) -> Add(bias) -> Mul(x) -> Neg -> y. Relu's output is
// the only planned buffer: the LayerNorm, the Softmax (row kernel), the Sigmoid, the LogSoftmax
// (the reference's strided rows), the broadcast Add and the Mul (whose other operand is the graph
// input) take its bytes in turn; Neg's output is the graph's.
TEST(MemoryPlan, ElementwiseChainsShareOneBuffer) {
  zoo::GraphBuilder g("elementwise", 17, 9);
  g.add_input("x", zoo::ElemType::kFloat, {{-1, "batch"}, {40, {}}});
  std::string h = g.op("Relu", "/a", {"x"});
  h = g.op("LayerNormalization", "/ln",
           {h, g.add_initializer("gamma", {40}, zoo::random_normal(g.rng("gamma"), 40, 1.0, 0.2)),
            g.add_initializer("beta", {40}, zoo::random_normal(g.rng("beta"), 40, 0.0, 0.2))});
  h = g.op("Softmax", "/sm", {h});
  h = g.op("Sigmoid", "/b", {h});
  h = g.op("LogSoftmax", "/lsm", {h}, {zoo::Attr::i("axis", 0)});
  h = g.op("Add", "/c", {h, g.add_initializer("bias", {40}, zoo::random_normal(g.rng("bias"), 40, 0.0, 1.0))});
  h = g.op("Mul", "/d", {h, "x"});
  g.op("Neg", "/e", {h}, {}, "y");
  g.add_output("y", zoo::ElemType::kFloat, {});
  ASSERT_TRUE(g.finish("test").is_ok());
  const std::string bytes = g.serialize().value();
  SessionOptions unplanned;
  unplanned.optimization_level = 0;
  auto ref = Session::create_from_bytes(bytes.data(), bytes.size(), unplanned);
  auto planned = Session::create_from_bytes(bytes.data(), bytes.size());
  ASSERT_TRUE(ref.is_ok() && planned.is_ok());
  for (int run = 0; run < 3; ++run) {
    const TensorMap in = {{"x", random_input({9, 40}, static_cast<uint32_t>(run))}};
    const RunStats stats = expect_planned_matches(*ref.value(), *planned.value(), in, 0.f);
    if (run > 0) {
      EXPECT_EQ(stats.planned_activation_bytes, (9 * 40 * 4 + 63) / 64 * 64);
    }
  }
}

// x[batch, 16] -> 6 chained MatMul + Relu layers with a skip connection; symbolic batch.
std::string chain_model() {
  zoo::GraphBuilder g("chain", 14, 9);
  g.add_input("x", zoo::ElemType::kFloat, {{-1, "batch"}, {16, {}}});
  std::string h = "x", skip;
  for (int i = 0; i < 6; ++i) {
    // (str() rather than "w" + std::to_string(i): gcc 12 warns falsely on the latter, -Wrestrict.)
    const std::string name = str("w", i), scope = str("/l", i);
    const std::string w = g.add_initializer(name, {16, 16}, zoo::random_normal(g.rng(name), 256, 0.0, 0.3));
    h = g.op("Relu", scope, {g.op("MatMul", scope, {h, w})});
    if (i == 1) skip = h;
  }
  h = g.op("Add", "/skip", {h, skip});
  g.op("Reshape", "/out", {h, g.constant_i64("/out", {2}, {0, 16})}, {}, "y");
  g.add_output("y", zoo::ElemType::kFloat, {});
  EXPECT_TRUE(g.finish("test").is_ok());
  return g.serialize().value();
}

Tensor input(int64_t batch, uint32_t seed) { return random_input({batch, 16}, seed); }

TEST(MemoryPlan, PlannedRunsMatchUnplanned) {
  const std::string bytes = chain_model();
  SessionOptions unplanned;
  unplanned.optimization_level = 0;
  auto ref = Session::create_from_bytes(bytes.data(), bytes.size(), unplanned);
  auto planned = Session::create_from_bytes(bytes.data(), bytes.size());
  ASSERT_TRUE(ref.is_ok() && planned.is_ok());
  for (int64_t batch : {3, 5, 3}) {
    for (int run = 0; run < 3; ++run) {
      const TensorMap in = {{"x", input(batch, static_cast<uint32_t>(run + batch))}};
      const RunStats stats = expect_planned_matches(*ref.value(), *planned.value(), in, 1e-5f);
      if (run == 0 && batch == 5) {
        EXPECT_EQ(stats.planned_arena_bytes, 0);  // the run that makes this shape's plan
      }
      if (run > 0) {
        EXPECT_GT(stats.planned_arena_bytes, 0);
        // The plan holds at most what the widest point of the graph needs, not all six layers.
        EXPECT_LE(stats.planned_arena_bytes, 4 * batch * 16 * 4 + 4 * 64);
      }
    }
  }
}

TEST(MemoryPlan, OutputsSurviveLaterRuns) {
  // An output viewing arena memory (the Reshape) must not change when the arena is reused.
  const std::string bytes = chain_model();
  auto s = Session::create_from_bytes(bytes.data(), bytes.size());
  ASSERT_TRUE(s.is_ok());
  ASSERT_TRUE(s.value()->run({{"x", input(4, 1)}}).is_ok());
  auto first = s.value()->run({{"x", input(4, 2)}});
  ASSERT_TRUE(first.is_ok());
  const Tensor kept = first.value().at("y").clone();
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(s.value()->run({{"x", input(4, 10 + static_cast<uint32_t>(i))}}).is_ok());
  const Tensor& y = first.value().at("y");
  for (int64_t i = 0; i < y.numel(); ++i) ASSERT_EQ(y.data<float>()[i], kept.data<float>()[i]);
}

TEST(MemoryPlan, ThreadsRunOneSessionAtOnce) {
  const std::string bytes = chain_model();
  auto s = Session::create_from_bytes(bytes.data(), bytes.size());
  ASSERT_TRUE(s.is_ok());
  const Tensor x = input(7, 3);
  auto expected = s.value()->run({{"x", x}});
  ASSERT_TRUE(expected.is_ok());
  const Tensor& want = expected.value().at("y");
  std::vector<std::thread> threads;
  std::atomic<int> mismatches{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 20; ++i) {
        auto r = s.value()->run({{"x", x}});
        if (!r.is_ok()) {
          ++mismatches;
          continue;
        }
        const Tensor& y = r.value().at("y");
        for (int64_t j = 0; j < y.numel(); ++j)
          if (y.data<float>()[j] != want.data<float>()[j]) {
            ++mismatches;
            break;
          }
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(mismatches.load(), 0);
}

}  // namespace
}  // namespace hi
