// Several threads running one optimised session at once get exactly what one thread gets: the
// fast kernels share weights and primitives across calls, never per-call scratch state.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <thread>

#include "hipinfer/session.h"
#include "hipinfer/zoo.h"

namespace hi {
namespace {

Tensor random_tensor(const TensorInfo& info, int64_t batch, uint32_t seed, int64_t vocab) {
  Shape shape;
  for (const auto& d : info.shape) shape.push_back(d < 0 ? batch : d);
  Tensor t = Tensor::empty(info.dtype, shape);
  std::mt19937 rng(seed);
  if (info.dtype == DType::kInt64) {
    std::uniform_int_distribution<int64_t> dist(0, vocab - 1);
    for (int64_t i = 0; i < t.numel(); ++i) t.data<int64_t>()[i] = info.name == "input_ids" ? dist(rng) : 1;
  } else {
    std::normal_distribution<float> dist;
    for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = dist(rng);
  }
  return t;
}

void expect_threads_agree(const std::string& model, const zoo::ZooOptions& options) {
  auto bytes = zoo::build_zoo_model(model, options);
  ASSERT_TRUE(bytes.is_ok()) << bytes.status().to_string();
  SessionOptions so;
  so.threads = 2;
  so.adapt_threads = false;  // bit for bit: every run on the same kernels (see SessionOptions)
  auto session = Session::create_from_bytes(bytes.value().data(), bytes.value().size(), so);
  ASSERT_TRUE(session.is_ok()) << session.status().to_string();
  Session& s = *session.value();

  constexpr int kFeeds = 3;
  std::vector<std::map<std::string, Tensor>> feeds(kFeeds);
  std::vector<std::map<std::string, Tensor>> expected(kFeeds);
  for (int f = 0; f < kFeeds; ++f) {
    for (const TensorInfo& info : s.inputs())
      feeds[f].emplace(info.name, random_tensor(info, 1 + f, 100 + static_cast<uint32_t>(f), options.vocab));
    auto r = s.run(feeds[f]);
    ASSERT_TRUE(r.is_ok()) << r.status().to_string();
    for (auto& [name, t] : r.value()) expected[f].emplace(name, t.clone());
  }

  std::vector<int> mismatches(6, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 6; ++i) {
        const int f = (t + i) % kFeeds;
        auto r = s.run(feeds[f]);
        if (!r.is_ok()) {
          ++mismatches[t];
          continue;
        }
        for (auto& [name, got] : r.value()) {
          const Tensor& want = expected[f].at(name);
          if (got.nbytes() != want.nbytes() || std::memcmp(got.raw(), want.raw(), got.nbytes()) != 0) ++mismatches[t];
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 6; ++t) EXPECT_EQ(mismatches[t], 0) << "thread " << t;
}

TEST(Concurrency, EncoderRunsFromSixThreadsBitForBit) {
  zoo::ZooOptions o;
  o.layers = 2;
  o.hidden = 64;
  o.heads = 4;
  o.sequence = 16;
  o.vocab = 500;
  expect_threads_agree("bert", o);
}

TEST(Concurrency, ConvNetRunsFromSixThreadsBitForBit) {
  zoo::ZooOptions o;
  o.image_size = 64;
  o.classes = 10;
  expect_threads_agree("mobilenetv2", o);
}

}  // namespace
}  // namespace hi
