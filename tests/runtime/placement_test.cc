// Placement: the device list resolved against (fake) machines, every node placed with a reason
// for each fallback, and the session-level behaviour on the machine at hand.
#include <gtest/gtest.h>

#include "hipinfer/session.h"
#include "model_builder.h"
#include "runtime/placement.h"

namespace hi::test {
namespace {

GpuRuntimeInfo no_gpu_machine() {
  GpuRuntimeInfo info;
  info.compiled_backends = {"cuda"};
  info.no_gpu_reason = "no NVIDIA driver is loaded";
  return info;
}

GpuRuntimeInfo one_gpu_machine() {
  GpuRuntimeInfo info;
  info.compiled_backends = {"cuda", "hip"};
  DeviceInfo d;
  d.index = 0;
  d.backend = "cuda";
  d.name = "NVIDIA H200";
  info.devices.push_back(d);
  return info;
}

struct Nodes {
  std::vector<ir::Node> storage;
  std::vector<runtime::NodeToPlace> list() const {
    std::vector<runtime::NodeToPlace> out;
    for (const auto& n : storage) out.push_back({&n, {ir::ValueType::tensor(DType::kFloat32, {})}});
    return out;
  }
};

Nodes three_nodes() {
  Nodes n;
  n.storage.push_back({"conv", "Conv", "", {"x"}, {"a"}, {}});
  n.storage.push_back({"", "Relu", "", {"a"}, {"b"}, {}});
  n.storage.push_back({"fused", "FusedConv", "com.hipinfer", {"b"}, {"y"}, {}});
  return n;
}

TEST(Placement, ResolvesTheListAgainstTheMachine) {
  auto slots = runtime::resolve_devices({"gpu", "cpu"}, one_gpu_machine());
  ASSERT_TRUE(slots.is_ok());
  EXPECT_EQ(slots.value()[0].name, "cuda:0");
  EXPECT_EQ(slots.value()[1].name, "cpu");

  auto hip = runtime::resolve_devices({"hip", "cpu"}, one_gpu_machine());
  ASSERT_TRUE(hip.is_ok());
  EXPECT_EQ(hip.value()[0].name, "");  // built, but no AMD device
  EXPECT_NE(hip.value()[0].missing.find("no hip device"), std::string::npos) << hip.value()[0].missing;

  auto none = runtime::resolve_devices({"gpu", "cpu"}, no_gpu_machine());
  ASSERT_TRUE(none.is_ok());
  EXPECT_EQ(none.value()[0].missing, "no GPU: no NVIDIA driver is loaded");

  auto unbuilt = runtime::resolve_devices({"hip", "cpu"}, no_gpu_machine());
  ASSERT_TRUE(unbuilt.is_ok());
  EXPECT_EQ(unbuilt.value()[0].missing, "this build has no hip backend");
}

// A machine whose only device is the emulated GPU: "gpu" (a real one) is missing, with the real
// backend's reason; "emu" names the emulated device.
TEST(Placement, TheEmulatedGpuIsUsedOnlyWhenNamed) {
  GpuRuntimeInfo info;
  info.compiled_backends = {"cuda", "emu"};
  GpuBackendInfo cuda;
  cuda.name = "cuda";
  cuda.no_gpu_reason = "no NVIDIA driver is loaded";
  GpuBackendInfo emu;
  emu.name = "emu";
  emu.device_count = 1;
  info.backends = {cuda, emu};
  DeviceInfo d;
  d.index = 0;
  d.backend = "emu";
  info.devices.push_back(d);

  auto gpu = runtime::resolve_devices({"gpu", "cpu"}, info);
  ASSERT_TRUE(gpu.is_ok());
  EXPECT_EQ(gpu.value()[0].name, "");
  EXPECT_EQ(gpu.value()[0].missing, "no GPU: no NVIDIA driver is loaded");
  auto emulated = runtime::resolve_devices({"emu", "cpu"}, info);
  ASSERT_TRUE(emulated.is_ok());
  EXPECT_EQ(emulated.value()[0].name, "emu:0");
  auto unbuilt = runtime::resolve_devices({"emu"}, no_gpu_machine());
  ASSERT_TRUE(unbuilt.is_ok());
  EXPECT_EQ(unbuilt.value()[0].missing, "this build has no emu backend");
}

TEST(Placement, RejectsBadLists) {
  for (const std::vector<std::string>& list :
       std::vector<std::vector<std::string>>{{}, {"tpu"}, {"cpu", "cpu"}, {"GPU"}}) {
    auto r = runtime::resolve_devices(list, one_gpu_machine());
    ASSERT_FALSE(r.is_ok());
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  }
  auto r = runtime::resolve_devices({"gpu", "tpu"}, one_gpu_machine());
  EXPECT_NE(r.status().message().find("unknown device 'tpu'"), std::string::npos) << r.status().message();
}

TEST(Placement, EveryFallbackHasItsReason) {
  const Nodes nodes = three_nodes();
  auto slots = runtime::resolve_devices({"gpu", "cpu"}, one_gpu_machine());
  ASSERT_TRUE(slots.is_ok());
  // A GPU with kernels for Relu only.
  auto query = [](const ir::Node& n, const std::vector<ir::ValueType>&) -> std::string {
    return n.op_type == "Relu" ? "" : "no GPU kernel for " + n.op_type;
  };
  auto report = runtime::place_nodes(nodes.list(), slots.value(), query);
  ASSERT_TRUE(report.is_ok()) << report.status().to_string();
  const PlacementReport& r = report.value();
  ASSERT_EQ(r.nodes.size(), 3u);
  EXPECT_EQ(r.nodes[0].device, "cpu");
  EXPECT_EQ(r.nodes[0].reason, "gpu: no GPU kernel for Conv");
  EXPECT_EQ(r.nodes[1].device, "cuda:0");
  EXPECT_EQ(r.nodes[1].node, "#1");  // unnamed
  EXPECT_EQ(r.nodes[1].reason, "");
  EXPECT_EQ(r.nodes[2].op_type, "com.hipinfer.FusedConv");
  EXPECT_EQ(r.fallbacks, 2);
  EXPECT_EQ(r.count_on("cuda:0"), 1);
  EXPECT_EQ(r.summary(), "3 nodes: 1 on cuda:0, 2 on cpu; 2 fallbacks [2 distinct reasons; --explain lists them]");
  EXPECT_NE(r.table().find("Relu                    cuda:0  -"), std::string::npos) << r.table();

  const auto warnings = runtime::placement_warnings(r);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("2 of 3 nodes run on cpu instead of cuda:0"), std::string::npos) << warnings[0];
}

TEST(Placement, NoGpuMeansEveryNodeOnTheCpuWithTheRuntimesReason) {
  const Nodes nodes = three_nodes();
  auto slots = runtime::resolve_devices({"gpu", "cpu"}, no_gpu_machine());
  ASSERT_TRUE(slots.is_ok());
  auto report = runtime::place_nodes(nodes.list(), slots.value());
  ASSERT_TRUE(report.is_ok());
  EXPECT_EQ(report.value().fallbacks, 3);
  EXPECT_EQ(report.value().nodes[0].reason, "gpu: no GPU: no NVIDIA driver is loaded");
  EXPECT_EQ(report.value().summary(), "3 nodes: 3 on cpu; 3 fallbacks [gpu: no GPU: no NVIDIA driver is loaded]");
}

TEST(Placement, WithoutCpuAnUnplaceableNodeIsAnErrorNamingIt) {
  const Nodes nodes = three_nodes();
  auto slots = runtime::resolve_devices({"gpu"}, one_gpu_machine());
  ASSERT_TRUE(slots.is_ok());
  auto query = [](const ir::Node& n, const std::vector<ir::ValueType>&) -> std::string {
    return n.op_type == "Relu" ? "" : "no GPU kernel for " + n.op_type;
  };
  auto report = runtime::place_nodes(nodes.list(), slots.value(), query);
  ASSERT_FALSE(report.is_ok());
  EXPECT_EQ(report.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(report.status().message().find("2 of 3 nodes can run on none"), std::string::npos);
  EXPECT_NE(report.status().message().find("node 'conv' (Conv): gpu: no GPU kernel for Conv"), std::string::npos)
      << report.status().message();
}

std::string relu_model() {
  ModelBuilder b;
  b.input("x", onnx::TensorProto::FLOAT, {2, 3});
  b.output("y", onnx::TensorProto::FLOAT);
  b.node("Relu", {"x"}, {"y"});
  return b.bytes();
}

TEST(Placement, SessionOnThisMachine) {
  const std::string bytes = relu_model();
  // The CPU alone: nothing falls back, nothing to warn about.
  SessionOptions cpu_only;
  cpu_only.devices = {"cpu"};
  auto s = Session::create_from_bytes(bytes.data(), bytes.size(), cpu_only);
  ASSERT_TRUE(s.is_ok()) << s.status().to_string();
  EXPECT_EQ(s.value()->placement().fallbacks, 0);
  EXPECT_TRUE(s.value()->warnings().empty());
  EXPECT_EQ(s.value()->placement().nodes.at(0).device, "cpu");

  // The default (gpu, then cpu): with no usable GPU the node runs on the CPU, counts as a
  // fallback, says why, and the session warns; with one, the GPU runs it. Either way the result
  // is right.
  auto d = Session::create_from_bytes(bytes.data(), bytes.size());
  ASSERT_TRUE(d.is_ok()) << d.status().to_string();
  const PlacementReport& r = d.value()->placement();
  ASSERT_EQ(r.nodes.size(), 1u);
  const bool on_gpu = r.nodes[0].device != "cpu";
  if (on_gpu) {
    EXPECT_EQ(r.nodes[0].reason, "");
    EXPECT_EQ(r.fallbacks, 0);
  } else {
    EXPECT_EQ(r.nodes[0].reason.rfind("gpu: ", 0), 0u) << r.nodes[0].reason;
    EXPECT_EQ(r.fallbacks, 1);
    EXPECT_EQ(d.value()->warnings().size(), 1u);
  }
  RunStats stats;
  Tensor x = Tensor::from_vector<float>({-1, 2, -3, 4, -5, 6}, {2, 3});
  auto y = d.value()->run({{"x", x}}, {}, &stats);
  ASSERT_TRUE(y.is_ok()) << y.status().to_string();
  EXPECT_EQ(y.value().at("y").data<float>()[1], 2.f);
  EXPECT_EQ(y.value().at("y").data<float>()[2], 0.f);
  EXPECT_EQ(stats.fallback_nodes, on_gpu ? 0 : 1);
  if (on_gpu) return;  // the checks below assume no GPU can run the node

  // The GPU alone: no GPU can run it here (no device, or no kernel), so creation fails clearly.
  SessionOptions gpu_only;
  gpu_only.devices = {"gpu"};
  auto g = Session::create_from_bytes(bytes.data(), bytes.size(), gpu_only);
  ASSERT_FALSE(g.is_ok());
  EXPECT_NE(g.status().message().find("(Relu): gpu: "), std::string::npos) << g.status().message();

  SessionOptions bad;
  bad.devices = {"npu"};
  auto b = Session::create_from_bytes(bytes.data(), bytes.size(), bad);
  ASSERT_FALSE(b.is_ok());
  EXPECT_EQ(b.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace hi::test

namespace hi::test {
namespace {

TEST(GpuMemory, ApiAnswersWithoutAGpu) {
  EXPECT_TRUE(gpu_empty_cache().is_ok());
  EXPECT_EQ(gpu_reserve("tpu:0", 1 << 20).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(gpu_reserve("cuda:zero", 1 << 20).code(), StatusCode::kInvalidArgument);
  if (!query_gpus().devices.empty()) GTEST_SKIP() << "a GPU is present: the checks below assume none";
  EXPECT_TRUE(gpu_memory_stats().empty());
  const Status s = gpu_reserve("cuda:0", 1 << 20);
  EXPECT_FALSE(s.is_ok());
  EXPECT_NE(s.message().find("cuda"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace hi::test
