// The pieces of `hipinfer bench` that can be checked without running a model: percentiles on
// known samples, throughput, the JSON writer, the chart's axis and escaping, the output check,
// the accuracy guard's comparison of two precisions.
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <thread>

#include "bench_accuracy.h"
#include "bench_compare.h"
#include "bench_json.h"
#include "bench_machine.h"
#include "bench_peer.h"
#include "bench_profile.h"
#include "bench_stats.h"
#include "bench_svg.h"

namespace hi::cli {
namespace {

TEST(BenchStats, PercentilesInterpolateBetweenRanksLikeNumpy) {
  const std::vector<double> one_to_ten = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  // numpy.percentile(range(1, 11), [0, 50, 90, 99, 100]) = 1, 5.5, 9.1, 9.91, 10
  EXPECT_DOUBLE_EQ(percentile(one_to_ten, 0), 1);
  EXPECT_DOUBLE_EQ(percentile(one_to_ten, 50), 5.5);
  EXPECT_NEAR(percentile(one_to_ten, 90), 9.1, 1e-12);
  EXPECT_NEAR(percentile(one_to_ten, 99), 9.91, 1e-12);
  EXPECT_DOUBLE_EQ(percentile(one_to_ten, 100), 10);
  EXPECT_DOUBLE_EQ(percentile({7}, 90), 7);
  EXPECT_DOUBLE_EQ(percentile({}, 50), 0);
}

TEST(BenchStats, SummaryOfAnUnsortedSample) {
  // Sorted: 1 2 2 3 4 5 100; mean 117/7; median 3; p90: rank 5.4 -> 5 + 0.4 * 95 = 43.
  const LatencySummary s = summarize({5, 1, 100, 2, 4, 3, 2});
  EXPECT_EQ(s.runs, 7);
  EXPECT_DOUBLE_EQ(s.total_ms, 117);
  EXPECT_DOUBLE_EQ(s.min_ms, 1);
  EXPECT_DOUBLE_EQ(s.max_ms, 100);
  EXPECT_DOUBLE_EQ(s.median_ms, 3);
  EXPECT_NEAR(s.mean_ms, 117.0 / 7, 1e-12);
  EXPECT_NEAR(s.p90_ms, 43, 1e-9);
  EXPECT_NEAR(s.p99_ms, 5 + 0.94 * 95, 1e-9);
  // Sample standard deviation of {2, 4, 4, 4, 5, 5, 7, 9} is sqrt(32 / 7).
  EXPECT_NEAR(summarize({2, 4, 4, 4, 5, 5, 7, 9}).stddev_ms, std::sqrt(32.0 / 7), 1e-12);
  EXPECT_DOUBLE_EQ(summarize({3}).stddev_ms, 0);
  EXPECT_EQ(summarize({}).runs, 0);
}

TEST(BenchStats, ThroughputIsBatchTimesRunsOverTime) {
  const LatencySummary s = summarize({10, 10, 20});  // 3 runs in 40 ms
  EXPECT_NEAR(throughput_per_s(s, 1), 75, 1e-9);
  EXPECT_NEAR(throughput_per_s(s, 8), 600, 1e-9);
  EXPECT_DOUBLE_EQ(throughput_per_s(summarize({}), 4), 0);
}

TEST(BenchProfile, AveragesPerOpTypeAndRanksNodes) {
  ProfileAccumulator acc;
  EXPECT_EQ(acc.summary().runs, 0);
  acc.add({{"a", "Conv", 3.0, "oneDNN brgconv"}, {"b", "Relu", 0.5, ""}, {"c", "Conv", 1.0, "hipinfer Winograd"}});
  acc.add({{"a", "Conv", 5.0, "oneDNN brgconv"}, {"b", "Relu", 1.5, ""}, {"c", "Conv", 1.0, "hipinfer Winograd"}});
  acc.add({});  // a run without node times (profiling off) is not counted
  const Profile p = acc.summary();
  EXPECT_EQ(p.runs, 2);
  EXPECT_DOUBLE_EQ(p.node_ms_per_run, 6.0);  // (4 + 1 + 1) per run
  ASSERT_EQ(p.ops.size(), 2u);
  EXPECT_EQ(p.ops[0].op_type, "Conv");
  EXPECT_EQ(p.ops[0].nodes, 2);
  EXPECT_DOUBLE_EQ(p.ops[0].ms_per_run, 5.0);
  EXPECT_DOUBLE_EQ(p.ops[0].share, 5.0 / 6.0);
  EXPECT_EQ(p.ops[1].op_type, "Relu");
  EXPECT_DOUBLE_EQ(p.ops[1].ms_per_run, 1.0);
  ASSERT_EQ(p.nodes.size(), 3u);
  EXPECT_EQ(p.nodes[0].node, "a");
  EXPECT_EQ(p.nodes[0].kernel, "oneDNN brgconv");  // the kernel each node ran on comes along
  EXPECT_DOUBLE_EQ(p.nodes[0].ms_per_run, 4.0);
  for (const NodeTimeSummary& n : p.nodes)
    if (n.node == "b") {
      EXPECT_EQ(n.kernel, "");  // the reference kernel
    }
  // Every node is kept (the JSON lists them all; the text report prints ten), slowest first.
  {
    ProfileAccumulator many;
    std::vector<NodeTime> run;
    for (int i = 0; i < 25; ++i) {
      std::string name = "n";  // (not "n" + to_string: GCC 12 warns falsely on that, -Wrestrict)
      name += std::to_string(i);
      run.push_back({name, "Add", 0.1 * i, ""});
    }
    many.add(run);
    const Profile all = many.summary();
    ASSERT_EQ(all.nodes.size(), 25u);
    EXPECT_EQ(all.nodes.front().node, "n24");
    EXPECT_EQ(all.nodes.back().node, "n0");
  }
  // Another node list (another session) starts the sums again.
  acc.add({{"x", "Add", 2.0, ""}});
  EXPECT_EQ(acc.summary().runs, 1);
  EXPECT_EQ(acc.summary().ops.at(0).op_type, "Add");
}

TEST(BenchJson, NestingEscapesAndNonFiniteNumbers) {
  JsonWriter j;
  j.begin_object();
  j.key("name").value("a \"quoted\"\\path\n\x01");
  j.key("n").value(int64_t{42}).key("x").value(0.5).key("bad").value(std::nan(""));
  j.key("list").value(std::vector<double>{1, 2.5});
  j.key("empty").begin_object().end_object();
  j.key("objs").begin_array().begin_object().key("a").value(true).end_object().begin_object().end_object().end_array();
  j.end_object();
  const std::string& s = j.str();
  EXPECT_NE(s.find(R"("name": "a \"quoted\"\\path\n\u0001")"), std::string::npos) << s;
  EXPECT_NE(s.find(R"("n": 42)"), std::string::npos) << s;
  EXPECT_NE(s.find(R"("bad": null)"), std::string::npos) << s;
  EXPECT_NE(s.find(R"("list": [1, 2.5])"), std::string::npos) << s;
  EXPECT_NE(s.find(R"("empty": {})"), std::string::npos) << s;
  EXPECT_NE(s.find(R"("a": true)"), std::string::npos) << s;
  EXPECT_EQ(s.find(",,"), std::string::npos) << s;
  EXPECT_EQ(s.back(), '\n');
}

TEST(BenchSvg, LinearTicksCoverTheRangeInNiceSteps) {
  const auto t = axis_ticks(0, 9.3, false);
  ASSERT_GE(t.size(), 2u);
  EXPECT_DOUBLE_EQ(t.front(), 0);
  EXPECT_GE(t.back(), 9.3);
  EXPECT_DOUBLE_EQ(t[1] - t[0], 2);          // 9.3 / 5 rounds up to a step of 2
  const auto one = axis_ticks(5, 5, false);  // a single value still gets an axis around it
  EXPECT_LE(one.front(), 5);
  EXPECT_GE(one.back(), 5);
  EXPECT_LT(one.front(), one.back());
}

TEST(BenchSvg, LogTicksAreOneTwoFive) {
  const std::vector<double> t = axis_ticks(0.3, 45, true);
  const std::vector<double> expected = {0.2, 0.5, 1, 2, 5, 10, 20, 50};
  ASSERT_EQ(t.size(), expected.size());
  for (size_t i = 0; i < t.size(); ++i) EXPECT_NEAR(t[i], expected[i], 1e-12) << i;
}

TEST(BenchSvg, ChartHasTitleLabelsAndEscapedText) {
  const std::string svg = latency_chart_svg("m<1>&.onnx", {{"hipinfer", {1, 2, 3}}, {"ONNX \"RT\"", {0.5, 0.6}}});
  EXPECT_EQ(svg.find("m<1>"), std::string::npos);
  EXPECT_NE(svg.find("m&lt;1&gt;&amp;.onnx"), std::string::npos);
  EXPECT_NE(svg.find("ONNX &quot;RT&quot;"), std::string::npos);
  EXPECT_NE(svg.find("latency per run (ms)"), std::string::npos);
  EXPECT_NE(svg.find("<circle"), std::string::npos);
  EXPECT_EQ(svg.find("nan"), std::string::npos);
  // An engine with no runs, and no engine at all, still make a valid (empty) chart.
  EXPECT_NE(latency_chart_svg("t", {{"none", {}}}).find("not measured"), std::string::npos);
  EXPECT_NE(latency_chart_svg("t", {}).find("</svg>"), std::string::npos);
  EXPECT_EQ(xml_escape(std::string("a\x01") + "b"), "a?b");
}

TEST(BenchCompare, ReportsErrorsRelativeToTheOutputScale) {
  TensorMap ours;
  ours["y"] = Tensor::from_vector<float>({1.0f, 2.0f, -4.0f}, {3});
  const std::vector<std::pair<std::string, Tensor>> peer = {
      {"y", Tensor::from_vector<float>({1.0f, 2.002f, -4.0f}, {3})}};
  const auto d = compare_outputs(ours, peer, 1e-3);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_TRUE(d[0].problem.empty());
  EXPECT_NEAR(d[0].max_abs_error, 0.002, 1e-6);
  EXPECT_NEAR(d[0].max_rel_error, 0.002 / 4, 1e-6);
  EXPECT_TRUE(d[0].match);
  EXPECT_FALSE(compare_outputs(ours, peer, 1e-4)[0].match);
}

TEST(BenchCompare, ShapeDtypeMissingAndNonFinite) {
  TensorMap ours;
  ours["a"] = Tensor::from_vector<float>({1, 2}, {2});
  ours["b"] = Tensor::from_vector<float>({1, 2}, {2});
  ours["c"] = Tensor::from_vector<float>({NAN, INFINITY}, {2});
  ours["d"] = Tensor::from_vector<float>({NAN, 1}, {2});
  ours["i"] = Tensor::from_vector<int64_t>({3, 4}, {2});
  const std::vector<std::pair<std::string, Tensor>> peer = {
      {"a", Tensor::from_vector<float>({1, 2}, {1, 2})},       {"b", Tensor::from_vector<double>({1, 2}, {2})},
      {"c", Tensor::from_vector<float>({NAN, INFINITY}, {2})}, {"d", Tensor::from_vector<float>({0, 1}, {2})},
      {"i", Tensor::from_vector<int64_t>({3, 5}, {2})},        {"gone", Tensor::from_vector<float>({1}, {1})}};
  const auto d = compare_outputs(ours, peer, 1e-3);
  ASSERT_EQ(d.size(), 6u);
  EXPECT_NE(d[0].problem.find("shape [2] here, [1, 2] there"), std::string::npos) << d[0].problem;
  EXPECT_NE(d[1].problem.find("dtype"), std::string::npos) << d[1].problem;
  EXPECT_TRUE(d[2].match);  // NaN against NaN and equal infinities agree
  EXPECT_EQ(d[3].nonfinite_mismatches, 1);
  EXPECT_FALSE(d[3].match);
  EXPECT_FALSE(d[4].match);  // integers must be equal, whatever the float tolerance
  EXPECT_FALSE(d[5].problem.empty());
  for (const auto& x : d) EXPECT_EQ(x.match, x.name == "c") << x.name;
}

TEST(BenchCompare, AllZeroReferenceGivesInfiniteRelativeError) {
  TensorMap ours;
  ours["z"] = Tensor::from_vector<float>({0, 1e-3f}, {2});
  const auto d = compare_outputs(ours, {{"z", Tensor::from_vector<float>({0, 0}, {2})}}, 1e-3);
  EXPECT_TRUE(std::isinf(d[0].max_rel_error));
  EXPECT_FALSE(d[0].match);
}

TEST(BenchAccuracy, TopOneAgreementAndHowFarFloat32Leads) {
  // Ten classes, three rows. Row 0: a clear top-1 (class 3), kept. Row 1: classes 5 and 6 nearly
  // tied, flipped by the reduced precision. Row 2: a clear top-1 (class 0) that moves to class 9,
  // which a rounding error cannot do: it shows as a disagreement among the clear rows.
  std::vector<float> want(30, 0.f), got(30, 0.f);
  for (int j = 0; j < 10; ++j)
    want[static_cast<size_t>(j)] = want[static_cast<size_t>(10 + j)] = want[static_cast<size_t>(20 + j)] =
        0.1f * static_cast<float>(j % 3);
  want[3] = 5.f;
  want[15] = 1.f, want[16] = 1.001f;
  want[20] = 4.f;
  got = want;
  got[3] = 4.9f;
  got[15] = 1.002f;
  got[29] = 6.f;
  OutputAccuracy a;
  add_to_accuracy(Tensor::from_vector<float>(want, {3, 10}), Tensor::from_vector<float>(got, {3, 10}), a);
  EXPECT_EQ(a.rows, 3);
  EXPECT_EQ(a.top1_agree, 1);
  ASSERT_EQ(a.leads.size(), 3u);
  EXPECT_GT(a.leads[0], 2.0);
  EXPECT_LT(a.leads[1], 0.01);
  EXPECT_EQ(a.clear_rows, 2);
  EXPECT_EQ(a.clear_agree, 1);
  EXPECT_NEAR(a.max_abs_error, 6.f - 0.1f * (9 % 3), 1e-6);
  EXPECT_NEAR(a.max_rel_error, a.max_abs_error / 5.0, 1e-6);  // relative to the largest |float32 value|
  EXPECT_DOUBLE_EQ(median_lead(a), a.leads[2]);               // rows 0 and 2 lead clearly, row 0 more
  // Adding a second batch accumulates.
  add_to_accuracy(Tensor::from_vector<float>(want, {3, 10}), Tensor::from_vector<float>(want, {3, 10}), a);
  EXPECT_EQ(a.rows, 6);
  EXPECT_EQ(a.top1_agree, 4);
  EXPECT_EQ(a.clear_agree, 3);
}

TEST(BenchAccuracy, FewClassesAndOtherShapes) {
  // Two classes: top-1 counted, but no lead (over the row's std it would always be 2).
  OutputAccuracy two;
  add_to_accuracy(Tensor::from_vector<float>({0.2f, 0.8f, 0.6f, 0.4f}, {2, 2}),
                  Tensor::from_vector<float>({0.3f, 0.7f, 0.4f, 0.6f}, {2, 2}), two);
  EXPECT_EQ(two.rows, 2);
  EXPECT_EQ(two.top1_agree, 1);
  EXPECT_TRUE(two.leads.empty());
  EXPECT_DOUBLE_EQ(median_lead(two), 0);
  // Not [rows, classes]: errors only.
  OutputAccuracy flat;
  add_to_accuracy(Tensor::from_vector<float>({1, -2, 4}, {3}), Tensor::from_vector<float>({1, -2, 3.5f}, {3}), flat);
  EXPECT_EQ(flat.rows, 0);
  EXPECT_NEAR(flat.max_abs_error, 0.5, 1e-9);
  EXPECT_NEAR(flat.max_rel_error, 0.125, 1e-9);
}

TEST(BenchMachine, SeesAtLeastOneCoreAndThePeakRss) {
  const MachineInfo m = machine_info();
  EXPECT_GE(m.logical_cpus, 1);
  EXPECT_GE(m.physical_cores, 1);
  EXPECT_LE(m.physical_cores, m.logical_cpus);
  EXPECT_FALSE(m.cpu_model.empty());
  EXPECT_GT(process_peak_rss_bytes(), 0);
}

// ---- The peer process: every wait is bounded (issue 24) ----------------------------------------

struct PeerProcessTest : ::testing::Test {
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("hi_peer_" + std::to_string(::getpid()) + "_" +
                                                     ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  // A worker running `script` in sh; it writes its pid (and any helper's) into files here.
  std::unique_ptr<PeerProcess> start(const std::string& script) {
    auto p = PeerProcess::start({"sh", "-c", script}, (dir_ / "stderr").string(), "test peer");
    EXPECT_TRUE(p.is_ok()) << p.status().to_string();
    return p.is_ok() ? std::move(p).value() : nullptr;
  }
  // The pid a worker wrote to `name`, once it has.
  int pid_in(const std::string& name) {
    for (int i = 0; i < 500; ++i) {
      std::ifstream in(dir_ / name);
      int pid = 0;
      if (in >> pid && pid > 0) return pid;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return 0;
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::filesystem::path dir_;
};

// Gone, or a zombie nobody reaps (an orphan in a container without an init): dead either way.
bool dead(int pid) {
  if (kill(pid, 0) != 0) return true;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  const auto close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'Z';
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// A worker that answers "quit" but never exits, ignoring the end of its input and SIGTERM, with
// a helper process of its own: stop() kills both, within the grace period, and says so.
TEST_F(PeerProcessTest, AWorkerThatNeverExitsIsKilledWithItsHelpersAndNamed) {
  auto p = start("trap '' TERM HUP INT; sleep 1000 & echo $! > " + path("helper") + "; echo $$ > " + path("worker") +
                 "; read line; echo ok; while :; do sleep 1; done");
  ASSERT_TRUE(p);
  const int worker = pid_in("worker"), helper = pid_in("helper");
  ASSERT_GT(worker, 0);
  ASSERT_GT(helper, 0);
  const auto t0 = std::chrono::steady_clock::now();
  const Status s = p->stop(0.5);
  EXPECT_LT(seconds_since(t0), 10.0);
  ASSERT_FALSE(s.is_ok());
  EXPECT_NE(s.message().find("the test peer worker did not exit within 0.5 s of 'quit' and was killed (SIGKILL)"),
            std::string::npos)
      << s.message();
  EXPECT_TRUE(dead(worker));
  for (int i = 0; i < 200 && !dead(helper); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_TRUE(dead(helper)) << "the worker's own child outlived it";
}

// A worker that never answers "quit": killed, named, bounded.
TEST_F(PeerProcessTest, AWorkerThatNeverAnswersQuitIsKilled) {
  auto p = start("echo $$ > " + path("worker") + "; exec sleep 1000");
  ASSERT_TRUE(p);
  const int worker = pid_in("worker");
  const auto t0 = std::chrono::steady_clock::now();
  const Status s = p->stop(0.5);
  EXPECT_LT(seconds_since(t0), 10.0);
  ASSERT_FALSE(s.is_ok());
  EXPECT_NE(s.message().find("the test peer worker did not"), std::string::npos) << s.message();
  EXPECT_TRUE(dead(worker));
}

// A worker that does not read its input: a line larger than the pipe holds used to block the
// write for ever; now the wait ends at its deadline.
TEST_F(PeerProcessTest, AWorkerThatDoesNotReadIsKilledWhenAWriteWouldBlock) {
  auto p = start("echo $$ > " + path("worker") + "; exec sleep 1000");
  ASSERT_TRUE(p);
  const int worker = pid_in("worker");
  const auto t0 = std::chrono::steady_clock::now();
  const Status s = p->send(std::string(1 << 20, 'x'), 0.5);
  EXPECT_LT(seconds_since(t0), 10.0);
  ASSERT_FALSE(s.is_ok());
  EXPECT_NE(s.message().find("the test peer worker did not read its input within 0.5 s and was stopped"),
            std::string::npos)
      << s.message();
  EXPECT_TRUE(dead(worker));
}

// A worker that says nothing: read_line's deadline kills it, and the message says how it ended.
TEST_F(PeerProcessTest, AWorkerThatNeverAnswersIsKilledAtTheDeadline) {
  auto p = start("trap '' TERM; echo $$ > " + path("worker") + "; while :; do sleep 1; done");
  ASSERT_TRUE(p);
  const int worker = pid_in("worker");
  const auto t0 = std::chrono::steady_clock::now();
  auto r = p->read_line(0.5);
  EXPECT_LT(seconds_since(t0), 10.0);
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.status().message().find(
                "the test peer worker did not answer within 0.5 s and was stopped: it was killed by signal 9"),
            std::string::npos)
      << r.status().message();
  EXPECT_TRUE(dead(worker));
  EXPECT_TRUE(p->stop(0.5).is_ok());  // nothing left to stop
}

// A well-behaved worker stops cleanly.
TEST_F(PeerProcessTest, AWorkerThatQuitsStopsCleanly) {
  auto p = start("read line; echo ok; exit 0");
  ASSERT_TRUE(p);
  EXPECT_TRUE(p->stop(5).is_ok());
}

}  // namespace
}  // namespace hi::cli
