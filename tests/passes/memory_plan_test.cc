// The static memory plan: offsets never let two live buffers overlap, buffers that are not
// alive together share bytes, and planned runs give the same outputs as unplanned ones.
#include <gtest/gtest.h>

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
      p.buffers.push_back(buffer(i, 1 + static_cast<int64_t>(gen() % 5000), first, first + static_cast<int>(gen() % 10)));
    }
    ops::plan_offsets(&p);
    expect_no_live_overlap(p);
    EXPECT_LE(p.arena_bytes, p.total_bytes);
    for (const auto& b : p.buffers) EXPECT_EQ(b.offset % 64, 0);
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

Tensor input(int64_t batch, uint32_t seed) {
  Tensor t = Tensor::empty(DType::kFloat32, {batch, 16});
  std::mt19937 gen(seed);
  std::normal_distribution<float> d(0.f, 1.f);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = d(gen);
  return t;
}

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
      RunStats stats;
      auto a = ref.value()->run(in);
      auto b = planned.value()->run(in, {}, &stats);
      ASSERT_TRUE(a.is_ok() && b.is_ok());
      const Tensor& ya = a.value().at("y");
      const Tensor& yb = b.value().at("y");
      ASSERT_EQ(ya.shape(), yb.shape());
      for (int64_t i = 0; i < ya.numel(); ++i) ASSERT_NEAR(ya.data<float>()[i], yb.data<float>()[i], 1e-5f) << i;
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
