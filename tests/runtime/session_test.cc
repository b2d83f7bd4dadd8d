// Session: input checking, symbolic dims, outputs, reuse and concurrent runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <thread>

#include "hipinfer/session.h"
#include "model_builder.h"

namespace hi::test {
namespace {

// y = relu(x + b) over x: float32[batch, 3], b: [3]; z = x * x.
std::unique_ptr<Session> make_session() {
  ModelBuilder b;
  b.input("x", onnx::TensorProto::FLOAT, {-1, 3}, {"batch"});
  b.input("x2", onnx::TensorProto::FLOAT, {-1, 3}, {"batch"});
  b.output("y", onnx::TensorProto::FLOAT).output("z", onnx::TensorProto::FLOAT);
  b.initializer_f32("b", {3}, {1, -1, 0.5f});
  b.node("Add", {"x", "b"}, {"s"});
  b.node("Relu", {"s"}, {"y"});
  b.node("Mul", {"x", "x2"}, {"z"});
  const std::string bytes = b.bytes();
  auto s = Session::create_from_bytes(bytes.data(), bytes.size());
  EXPECT_TRUE(s.is_ok()) << s.status().to_string();
  return std::move(s).value();
}

Tensor filled(const Shape& shape, float v) {
  Tensor t = Tensor::empty(DType::kFloat32, shape);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = v + static_cast<float>(i);
  return t;
}

TEST(Session, DescribesInputsAndOutputs) {
  auto s = make_session();
  ASSERT_EQ(s->inputs().size(), 2u);
  EXPECT_EQ(s->inputs()[0].to_string(), "float32[batch, 3]");
  EXPECT_EQ(s->outputs()[0].name, "y");
  EXPECT_EQ(s->outputs()[0].to_string(), "float32[batch, 3]");  // filled in by inference
}

TEST(Session, ReportsTheModelsMetadata) {
  ModelBuilder b;
  b.input("x", onnx::TensorProto::FLOAT, {2}).output("y", onnx::TensorProto::FLOAT);
  b.node("Relu", {"x"}, {"y"});
  onnx::ModelProto& m = b.proto();
  m.set_producer_name("maker");
  m.set_producer_version("3.1");
  m.set_domain("ai.example");
  m.set_doc_string("what it does");
  m.set_model_version(42);
  m.mutable_graph()->set_doc_string("the graph");
  for (const auto& [k, v] :
       std::vector<std::pair<std::string, std::string>>{{"labels", "a,b"}, {"k", "first"}, {"k", "last"}}) {
    auto* p = m.add_metadata_props();
    p->set_key(k);
    p->set_value(v);
  }
  const std::string bytes = b.bytes();
  auto s = Session::create_from_bytes(bytes.data(), bytes.size());
  ASSERT_TRUE(s.is_ok()) << s.status().to_string();
  const ModelMetadata& md = s.value()->metadata();
  EXPECT_EQ(md.producer_name, "maker");
  EXPECT_EQ(md.producer_version, "3.1");
  EXPECT_EQ(md.domain, "ai.example");
  EXPECT_EQ(md.description, "what it does");
  EXPECT_EQ(md.graph_name, "test");
  EXPECT_EQ(md.graph_description, "the graph");
  EXPECT_EQ(md.version, 42);
  const std::map<std::string, std::string> props = {{"labels", "a,b"}, {"k", "last"}};  // the last of a repeated key
  EXPECT_EQ(md.custom_metadata_map, props);
}

TEST(Session, RunsWithAnyBatch) {
  auto s = make_session();
  for (int64_t batch : {1, 4, 0}) {
    auto out = s->run({{"x", filled({batch, 3}, -2)}, {"x2", filled({batch, 3}, 1)}});
    ASSERT_TRUE(out.is_ok()) << out.status().to_string();
    EXPECT_EQ(out.value().at("y").shape(), (Shape{batch, 3}));
    if (batch) {
      EXPECT_EQ(out.value().at("y").data<float>()[0], 0.f);  // relu(-2 + 1)
      EXPECT_EQ(out.value().at("z").data<float>()[1], -1 * 2.f);
    }
  }
}

// Paddle2ONNX (PP-OCR's models among others) writes dim_value -1, or dim_param "?", for a
// dimension it does not know; ONNX Runtime runs such models with any size there (and two "?"
// dims with different sizes), and so must we.
TEST(Session, MinusOneAndQuestionMarkDimsAreDynamic) {
  ModelBuilder b;
  b.input("x", onnx::TensorProto::FLOAT, {1, 3, 1});
  b.output("y", onnx::TensorProto::FLOAT, {1, 3, 1});
  b.node("Relu", {"x"}, {"y"}, "relu");
  auto* graph = b.proto().mutable_graph();
  for (auto* vi : {graph->mutable_input(0), graph->mutable_output(0)}) {
    auto* shape = vi->mutable_type()->mutable_tensor_type()->mutable_shape();
    shape->mutable_dim(0)->set_dim_value(-1);
    shape->mutable_dim(1)->set_dim_param("?");
    shape->mutable_dim(2)->set_dim_param("?");
  }
  const std::string bytes = b.bytes();
  auto s = Session::create_from_bytes(bytes.data(), bytes.size());
  ASSERT_TRUE(s.is_ok()) << s.status().to_string();
  EXPECT_EQ(s.value()->inputs()[0].to_string(), "float32[?, ?, ?]");
  for (const Shape& shape : {Shape{1, 3, 1}, Shape{5, 2, 7}}) {
    auto out = s.value()->run({{"x", filled(shape, -1)}});
    ASSERT_TRUE(out.is_ok()) << out.status().to_string();
    EXPECT_EQ(out.value().at("y").shape(), shape);
    EXPECT_EQ(out.value().at("y").data<float>()[2], 1.f);  // relu(-1 + 2)
  }
}

// onnxruntime's add_free_dimension_override_by_name: a named symbolic dim becomes a known size.
TEST(Session, FreeDimensionOverridesFixNamedDims) {
  ModelBuilder b;
  b.input("x", onnx::TensorProto::FLOAT, {-1, -1}, {"batch", "n"});
  b.output("y", onnx::TensorProto::FLOAT);
  b.node("Relu", {"x"}, {"y"});
  const std::string bytes = b.bytes();
  SessionOptions o;
  o.devices = {"cpu"};
  o.free_dimension_overrides = {{"batch", 2}, {"no_such_dim", 7}};
  auto s = Session::create_from_bytes(bytes.data(), bytes.size(), o);
  ASSERT_TRUE(s.is_ok()) << s.status().to_string();
  EXPECT_EQ(s.value()->inputs()[0].to_string(), "float32[2, n]");
  EXPECT_EQ(s.value()->outputs()[0].to_string(), "float32[2, n]");
  ASSERT_EQ(s.value()->warnings().size(), 1u);
  EXPECT_EQ(s.value()->warnings()[0],
            "free dimension override 'no_such_dim' = 7 matches no symbolic dim of the model's inputs");
  auto ok = s.value()->run({{"x", filled({2, 5}, -1)}});
  ASSERT_TRUE(ok.is_ok()) << ok.status().to_string();
  EXPECT_EQ(ok.value().at("y").shape(), (Shape{2, 5}));
  auto wrong = s.value()->run({{"x", filled({3, 5}, -1)}});
  ASSERT_FALSE(wrong.is_ok());
  EXPECT_EQ(wrong.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(wrong.status().message().find("input 'x'"), std::string::npos) << wrong.status().message();

  o.free_dimension_overrides = {{"batch", -1}};
  auto negative = Session::create_from_bytes(bytes.data(), bytes.size(), o);
  ASSERT_FALSE(negative.is_ok());
  EXPECT_EQ(negative.status().message(), "free dimension override 'batch' is -1, expected a size of 0 or more");
}

// onnxruntime's add_initializer: a tensor of the caller's replaces the model's initializer.
TEST(Session, InitializersFromTheOptionsReplaceTheModels) {
  ModelBuilder b;
  b.input("x", onnx::TensorProto::FLOAT, {3});
  b.output("y", onnx::TensorProto::FLOAT);
  b.initializer_f32("b", {3}, {1, 2, 3});
  b.node("Add", {"x", "b"}, {"y"});
  const std::string bytes = b.bytes();
  SessionOptions o;
  o.initializers = {{"b", Tensor::from_vector<float>({10, 20, 30}, {3})}};
  auto s = Session::create_from_bytes(bytes.data(), bytes.size(), o);
  ASSERT_TRUE(s.is_ok()) << s.status().to_string();
  auto out = s.value()->run({{"x", filled({3}, 0)}});
  ASSERT_TRUE(out.is_ok()) << out.status().to_string();
  const float* y = out.value().at("y").data<float>();
  EXPECT_EQ(std::vector<float>(y, y + 3), (std::vector<float>{10, 21, 32}));

  o.initializers = {{"c", Tensor::from_vector<float>({1, 2, 3}, {3})}};
  auto unknown = Session::create_from_bytes(bytes.data(), bytes.size(), o);
  ASSERT_FALSE(unknown.is_ok());
  EXPECT_EQ(unknown.status().message(),
            "initializer 'c' given in the options is not an initializer of the model's graph");
  o.initializers = {{"b", Tensor::from_vector<float>({1, 2}, {2})}};
  auto wrong = Session::create_from_bytes(bytes.data(), bytes.size(), o);
  ASSERT_FALSE(wrong.is_ok());
  EXPECT_EQ(wrong.status().message(), "initializer 'b' given in the options is float32[2], the model's is float32[3]");
}

// RunStats::threads says what each run used: exactly the option when the session does not adapt,
// and never more than it (nor below 1) when it does; the results are the same either way.
TEST(Session, RunStatsReportTheThreadsOfTheRun) {
  ModelBuilder b;
  b.input("x", onnx::TensorProto::FLOAT, {64, 1024});
  b.output("y", onnx::TensorProto::FLOAT);
  b.node("Softmax", {"x"}, {"y"}, "softmax");
  const std::string bytes = b.bytes();
  Tensor x = filled({64, 1024}, 0);
  for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = std::sin(static_cast<float>(i) * 0.37f) * 9.f;
  std::vector<float> first;
  for (bool adapt : {false, true}) {
    SessionOptions o;
    o.devices = {"cpu"};
    o.threads = 2;
    o.adapt_threads = adapt;
    auto s = Session::create_from_bytes(bytes.data(), bytes.size(), o);
    ASSERT_TRUE(s.is_ok()) << s.status().to_string();
    for (int run = 0; run < 20; ++run) {
      RunStats stats;
      auto out = s.value()->run({{"x", x}}, {}, &stats);
      ASSERT_TRUE(out.is_ok()) << out.status().to_string();
      if (adapt) {
        EXPECT_GE(stats.threads, 1);
        EXPECT_LE(stats.threads, 2);
      } else {
        EXPECT_EQ(stats.threads, 2);
      }
      const Tensor& y = out.value().at("y");
      if (first.empty()) first.assign(y.data<float>(), y.data<float>() + y.numel());
      ASSERT_EQ(std::vector<float>(y.data<float>(), y.data<float>() + y.numel()), first) << "run " << run;
    }
  }
}

TEST(Session, ProfileTimesEveryNodeOnlyWhenAsked) {
  ModelBuilder b;
  b.input("x", onnx::TensorProto::FLOAT, {2, 3});
  b.output("y", onnx::TensorProto::FLOAT);
  b.node("Relu", {"x"}, {"r"}, "relu");
  b.node("Sigmoid", {"r"}, {"y"}, "sigmoid");
  const std::string bytes = b.bytes();
  for (bool profile : {false, true}) {
    SessionOptions o;
    o.devices = {"cpu"};
    o.optimization_level = 0;
    o.profile = profile;
    auto s = Session::create_from_bytes(bytes.data(), bytes.size(), o);
    ASSERT_TRUE(s.is_ok()) << s.status().to_string();
    RunStats stats;
    ASSERT_TRUE(s.value()->run({{"x", filled({2, 3}, -1)}}, {}, &stats).is_ok());
    EXPECT_EQ(stats.gpu.kernel_launches + stats.gpu.host_syncs + stats.gpu.device_allocations, 0);  // CPU only
    if (!profile) {
      EXPECT_TRUE(stats.node_times.empty());
      EXPECT_TRUE(stats.node_traffic.empty());
      continue;
    }
    // Each node's tensor bytes: Relu reads and writes 6 floats, Sigmoid likewise.
    ASSERT_EQ(stats.node_traffic.size(), 2u);
    for (const NodeTraffic& t : stats.node_traffic) {
      EXPECT_EQ(t.device, "cpu");
      EXPECT_EQ(t.bytes_read, 24);
      EXPECT_EQ(t.bytes_written, 24);
    }
    EXPECT_EQ(stats.node_traffic[1].node, "sigmoid");
    ASSERT_EQ(stats.node_times.size(), 2u);
    EXPECT_EQ(stats.node_times[0].node, "relu");
    EXPECT_EQ(stats.node_times[0].op_type, "Relu");
    EXPECT_EQ(stats.node_times[1].node, "sigmoid");
    EXPECT_EQ(stats.node_times[1].op_type, "Sigmoid");
    double sum = 0;
    for (const NodeTime& t : stats.node_times) {
      EXPECT_GE(t.ms, 0);
      sum += t.ms;
    }
    EXPECT_LE(sum, stats.latency_ms);  // the nodes ran inside the run
  }
}

// A thread count the machine cannot run is refused (tens of thousands made OpenMP abort).
TEST(Session, RefusesThreadCountsPastWhatTheMachineRuns) {
  ModelBuilder b;
  b.input("x", onnx::TensorProto::FLOAT, {2});
  b.output("y", onnx::TensorProto::FLOAT);
  b.node("Relu", {"x"}, {"y"});
  const std::string bytes = b.bytes();
  SessionOptions o;
  o.devices = {"cpu"};
  o.threads = 100000;
  auto s = Session::create_from_bytes(bytes.data(), bytes.size(), o);
  ASSERT_FALSE(s.is_ok());
  EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.status().message().find("threads must be at most"), std::string::npos) << s.status().message();
  o.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  EXPECT_TRUE(Session::create_from_bytes(bytes.data(), bytes.size(), o).is_ok());
}

TEST(Session, SelectsOutputs) {
  auto s = make_session();
  auto out = s->run({{"x", filled({1, 3}, 0)}, {"x2", filled({1, 3}, 0)}}, {"z"});
  ASSERT_TRUE(out.is_ok());
  EXPECT_EQ(out.value().size(), 1u);
  EXPECT_TRUE(out.value().count("z"));
  auto bad = s->run({{"x", filled({1, 3}, 0)}, {"x2", filled({1, 3}, 0)}}, {"nope"});
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.status().message().find("'nope' is not an output"), std::string::npos);
}

void expect_run_error(const Session& s, const TensorMap& in, const std::vector<std::string>& parts) {
  auto out = s.run(in);
  ASSERT_FALSE(out.is_ok());
  EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument);
  for (const auto& p : parts)
    EXPECT_NE(out.status().message().find(p), std::string::npos)
        << "'" << p << "' missing from: " << out.status().message();
}

TEST(Session, InputErrorsNameWhatIsWrong) {
  auto s = make_session();
  expect_run_error(*s, {{"x", filled({1, 3}, 0)}}, {"missing model input", "'x2'"});
  expect_run_error(*s, {{"x", filled({1, 3}, 0)}, {"x2", filled({1, 3}, 0)}, {"extra", filled({1}, 0)}},
                   {"'extra' is not an input", "'x', 'x2'"});
  expect_run_error(*s, {{"x", Tensor::zeros(DType::kInt64, {1, 3})}, {"x2", filled({1, 3}, 0)}},
                   {"'x'", "expected float32", "got int64"});
  expect_run_error(*s, {{"x", filled({3}, 0)}, {"x2", filled({1, 3}, 0)}}, {"'x'", "expected rank 2", "float32[3]"});
  expect_run_error(*s, {{"x", filled({1, 4}, 0)}, {"x2", filled({1, 3}, 0)}},
                   {"'x'", "dim 1 must be 3", "float32[1, 4]"});
  expect_run_error(*s, {{"x", filled({2, 3}, 0)}, {"x2", filled({5, 3}, 0)}}, {"dim 'batch' is 2", "but 5"});
}

TEST(Session, ConcurrentRunsAgree) {
  auto s = make_session();
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        const float base = static_cast<float>(t * 100 + i);
        auto out = s->run({{"x", filled({2, 3}, base)}, {"x2", filled({2, 3}, 1)}});
        if (!out.is_ok() || out.value().at("y").data<float>()[0] != base + 1) ++failures;
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
}

}  // namespace
}  // namespace hi::test

namespace hi::test {
namespace {

// An integer input used as a Gather's indices reports the size of the axis it indexes, so tools
// can make valid random ids (token types into a 2-row table).
TEST(Session, IntegerInputsKnowTheAxisTheyIndex) {
  ModelBuilder b;
  b.input("types", onnx::TensorProto::INT64, {-1, 5}, {"batch"});
  b.input("ids", onnx::TensorProto::INT64, {-1, 5}, {"batch"});
  b.input("x", onnx::TensorProto::FLOAT, {2});
  b.output("y", onnx::TensorProto::FLOAT).output("z", onnx::TensorProto::FLOAT).output("w", onnx::TensorProto::FLOAT);
  b.initializer_f32("type_table", {2, 3}, std::vector<float>(6, 1.f));
  b.initializer_f32("word_table", {30, 3}, std::vector<float>(90, 1.f));
  b.node("Gather", {"type_table", "types"}, {"y"});
  b.node("Gather", {"word_table", "ids"}, {"z"});
  b.node("Relu", {"x"}, {"w"});
  const std::string bytes = b.bytes();
  SessionOptions o;
  o.devices = {"cpu"};
  auto s = Session::create_from_bytes(bytes.data(), bytes.size(), o);
  ASSERT_TRUE(s.is_ok()) << s.status().to_string();
  EXPECT_EQ(s.value()->inputs()[0].index_limit, 2);
  EXPECT_EQ(s.value()->inputs()[1].index_limit, 30);
  EXPECT_EQ(s.value()->inputs()[2].index_limit, 0);
}

// Constant folding takes a large weight's DequantizeLinear (a quantized model's weights would
// otherwise be dequantized on every run) but not an Expand that makes a constant bigger.
TEST(Session, FoldsLargeConstantsOnlyWhereNothingGrows) {
  constexpr int64_t kRows = 1100, kCols = 1000;  // 1.1M elements: past the small-constant limit
  ModelBuilder b;
  b.input("x", onnx::TensorProto::FLOAT, {1});
  b.output("y", onnx::TensorProto::FLOAT).output("z", onnx::TensorProto::FLOAT);
  auto& wq = *b.proto().mutable_graph()->add_initializer();
  wq.set_name("wq");
  wq.set_data_type(onnx::TensorProto::UINT8);
  wq.add_dims(kRows);
  wq.add_dims(kCols);
  std::string raw(static_cast<size_t>(kRows * kCols), '\0');
  for (size_t i = 0; i < raw.size(); ++i) raw[i] = static_cast<char>(i % 251);
  wq.set_raw_data(raw);
  b.initializer_f32("scale", {}, {0.5f});
  b.initializer_i64("shape", {3}, {2, kRows, kCols});
  b.node("DequantizeLinear", {"wq", "scale"}, {"w"});
  b.node("Mul", {"w", "x"}, {"y"});
  b.node("Expand", {"w", "shape"}, {"wide"});
  b.node("ReduceMax", {"wide"}, {"z"});
  const std::string bytes = b.bytes();
  auto s = Session::create_from_bytes(bytes.data(), bytes.size());
  ASSERT_TRUE(s.is_ok()) << s.status().to_string();
  RunStats stats;
  auto out = s.value()->run({{"x", filled({1}, 2)}}, {}, &stats);
  ASSERT_TRUE(out.is_ok()) << out.status().to_string();
  EXPECT_EQ(out.value().at("y").data<float>()[1234], static_cast<float>(1234 % 251) * 0.5f * 2.f);
  EXPECT_EQ(out.value().at("z").data<float>()[0], 250 * 0.5f);
  // DequantizeLinear folded; Mul, the Expand (its output twice its input) and the ReduceMax of it run.
  EXPECT_EQ(stats.nodes_executed, 3);
}

// An If whose branches type-check for different inputs (the expanded AffineGrid function holds a
// 2-D and a 3-D path): with its condition unknown at build time, as at optimization level 0, the
// branch that does not fit fails only when a run takes it.
TEST(Session, IfBranchThatDoesNotFitFailsOnlyWhenTaken) {
  ModelBuilder b;
  b.input("x", onnx::TensorProto::FLOAT, {2, 5});
  b.input("cond", onnx::TensorProto::BOOL, {});
  b.output("y", onnx::TensorProto::FLOAT);
  auto& branch = b.node("If", {"cond"}, {"y"}, "pick");
  for (const char* which : {"then_branch", "else_branch"}) {
    auto* a = branch.add_attribute();
    a->set_name(which);
    a->set_type(onnx::AttributeProto::GRAPH);
    onnx::GraphProto* g = a->mutable_g();
    g->set_name(which);
    auto* n = g->add_node();
    n->add_output(std::string(which) + "_y");
    if (which[0] == 't') {  // x [2, 5] reshaped to [3, 3]: ten values do not fill nine
      auto* shape = g->add_initializer();
      shape->set_name("shape33");
      shape->set_data_type(onnx::TensorProto::INT64);
      shape->add_dims(2);
      shape->add_int64_data(3);
      shape->add_int64_data(3);
      n->set_op_type("Reshape");
      n->add_input("x");
      n->add_input("shape33");
    } else {
      n->set_op_type("Neg");
      n->add_input("x");
    }
    auto* out = g->add_output();
    out->set_name(std::string(which) + "_y");
    out->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  }
  const std::string bytes = b.bytes();
  SessionOptions o;
  o.optimization_level = 0;
  auto s = Session::create_from_bytes(bytes.data(), bytes.size(), o);
  ASSERT_TRUE(s.is_ok()) << s.status().to_string();
  Tensor x = Tensor::empty(DType::kFloat32, {2, 5});
  for (int64_t i = 0; i < 10; ++i) x.data<float>()[i] = static_cast<float>(i);
  auto scalar = [](bool v) {
    Tensor t = Tensor::empty(DType::kBool, {});
    *t.data<bool>() = v;
    return t;
  };
  auto neg = s.value()->run({{"x", x}, {"cond", scalar(false)}});
  ASSERT_TRUE(neg.is_ok()) << neg.status().to_string();
  EXPECT_EQ(neg.value().at("y").data<float>()[3], -3.f);
  auto bad = s.value()->run({{"x", x}, {"cond", scalar(true)}});
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.status().message().find("subgraph 'then_branch'"), std::string::npos) << bad.status().to_string();
}

}  // namespace
}  // namespace hi::test
