// The backend interface (runtime/backend.h) and this build's list of backends
// (backends/registry.cc): the CPU first, each GPU backend once, the devices they report merged
// into hi::query_gpus(), and the CPU backend as a partition compiler.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "backends/cpu/backend.h"
#include "hipinfer/device.h"
#include "runtime/backend.h"

namespace hi::test {
namespace {

std::vector<std::string> kinds(const std::vector<const runtime::Backend*>& backends) {
  std::vector<std::string> out;
  for (const runtime::Backend* b : backends) out.push_back(b->kind());
  return out;
}

TEST(Backends, TheCpuComesFirstAndEachKindOnce) {
  const std::vector<std::string> k = kinds(runtime::compiled_backends());
  ASSERT_FALSE(k.empty());
  EXPECT_EQ(k.front(), "cpu");
  EXPECT_EQ(std::set<std::string>(k.begin(), k.end()).size(), k.size());
  for (const std::string& kind : k)
    EXPECT_TRUE(kind == "cpu" || kind == "cuda" || kind == "hip" || kind == "emu") << kind;
  EXPECT_EQ(kinds(runtime::active_backends()), k);
}

TEST(Backends, QueryGpusAsksEveryGpuBackendOfTheBuild) {
  const GpuRuntimeInfo info = query_gpus();
  std::vector<std::string> gpu_kinds = kinds(runtime::compiled_backends());
  gpu_kinds.erase(gpu_kinds.begin());  // the CPU
  EXPECT_EQ(info.compiled_backends, gpu_kinds);
  if (gpu_kinds.empty()) {
    EXPECT_NE(info.no_gpu_reason.find("no GPU backend"), std::string::npos) << info.no_gpu_reason;
  }
  for (const DeviceInfo& d : info.devices) {
    const runtime::Backend* b = runtime::backend_for(runtime::compiled_backends(), d.backend + ":0");
    ASSERT_NE(b, nullptr) << d.backend;
    EXPECT_EQ(b->kind(), d.backend);
  }
  if (info.devices.empty()) {
    EXPECT_FALSE(info.no_gpu_reason.empty());
  }
}

TEST(Backends, DevicesFindTheirBackendByKind) {
  const auto& all = runtime::compiled_backends();
  EXPECT_EQ(runtime::backend_for(all, "cpu"), &cpu::backend());
  EXPECT_EQ(runtime::backend_for(all, "tpu:0"), nullptr);
  EXPECT_EQ(runtime::backend_for(all, ""), nullptr);
  const runtime::Backend* gpu = runtime::first_gpu(all);
  if (!gpu) GTEST_SKIP() << "this build has no GPU backend";
  EXPECT_NE(gpu->kind(), "cpu");
  EXPECT_EQ(runtime::backend_for(all, gpu->kind() + ":3"), gpu);
}

TEST(Backends, ScopedBackendsReplaceTheListAndPutItBack) {
  const std::vector<std::string> before = kinds(runtime::active_backends());
  {
    runtime::ScopedBackends only_cpu({&cpu::backend()});
    EXPECT_EQ(kinds(runtime::active_backends()), std::vector<std::string>{"cpu"});
    EXPECT_EQ(runtime::first_gpu(runtime::active_backends()), nullptr);
    EXPECT_TRUE(runtime::query_devices(runtime::active_backends()).devices.empty());
  }
  EXPECT_EQ(kinds(runtime::active_backends()), before);
}

TEST(CpuBackend, HasAKernelForEveryListedOpAndNamesTheOnesItLacks) {
  ir::Node relu;
  relu.op_type = "Relu";
  EXPECT_EQ(cpu::backend().support(relu, {}), "");
  ir::Node fused;
  fused.op_type = "FusedConv";
  fused.domain = "com.hipinfer";
  EXPECT_EQ(cpu::backend().support(fused, {}), "");
  ir::Node unknown;
  unknown.op_type = "Frobnicate";
  unknown.domain = "com.example";
  EXPECT_EQ(cpu::backend().support(unknown, {}), "no CPU kernel for com.example.Frobnicate");
  EXPECT_EQ(cpu::backend().reserve(0, 1024).code(), StatusCode::kUnsupported);
}

Tensor random_tensor(const Shape& shape, uint32_t seed) {
  Tensor t = Tensor::empty(DType::kFloat32, shape);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = u(rng);
  return t;
}

// y = Relu(x W) on a 5x7 by 7x3 product: the weights come as a constant, x as an input.
TEST(CpuBackend, CompilesAPartitionThatComputesItsNodes) {
  runtime::PartitionSpec spec;
  spec.device = "cpu";
  spec.opsets = {{"", 17}};
  ir::Node mm;
  mm.op_type = "MatMul";
  mm.inputs = {"x", "w"};
  mm.outputs = {"m"};
  ir::Node relu;
  relu.op_type = "Relu";
  relu.inputs = {"m"};
  relu.outputs = {"y"};
  spec.nodes = {mm, relu};
  spec.inputs = {{"x", ir::ValueType::concrete(DType::kFloat32, {5, 7})},
                 {"w", ir::ValueType::concrete(DType::kFloat32, {7, 3})}};
  spec.outputs = {{"y", ir::ValueType::concrete(DType::kFloat32, {5, 3})}};
  const Tensor x = random_tensor({5, 7}, 1), w = random_tensor({7, 3}, 2);
  spec.constants["w"] = w;
  auto runner = cpu::backend().compile(spec);
  ASSERT_TRUE(runner.is_ok()) << runner.status().to_string();
  std::vector<Tensor> out;
  ASSERT_TRUE(runner.value()->run({&x, &w}, &out).is_ok());
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].shape(), (Shape{5, 3}));
  for (int64_t i = 0; i < 5; ++i)
    for (int64_t j = 0; j < 3; ++j) {
      double sum = 0;
      for (int64_t k = 0; k < 7; ++k) sum += double(x.data<float>()[i * 7 + k]) * w.data<float>()[k * 3 + j];
      EXPECT_NEAR(out[0].data<float>()[i * 3 + j], std::max(sum, 0.0), 1e-5) << i << "," << j;
    }
}

TEST(CpuBackend, APartitionItCannotBuildIsAnErrorNotACrash) {
  runtime::PartitionSpec spec;
  spec.device = "cpu";
  spec.opsets = {{"", 17}};
  ir::Node n;
  n.name = "strange";
  n.op_type = "Frobnicate";
  n.inputs = {"x"};
  n.outputs = {"y"};
  spec.nodes = {n};
  spec.inputs = {{"x", ir::ValueType::concrete(DType::kFloat32, {2})}};
  spec.outputs = {{"y", ir::ValueType{}}};
  auto runner = cpu::backend().compile(spec);
  ASSERT_FALSE(runner.is_ok());
  EXPECT_NE(runner.status().message().find("Frobnicate"), std::string::npos) << runner.status().message();
}

}  // namespace
}  // namespace hi::test
