// The GPU executor: its kernel table's answers (what placement is told), compiling partitions
// (no device needed), and, with a GPU, zoo models GPU-first against the CPU.
#include <atomic>
#include <cmath>
#include <cstring>
#include <thread>

#include "backends/gpu/gpu_partition.h"
#include "gpu/gpu_skip.h"
#include "gpu/kernel_harness.h"
#include "hipinfer/zoo.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

ir::ValueType f32(const Shape& shape) { return ir::ValueType::concrete(DType::kFloat32, shape); }

TEST(HI_GPU_TEST_SUITE, KernelTableSaysWhatIsMissing) {
  EXPECT_EQ(partition_support(make_node("Relu", {"x"}, {"y"}), {f32({2, 3})}), "");
  EXPECT_NE(
      partition_support(make_node("Relu", {"x"}, {"y"}), {ir::ValueType::concrete(DType::kInt32, {2})}).find("int32"),
      std::string::npos);
  EXPECT_NE(partition_support(make_node("Conv", {"x", "w"}, {"y"}), {f32({1, 2, 5}), f32({3, 2, 3})}).find("2-D"),
            std::string::npos);
  EXPECT_EQ(partition_support(make_node("Conv", {"x", "w"}, {"y"}), {f32({1, 2, 5, 5}), f32({3, 2, 3, 3})}), "");
  ir::Node cl = make_node("FusedConv", {"x", "w"}, {"y"}, "com.hipinfer");
  set_int_attr(cl, "channels_last", 1);
  EXPECT_NE(partition_support(cl, {f32({1, 5, 5, 2}), f32({3, 2, 3, 3})}).find("channels-last"), std::string::npos);
  ir::Node sm = make_node("Softmax", {"x"}, {"y"});
  set_int_attr(sm, "axis", 1);
  EXPECT_EQ(partition_support(sm, {f32({2, 3, 4})}), "");  // any axis, with the opset's meaning of it
  EXPECT_NE(partition_support(make_node("Gather", {"d", "i"}, {"y"}),
                              {f32({4, 2}), ir::ValueType::concrete(DType::kInt32, {3})})
                .find("int32 indices"),
            std::string::npos);
  EXPECT_EQ(partition_support(make_node("TopK", {"x", "k"}, {"v", "i"}), {f32({4}), f32({1})}),
            "no GPU kernel for TopK");
  const ir::Node att = make_node("FusedAttention", {"q", "k", "v", "m"}, {"y"}, "com.hipinfer");
  EXPECT_EQ(partition_support(att, {f32({2, 9, 4, 16}), f32({2, 30, 4, 16}), f32({2, 30, 4, 16}), f32({2, 1, 1, 30})}),
            "");
  EXPECT_NE(partition_support(att, {f32({1, 9, 1, 16}), f32({1, 30, 1, 16}), f32({1, 30, 1, 2000}), f32({1, 30})})
                .find("value size 2000"),
            std::string::npos);
  EXPECT_NE(partition_support(att, {f32({9, 16}), f32({30, 16}), f32({30, 16}), f32({30})}).find("rank 4"),
            std::string::npos);
  // Strings have no GPU kernel; integers do (placement keeps shape arithmetic on the CPU).
  EXPECT_EQ(partition_support(make_node("Concat", {"a", "b"}, {"y"}), {ir::ValueType::concrete(DType::kString, {1}),
                                                                       ir::ValueType::concrete(DType::kString, {1})}),
            "no GPU kernel for Concat on string");
}

runtime::PartitionSpec conv_net_spec() {
  runtime::PartitionSpec spec;
  spec.device = HI_GPU_BACKEND ":0";
  spec.opsets = {{"", 17}};
  ir::Node conv = make_node("Conv", {"x", "w", "b"}, {"c"});
  ir::Attribute pads;
  pads.kind = ir::Attribute::Kind::kInts;
  pads.ints = {1, 1, 1, 1};
  conv.attributes["pads"] = pads;
  ir::Node pool = make_node("MaxPool", {"r"}, {"p"});
  ir::Attribute k;
  k.kind = ir::Attribute::Kind::kInts;
  k.ints = {2, 2};
  pool.attributes["kernel_shape"] = k;
  pool.attributes["strides"] = k;
  spec.nodes = {conv, make_node("Relu", {"c"}, {"r"}), pool, make_node("Flatten", {"p"}, {"f"}),
                make_node("Gemm", {"f", "fw", "fb"}, {"y"})};
  spec.types = {{"x", f32({1, 3, 8, 8})}, {"w", f32({4, 3, 3, 3})}, {"b", f32({4})},     {"c", f32({1, 4, 8, 8})},
                {"r", f32({1, 4, 8, 8})}, {"p", f32({1, 4, 4, 4})}, {"f", f32({1, 64})}, {"fw", f32({64, 10})},
                {"fb", f32({10})},        {"y", f32({1, 10})}};
  for (const char* in : {"x", "w", "b", "fw", "fb"}) spec.inputs.push_back({in, spec.types.at(in)});
  spec.outputs.push_back({"y", spec.types.at("y")});
  return spec;
}

TEST(HI_GPU_TEST_SUITE, CompilesPartitionsAfterTheKernelsSelfCheck) {
  // The steps compile without the device; then the kernels' self-check needs one: without a GPU
  // the partition is refused (kUnsupported, so a session keeps those nodes on the CPU).
  auto runner = compile_partition(conv_net_spec());
  if (no_gpu_reason().empty()) {
    EXPECT_TRUE(runner.is_ok()) << runner.status().to_string();
  } else {
    ASSERT_FALSE(runner.is_ok());
    EXPECT_EQ(runner.status().code(), StatusCode::kUnsupported);
    EXPECT_NE(runner.status().message().find("self-check"), std::string::npos) << runner.status().message();
  }
  runtime::PartitionSpec bad = conv_net_spec();
  bad.nodes.push_back(make_node("TopK", {"y", "k"}, {"v", "i"}));
  bad.types["k"] = ir::ValueType::concrete(DType::kInt64, {1});
  auto failed = compile_partition(bad);
  ASSERT_FALSE(failed.is_ok());
  EXPECT_EQ(failed.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(failed.status().message().find("TopK_node"), std::string::npos) << failed.status().message();
}

// With a GPU: the zoo models GPU-first against the CPU alone, within rtol 1e-3 of the output's
// largest value, with the CNNs almost wholly on the GPU (the encoder's attention, Shape and Cast
// nodes have no GPU kernel yet).
void expect_gpu_matches_cpu(const std::string& model, const zoo::ZooOptions& o, int level, double min_gpu_fraction) {
  auto bytes = zoo::build_zoo_model(model, o);
  ASSERT_TRUE(bytes.is_ok());
  SessionOptions cpu, gpu;
  cpu.devices = {"cpu"};
  cpu.optimization_level = gpu.optimization_level = level;
  gpu.devices = {HI_GPU_BACKEND, "cpu"};
  auto a = Session::create_from_bytes(bytes.value().data(), bytes.value().size(), cpu);
  auto b = Session::create_from_bytes(bytes.value().data(), bytes.value().size(), gpu);
  ASSERT_TRUE(a.is_ok() && b.is_ok()) << b.status().to_string();
  const PlacementReport& p = b.value()->placement();
  EXPECT_GE(static_cast<double>(p.count_on(HI_GPU_BACKEND ":0")),
            min_gpu_fraction * static_cast<double>(p.nodes.size()))
      << p.table();
  const TensorMap feeds = model_feeds(*a.value(), {});
  auto want = a.value()->run(feeds);
  auto got = b.value()->run(feeds);
  ASSERT_TRUE(want.is_ok() && got.is_ok()) << got.status().to_string();
  expect_outputs_close(want.value(), got.value(), model);
}

TEST(HI_GPU_TEST_SUITE, ZooModelsGpuFirstMatchTheCpu) {
  SKIP_WITHOUT_GPU();
  zoo::ZooOptions image;
  image.image_size = 64;
  image.classes = 10;
  expect_gpu_matches_cpu("resnet50", image, 2, 0.9);
  expect_gpu_matches_cpu("mobilenetv2", image, 2, 0.9);
  zoo::ZooOptions encoder;
  encoder.layers = 2;
  encoder.hidden = 64;
  encoder.heads = 4;
  encoder.sequence = 16;
  encoder.vocab = 100;
  expect_gpu_matches_cpu("bert", encoder, 2, 0.3);
}

// An op without a GPU kernel between two with one: it runs on the CPU, the placement report and
// the run's statistics say so with the reason, and the result is the CPU's.
TEST(HI_GPU_TEST_SUITE, AnOpWithoutAGpuKernelRunsOnTheCpuAndIsReported) {
  SKIP_WITHOUT_GPU();
  ModelBuilder b;
  b.input("x", onnx::TensorProto::FLOAT, {3, 7});
  b.output("y", onnx::TensorProto::FLOAT);
  b.node("Relu", {"x"}, {"r"}, "relu");
  b.node("LpNormalization", {"r"}, {"h"}, "lp_norm");  // no GPU kernel (nor a plan for one)
  b.node("Sigmoid", {"h"}, {"y"}, "sigmoid");
  const std::string bytes = b.bytes();
  SessionOptions o;
  o.devices = {HI_GPU_BACKEND, "cpu"};
  auto s = Session::create_from_bytes(bytes.data(), bytes.size(), o);
  ASSERT_TRUE(s.is_ok()) << s.status().to_string();
  const PlacementReport& p = s.value()->placement();
  ASSERT_EQ(p.nodes.size(), 3u) << p.table();
  EXPECT_EQ(p.nodes[0].device, HI_GPU_BACKEND ":0");
  EXPECT_EQ(p.nodes[1].device, "cpu");
  EXPECT_EQ(p.nodes[1].reason, HI_GPU_BACKEND ": no GPU kernel for LpNormalization") << p.table();
  EXPECT_EQ(p.nodes[2].device, HI_GPU_BACKEND ":0");
  EXPECT_EQ(p.fallbacks, 1);
  EXPECT_EQ(s.value()->warnings().size(), 1u);
  const TensorMap feeds{{"x", random_tensor(DType::kFloat32, {3, 7}, 4, false)}};
  RunStats stats;
  auto got = s.value()->run(feeds, {}, &stats);
  ASSERT_TRUE(got.is_ok()) << got.status().to_string();
  EXPECT_EQ(stats.fallback_nodes, 1);
  const Tensor want = run_on_cpu(b, feeds);
  const Tensor& y = got.value().at("y");
  ASSERT_EQ(y.shape(), want.shape());
  for (int64_t i = 0; i < y.numel(); ++i) EXPECT_NEAR(y.data<float>()[i], want.data<float>()[i], 1e-6) << i;
}

// Graph replay against direct launches, bit for bit: the same kernels run either way. The first
// run of each input signature runs directly, the second captures, later ones replay; a second batch size is a second
// graph; threads sharing the session replay or, while a graph is busy, run directly.
TEST(HI_GPU_TEST_SUITE, GraphReplayMatchesDirectLaunches) {
  SKIP_WITHOUT_GPU();
  zoo::ZooOptions o;
  o.image_size = 32;
  o.classes = 10;
  auto bytes = zoo::build_zoo_model("resnet50", o);
  ASSERT_TRUE(bytes.is_ok());
  SessionOptions direct, graphs;
  direct.devices = graphs.devices = {HI_GPU_BACKEND, "cpu"};
  direct.optimization_level = graphs.optimization_level = 2;
  direct.gpu_graphs = false;
  auto a = Session::create_from_bytes(bytes.value().data(), bytes.value().size(), direct);
  auto b = Session::create_from_bytes(bytes.value().data(), bytes.value().size(), graphs);
  ASSERT_TRUE(a.is_ok() && b.is_ok()) << b.status().to_string();
  const std::string input = a.value()->inputs().at(0).name;
  for (int64_t batch : {1, 3, 1}) {
    for (uint32_t seed : {1u, 2u}) {
      TensorMap feeds{
          {input, random_tensor(DType::kFloat32, {batch, 3, 32, 32}, seed + static_cast<uint32_t>(batch), false)}};
      auto want = a.value()->run(feeds);
      auto got = b.value()->run(feeds);
      ASSERT_TRUE(want.is_ok() && got.is_ok()) << got.status().to_string();
      for (const auto& [name, w] : want.value()) {
        const Tensor& g = got.value().at(name);
        ASSERT_EQ(w.shape(), g.shape());
        EXPECT_EQ(std::memcmp(w.raw(), g.raw(), w.nbytes()), 0) << "batch " << batch << " output " << name;
      }
    }
  }
  const PartitionGraphStats off = a.value()->graph_stats();
  EXPECT_FALSE(off.enabled);
  EXPECT_EQ(off.replays, 0);
  const PartitionGraphStats on = b.value()->graph_stats();
  EXPECT_TRUE(on.enabled);
  EXPECT_EQ(on.failures, 0) << on.last_failure;
  // Per partition: the first run of batch 1 and of batch 3 directly, the second captures, and
  // it and the two later batch-1 runs replay.
  EXPECT_GT(on.captures, 0);
  EXPECT_EQ(on.captures % 2, 0) << on.summary();
  EXPECT_EQ(on.replays, 2 * on.captures) << on.summary();
  EXPECT_EQ(on.direct_runs, on.captures) << on.summary();
  // Shapes are inferred once per partition and input signature (two: batch 1 and 3), not per run.
  EXPECT_EQ(off.shape_inferences, on.captures);
  EXPECT_EQ(on.shape_inferences, on.captures);
  std::vector<std::thread> threads;
  std::atomic<int> mismatches{0};
  const TensorMap feeds{{input, random_tensor(DType::kFloat32, {1, 3, 32, 32}, 9, false)}};
  auto want = a.value()->run(feeds);
  ASSERT_TRUE(want.is_ok());
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int k = 0; k < 10; ++k) {
        auto got = b.value()->run(feeds);
        if (!got.is_ok()) {
          ++mismatches;
          continue;
        }
        for (const auto& [name, w] : want.value())
          if (std::memcmp(w.raw(), got.value().at(name).raw(), w.nbytes()) != 0) ++mismatches;
      }
    });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(mismatches.load(), 0);
}

// Shapes are inferred once per input signature, which holds the values of inputs read on the
// host: an Expand whose target shape changes value (not shape) between runs gets the new shape.
TEST(HI_GPU_TEST_SUITE, ShapesAreInferredOncePerSignatureAndShapeValues) {
  SKIP_WITHOUT_GPU();
  ModelBuilder b;
  b.input("x", onnx::TensorProto::FLOAT, {1, 3});
  b.input("shape", onnx::TensorProto::INT64, {2});
  b.output("y", onnx::TensorProto::FLOAT);
  b.node("Relu", {"x"}, {"r"}, "relu");
  b.node("Expand", {"r", "shape"}, {"e"}, "expand");
  b.node("Sigmoid", {"e"}, {"y"}, "sigmoid");
  const std::string bytes = b.bytes();
  SessionOptions o;
  o.devices = {HI_GPU_BACKEND, "cpu"};
  o.gpu_graphs = false;
  auto s = Session::create_from_bytes(bytes.data(), bytes.size(), o);
  ASSERT_TRUE(s.is_ok()) << s.status().to_string();
  EXPECT_EQ(s.value()->placement().count_on(HI_GPU_BACKEND ":0"), 3) << s.value()->placement().table();
  const Tensor x = random_tensor(DType::kFloat32, {1, 3}, 5, false);
  for (int64_t rows : {2, 2, 4, 2}) {
    Tensor shape = Tensor::empty(DType::kInt64, {2});
    shape.data<int64_t>()[0] = rows;
    shape.data<int64_t>()[1] = 3;
    auto got = s.value()->run({{"x", x}, {"shape", shape}});
    ASSERT_TRUE(got.is_ok()) << got.status().to_string();
    const Tensor& y = got.value().at("y");
    ASSERT_EQ(y.shape(), (Shape{rows, 3}));
    for (int64_t i = 0; i < y.numel(); ++i)
      EXPECT_NEAR(y.data<float>()[i], 1.f / (1.f + std::exp(-std::max(0.f, x.data<float>()[i % 3]))), 1e-6);
  }
  EXPECT_EQ(s.value()->graph_stats().shape_inferences, 2);
}

}  // namespace
}  // namespace hi::gpu::HI_GPU_NS
