// `hipinfer bench MODEL`: latency and throughput of a model, optionally beside ONNX Runtime and
// OpenVINO.
// The method (warm-up, blocks that alternate between engines, what is timed) is described in
// docs/performance.md; the pieces live in bench_*.h.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <thread>

#include "bench_accuracy.h"
#include "bench_busy.h"
#include "bench_compare.h"
#include "bench_machine.h"
#include "bench_peer.h"
#include "bench_report.h"
#include "bench_stats.h"
#include "bench_svg.h"
#include "cli.h"
#include "hipinfer/session.h"
#include "hipinfer/version.h"
#include "model_inputs.h"

namespace hi::cli {
namespace {

using Clock = std::chrono::steady_clock;

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

struct BenchOptions {
  std::string model;
  int64_t batch = 1;
  int threads = 0;
  std::string precision = "fp32";
  int opt_level = 3;
  int warmup = 10;
  int busy = 0;  // busy-loop processes beside the measurement
  bool adapt_threads = true;
  bool tune = false;         // time new shapes' kernel candidates (SessionOptions::kernel_tuning)
  bool kernel_cache = true;  // read and write the kernel cache
  int64_t max_runs = 0;      // 0: none
  double time_budget_s = 0;  // 0: none
  std::vector<std::string> inputs;
  int accuracy_samples = 0;  // reduced precision: random inputs compared with float32
  uint64_t seed = 0;
  std::string json, plot;
  std::vector<std::string> compare;
  std::vector<std::string> devices;  // empty: the session's default
  std::vector<std::string> disabled_passes;
  bool gpu_graphs = true;
  bool profile = false;
  bool quiet = false;
  std::string python;         // interpreter for the peers' worker
  std::string python_source;  // "--python", "HI_PYTHON", or "" for the default python3 on PATH
};

// Every problem here is a usage error (exit 2).
Result<BenchOptions> parse_options(const Args& args, const MachineInfo& machine) {
  BenchOptions o;
  o.model = args.positional()[0];
  HI_ASSIGN_OR_RETURN(o.batch, args.get_int("--batch", 1));
  HI_ASSIGN_OR_RETURN(const int64_t threads, args.get_int("--threads", 0));
  HI_ASSIGN_OR_RETURN(const int64_t level, args.get_int("--opt-level", 3));
  HI_ASSIGN_OR_RETURN(const int64_t warmup, args.get_int("--warmup", 10));
  HI_ASSIGN_OR_RETURN(const int64_t busy, args.get_int("--busy", 0));
  HI_ASSIGN_OR_RETURN(const int64_t seed, args.get_int("--seed", 0));
  HI_ASSIGN_OR_RETURN(o.max_runs, args.get_int("--runs", 0));
  HI_ASSIGN_OR_RETURN(o.time_budget_s, args.get_double("--time", 0));
  auto bad = [](auto... parts) { return error(StatusCode::kInvalidArgument, parts...); };
  if (o.batch < 1) return bad("--batch must be >= 1, got ", o.batch);
  if (threads < 0 || threads > 4096) return bad("--threads must be 0 (physical cores) to 4096, got ", threads);
  if (level < 0 || level > 3) return bad("--opt-level must be 0, 1, 2 or 3, got ", level);
  if (warmup < 0 || warmup > 1000000) return bad("--warmup must be 0 to 1000000, got ", warmup);
  if (busy < 0 || busy > 1024) return bad("--busy must be 0 to 1024 processes, got ", busy);
  if (args.has("--runs") && (o.max_runs < 1 || o.max_runs > 100000000))
    return bad("--runs must be 1 to 100000000, got ", o.max_runs);
  if (args.has("--time") && !(o.time_budget_s > 0 && o.time_budget_s <= 1e6))
    return bad("--time must be a number of seconds above 0, got '", args.get("--time"), "'");
  if (!args.has("--runs") && !args.has("--time")) {
    o.max_runs = 1000;
    o.time_budget_s = 10;
  }
  o.threads = threads > 0 ? static_cast<int>(threads) : machine.physical_cores;
  o.opt_level = static_cast<int>(level);
  o.warmup = static_cast<int>(warmup);
  o.busy = static_cast<int>(busy);
  o.adapt_threads = !args.has("--fixed-threads");
  o.tune = args.has("--tune");
  o.kernel_cache = !args.has("--no-kernel-cache");
  o.seed = static_cast<uint64_t>(seed);
  o.precision = args.get("--precision", "fp32");
  if (o.precision != "fp32" && o.precision != "bf16")
    return bad("--precision must be fp32 or bf16, got '", o.precision, "'");
  HI_ASSIGN_OR_RETURN(const int64_t samples, args.get_int("--accuracy-samples", o.precision == "fp32" ? 0 : 20));
  if (samples < 0 || samples > 100000) return bad("--accuracy-samples must be 0 to 100000, got ", samples);
  o.accuracy_samples = static_cast<int>(samples);
  o.inputs = args.get_all("--input");
  HI_RETURN_IF_ERROR(check_input_specs(o.inputs));
  o.json = args.get("--json");
  o.plot = args.get("--plot");
  if (args.has("--json") && o.json.empty()) return bad("--json needs a file name, or - for stdout");
  if (args.has("--plot") && o.plot.empty()) return bad("--plot needs a file name (FILE.svg)");
  if (args.has("--compare")) {
    for (const std::string& given : split_commas(args.get("--compare"))) {
      const std::string name = given == "ort" ? "onnxruntime" : given;
      if (name != "onnxruntime" && name != "openvino" && name != "torch")
        return bad("--compare takes onnxruntime, openvino and/or torch (comma-separated), got '", given, "'");
      if (std::find(o.compare.begin(), o.compare.end(), name) == o.compare.end()) o.compare.push_back(name);
    }
  }
  o.quiet = args.has("--quiet");
  if (args.has("--device")) o.devices = split_commas(args.get("--device"));
  if (args.has("--disable-pass")) o.disabled_passes = split_commas(args.get("--disable-pass"));
  o.gpu_graphs = !args.has("--no-graph");
  o.profile = args.has("--profile");
  const char* env_python = std::getenv("HI_PYTHON");
  o.python = args.has("--python") ? args.get("--python") : (env_python && *env_python ? env_python : "python3");
  o.python_source = args.has("--python") ? "--python" : (env_python && *env_python ? "HI_PYTHON" : "");
  return o;
}

// The folder an output file goes into must exist before minutes of measuring are spent.
Status check_output_file(const std::string& option, const std::string& file) {
  if (file.empty() || file == "-") return Status::ok();
  const auto parent = std::filesystem::path(file).parent_path();
  std::error_code ec;
  if (!parent.empty() && !std::filesystem::is_directory(parent, ec))
    return error(StatusCode::kNotFound, option, " ", file, ": the folder '", parent.string(), "' does not exist");
  return Status::ok();
}

Status write_text_file(const std::string& file, const std::string& text) {
  std::ofstream out(file, std::ios::binary);
  out << text;
  out.close();
  if (!out) return error(StatusCode::kInvalidArgument, "cannot write ", file);
  return Status::ok();
}

// A private folder for the files handed to a peer; removed with everything in it.
class TempDir {
 public:
  static Result<std::unique_ptr<TempDir>> create() {
    std::error_code ec;
    std::string pattern = (std::filesystem::temp_directory_path(ec) / "hipinfer-bench-XXXXXX").string();
    if (ec) pattern = "/tmp/hipinfer-bench-XXXXXX";
    if (!mkdtemp(pattern.data())) return error(StatusCode::kRuntimeError, "cannot create a temporary folder ", pattern);
    auto d = std::make_unique<TempDir>();
    d->path_ = pattern;
    return d;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The progress line on a terminal: shown only after the first second, redrawn at most 5x/s.
class Progress {
 public:
  explicit Progress(bool enabled) : enabled_(enabled), start_(Clock::now()) {}
  ~Progress() { clear(); }
  void show(const std::string& text) {
    if (!enabled_) return;
    const auto now = Clock::now();
    if (ms_between(start_, now) < 1000 || (shown_ && ms_between(last_, now) < 200)) return;
    std::fprintf(stderr, "\r\033[K%s", text.c_str());
    std::fflush(stderr);
    last_ = now;
    shown_ = true;
  }
  void clear() {
    if (shown_) std::fprintf(stderr, "\r\033[K");
    shown_ = false;
  }

 private:
  bool enabled_;
  bool shown_ = false;
  Clock::time_point start_, last_;
};

// One engine's measurement so far.
struct Lane {
  std::vector<double> ms;
  double used_ms = 0;
  double warmup_mean_ms = 0;
  void add(double v) {
    ms.push_back(v);
    used_ms += v;
  }
  bool done(const BenchOptions& o) const {
    if (o.max_runs > 0 && static_cast<int64_t>(ms.size()) >= o.max_runs) return true;
    return o.time_budget_s > 0 && used_ms >= o.time_budget_s * 1000;
  }
  double estimate_ms() const { return ms.empty() ? warmup_mean_ms : used_ms / static_cast<double>(ms.size()); }
  // About a tenth of the run limit or the time budget, so engines alternate about ten times.
  int next_block(const BenchOptions& o) const {
    int64_t k = std::numeric_limits<int>::max();
    if (o.max_runs > 0) k = std::min<int64_t>(k, std::max<int64_t>(1, (o.max_runs + 9) / 10));
    if (o.time_budget_s > 0) {
      const double est = estimate_ms();
      k = est > 0 ? std::min<int64_t>(k, std::max<int64_t>(1, std::llround(o.time_budget_s * 100 / est))) : 1;
    }
    if (o.max_runs > 0) k = std::min<int64_t>(k, o.max_runs - static_cast<int64_t>(ms.size()));
    return static_cast<int>(std::max<int64_t>(k, 1));
  }
  std::string progress(const std::string& label, const BenchOptions& o) const {
    std::string s = label + " " + std::to_string(ms.size());
    if (o.max_runs > 0) s += "/" + std::to_string(o.max_runs);
    char buf[64];
    if (o.time_budget_s > 0) std::snprintf(buf, sizeof buf, " runs (%.1f of %g s)", used_ms / 1000, o.time_budget_s);
    else std::snprintf(buf, sizeof buf, " runs (%.1f s)", used_ms / 1000);
    return s + buf;
  }
};

struct PeerRun {
  EngineResult result;
  std::unique_ptr<PythonPeer> engine;  // null once it is unavailable or has failed
  Lane lane;
  void fail(const Status& s) {
    result.state = EngineResult::State::kFailed;
    result.message = s.message();
    engine.reset();  // kills the worker if it is still there
  }
};

std::string torch_reason() {
  return "torch cannot load an ONNX model, so a torch comparison needs the model as PyTorch code (an nn.Module); "
         "it is only available for models given that way, which 'hipinfer bench' does not take";
}

// Starts each requested peer. A missing interpreter that was named explicitly is the only error
// returned; everything else becomes the peer's state.
Result<std::vector<PeerRun>> start_peers(const BenchOptions& o, const TensorMap& inputs, const TempDir* dir) {
  std::vector<PeerRun> peers;
  for (const auto& name : o.compare) {
    PeerRun p;
    p.result.name = name;
    if (name == "torch") {
      p.result.label = "torch";
      p.result.state = EngineResult::State::kUnavailable;
      p.result.message = torch_reason();
      peers.push_back(std::move(p));
      continue;
    }
    // ONNX Runtime's CPU provider has float32 only; OpenVINO is told the precision hipinfer runs at.
    const PythonPeer::Engine engine = name == "openvino" ? PythonPeer::Engine{name, "OpenVINO", o.precision}
                                                         : PythonPeer::Engine{name, "ONNX Runtime", "fp32"};
    p.result.label = engine.label;
    auto started = PythonPeer::start(engine, o.python, o.model, inputs, o.threads, dir->path());
    if (!started.is_ok() && started.status().code() == StatusCode::kNotFound && !o.python_source.empty())
      return error(StatusCode::kNotFound, started.status().message(), " (named by ", o.python_source, ")");
    if (!started.is_ok() && started.status().code() == StatusCode::kNotFound) {
      p.result.state = EngineResult::State::kUnavailable;
      p.result.message =
          "no '" + o.python + "' on PATH to run " + engine.label + " in; name one with --python or HI_PYTHON";
    } else if (!started.is_ok()) {
      p.fail(started.status());
    } else if (!started->peer) {
      p.result.state = EngineResult::State::kUnavailable;
      p.result.message = started->unavailable_reason;
    } else {
      p.engine = std::move(started->peer);
      p.result.version = p.engine->version();
      p.result.precision = p.engine->precision();
      p.result.create_ms = p.engine->create_ms();
    }
    peers.push_back(std::move(p));
  }
  return peers;
}

}  // namespace

const CommandSpec* cmd_bench_spec() {
  static const CommandSpec spec{
      "bench",
      "MODEL [options]",
      "Measure a model's latency and throughput on the CPU, optionally beside ONNX Runtime and OpenVINO.",
      "Runs --warmup untimed runs, then timed runs until --runs or --time is reached (default: 1000 runs\n"
      "or 10 s, whichever comes first), and prints min/mean/median/p90/p99/max latency, throughput\n"
      "(batch x runs / time in runs), session creation time and memory. Inputs not given with --input\n"
      "are random (as in 'hipinfer run'). --compare onnxruntime,openvino runs the same model with the same\n"
      "inputs and thread count in ONNX Runtime (float32) and OpenVINO (latency hint, at --precision; a\n"
      "Python worker each: --python, else $HI_PYTHON, else python3),\n"
      "alternating blocks of runs between the engines, and checks once that the outputs agree.\n"
      "Exit status 1 when a comparison failed or the outputs differ. See docs/performance.md.",
      {{"--batch", "", "N", "value for symbolic dims of random inputs (default 1)"},
       {"--threads", "", "N", "intra-op threads, for hipinfer and the peers (default: physical cores)"},
       {"--precision", "", "P", "fp32 (default) or bf16"},
       {"--opt-level", "", "N", "hipinfer's graph optimisation level 0-3 (default 3)"},
       {"--disable-pass", "", "LIST", "graph passes to skip, comma-separated (e.g. fuse_inverted_residual)"},
       {"--warmup", "", "N", "untimed runs first, per engine (default 10)"},
       {"--fixed-threads", "", "", "every run on --threads, even while other processes take cores"},
       {"--tune", "", "",
        "time the kernel candidates of every new shape in the warm-up (kept in the kernel cache for later sessions)"},
       {"--no-kernel-cache", "", "", "neither read nor write the kernel cache of timed choices"},
       {"--busy", "", "N", "keep N other processes busy (a spinning loop each) while measuring: a shared machine"},
       {"--runs", "", "N", "timed runs per engine"},
       {"--time", "", "SECONDS", "time budget per engine (time inside the runs)"},
       {"--input", "-i", "NAME=FILE", "an input from a .npy file (or an ONNX TensorProto .pb file)", true},
       {"--seed", "", "N", "seed for random inputs (default 0)"},
       {"--accuracy-samples", "", "N", "with bf16: random inputs to compare with float32 (default 20; 0: none)"},
       {"--json", "", "FILE", "write everything measured, per-run latencies included, as JSON (- for stdout)"},
       {"--plot", "", "FILE.svg", "write the latency distribution as an SVG chart"},
       {"--compare", "", "LIST", "also measure onnxruntime, openvino (and/or torch), comma-separated"},
       {"--python", "", "PATH", "Python interpreter with onnxruntime or openvino, and numpy, for --compare"},
       {"--device", "", "LIST",
        "hipinfer's devices in order of preference: gpu, cuda, hip, emu (the emulated GPU), cpu (default gpu,cpu)"},
       {"--no-graph", "", "", "launch every GPU kernel on every run instead of replaying a captured graph"},
       {"--profile", "", "",
        "time every node: the time per op type and the slowest nodes (adds a clock read per node)"},
       {"--quiet", "-q", "", "no progress line and no table: one summary line"}},
      1,
      1};
  return &spec;
}

int cmd_bench(const Args& args) {
  const MachineInfo machine = machine_info();
  auto parsed = parse_options(args, machine);
  if (!parsed.is_ok()) {
    std::fprintf(stderr, "hipinfer: %s\n", parsed.status().message().c_str());
    return kExitUsage;
  }
  const BenchOptions& o = parsed.value();
  for (const auto& [option, file] : {std::pair{"--json", o.json}, std::pair{"--plot", o.plot}})
    if (Status s = check_output_file(option, file); !s.is_ok()) return report_error(s);
  // With --json - the JSON owns stdout; the table goes to stderr.
  std::FILE* text_out = o.json == "-" ? stderr : stdout;

  SessionOptions options;
  options.threads = o.threads;
  options.adapt_threads = o.adapt_threads;
  options.kernel_tuning = o.tune ? "time" : "auto";
  options.kernel_cache = o.kernel_cache;
  options.optimization_level = o.opt_level;
  options.disabled_passes = o.disabled_passes;
  options.precision = o.precision;
  if (!o.devices.empty()) options.devices = o.devices;
  options.gpu_graphs = o.gpu_graphs;
  options.profile = o.profile;
  const auto t_create = Clock::now();
  auto session = Session::create(o.model, options);
  if (!session.is_ok()) return report_error(session.status());
  print_warnings(session.value()->warnings());
  const double create_ms = ms_between(t_create, Clock::now());
  auto made = make_model_inputs(*session.value(), o.inputs, o.batch, o.seed);
  if (!made.is_ok()) return report_error(made.status());
  const TensorMap& inputs = made.value();

  BenchReport report;
  report.hipinfer_version = hi::version_string();
  report.model = o.model;
  report.threads = o.threads;
  report.precision = o.precision;
  report.opt_level = o.opt_level;
  report.placement = session.value()->placement().summary();
  report.fallback_nodes = session.value()->placement().fallbacks;
  report.warmup = o.warmup;
  report.busy_processes = o.busy;
  report.max_runs = o.max_runs;
  report.time_budget_s = o.time_budget_s;
  report.machine = machine;
  // Throughput counts items: the leading dim of the first input as fed (--batch for a symbolic
  // dim, the model's own size for a fixed one, the file's for --input).
  report.batch = 1;
  if (!session.value()->inputs().empty()) {
    const Tensor& first = inputs.at(session.value()->inputs().front().name);
    if (first.rank() >= 1) report.batch = std::max<int64_t>(first.dim(0), 1);
  }
  if (args.has("--batch") && report.batch != o.batch)
    std::fprintf(stderr,
                 "hipinfer: note: the model's first input has batch %lld, not --batch %lld (it has no symbolic batch "
                 "dim, or --input set it)\n",
                 static_cast<long long>(report.batch), static_cast<long long>(o.batch));

  std::unique_ptr<TempDir> dir;
  if (!o.compare.empty()) {
    auto d = TempDir::create();
    if (!d.is_ok()) return report_error(d.status());
    dir = std::move(d).value();
  }
  auto started = start_peers(o, inputs, dir.get());
  if (!started.is_ok()) return report_error(started.status());
  std::vector<PeerRun>& peers = started.value();
  for (const auto& p : peers)
    if (p.result.state != EngineResult::State::kMeasured)
      std::fprintf(stderr, "hipinfer: %s: %s %s: %s\n",
                   p.result.state == EngineResult::State::kFailed ? "error" : "note", p.result.label.c_str(),
                   p.result.state == EngineResult::State::kFailed ? "failed" : "not compared",
                   p.result.message.c_str());

  // hipinfer's runs, keeping the outputs of the first for the check against the peers.
  const Session& s = *session.value();
  TensorMap first_outputs;
  RunStats last_stats;
  int64_t peak_host = 0;
  ProfileAccumulator profile;
  double first_run_ms = -1;
  int64_t reduced_thread_runs = 0;
  auto run_once = [&](bool timed = false) -> Result<double> {
    RunStats stats;
    const auto t0 = Clock::now();
    auto out = s.run(inputs, {}, &stats);
    const double ms = ms_between(t0, Clock::now());
    if (!out.is_ok()) return out.status();
    if (first_run_ms < 0) first_run_ms = ms;
    if (first_outputs.empty()) first_outputs = std::move(out).value();
    if (timed) {
      if (stats.threads < o.threads) ++reduced_thread_runs;
      profile.add(stats.node_times);
      if (o.profile) profile.add_work(stats.node_traffic, stats.gpu);
    }
    last_stats = stats;
    peak_host = std::max(peak_host, stats.peak_host_bytes);
    return ms;
  };

  // The load starts after every engine has loaded the model, and lasts through warm-up and runs.
  auto busy_load = BusyLoad::start(o.busy);
  if (!busy_load.is_ok()) return report_error(busy_load.status());
  Progress progress(!o.quiet && isatty(STDERR_FILENO));
  Lane ours;
  double warm_sum = 0;
  for (int i = 0; i < o.warmup; ++i) {
    auto ms = run_once();
    if (!ms.is_ok()) return report_error(ms.status());
    warm_sum += ms.value();
    progress.show("warming up: hipinfer " + std::to_string(i + 1) + "/" + std::to_string(o.warmup));
  }
  ours.warmup_mean_ms = o.warmup ? warm_sum / o.warmup : 0;
  for (auto& p : peers) {
    if (!p.engine || o.warmup == 0) continue;
    progress.show("warming up: " + p.result.label);
    auto ms = p.engine->run(o.warmup, ours.warmup_mean_ms * 10);
    if (!ms.is_ok()) {
      p.fail(ms.status());
      progress.clear();
      std::fprintf(stderr, "hipinfer: error: %s failed: %s\n", p.result.label.c_str(), p.result.message.c_str());
      continue;
    }
    for (double v : ms.value()) p.lane.warmup_mean_ms += v / o.warmup;
    p.result.first_run_ms = ms.value().front();
  }

  auto progress_text = [&]() {
    std::string t = "measuring: " + ours.progress("hipinfer", o);
    for (const auto& p : peers)
      if (p.engine) t += ", " + p.lane.progress(p.result.label, o);
    return t;
  };
  // Blocks of runs, hipinfer then each peer, until each has its runs or its time. A short untimed
  // pause at each switch lets the other engine's spinning pool threads go to sleep first, and each
  // block starts with one untimed run, so that no block's first run pays for waking up.
  const bool alternating =
      std::any_of(peers.begin(), peers.end(), [](const PeerRun& p) { return p.engine != nullptr; });
  const int rewarm = alternating ? 1 : 0;
  auto settle = [&]() {
    if (alternating) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  };
  while (true) {
    bool any = false;
    if (!ours.done(o)) {
      settle();
      any = true;
      for (int i = 0; i < rewarm; ++i)
        if (auto ms = run_once(); !ms.is_ok()) return report_error(ms.status());
      const int k = ours.next_block(o);
      for (int i = 0; i < k && !ours.done(o); ++i) {
        auto ms = run_once(true);
        if (!ms.is_ok()) return report_error(ms.status());
        ours.add(ms.value());
        progress.show(progress_text());
      }
    }
    for (auto& p : peers) {
      if (!p.engine || p.lane.done(o)) continue;
      any = true;
      settle();
      auto ms = p.engine->run(rewarm + p.lane.next_block(o), p.lane.estimate_ms());
      if (!ms.is_ok()) {
        p.fail(ms.status());
        progress.clear();
        std::fprintf(stderr, "hipinfer: error: %s failed: %s\n", p.result.label.c_str(), p.result.message.c_str());
        continue;
      }
      for (size_t i = rewarm; i < ms.value().size(); ++i) p.lane.add(ms.value()[i]);
      if (p.result.first_run_ms < 0 && !ms.value().empty()) p.result.first_run_ms = ms.value().front();
      progress.show(progress_text());
    }
    if (!any) break;
  }
  progress.clear();
  if (first_outputs.empty() && !peers.empty()) {
    // Possible only with --warmup 0 and no timed run, which the limits do not allow; be safe.
    auto ms = run_once();
    if (!ms.is_ok()) return report_error(ms.status());
  }

  report.hipinfer.name = report.hipinfer.label = "hipinfer";
  report.hipinfer.version = hi::version_string();
  report.hipinfer.precision = o.precision;
  report.hipinfer.create_ms = create_ms;
  report.hipinfer.first_run_ms = first_run_ms;
  report.hipinfer.latencies_ms = ours.ms;
  report.hipinfer.peak_rss_bytes = process_peak_rss_bytes();
  report.gpu_memory = gpu_memory_stats();
  if (const PartitionGraphStats g = session.value()->graph_stats(); g.enabled || g.direct_runs > 0)
    report.gpu_graphs = g.summary();
  report.hipinfer.planned_arena_bytes = last_stats.planned_arena_bytes;
  report.hipinfer.planned_activation_bytes = last_stats.planned_activation_bytes;
  report.hipinfer.peak_host_bytes = peak_host;
  report.hipinfer.nodes_executed = last_stats.nodes_executed;
  report.hipinfer.reduced_thread_runs = reduced_thread_runs;
  report.profile = profile.summary();
  for (auto& p : peers) {
    if (p.engine) {
      auto outs = p.engine->outputs();
      if (outs.is_ok())
        p.result.output_check = compare_outputs(first_outputs, outs.value(), output_tolerance(o.precision));
      else p.result.output_check_error = outs.status().message();
      auto rss = p.engine->peak_rss_bytes();
      if (rss.is_ok()) p.result.peak_rss_bytes = rss.value();
      // Its results stand; a worker that would not exit is killed, and bench says so.
      if (Status s = p.engine->stop(); !s.is_ok()) std::fprintf(stderr, "hipinfer: warning: %s\n", s.message().c_str());
      p.result.latencies_ms = p.lane.ms;
    }
    report.peers.push_back(std::move(p.result));
  }

  if (o.quiet) {
    std::fprintf(text_out, "%s\n", one_line_summary(report).c_str());
  } else {
    print_report(text_out, report);
  }
  // The accuracy guard of reduced precision, after the timing so it does not disturb it.
  if (o.accuracy_samples > 0 && o.precision != "fp32") {
    auto acc = accuracy_guard(o.model, *session.value(), options, o.inputs, o.batch, o.seed, o.accuracy_samples);
    if (!acc.is_ok()) return report_error(acc.status());
    print_accuracy(text_out, o.precision, acc.value());
    report.accuracy = std::move(acc).value();
  }
  if (!o.json.empty()) {
    const std::string json = report_json(report);
    if (o.json == "-") {
      std::fwrite(json.data(), 1, json.size(), stdout);
      std::fflush(stdout);
    } else if (Status st = write_text_file(o.json, json); !st.is_ok()) {
      return report_error(st);
    }
  }
  if (!o.plot.empty()) {
    std::vector<SvgSeries> series = {{"hipinfer " + report.hipinfer.version, report.hipinfer.latencies_ms}};
    for (const auto& p : report.peers)
      if (p.state == EngineResult::State::kMeasured) series.push_back({p.label + " " + p.version, p.latencies_ms});
    if (Status st = write_text_file(o.plot, latency_chart_svg(chart_title(report), series)); !st.is_ok())
      return report_error(st);
  }
  if (!o.quiet && (!o.json.empty() && o.json != "-")) std::fprintf(text_out, "JSON written to %s\n", o.json.c_str());
  if (!o.quiet && !o.plot.empty()) std::fprintf(text_out, "chart written to %s\n", o.plot.c_str());
  return comparisons_ok(report) ? kExitOk : kExitFailure;
}

}  // namespace hi::cli
