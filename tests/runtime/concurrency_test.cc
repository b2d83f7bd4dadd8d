// Concurrency: eight threads running one session at once, and four sessions created and run at
// once, each output checked against what one thread alone got; on the CPU (one and two intra-op
// threads) and on the emulated GPU (devices {"emu", "cpu"}, when the build has it). The models: the
// zoo's encoder and MobileNetV2 at toy sizes, and a model with If and Loop (a body run per
// iteration, outer-scope names, a scan output). Built and run under ThreadSanitizer by
// scripts/tsan-check (CMake preset `tsan`), where a data race is a failure; in other builds it is a
// plain test of the same promises (session.h: run() is safe from several threads at once).
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "hipinfer/session.h"
#include "hipinfer/zoo.h"

namespace hi {
namespace {

constexpr int kThreads = 8;
constexpr int kSessions = 4;
constexpr int kFeeds = 3;  // feed sets of batch 1, 2, 1 with different values: two shapes at once

// If(sum(x) > 0) picks Relu(x) or Neg(x); Loop runs 3 times acc = Tanh(acc) * 0.5 + acc with the
// acc of every iteration as a scan output; then a MatMul. x: float32[batch, 8].
std::string control_flow_model() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* os = m.add_opset_import();
  os->set_domain("");
  os->set_version(17);
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("control_flow");
  auto value = [](onnx::ValueInfoProto* v, const std::string& name, int type, std::vector<int64_t> dims, bool shaped) {
    v->set_name(name);
    auto* tt = v->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(type);
    if (!shaped) return;
    auto* shape = tt->mutable_shape();
    for (int64_t d : dims) {
      auto* dim = shape->add_dim();
      if (d < 0) dim->set_dim_param("batch");
      else dim->set_dim_value(d);
    }
  };
  auto node = [](onnx::GraphProto* graph, const std::string& op, std::vector<std::string> in,
                 std::vector<std::string> out) {
    auto* n = graph->add_node();
    n->set_op_type(op);
    n->set_name(op + "_" + out[0]);
    for (auto& i : in) n->add_input(i);
    for (auto& o : out) n->add_output(o);
    return n;
  };
  value(g->add_input(), "x", onnx::TensorProto::FLOAT, {-1, 8}, true);
  value(g->add_output(), "y", onnx::TensorProto::FLOAT, {-1, 8}, true);
  value(g->add_output(), "steps", onnx::TensorProto::FLOAT, {}, false);
  auto* half = g->add_initializer();
  half->set_name("half");
  half->set_data_type(onnx::TensorProto::FLOAT);
  half->add_float_data(0.5f);
  auto* zero = g->add_initializer();
  zero->set_name("zero");
  zero->set_data_type(onnx::TensorProto::FLOAT);
  zero->add_float_data(0.f);
  auto* trips = g->add_initializer();
  trips->set_name("trips");
  trips->set_data_type(onnx::TensorProto::INT64);
  trips->add_int64_data(3);
  auto* w = g->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(8);
  w->add_dims(8);
  for (int i = 0; i < 64; ++i) w->add_float_data(static_cast<float>((i * 37) % 17 - 8) / 16.f);

  auto* sum = node(g, "ReduceSum", {"x"}, {"s"});
  auto* keep = sum->add_attribute();
  keep->set_name("keepdims");
  keep->set_type(onnx::AttributeProto::INT);
  keep->set_i(0);
  node(g, "Greater", {"s", "zero"}, {"positive"});
  auto* branch = node(g, "If", {"positive"}, {"picked"});
  for (const char* which : {"then_branch", "else_branch"}) {
    auto* a = branch->add_attribute();
    a->set_name(which);
    a->set_type(onnx::AttributeProto::GRAPH);
    onnx::GraphProto* b = a->mutable_g();
    b->set_name(which);
    const std::string out = std::string(which) + "_out";
    node(b, which[0] == 't' ? "Relu" : "Neg", {"x"}, {out});  // x from the outer scope
    value(b->add_output(), out, onnx::TensorProto::FLOAT, {}, false);
  }
  auto* loop = node(g, "Loop", {"trips", "", "picked"}, {"final", "history"});
  auto* a = loop->add_attribute();
  a->set_name("body");
  a->set_type(onnx::AttributeProto::GRAPH);
  onnx::GraphProto* body = a->mutable_g();
  body->set_name("body");
  value(body->add_input(), "i", onnx::TensorProto::INT64, {}, true);
  value(body->add_input(), "cond_in", onnx::TensorProto::BOOL, {}, true);
  value(body->add_input(), "acc", onnx::TensorProto::FLOAT, {}, false);
  node(body, "Tanh", {"acc"}, {"t"});
  node(body, "Mul", {"t", "half"}, {"scaled"});  // half from the outer scope
  node(body, "Add", {"scaled", "acc"}, {"acc_out"});
  node(body, "Identity", {"cond_in"}, {"cond_out"});
  node(body, "Identity", {"acc_out"}, {"scan_out"});
  value(body->add_output(), "cond_out", onnx::TensorProto::BOOL, {}, true);
  value(body->add_output(), "acc_out", onnx::TensorProto::FLOAT, {}, false);
  value(body->add_output(), "scan_out", onnx::TensorProto::FLOAT, {}, false);
  node(g, "MatMul", {"final", "w"}, {"y"});
  node(g, "ReduceSum", {"history"}, {"steps"});
  return m.SerializeAsString();
}

struct Model {
  std::string name;
  std::string bytes;
};

const std::vector<Model>& models() {
  static const std::vector<Model> all = [] {
    std::vector<Model> m;
    zoo::ZooOptions encoder;
    encoder.layers = 2;
    encoder.hidden = 32;
    encoder.heads = 2;
    encoder.sequence = 0;  // symbolic
    encoder.intermediate = 64;
    encoder.vocab = 100;
    zoo::ZooOptions image;
    image.image_size = 32;
    image.classes = 10;
    for (auto [name, options] : {std::pair{"bert", encoder}, std::pair{"mobilenetv2", image}}) {
      auto bytes = zoo::build_zoo_model(name, options);
      if (!bytes.is_ok()) ADD_FAILURE() << name << ": " << bytes.status().to_string();
      else m.push_back({name, bytes.value()});
    }
    m.push_back({"control_flow", control_flow_model()});
    return m;
  }();
  return all;
}

// Feeds of batch 1, 2, 1 (feed f): floats from a seeded normal; token ids below the input's
// index limit, an attention mask of ones, token types 0; symbolic dims other than batch are 8.
TensorMap make_feeds(const Session& s, int f) {
  TensorMap feeds;
  std::mt19937 rng(static_cast<uint32_t>(100 + f));
  const int64_t batch = f == 1 ? 2 : 1;
  for (const TensorInfo& info : s.inputs()) {
    Shape shape;
    for (size_t i = 0; i < info.shape.size(); ++i)
      shape.push_back(info.shape[i] >= 0 ? info.shape[i] : info.dim_names[i] == "batch" ? batch : 8);
    Tensor t = Tensor::zeros(info.dtype, shape);
    if (info.dtype == DType::kFloat32) {
      std::normal_distribution<float> normal;
      for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = normal(rng);
    } else if (info.dtype == DType::kInt64 && info.name == "input_ids") {
      std::uniform_int_distribution<int64_t> ids(0, (info.index_limit > 0 ? info.index_limit : 100) - 1);
      for (int64_t i = 0; i < t.numel(); ++i) t.data<int64_t>()[i] = ids(rng);
    } else if (info.dtype == DType::kInt64 && info.name == "attention_mask") {
      for (int64_t i = 0; i < t.numel(); ++i) t.data<int64_t>()[i] = 1;
    }
    feeds[info.name] = t;
  }
  return feeds;
}

// "" when `got` is what `want` is: bit for bit (exact), or within 1e-5 of the largest magnitude
// (the emulated GPU's blocks may add in another order from run to run).
std::string compare(const TensorMap& want, const TensorMap& got, bool exact) {
  if (want.size() != got.size()) return "another number of outputs";
  for (const auto& [name, w] : want) {
    auto it = got.find(name);
    if (it == got.end()) return "no output " + name;
    const Tensor& g = it->second;
    if (g.dtype() != w.dtype() || g.shape() != w.shape())
      return name + ": " + g.type_string() + " instead of " + w.type_string();
    if (exact) {
      if (std::memcmp(g.raw(), w.raw(), w.nbytes()) != 0) return name + ": other values";
      continue;
    }
    double scale = 0;
    for (int64_t i = 0; i < w.numel(); ++i) scale = std::max(scale, std::fabs(w.as_double(i)));
    for (int64_t i = 0; i < w.numel(); ++i)
      if (!(std::fabs(w.as_double(i) - g.as_double(i)) <= 1e-5 * scale))
        return name + "[" + std::to_string(i) + "]: " + std::to_string(g.as_double(i)) + " instead of " +
               std::to_string(w.as_double(i));
  }
  return "";
}

struct Config {
  std::vector<std::string> devices;
  int threads = 1;  // intra-op threads per run
  // Bit for bit against the single-threaded runs. Exact configs fix the thread count: a session
  // that adapts it to the load (SessionOptions::adapt_threads) runs kernels made for fewer
  // threads while the test's own threads crowd the cores, which may round differently.
  bool exact = true;
  int runs_per_thread = 2 * kFeeds;  // in one_session_many_threads
};

std::unique_ptr<Session> open(const Model& m, const Config& c) {
  SessionOptions o;
  o.devices = c.devices;
  o.threads = c.threads;
  o.adapt_threads = !c.exact;
  auto s = Session::create_from_bytes(m.bytes.data(), m.bytes.size(), o);
  EXPECT_TRUE(s.is_ok()) << m.name << ": " << s.status().to_string();
  if (!s.is_ok()) return nullptr;
  if (c.devices.front() == "emu") {
    EXPECT_GT(s.value()->placement().count_on("emu:0"), 0) << m.name << ": nothing on the emulated GPU\n"
                                                           << s.value()->placement().table();
  }
  return std::move(s).value();
}

// What one thread alone gets for each feed set, from its own session.
std::vector<TensorMap> reference(const Model& m, const Config& c, std::vector<TensorMap>* feeds) {
  auto s = open(m, c);
  std::vector<TensorMap> want;
  if (!s) return want;
  for (int f = 0; f < kFeeds; ++f) {
    feeds->push_back(make_feeds(*s, f));
    auto r = s->run(feeds->back());
    EXPECT_TRUE(r.is_ok()) << m.name << ": " << r.status().to_string();
    want.push_back(r.is_ok() ? r.value() : TensorMap{});
  }
  return want;
}

// kThreads threads run one session, each c.runs_per_thread runs, starting at another feed set.
void one_session_many_threads(const Config& c) {
  for (const Model& m : models()) {
    std::vector<TensorMap> feeds;
    const std::vector<TensorMap> want = reference(m, c, &feeds);
    auto s = open(m, c);
    if (!s || want.size() != kFeeds) continue;
    std::vector<std::string> errors(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] {
        for (int i = 0; i < c.runs_per_thread && errors[t].empty(); ++i) {
          const int f = (t + i) % kFeeds;
          auto r = s->run(feeds[f]);
          errors[t] = r.is_ok() ? compare(want[f], r.value(), c.exact) : r.status().to_string();
        }
      });
    for (auto& th : threads) th.join();
    for (int t = 0; t < kThreads; ++t) EXPECT_EQ(errors[t], "") << m.name << ", thread " << t;
  }
}

// kSessions threads each create a session (of every model in turn, so two threads at once may
// open the same model) and run every feed set on it.
void many_sessions_at_once(const Config& c) {
  std::vector<std::vector<TensorMap>> feeds(models().size()), want(models().size());
  for (size_t k = 0; k < models().size(); ++k) want[k] = reference(models()[k], c, &feeds[k]);
  std::vector<std::string> errors(kSessions);
  std::vector<std::thread> threads;
  for (int t = 0; t < kSessions; ++t)
    threads.emplace_back([&, t] {
      const size_t k = static_cast<size_t>(t) % models().size();
      auto s = open(models()[k], c);
      if (!s || want[k].size() != kFeeds) return;
      for (int f = 0; f < kFeeds && errors[t].empty(); ++f) {
        auto r = s->run(feeds[k][f]);
        errors[t] = r.is_ok() ? compare(want[k][f], r.value(), c.exact) : r.status().to_string();
        if (!errors[t].empty()) errors[t] = models()[k].name + ": " + errors[t];
      }
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < kSessions; ++t) EXPECT_EQ(errors[t], "") << "session " << t;
}

const Config kCpu{{"cpu"}, 1, true};
const Config kCpuTwoThreads{{"cpu"}, 2, true};
// Eight runs at once on two intra-op threads each crowd two cores: the session drops to fewer
// threads, and its results stay within rounding of the single-threaded ones.
const Config kCpuTwoAdaptiveThreads{{"cpu"}, 2, false};
// One run per thread on the emulated GPU (every GPU thread a fiber; slow, under TSan the more).
const Config kEmu{{"emu", "cpu"}, 1, false, 1};

TEST(SessionConcurrency, OneCpuSessionFromEightThreads) { one_session_many_threads(kCpu); }
TEST(SessionConcurrency, OneCpuSessionWithTwoIntraOpThreadsFromEightThreads) {
  one_session_many_threads(kCpuTwoThreads);
}
TEST(SessionConcurrency, OneCpuSessionAdaptingTwoIntraOpThreadsFromEightThreads) {
  one_session_many_threads(kCpuTwoAdaptiveThreads);
}
TEST(SessionConcurrency, FourCpuSessionsAtOnce) { many_sessions_at_once(kCpu); }
TEST(SessionConcurrency, FourCpuSessionsWithTwoIntraOpThreadsAtOnce) { many_sessions_at_once(kCpuTwoThreads); }

#ifdef HI_TEST_EMU
TEST(SessionConcurrency, OneEmulatedGpuSessionFromEightThreads) { one_session_many_threads(kEmu); }
TEST(SessionConcurrency, FourEmulatedGpuSessionsAtOnce) { many_sessions_at_once(kEmu); }
#endif

}  // namespace
}  // namespace hi
