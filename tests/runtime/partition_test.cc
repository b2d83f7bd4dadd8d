// Device partitions without a GPU: a stand-in device (the nodes it "supports" run through a CPU
// executor inside their partition) checks the partitioner, the graph rewrite, the boundary
// values and the DevicePartition op end to end, bit for bit against a CPU-only session.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <cmath>
#include <functional>
#include <random>
#include <set>
#include <thread>

#include "hipinfer/session.h"
#include "model_builder.h"
#include "hipinfer/zoo.h"
#include "backends/cpu/backend.h"
#include "runtime/backend.h"
#include "runtime/partition.h"
#include "runtime/placement.h"

namespace hi::test {
namespace {

// A "GPU" backend made of functions: each test gives it the answers and the compiler it needs.
struct StandInBackend final : runtime::Backend {
  runtime::GpuKernelQuery supports;
  std::function<std::vector<bool>(const ir::Node&)> reads_on_host;
  std::function<Result<std::shared_ptr<runtime::PartitionRunner>>(const runtime::PartitionSpec&)> compiles;

  std::string kind() const override { return "cuda"; }
  void query(GpuRuntimeInfo& info) const override {
    DeviceInfo d;
    d.backend = "cuda";
    d.name = "stand-in";
    info.devices.push_back(d);
  }
  std::string support(const ir::Node& n, const std::vector<ir::ValueType>& inputs) const override {
    return supports(n, inputs);
  }
  std::vector<bool> host_inputs(const ir::Node& n) const override { return reads_on_host(n); }
  Result<std::shared_ptr<runtime::PartitionRunner>> compile(const runtime::PartitionSpec& spec) const override {
    return compiles(spec);
  }
};

// Sessions made while it lives see the CPU and `gpu` as this build's backends.
class UsingBackend {
 public:
  explicit UsingBackend(const runtime::Backend& gpu) : scope_({&cpu::backend(), &gpu}) {}

 private:
  runtime::ScopedBackends scope_;
};

// A machine with one "GPU" whose kernels cover `ops`; partitions run on the CPU, counted.
struct FakeGpu {
  std::set<std::string> ops;
  std::map<std::string, std::set<size_t>> host_reads = {};  // op -> inputs its "kernel" reads on the host
  std::shared_ptr<std::atomic<int>> compiled = std::make_shared<std::atomic<int>>(0);
  std::shared_ptr<std::vector<runtime::PartitionSpec>> specs = std::make_shared<std::vector<runtime::PartitionSpec>>();
  StandInBackend backend() const {
    StandInBackend b;
    auto supported = ops;
    b.supports = [supported](const ir::Node& n, const std::vector<ir::ValueType>&) -> std::string {
      return supported.count(n.op_type) ? "" : "no GPU kernel for " + n.op_type;
    };
    auto reads = host_reads;
    b.reads_on_host = [reads](const ir::Node& n) {
      std::vector<bool> host(n.inputs.size(), false);
      if (auto it = reads.find(n.op_type); it != reads.end())
        for (size_t k : it->second) host[k] = k < host.size();
      return host;
    };
    auto count = compiled;
    auto seen = specs;
    b.compiles = [count, seen](const runtime::PartitionSpec& spec) {
      ++*count;
      seen->push_back(spec);
      return cpu::backend().compile(spec);
    };
    return b;
  }
};

// x -> MatMul(w) -> Add(b) -> Relu -> Softmax -> Mul(x2) -> y, and the Relu output also as `r`.
std::string mixed_model() {
  ModelBuilder b;
  b.input("x", onnx::TensorProto::FLOAT, {-1, 6}, {"batch"});
  b.input("x2", onnx::TensorProto::FLOAT, {-1, 5}, {"batch"});
  b.output("y", onnx::TensorProto::FLOAT).output("r", onnx::TensorProto::FLOAT);
  std::vector<float> w(30), bias(5);
  for (size_t i = 0; i < w.size(); ++i) w[i] = 0.1f * static_cast<float>(i % 7) - 0.3f;
  for (size_t i = 0; i < bias.size(); ++i) bias[i] = 0.05f * static_cast<float>(i);
  b.initializer_f32("w", {6, 5}, w);
  b.initializer_f32("b", {5}, bias);
  b.node("MatMul", {"x", "w"}, {"m"}, "mm");
  b.node("Add", {"m", "b"}, {"a"}, "add");
  b.node("Relu", {"a"}, {"r"}, "relu");
  b.node("Softmax", {"r"}, {"s"}, "softmax");
  b.node("Mul", {"s", "x2"}, {"y"}, "mul");
  return b.bytes();
}

Tensor random(const Shape& shape, uint32_t seed) {
  Tensor t = Tensor::empty(DType::kFloat32, shape);
  std::mt19937 rng(seed);
  std::normal_distribution<float> d;
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = d(rng);
  return t;
}

TEST(Partition, FindsMaximalRunsAndTheirBoundaries) {
  std::vector<ir::Node> nodes = {{"a", "MatMul", "", {"x", "w"}, {"m"}, {}},
                                 {"b", "Add", "", {"m", "bias"}, {"s"}, {}},
                                 {"c", "Softmax", "", {"s"}, {"t"}, {}},
                                 {"d", "Mul", "", {"t", "s"}, {"y"}, {}}};
  std::vector<const ir::Node*> ptrs;
  for (const auto& n : nodes) ptrs.push_back(&n);
  PlacementReport r;
  for (const char* dev : {"cuda:0", "cuda:0", "cpu", "cuda:0"}) r.nodes.push_back({"", "", dev, ""});
  const auto parts = runtime::find_partitions(ptrs, r, {"y"});
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0].nodes, (std::vector<size_t>{0, 1}));
  EXPECT_EQ(parts[0].inputs, (std::vector<std::string>{"x", "w", "bias"}));
  EXPECT_EQ(parts[0].outputs, (std::vector<std::string>{"s"}));  // m stays inside; s is read later
  EXPECT_EQ(parts[1].inputs, (std::vector<std::string>{"t", "s"}));
  EXPECT_EQ(parts[1].outputs, (std::vector<std::string>{"y"}));
}

TEST(Partition, CutsWhereANodeReadsOnTheHostAValueItsRunComputes) {
  std::vector<ir::Node> nodes = {{"a", "Relu", "", {"x"}, {"r"}, {}},
                                 {"b", "Shape", "", {"r"}, {"s"}, {}},
                                 {"c", "Reshape", "", {"r", "s"}, {"y"}, {}},
                                 {"d", "Reshape", "", {"y", "s"}, {"z"}, {}}};
  std::vector<const ir::Node*> ptrs;
  for (const auto& n : nodes) ptrs.push_back(&n);
  PlacementReport r;
  for (int i = 0; i < 4; ++i) r.nodes.push_back({"", "", "cuda:0", ""});
  auto reshape_shape_on_host = [](const ir::Node& n) { return std::vector<bool>{false, n.op_type == "Reshape"}; };
  const auto parts = runtime::find_partitions(ptrs, r, {"z"}, reshape_shape_on_host);
  ASSERT_EQ(parts.size(), 2u);  // c reads s, made in its run, on the host; d reads s from outside its run
  EXPECT_EQ(parts[0].nodes, (std::vector<size_t>{0, 1}));
  EXPECT_EQ(parts[0].outputs, (std::vector<std::string>{"r", "s"}));
  EXPECT_EQ(parts[1].nodes, (std::vector<size_t>{2, 3}));
  EXPECT_EQ(parts[1].inputs, (std::vector<std::string>{"r", "s"}));
  EXPECT_EQ(runtime::find_partitions(ptrs, r, {"z"}).size(), 1u);  // no query: no cut
}

// x -> Relu -> Reshape to [batch * 2, 3], the shape computed from x by Shape -> Gather ->
// Concat -> Slice. With `shape_also_as_data`, the Shape's output is also data (cast and summed
// into y) and reshapes the result back to x's shape directly.
std::string reshape_model(bool shape_also_as_data) {
  ModelBuilder b;
  b.input("x", onnx::TensorProto::FLOAT, {-1, 6}, {"batch"});
  b.output("y", onnx::TensorProto::FLOAT);
  b.initializer_i64("zero", {1}, {0});
  b.initializer_i64("minus_one_three", {2}, {-1, 3});
  b.node("Relu", {"x"}, {"r"}, "relu");
  b.node("Shape", {"r"}, {"s"}, "shape");
  b.node("Gather", {"s", "zero"}, {"batch"}, "gather");
  ModelBuilder::set_int(b.node("Concat", {"batch", "minus_one_three"}, {"new_shape3"}, "concat"), "axis", 0);
  b.initializer_i64("one", {1}, {1});
  b.initializer_i64("last", {1}, {3});
  b.node("Slice", {"new_shape3", "one", "last"}, {"new_shape"}, "slice");  // drops the batch again
  b.node("Reshape", {"r", "new_shape"}, {"y0"}, "reshape");
  if (shape_also_as_data) {
    b.output("t", onnx::TensorProto::FLOAT);
    ModelBuilder::set_int(b.node("Cast", {"s"}, {"sf"}, "cast"), "to", onnx::TensorProto::FLOAT);
    b.node("ReduceSum", {"sf"}, {"total"}, "sum");
    b.node("Reshape", {"y0", "s"}, {"back"}, "reshape_back");
    b.node("Add", {"back", "total"}, {"y"}, "add");
    b.node("Identity", {"sf"}, {"t"}, "identity");
  } else {
    b.node("Identity", {"y0"}, {"y"}, "identity");
  }
  return b.bytes();
}

TEST(Partition, ShapeArithmeticReadOnTheHostStaysOnTheCpu) {
  const std::string bytes = reshape_model(false);
  FakeGpu gpu{{"Relu", "Shape", "Gather", "Concat", "Slice", "Reshape", "Identity"},
              {{"Reshape", {1}}, {"Slice", {1, 2, 3, 4}}}};
  const StandInBackend backend = gpu.backend();
  UsingBackend scope(backend);
  SessionOptions o;
  o.optimization_level = 0;
  auto s = Session::create_from_bytes(bytes.data(), bytes.size(), o);
  ASSERT_TRUE(s.is_ok()) << s.status().to_string();
  const PlacementReport& p = s.value()->placement();
  std::map<std::string, std::string> device, reason;
  for (const NodePlacement& n : p.nodes) {
    device[n.node] = n.device;
    reason[n.node] = n.reason;
  }
  for (const char* n : {"shape", "gather", "concat", "slice"}) EXPECT_EQ(device[n], "cpu") << n;
  for (const char* n : {"relu", "reshape", "identity"}) EXPECT_EQ(device[n], "cuda:0") << n;
  EXPECT_EQ(reason["slice"],
            "gpu: shape arithmetic for Reshape 'reshape', which reads it on the host, runs on the CPU");
  EXPECT_EQ(reason["shape"], reason["slice"]);
  EXPECT_EQ(p.fallbacks, 4);
  EXPECT_EQ(*gpu.compiled, 2);  // [relu] and [reshape, identity], around the shape arithmetic
  auto got = s.value()->run({{"x", random({2, 6}, 5)}});
  ASSERT_TRUE(got.is_ok()) << got.status().to_string();
  EXPECT_EQ(got.value().at("y").shape(), (Shape{4, 3}));
}

TEST(Partition, AShapeAlsoUsedAsDataStaysOnTheGpuAndItsHostReaderStartsANewPartition) {
  const std::string bytes = reshape_model(true);
  SessionOptions cpu;
  cpu.devices = {"cpu"};
  cpu.optimization_level = 0;
  auto reference = Session::create_from_bytes(bytes.data(), bytes.size(), cpu);
  ASSERT_TRUE(reference.is_ok()) << reference.status().to_string();
  FakeGpu gpu{{"Relu", "Shape", "Gather", "Concat", "Slice", "Reshape", "Identity", "Cast", "ReduceSum", "Add"},
              {{"Reshape", {1}}, {"Slice", {1, 2, 3, 4}}}};
  const StandInBackend backend = gpu.backend();
  UsingBackend scope(backend);
  SessionOptions o;
  o.optimization_level = 0;
  auto s = Session::create_from_bytes(bytes.data(), bytes.size(), o);
  ASSERT_TRUE(s.is_ok()) << s.status().to_string();
  const PlacementReport& p = s.value()->placement();
  std::map<std::string, std::string> device;
  for (const NodePlacement& n : p.nodes) device[n.node] = n.device;
  EXPECT_EQ(device["shape"], "cuda:0");  // its output is also data (the Cast)
  EXPECT_EQ(device["slice"], "cpu");     // only read on the host
  EXPECT_EQ(device["reshape_back"], "cuda:0");
  // Every partition's host-read inputs come from outside it (the stand-in runs partitions on the
  // CPU, so check the specs): reshape_back reads the Shape's output, made on the GPU, so its
  // partition starts after the Shape's.
  const auto in_same_spec = [&](const char* a, const char* b) {
    for (const runtime::PartitionSpec& spec : *gpu.specs) {
      int found = 0;
      for (const ir::Node& n : spec.nodes) found += n.name == a || n.name == b;
      if (found == 2) return true;
    }
    return false;
  };
  EXPECT_FALSE(in_same_spec("shape", "reshape_back"));
  for (const runtime::PartitionSpec& spec : *gpu.specs)
    for (const ir::Node& n : spec.nodes) {
      if (n.op_type != "Reshape") continue;
      EXPECT_TRUE(std::any_of(spec.inputs.begin(), spec.inputs.end(),
                              [&](const ir::ValueInfo& v) { return v.name == n.inputs[1]; }));
    }
  const TensorMap feeds = {{"x", random({3, 6}, 6)}};
  auto want = reference.value()->run(feeds);
  auto got = s.value()->run(feeds);
  ASSERT_TRUE(want.is_ok() && got.is_ok()) << got.status().to_string();
  for (const char* name : {"y", "t"}) {
    const Tensor& a = want.value().at(name);
    const Tensor& b = got.value().at(name);
    ASSERT_EQ(a.shape(), b.shape()) << name;
    for (int64_t i = 0; i < a.numel(); ++i) EXPECT_EQ(a.as_double(i), b.as_double(i)) << name << " " << i;
  }
}

TEST(Partition, StandInDeviceGivesTheCpuResultsBitForBit) {
  const std::string bytes = mixed_model();
  SessionOptions cpu;
  cpu.devices = {"cpu"};
  cpu.optimization_level = 0;  // the same graph as the session below: equal kernels, equal bits
  auto reference = Session::create_from_bytes(bytes.data(), bytes.size(), cpu);
  ASSERT_TRUE(reference.is_ok()) << reference.status().to_string();

  FakeGpu gpu{{"MatMul", "Add", "Relu", "Mul"}};
  const StandInBackend backend = gpu.backend();
  UsingBackend scope(backend);
  SessionOptions o;
  o.optimization_level = 0;  // keep MatMul and Add apart, as the model has them
  auto s = Session::create_from_bytes(bytes.data(), bytes.size(), o);
  ASSERT_TRUE(s.is_ok()) << s.status().to_string();
  EXPECT_EQ(*gpu.compiled, 2);  // [mm, add, relu] and [mul], split by the Softmax
  const PlacementReport& p = s.value()->placement();
  EXPECT_EQ(p.count_on("cuda:0"), 4);
  EXPECT_EQ(p.fallbacks, 1);
  EXPECT_EQ(p.nodes.at(3).reason, "gpu: no GPU kernel for Softmax");
  // The first partition hands out r (a graph output, also read by the Softmax); a stays inside.
  ASSERT_EQ(gpu.specs->size(), 2u);
  std::vector<std::string> outs;
  for (const auto& v : gpu.specs->at(0).outputs) outs.push_back(v.name);
  EXPECT_EQ(outs, (std::vector<std::string>{"r"}));
  EXPECT_TRUE(gpu.specs->at(0).constants.count("w"));  // weights travel as known constants
  EXPECT_FALSE(gpu.specs->at(0).constants.count("x"));

  for (int64_t batch : {1, 3}) {
    const TensorMap feeds = {{"x", random({batch, 6}, 1)}, {"x2", random({batch, 5}, 2)}};
    auto want = reference.value()->run(feeds);
    RunStats stats;
    auto got = s.value()->run(feeds, {}, &stats);
    ASSERT_TRUE(want.is_ok() && got.is_ok()) << got.status().to_string();
    for (const char* name : {"y", "r"}) {
      const Tensor& a = want.value().at(name);
      const Tensor& b = got.value().at(name);
      ASSERT_EQ(a.shape(), b.shape());
      for (int64_t i = 0; i < a.numel(); ++i) ASSERT_EQ(a.data<float>()[i], b.data<float>()[i]) << name << " " << i;
    }
    EXPECT_EQ(stats.fallback_nodes, 1);
  }
}

TEST(Partition, ThreadsShareOnePartitionedSession) {
  const std::string bytes = mixed_model();
  FakeGpu gpu{{"MatMul", "Add", "Relu", "Softmax", "Mul"}};
  const StandInBackend backend = gpu.backend();
  UsingBackend scope(backend);
  SessionOptions o;
  o.optimization_level = 0;
  auto s = Session::create_from_bytes(bytes.data(), bytes.size(), o);
  ASSERT_TRUE(s.is_ok()) << s.status().to_string();
  EXPECT_EQ(s.value()->placement().fallbacks, 0);
  const TensorMap feeds = {{"x", random({4, 6}, 3)}, {"x2", random({4, 5}, 4)}};
  auto want = s.value()->run(feeds);
  ASSERT_TRUE(want.is_ok());
  std::atomic<int> bad{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 10; ++i) {
        auto got = s.value()->run(feeds);
        if (!got.is_ok() || got.value().at("y").as_double(7) != want.value().at("y").as_double(7)) ++bad;
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(bad.load(), 0);
}

TEST(Partition, EachSessionOwnsItsRunnersAndReleasesThemWithIt) {
  const std::string bytes = mixed_model();
  FakeGpu gpu{{"MatMul", "Add", "Relu", "Mul"}};  // two partitions around the Softmax
  StandInBackend backend = gpu.backend();
  auto made = std::make_shared<std::vector<std::weak_ptr<runtime::PartitionRunner>>>();
  backend.compiles = [made](const runtime::PartitionSpec& spec) -> Result<std::shared_ptr<runtime::PartitionRunner>> {
    HI_ASSIGN_OR_RETURN(auto runner, cpu::backend().compile(spec));
    made->push_back(runner);
    return runner;
  };
  UsingBackend scope(backend);
  SessionOptions o;
  o.optimization_level = 0;
  auto first = Session::create_from_bytes(bytes.data(), bytes.size(), o);
  auto second = Session::create_from_bytes(bytes.data(), bytes.size(), o);
  ASSERT_TRUE(first.is_ok() && second.is_ok());
  ASSERT_EQ(made->size(), 4u);
  const TensorMap feeds = {{"x", random({3, 6}, 7)}, {"x2", random({3, 5}, 8)}};
  auto want = second.value()->run(feeds);
  ASSERT_TRUE(want.is_ok());
  first = Status(StatusCode::kCancelled, "dropped");  // the first session goes, with its two runners
  EXPECT_TRUE((*made)[0].expired());
  EXPECT_TRUE((*made)[1].expired());
  EXPECT_FALSE((*made)[2].expired());
  auto got = second.value()->run(feeds);  // the other session's partitions are untouched
  ASSERT_TRUE(got.is_ok()) << got.status().to_string();
  EXPECT_EQ(got.value().at("y").as_double(5), want.value().at("y").as_double(5));
}

TEST(Partition, ADevicePartitionNodeInAModelFileIsRefusedNamingIt) {
  ModelBuilder b;
  b.input("x", onnx::TensorProto::FLOAT, {2});
  b.output("y", onnx::TensorProto::FLOAT);
  b.import_domain("com.hipinfer", 1);
  onnx::NodeProto& n = b.node("DevicePartition", {"x"}, {"y"}, "smuggled");
  n.set_domain("com.hipinfer");
  ModelBuilder::set_int(n, "partition", 0);
  const std::string bytes = b.bytes();
  SessionOptions o;
  o.optimization_level = 0;
  auto s = Session::create_from_bytes(bytes.data(), bytes.size(), o);
  ASSERT_FALSE(s.is_ok());
  EXPECT_EQ(s.status().code(), StatusCode::kInvalidModel);
  EXPECT_NE(s.status().message().find("smuggled"), std::string::npos) << s.status().message();
  EXPECT_NE(s.status().message().find("made by a session, not read from a model"), std::string::npos)
      << s.status().message();
}

// A runner that reports graph statistics, to see the session sum them over its partitions.
class CountingRunner final : public runtime::PartitionRunner {
 public:
  explicit CountingRunner(std::shared_ptr<runtime::PartitionRunner> inner, bool graphs)
      : inner_(std::move(inner)), graphs_(graphs) {}
  Status run(const std::vector<const Tensor*>& inputs, std::vector<Tensor>* outputs) const override {
    ++runs_;
    return inner_->run(inputs, outputs);
  }
  PartitionGraphStats graph_stats() const override {
    PartitionGraphStats s;
    s.enabled = graphs_;
    (graphs_ ? s.replays : s.direct_runs) = runs_.load();
    s.captures = graphs_ ? 1 : 0;
    return s;
  }

 private:
  std::shared_ptr<runtime::PartitionRunner> inner_;
  bool graphs_;
  mutable std::atomic<int64_t> runs_{0};
};

TEST(Partition, GraphOptionReachesEveryPartitionAndStatsAreSummed) {
  const std::string bytes = mixed_model();
  FakeGpu gpu{{"MatMul", "Add", "Relu", "Mul"}};  // Softmax on the CPU: two partitions
  StandInBackend b = gpu.backend();
  auto seen = gpu.specs;
  b.compiles = [seen](const runtime::PartitionSpec& spec) -> Result<std::shared_ptr<runtime::PartitionRunner>> {
    seen->push_back(spec);
    HI_ASSIGN_OR_RETURN(auto inner, cpu::backend().compile(spec));
    return std::shared_ptr<runtime::PartitionRunner>(std::make_shared<CountingRunner>(inner, spec.graphs));
  };
  UsingBackend scope(b);
  for (bool graphs : {true, false}) {
    seen->clear();
    SessionOptions o;
    o.optimization_level = 0;
    o.gpu_graphs = graphs;
    auto s = Session::create_from_bytes(bytes.data(), bytes.size(), o);
    ASSERT_TRUE(s.is_ok()) << s.status().to_string();
    ASSERT_EQ(seen->size(), 2u);
    for (const runtime::PartitionSpec& spec : *seen) EXPECT_EQ(spec.graphs, graphs);
    for (int k = 0; k < 3; ++k)
      ASSERT_TRUE(s.value()->run({{"x", random({2, 6}, 1)}, {"x2", random({2, 5}, 2)}}).is_ok());
    const PartitionGraphStats st = s.value()->graph_stats();
    EXPECT_EQ(st.enabled, graphs);
    EXPECT_EQ(st.captures, graphs ? 2 : 0);
    EXPECT_EQ(graphs ? st.replays : st.direct_runs, 6);  // 3 runs x 2 partitions
    EXPECT_EQ(st.summary(), graphs ? "graphs on: 2 captured, 6 replays, 0 direct runs"
                                   : "graphs off: 0 captured, 0 replays, 6 direct runs");
  }
}

TEST(Partition, APartitionTheDeviceRefusesRunsOnTheCpuOrFailsNamingIt) {
  const std::string bytes = mixed_model();
  FakeGpu gpu{{"Relu"}};
  StandInBackend b = gpu.backend();
  b.compiles = [](const runtime::PartitionSpec& spec) -> Result<std::shared_ptr<runtime::PartitionRunner>> {
    return error(StatusCode::kUnsupported, "stand-in cannot compile ", spec.nodes.size(), " node(s)");
  };
  UsingBackend scope(b);
  SessionOptions o;
  o.optimization_level = 0;
  // With the CPU in the list: the node falls back, says why, and the session runs.
  auto s = Session::create_from_bytes(bytes.data(), bytes.size(), o);
  ASSERT_TRUE(s.is_ok()) << s.status().to_string();
  const PlacementReport& p = s.value()->placement();
  EXPECT_EQ(p.count_on("cuda:0"), 0);
  EXPECT_EQ(p.nodes.at(2).reason, "gpu: stand-in cannot compile 1 node(s)");
  EXPECT_EQ(s.value()->warnings().size(), 1u);
  EXPECT_TRUE(s.value()->run({{"x", random({2, 6}, 1)}, {"x2", random({2, 5}, 2)}}).is_ok());
  // Without it: creation fails, naming the partition and the device's reason.
  o.devices = {"gpu"};
  FakeGpu all{{"MatMul", "Add", "Relu", "Softmax", "Mul"}};
  StandInBackend b2 = all.backend();
  b2.compiles = b.compiles;
  UsingBackend scope2(b2);
  auto f = Session::create_from_bytes(bytes.data(), bytes.size(), o);
  ASSERT_FALSE(f.is_ok());
  EXPECT_NE(f.status().message().find("partition 0 on cuda:0"), std::string::npos) << f.status().message();
  EXPECT_NE(f.status().message().find("stand-in cannot compile 5 node(s)"), std::string::npos) << f.status().message();
}

}  // namespace
}  // namespace hi::test

namespace hi::test {
namespace {

// The real GPU kernel table with a stand-in device: placement, partitioning and the graph rewrite
// on whole zoo models, checked against CPU-only sessions. Everything of the GPU path but the
// kernels themselves (tests/gpu checks those on a GPU).
double placed_fraction_and_compare(const std::string& model, const zoo::ZooOptions& o, int level = 2) {
  auto bytes = zoo::build_zoo_model(model, o);
  EXPECT_TRUE(bytes.is_ok());
  if (!bytes.is_ok()) return 0;
  SessionOptions cpu, gpu;
  cpu.devices = {"cpu"};
  cpu.optimization_level = gpu.optimization_level = level;
  auto a = Session::create_from_bytes(bytes.value().data(), bytes.value().size(), cpu);
  FakeGpu stand_in;
  StandInBackend backend = stand_in.backend();
  backend.supports = runtime::gpu_kernel_support;  // the real table
  backend.reads_on_host = runtime::gpu_host_inputs;
  UsingBackend scope(backend);
  auto b = Session::create_from_bytes(bytes.value().data(), bytes.value().size(), gpu);
  EXPECT_TRUE(a.is_ok() && b.is_ok()) << b.status().to_string();
  if (!a.is_ok() || !b.is_ok()) return 0;
  TensorMap feeds;
  for (const TensorInfo& info : a.value()->inputs()) {
    Shape shape;
    for (int64_t d : info.shape) shape.push_back(d < 0 ? 2 : d);
    if (info.dtype == DType::kInt64) {
      Tensor t = Tensor::zeros(DType::kInt64, shape);
      if (info.name == "input_ids")
        for (int64_t i = 0; i < t.numel(); ++i) t.data<int64_t>()[i] = (i * 7) % 100;
      if (info.name == "attention_mask")
        for (int64_t i = 0; i < t.numel(); ++i) t.data<int64_t>()[i] = 1;
      feeds[info.name] = t;
    } else {
      feeds[info.name] = random(shape, 11);
    }
  }
  auto want = a.value()->run(feeds);
  auto got = b.value()->run(feeds);
  EXPECT_TRUE(want.is_ok() && got.is_ok()) << got.status().to_string();
  if (!want.is_ok() || !got.is_ok()) return 0;
  for (const auto& [name, w] : want.value()) {
    const Tensor& g = got.value().at(name);
    EXPECT_EQ(w.shape(), g.shape());
    double worst = 0, scale = 0;
    for (int64_t i = 0; i < w.numel() && w.shape() == g.shape(); ++i) {
      scale = std::max(scale, std::fabs(w.as_double(i)));
      worst = std::max(worst, std::fabs(w.as_double(i) - g.as_double(i)));
    }
    // Not bit for bit: each session times Winograd against direct convolution for itself, so the
    // two may pick different algorithms under load.
    EXPECT_LE(worst, 1e-4 * std::max(scale, 1e-30)) << model << " output " << name;
  }
  const PlacementReport& p = b.value()->placement();
  return static_cast<double>(p.count_on("cuda:0")) / static_cast<double>(p.nodes.size());
}

TEST(Partition, ZooModelsWithTheRealKernelTable) {
  ir::Node relu;
  relu.op_type = "Relu";
  if (!runtime::gpu_kernel_support(relu, {ir::ValueType::concrete(DType::kFloat32, {2})}).empty())
    GTEST_SKIP() << "this build has no GPU backend, so no kernel table";
  zoo::ZooOptions image;
  image.image_size = 64;
  image.classes = 10;
  EXPECT_GE(placed_fraction_and_compare("resnet50", image), 0.9);
  EXPECT_GE(placed_fraction_and_compare("mobilenetv2", image), 0.9);
  zoo::ZooOptions encoder;
  encoder.layers = 2;
  encoder.hidden = 64;
  encoder.heads = 4;
  encoder.sequence = 16;
  encoder.vocab = 100;
  // 40 of 43: the attention mask's integer arithmetic runs on the GPU; the Shape -> Gather ->
  // Unsqueeze chain that only feeds a Slice's bounds stays on the CPU.
  EXPECT_GE(placed_fraction_and_compare("bert", encoder), 0.9);
  // Unoptimised, MobileNetV2 keeps its BatchNormalization and Clip nodes, which place too; the
  // Constant nodes (Clip's bounds: 70 of its 222 nodes) stay on the CPU.
  EXPECT_GE(placed_fraction_and_compare("mobilenetv2", image, 0), 0.65);
}

}  // namespace
}  // namespace hi::test
