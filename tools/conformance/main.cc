// hipinfer-conformance: runs the ONNX backend test data (node/, simple/, pytorch-converted/,
// pytorch-operator/) with the onnx runner's tolerances, compares with ONNX Runtime's recorded
// results, and writes a Markdown report. Each test runs in a child process, so a crash or hang
// is recorded as such instead of ending the run.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "hipinfer/session.h"
#include "hipinfer/model_info.h"
#include "hipinfer/tensor_proto.h"

namespace fs = std::filesystem;
using hi::Status;
using hi::StatusCode;
using hi::Tensor;

namespace {

constexpr double kRtol = 1e-3, kAtol = 1e-7;  // onnx/backend/test/runner defaults

struct Tolerance {
  double rtol = kRtol, atol = kAtol;
};

// Tests compared with other tolerances than the onnx runner's, and why (listed in the report).
struct ToleranceException {
  const char* test;
  Tolerance tolerance;
  const char* why;
};
constexpr ToleranceException kToleranceExceptions[] = {
    {"test_dft_inverse",
     {kRtol, 1e-6},
     "the expected output was computed by numpy in float32: entries that are exactly zero hold float32 round-off "
     "(1.9e-7, above atol 1e-7); hipinfer computes the DFT in double and gives ~1e-15 there"},
    {"test_dft_inverse_opset19", {kRtol, 1e-6}, "as test_dft_inverse"},
};

// Why a test cannot pass (or is not attempted), by test-name prefix, for the report.
constexpr std::pair<const char*, const char*> kKnownReasons[] = {
    {"test_bernoulli",
     "random: the expected values come from numpy's global generator after it drew the input, whatever the seed "
     "attribute says, so no implementation reproduces them (ONNX Runtime fails them too)"},
    {"test_image_decoder", "ImageDecoder needs JPEG/PNG/TIFF/WebP decoders that hipinfer does not link"},
    {"test_gradient", "training (ai.onnx.preview.training.Gradient): outside an inference engine"},
};

std::string known_reason(const std::string& test) {
  for (const auto& [prefix, why] : kKnownReasons)
    if (test.rfind(prefix, 0) == 0) return why;
  return "";
}

Tolerance tolerance_for(const std::string& test) {
  for (const auto& e : kToleranceExceptions)
    if (test == e.test) return e.tolerance;
  return {};
}

struct Outcome {
  std::string status;  // pass, fail, unsupported, error, crash, timeout
  std::string reason;
  // With --device: the nodes the session placed off the CPU, of all; -1 without --device or when
  // no session could be built.
  int64_t off_cpu = -1, nodes = 0;
};

struct TestCase {
  std::string name;    // test_abs
  std::string folder;  // node, simple, ...
  fs::path dir;
  std::string op;  // the op it tests
  // Node tests with one node: "" when this build's GPU kernels cover the node with the test's
  // input types, else why not (the placement report's reason); unset for other tests.
  std::optional<std::string> gpu_why_not;
  Outcome outcome;
};

std::string one_line(std::string s, size_t max = 300) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  std::replace(s.begin(), s.end(), '|', '/');
  if (s.size() > max) s = s.substr(0, max) + "...";
  return s;
}

// Compares one output; returns "" when it matches.
std::string compare(const Tensor& got, const Tensor& exp, const std::string& name, const Tolerance& tol) {
  if (got.dtype() != exp.dtype())
    return hi::str("output '", name, "': dtype ", hi::dtype_name(got.dtype()), ", expected ",
                   hi::dtype_name(exp.dtype()));
  if (got.shape() != exp.shape())
    return hi::str("output '", name, "': shape ", hi::shape_to_string(got.shape()), ", expected ",
                   hi::shape_to_string(exp.shape()));
  if (got.dtype() == hi::DType::kString) {
    for (int64_t i = 0; i < got.numel(); ++i)
      if (got.strings()[i] != exp.strings()[i]) return hi::str("output '", name, "': string ", i, " differs");
    return "";
  }
  int64_t bad = 0, first = -1;
  double worst = 0;
  for (int64_t i = 0; i < got.numel(); ++i) {
    const double g = got.as_double(i), e = exp.as_double(i);
    if (std::isnan(g) && std::isnan(e)) continue;
    if (std::isinf(e) && g == e) continue;
    const double err = std::abs(g - e);
    if (!(err <= tol.atol + tol.rtol * std::abs(e))) {
      if (first < 0) first = i;
      ++bad;
      worst = std::max(worst, std::isnan(err) ? INFINITY : err);
    }
  }
  if (!bad) return "";
  return hi::str("output '", name, "': ", bad, " of ", got.numel(), " elements differ (first at ", first, ": got ",
                 got.as_double(first), ", expected ", exp.as_double(first), "; max abs error ", worst, ")");
}

// Compares a tensor, a sequence (length, then element-wise) or an optional (empty or not, then
// its element); returns "" when it matches.
std::string compare_value(const hi::Value& got, const hi::Value& exp, const std::string& name, const Tolerance& tol) {
  if (got.kind != exp.kind) return hi::str("output '", name, "' is ", got.describe(), ", expected ", exp.describe());
  if (exp.kind == hi::Value::Kind::kTensor) return compare(got.tensor, exp.tensor, name, tol);
  if (exp.kind != hi::Value::Kind::kSequence) return "";
  if (got.sequence.size() != exp.sequence.size())
    return hi::str("output '", name, "': sequence of ", got.sequence.size(), " tensors, expected ",
                   exp.sequence.size());
  for (size_t i = 0; i < exp.sequence.size(); ++i) {
    const std::string diff = compare(got.sequence[i], exp.sequence[i], hi::str(name, "[", i, "]"), tol);
    if (!diff.empty()) return diff;
  }
  return "";
}

Outcome failed(const hi::Status& s) {
  return {s.code() == StatusCode::kUnsupported ? "unsupported" : "error", s.message()};
}

// Runs a test through a Session as a user's would be, unoptimised so the node under test stays
// itself: on the CPU, or with --device on those devices (then counting the nodes placed off the
// CPU). Inputs and outputs of any kind: tensors, sequences, optionals.
Outcome run_test(const fs::path& dir, const std::vector<std::string>& devices) {
  using namespace hi;
  SessionOptions options;
  options.optimization_level = 0;
  options.devices = devices.empty() ? std::vector<std::string>{"cpu"} : devices;
  auto session = Session::create((dir / "model.onnx").string(), options);
  if (!session.is_ok()) return failed(session.status());
  const Session& s = *session.value();
  Outcome outcome{"pass", ""};
  if (!devices.empty()) {
    outcome.nodes = static_cast<int64_t>(s.placement().nodes.size());
    outcome.off_cpu = outcome.nodes - s.placement().count_on("cpu");
  }
  std::vector<fs::path> sets;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0) sets.push_back(e.path());
  std::sort(sets.begin(), sets.end());
  for (const auto& set : sets) {
    ValueMap feeds;
    for (size_t i = 0; i < s.inputs().size(); ++i) {
      const fs::path pb = set / ("input_" + std::to_string(i) + ".pb");
      if (!fs::exists(pb)) continue;  // an omitted optional input
      auto v = read_value_proto(pb.string(), s.inputs()[i].type);
      if (!v.is_ok()) return failed(v.status());
      feeds[s.inputs()[i].name] = std::move(v).value();
    }
    auto out = s.run_values(feeds);
    if (!out.is_ok()) {
      const Outcome f = failed(out.status());
      outcome.status = f.status;
      outcome.reason = f.reason;
      return outcome;
    }
    for (size_t i = 0; i < s.outputs().size(); ++i) {
      const fs::path pb = set / ("output_" + std::to_string(i) + ".pb");
      if (!fs::exists(pb)) continue;
      const std::string& name = s.outputs()[i].name;
      auto exp = read_value_proto(pb.string(), s.outputs()[i].type);
      if (!exp.is_ok()) return failed(exp.status());
      const std::string diff =
          compare_value(out.value().at(name), exp.value(), name, tolerance_for(dir.filename().string()));
      if (!diff.empty()) {
        outcome.status = "fail";
        outcome.reason = diff;
        return outcome;
      }
    }
  }
  return outcome;
}

// Runs a test in a child process with a timeout; the child reports through a pipe.
Outcome run_isolated(const fs::path& dir, int timeout_s, const std::vector<std::string>& devices) {
  int fds[2];
  if (pipe(fds) != 0) return {"error", "pipe failed"};
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    Outcome o = run_test(dir, devices);
    const std::string msg =
        o.status + "\n" + std::to_string(o.off_cpu) + " " + std::to_string(o.nodes) + "\n" + o.reason;
    (void)!write(fds[1], msg.data(), msg.size());
    close(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  std::string msg;
  char buf[4096];
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  int status = 0;
  bool done = false;
  while (!done) {
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) done = true;
    else if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      close(fds[0]);
      return {"timeout", hi::str("did not finish in ", timeout_s, " s")};
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) msg.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  if (WIFSIGNALED(status))
    return {"crash", hi::str("killed by signal ", WTERMSIG(status), " (", strsignal(WTERMSIG(status)), ")")};
  const auto nl = msg.find('\n'), nl2 = nl == std::string::npos ? nl : msg.find('\n', nl + 1);
  if (nl2 == std::string::npos) return {"crash", hi::str("exited ", WEXITSTATUS(status), " without a result")};
  Outcome o{msg.substr(0, nl), msg.substr(nl2 + 1)};
  std::istringstream(msg.substr(nl + 1, nl2 - nl - 1)) >> o.off_cpu >> o.nodes;
  return o;
}

// What a test's model holds, from hipinfer::inspect_model: the op it exercises (its single node's,
// or the non-expanded sibling's), and for one-node tests whether the GPU kernel table covers the
// node with the input types the model declares ("" when it does, else why not; unset for models
// of several nodes). The table answers on a machine without a GPU too.
struct ModelFacts {
  std::string op = "?";
  std::optional<std::string> gpu_why_not;
};

ModelFacts facts_of(const fs::path& dir) {
  auto m = hi::inspect_model((dir / "model.onnx").string());
  if (!m.is_ok()) return {};
  const auto& nodes = m.value().graph_nodes;
  ModelFacts facts{nodes.size() == 1 ? nodes[0].op : "(model)", std::nullopt};
  if (nodes.size() == 1) facts.gpu_why_not = nodes[0].gpu_gap;
  std::string name = dir.filename().string();
  if (name.size() > 9 && name.compare(name.size() - 9, 9, "_expanded") == 0) {
    const fs::path sib = dir.parent_path() / name.substr(0, name.size() - 9);
    if (fs::exists(sib / "model.onnx")) facts.op = facts_of(sib).op;
  }
  return facts;
}

// Reads {"test": {"status": "...", "why": "..."}, ...}: the only JSON shape the baseline uses.
std::map<std::string, Outcome> read_baseline(const std::string& path) {
  std::map<std::string, Outcome> out;
  std::ifstream in(path);
  if (!in) return out;
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string s = ss.str();
  size_t i = 0;
  auto next_string = [&](std::string& v) -> bool {
    i = s.find('"', i);
    if (i == std::string::npos) return false;
    v.clear();
    for (++i; i < s.size() && s[i] != '"'; ++i) {
      if (s[i] == '\\' && i + 1 < s.size()) ++i;
      v += s[i];
    }
    ++i;
    return true;
  };
  std::string key, k, v;
  while (next_string(key)) {
    Outcome o;
    for (int f = 0; f < 2; ++f) {
      if (!next_string(k) || !next_string(v)) return out;
      (k == "status" ? o.status : o.reason) = v;
    }
    out[key] = o;
  }
  return out;
}

// Of the one-node tests, those whose node has a GPU kernel in this build, per op, with the first
// reason for each op that has none.
struct GpuCoverage {
  int covered = 0, total = 0;
  std::map<std::string, std::pair<int, int>> per_op;  // op -> (covered, tests)
  std::map<std::string, std::string> reason;          // op -> first reason
};

GpuCoverage gpu_coverage_of(const std::vector<TestCase>& tests) {
  GpuCoverage c;
  for (const auto& t : tests) {
    if (!t.gpu_why_not) continue;
    const bool ok = t.gpu_why_not->empty();
    ++c.total;
    c.covered += ok;
    auto& [yes, all] = c.per_op[t.op];
    yes += ok;
    ++all;
    if (!ok && !c.reason.count(t.op)) c.reason[t.op] = *t.gpu_why_not;
  }
  return c;
}

void write_gpu_coverage(std::ofstream& out, const std::vector<TestCase>& tests) {
  const GpuCoverage c = gpu_coverage_of(tests);
  if (c.total == 0) return;
  out << "\n## GPU kernel coverage (one-node tests)\n\n"
      << "Whether this build's GPU kernel table has a kernel for the test's node with the test's input types: the"
      << " placement decision, read from the table without running anything, so a machine without a GPU gives the same"
      << " answer. A node without a kernel runs on the CPU in a GPU session. " << c.covered << " of " << c.total
      << " one-node tests are covered.\n\n| op | tests covered | why not (first test) |\n|---|---|---|\n";
  for (const auto& [op, n] : c.per_op) {
    auto r = c.reason.find(op);
    out << "| " << op << " | " << n.first << " of " << n.second << " | "
        << (r == c.reason.end() ? "" : one_line(r->second, 160)) << " |\n";
  }
}

void write_report(const std::string& path, const std::vector<TestCase>& tests,
                  const std::map<std::string, Outcome>& baseline, const std::string& data_dir) {
  std::map<std::string, std::map<std::string, int>> per_op;  // op -> status -> count
  std::map<std::string, std::map<std::string, int>> per_folder;
  int ort_pass = 0, both = 0;
  std::vector<const TestCase*> regressions;
  for (const auto& t : tests) {
    per_folder[t.folder][t.outcome.status]++;
    if (t.folder == "node") per_op[t.op][t.outcome.status]++;
    auto b = baseline.find(t.name);
    if (t.folder == "node" && b != baseline.end() && b->second.status == "pass") {
      ++ort_pass;
      if (t.outcome.status == "pass") ++both;
      else regressions.push_back(&t);
    }
  }
  std::ofstream out(path);
  out << "# ONNX conformance\n\n"
      << "Generated by `hipinfer-conformance` (tools/conformance) from the ONNX backend test data"
      << " (onnx commit 6be0677f, 1.23.0); tolerances rtol " << kRtol << ", atol " << kAtol
      << " (the onnx runner's). ONNX Runtime's column is its recorded 1.30 result"
      << " (`ort_1.30_baseline_node.json`).\n\n"
      << "Regenerate: `build/<preset>/tools/conformance/hipinfer-conformance --data DIR --report "
         "docs/conformance.md`.\n\n";
  out << "Tests compared with other tolerances:\n\n";
  for (const auto& e : kToleranceExceptions)
    out << "- `" << e.test << "`: rtol " << e.tolerance.rtol << ", atol " << e.tolerance.atol << ": " << e.why << "\n";
  out << "\n";
  out << "## Totals\n\n| folder | pass | fail | unsupported | error | crash | timeout | total "
         "|\n|---|---|---|---|---|---|---|---|\n";
  for (const auto& [f, c] : per_folder) {
    int total = 0;
    for (const auto& [s, n] : c) total += n;
    auto g = [&](const char* s) {
      auto it = c.find(s);
      return it == c.end() ? 0 : it->second;
    };
    out << "| " << f << " | " << g("pass") << " | " << g("fail") << " | " << g("unsupported") << " | " << g("error")
        << " | " << g("crash") << " | " << g("timeout") << " | " << total << " |\n";
  }
  out << "\nNode tests that ONNX Runtime 1.30 passes: " << ort_pass << "; hipinfer passes " << both << " of them.\n\n";
  out << "## Node tests ONNX Runtime passes and hipinfer does not\n\n";
  if (regressions.empty()) out << "None.\n";
  else {
    out << "| test | op | hipinfer | reason |\n|---|---|---|---|\n";
    for (const auto* t : regressions)
      out << "| " << t->name << " | " << t->op << " | " << t->outcome.status << " | " << one_line(t->outcome.reason)
          << " |\n";
  }
  out << "\n## Per op (node tests)\n\n| op | pass | fail | unsupported | error | crash/timeout "
         "|\n|---|---|---|---|---|---|\n";
  for (const auto& [op, c] : per_op) {
    auto g = [&](const char* s) {
      auto it = c.find(s);
      return it == c.end() ? 0 : it->second;
    };
    out << "| " << op << " | " << g("pass") << " | " << g("fail") << " | " << g("unsupported") << " | " << g("error")
        << " | " << g("crash") + g("timeout") << " |\n";
  }
  write_gpu_coverage(out, tests);
  out << "\n## Every test that does not pass\n\n| test | status | reason | why |\n|---|---|---|---|\n";
  for (const auto& t : tests)
    if (t.outcome.status != "pass")
      out << "| " << t.folder << "/" << t.name << " | " << t.outcome.status << " | " << one_line(t.outcome.reason, 200)
          << " | " << known_reason(t.name) << " |\n";
  (void)data_dir;
}

int usage() {
  std::fprintf(stderr,
               "usage: hipinfer-conformance [--data DIR] [--baseline FILE] [--report FILE] [--filter TEXT]\n"
               "                            [--jobs N] [--timeout SECONDS] [--min-pass N] [--verbose]\n"
               "                            [--device LIST]\n\n"
               "--device gpu,cpu runs each test whose inputs and outputs are tensors through a session placed on\n"
               "those devices (unoptimised), and reports the tests that ran nodes off the CPU.\n"
               "Runs the ONNX backend test data. DIR defaults to $HI_ONNX_TEST_DATA. Exit 1 when any test\n"
               "crashes or times out, or fewer than --min-pass node tests pass.\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string data = getenv("HI_ONNX_TEST_DATA") ? getenv("HI_ONNX_TEST_DATA") : "";
  std::string baseline_path, report, filter;
  int jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  int timeout_s = 60, min_pass = 0;
  bool verbose = false;
  std::vector<std::string> devices;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto val = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--data") data = val();
    else if (a == "--baseline") baseline_path = val();
    else if (a == "--report") report = val();
    else if (a == "--filter") filter = val();
    else if (a == "--jobs") jobs = std::max(1, std::atoi(val().c_str()));
    else if (a == "--timeout") timeout_s = std::max(1, std::atoi(val().c_str()));
    else if (a == "--min-pass") min_pass = std::atoi(val().c_str());
    else if (a == "--verbose") verbose = true;
    else if (a == "--device") {
      std::stringstream list(val());
      for (std::string d; std::getline(list, d, ',');) devices.push_back(d);
      if (devices.empty()) return usage();
    } else return usage();
  }
  if (data.empty() || !fs::exists(fs::path(data) / "node")) {
    std::fprintf(
        stderr,
        "hipinfer-conformance: no test data at '%s' (set --data or HI_ONNX_TEST_DATA to the folder holding node/)\n",
        data.c_str());
    return 2;
  }
  std::vector<TestCase> tests;
  for (const char* folder : {"node", "simple", "pytorch-converted", "pytorch-operator"}) {
    const fs::path f = fs::path(data) / folder;
    if (!fs::exists(f)) continue;
    for (const auto& e : fs::directory_iterator(f)) {
      if (!fs::exists(e.path() / "model.onnx")) continue;
      const std::string name = e.path().filename().string();
      if (!filter.empty() && name.find(filter) == std::string::npos) continue;
      ModelFacts facts = facts_of(e.path());
      if (std::string(folder) != "node") facts.gpu_why_not.reset();
      tests.push_back({name, folder, e.path(), facts.op, facts.gpu_why_not, {}});
    }
  }
  std::sort(tests.begin(), tests.end(),
            [](const auto& a, const auto& b) { return std::tie(a.folder, a.name) < std::tie(b.folder, b.name); });
  std::atomic<size_t> next{0};
  std::vector<std::thread> workers;
  for (int w = 0; w < jobs; ++w)
    workers.emplace_back([&] {
      for (size_t i; (i = next++) < tests.size();) tests[i].outcome = run_isolated(tests[i].dir, timeout_s, devices);
    });
  for (auto& w : workers) w.join();

  std::map<std::string, int> counts;
  int node_pass = 0, crashes = 0;
  for (const auto& t : tests) {
    counts[t.outcome.status]++;
    if (t.folder == "node" && t.outcome.status == "pass") ++node_pass;
    if (t.outcome.status == "crash" || t.outcome.status == "timeout") {
      ++crashes;
      std::printf("%s %s/%s: %s\n", t.outcome.status.c_str(), t.folder.c_str(), t.name.c_str(),
                  t.outcome.reason.c_str());
    } else if (verbose && t.outcome.status != "pass") {
      std::printf("%-11s %s/%s: %s\n", t.outcome.status.c_str(), t.folder.c_str(), t.name.c_str(),
                  one_line(t.outcome.reason, 200).c_str());
    }
  }
  if (baseline_path.empty()) {
    const fs::path guess = fs::path(data).parent_path() / "ort_1.30_baseline_node.json";
    if (fs::exists(guess)) baseline_path = guess.string();
  }
  const auto baseline = read_baseline(baseline_path);
  int ort_pass = 0, ort_pass_we_fail = 0;
  for (const auto& t : tests) {
    auto b = baseline.find(t.name);
    if (t.folder != "node" || b == baseline.end() || b->second.status != "pass") continue;
    ++ort_pass;
    if (t.outcome.status != "pass") ++ort_pass_we_fail;
  }
  if (!report.empty()) write_report(report, tests, baseline, data);
  std::printf("conformance: %d passed, %d failed, %d unsupported, %d errors, %d crashed or timed out, of %zu tests\n",
              counts["pass"], counts["fail"], counts["unsupported"], counts["error"], crashes, tests.size());
  std::printf("node tests passed: %d; of the %d that ONNX Runtime 1.30 passes, hipinfer does not pass %d\n", node_pass,
              ort_pass, ort_pass_we_fail);
  if (!devices.empty()) {
    int ran = 0, passed = 0, sessions = 0;
    for (const auto& t : tests) {
      sessions += t.outcome.off_cpu >= 0;
      if (t.outcome.off_cpu <= 0) continue;
      ++ran;
      passed += t.outcome.status == "pass";
      if (t.outcome.status != "pass")
        std::printf("off-cpu %-11s %s/%s (%lld of %lld nodes off the CPU): %s\n", t.outcome.status.c_str(),
                    t.folder.c_str(), t.name.c_str(), static_cast<long long>(t.outcome.off_cpu),
                    static_cast<long long>(t.outcome.nodes), one_line(t.outcome.reason, 200).c_str());
    }
    std::printf(
        "--device: %d tests built a session on those devices; %d ran nodes off "
        "the CPU, and %d of those passed\n",
        sessions, ran, passed);
  }
  if (const GpuCoverage c = gpu_coverage_of(tests); c.total > 0)
    std::printf("GPU kernels cover %d of %d one-node tests (%zu ops; per op in the report)\n", c.covered, c.total,
                c.per_op.size());
  if (crashes) return 1;
  if (node_pass < min_pass) {
    std::printf("fewer than the required %d node tests passed\n", min_pass);
    return 1;
  }
  return 0;
}
