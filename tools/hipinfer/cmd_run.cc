// `hipinfer run MODEL`: run once with given or random inputs; write and summarise outputs.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "bench_stats.h"
#include "cli.h"
#include "model_inputs.h"
#include "hipinfer/device.h"
#include "hipinfer/npy.h"
#include "hipinfer/session.h"
#include "hipinfer/tensor_proto.h"

namespace hi::cli {
namespace {

// "first run 98.21 ms; steady state 19.10 ms (median of 3 runs)", or the first run alone; with
// how many shapes' kernels were timed (--tune).
std::string run_times(std::vector<double> ms, int64_t shapes_timed) {
  char text[200];
  const std::string timed =
      shapes_timed > 0 ? ", timing the kernels of " + std::to_string(shapes_timed) + " shapes" : std::string();
  if (ms.size() < 2) {
    std::snprintf(text, sizeof text, "run took %.2f ms (the first run, which also makes the kernels%s)",
                  ms.empty() ? 0.0 : ms.front(), timed.c_str());
    return text;
  }
  const LatencySummary rest = summarize(std::vector<double>(ms.begin() + 1, ms.end()));
  std::snprintf(text, sizeof text, "first run %.2f ms%s; steady state %.2f ms (median of %d %s)", ms.front(),
                timed.c_str(), rest.median_ms, rest.runs, rest.runs == 1 ? "run" : "runs");
  return text;
}

// Characters that are unsafe in file names become '_'.
std::string safe_file_name(const std::string& name) {
  std::string s = name.empty() ? "output" : name;
  for (char& c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) c = '_';
  if (s == "." || s == "..") s = "_";
  return s;
}

void print_summary(const std::string& name, const Tensor& t) {
  std::printf("  %-28s %-22s", printable(name).c_str(), t.type_string().c_str());
  if (t.dtype() == DType::kString || t.numel() == 0) {
    std::printf("\n");
    return;
  }
  double lo = INFINITY, hi = -INFINITY, sum = 0;
  int64_t nonfinite = 0;
  for (int64_t i = 0; i < t.numel(); ++i) {
    const double v = t.as_double(i);
    if (!std::isfinite(v)) {
      ++nonfinite;
      continue;
    }
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    sum += v;
  }
  const int64_t finite = t.numel() - nonfinite;
  std::printf(" min %-11.5g max %-11.5g mean %-11.5g", lo, hi, finite ? sum / static_cast<double>(finite) : NAN);
  if (nonfinite) std::printf(" (%lld non-finite)", static_cast<long long>(nonfinite));
  std::printf("\n");
}

// Top-k classes of the first row of a [.., classes] output, as softmax probabilities.
void print_top_k(const std::string& name, const Tensor& t, int64_t k) {
  if (t.rank() < 1 || t.numel() == 0 || !dtype_is_float(t.dtype())) return;
  const int64_t classes = t.dim(t.rank() - 1);
  std::vector<std::pair<double, int64_t>> scores;
  double max_logit = -INFINITY;
  for (int64_t i = 0; i < classes; ++i) max_logit = std::max(max_logit, t.as_double(i));
  double sum = 0;
  for (int64_t i = 0; i < classes; ++i) sum += std::exp(t.as_double(i) - max_logit);
  for (int64_t i = 0; i < classes; ++i) scores.emplace_back(std::exp(t.as_double(i) - max_logit) / sum, i);
  k = std::min(k, classes);
  std::partial_sort(scores.begin(), scores.begin() + k, scores.end(),
                    [](auto& a, auto& b) { return a.first > b.first; });
  std::printf("top-%lld of '%s' (first item):\n", static_cast<long long>(k), name.c_str());
  for (int64_t i = 0; i < k; ++i)
    std::printf("  %2lld. class %-6lld p = %.4f  (logit %.4f)\n", static_cast<long long>(i + 1),
                static_cast<long long>(scores[static_cast<size_t>(i)].second), scores[static_cast<size_t>(i)].first,
                t.as_double(scores[static_cast<size_t>(i)].second));
}

// A map's first entries, "{cat: 0.8, dog: 0.15, ...}".
std::string map_preview(const Map& m) {
  std::string text = "{";
  constexpr int64_t kShown = 5;
  for (int64_t i = 0; i < m.size() && i < kShown; ++i) {
    const std::string key =
        m.keys.dtype() == DType::kString ? printable(m.keys.strings()[i]) : std::to_string(m.keys.as_int64(i));
    const std::string value =
        m.values.dtype() == DType::kString ? printable(m.values.strings()[i]) : str(m.values.as_double(i));
    text += (i ? ", " : "") + key + ": " + value;
  }
  return text + (m.size() > kShown ? ", ...}" : "}");
}

// One output of any kind: a tensor's summary; a sequence's elements; a map's first entries.
void print_value_summary(const std::string& name, const Value& v) {
  switch (v.kind) {
    case Value::Kind::kTensor: print_summary(name, v.tensor); return;
    case Value::Kind::kNone: std::printf("  %-28s (an empty optional)\n", printable(name).c_str()); return;
    case Value::Kind::kSequence:
      std::printf("  %-28s sequence of %zu tensors\n", printable(name).c_str(), v.sequence.size());
      for (size_t i = 0; i < v.sequence.size(); ++i) print_summary(str(name, "[", i, "]"), v.sequence[i]);
      return;
    case Value::Kind::kMap:
    case Value::Kind::kMapSequence:
      std::printf("  %-28s %s\n", printable(name).c_str(), v.describe().c_str());
      for (size_t i = 0; i < v.maps.size() && i < 3; ++i)
        std::printf("    %s%s\n", v.kind == Value::Kind::kMap ? "" : str("[", i, "] ").c_str(),
                    map_preview(v.maps[i]).c_str());
      if (v.maps.size() > 3) std::printf("    ... %zu more\n", v.maps.size() - 3);
      return;
  }
}

}  // namespace

const CommandSpec* cmd_run_spec() {
  static const CommandSpec spec{
      "run",
      "MODEL [options]",
      "Run a model once and summarise (and optionally save) its outputs.",
      "Inputs not given with --input get random values of the right shape and dtype (normal floats;\n"
      "integers in [0, 9], safe as indices). Each output is written as DIR/<output name>.npy, or as an\n"
      "ONNX TensorProto DIR/<output name>.pb with --output-format pb (every element type, float8, int4\n"
      "and float4 included, which .npy cannot hold). Outputs that are not tensors are printed in\n"
      "full form and written only with --output-format pb: a sequence as an ONNX SequenceProto, a map as\n"
      "a MapProto, ZipMap's sequence of maps as a SequenceProto of MapProtos, an empty optional as an\n"
      "OptionalProto (onnx.numpy_helper.to_list / to_dict read them).",
      {{"--input", "-i", "NAME=FILE", "an input from a .npy file (or an ONNX TensorProto .pb file)", true},
       {"--output-dir", "-o", "DIR", "write each output as DIR/<name>.npy (or .pb)"},
       {"--output-format", "", "FORMAT",
        "npy (default) or pb (ONNX TensorProto; SequenceProto, MapProto for other values)"},
       {"--batch", "", "N", "value for symbolic dims of random inputs (default 1)"},
       {"--seed", "", "N", "seed for random inputs (default 0)"},
       {"--repeat", "", "N",
        "run N times, outputs from the last (default: once, then up to 3 more runs within 0.5 s after the\n"
        "outputs, for the steady-state time; 3 exercises GPU graph replay)"},
       {"--threads", "", "N", "intra-op threads (default: physical cores)"},
       {"--timeout", "", "MS", "stop a run that takes longer than MS milliseconds (exit 5)"},
       {"--memory-limit", "", "SIZE", "most host memory the session may hold, e.g. 512M or 2G (exit 5 past it)"},
       {"--opt-level", "", "N", "graph optimisation level 0-3 (default 3)"},
       {"--disable-pass", "", "LIST", "graph passes to skip, comma-separated (e.g. fuse_inverted_residual)"},
       {"--top", "", "K", "print the K most likely classes of the first output (softmax over its last dim)"},
       {"--device", "", "LIST",
        "devices in order of preference: gpu, cuda, hip, emu (the emulated GPU), cpu (default gpu,cpu)"},
       {"--explain", "", "", "print where each node runs and, for every fallback, why"},
       {"--no-graph", "", "", "launch every GPU kernel on every run instead of capturing and replaying a graph"},
       {"--tune", "", "",
        "time the kernel candidates of every new shape (a slower first run) and keep the winners in the kernel\n"
        "cache, which every later session on this CPU reads (default: cached choices, else a rule of thumb)"},
       {"--no-kernel-cache", "", "", "neither read nor write the kernel cache"}},
      1,
      1};
  return &spec;
}

int cmd_run(const Args& args) {
  const std::string path = args.positional()[0];
  auto batch = args.get_int("--batch", 1);
  auto seed = args.get_int("--seed", 0);
  auto threads = args.get_int("--threads", 0);
  auto level = args.get_int("--opt-level", 3);
  auto top = args.get_int("--top", 0);
  auto repeat = args.get_int("--repeat", 1);
  for (const auto* r : {&batch, &seed, &threads, &level, &top, &repeat})
    if (!r->is_ok()) {
      report_error(r->status());
      return kExitUsage;
    }
  if (batch.value() < 1 || level.value() < 0 || level.value() > 3 || threads.value() < 0 || repeat.value() < 1 ||
      repeat.value() > 1000000) {
    std::fprintf(stderr, "hipinfer: --batch must be >= 1, --threads >= 0, --opt-level 0..3, --repeat 1..1000000\n");
    return kExitUsage;
  }
  if (Status s = check_input_specs(args.get_all("--input")); !s.is_ok()) {
    std::fprintf(stderr, "hipinfer: %s\n", s.message().c_str());
    return kExitUsage;
  }
  auto timeout = args.get_double("--timeout", 0);
  auto memory_limit = args.get_bytes("--memory-limit", 0);
  if (!timeout.is_ok() || !memory_limit.is_ok()) {
    report_error(!timeout.is_ok() ? timeout.status() : memory_limit.status());
    return kExitUsage;
  }
  if (!(timeout.value() >= 0)) {
    std::fprintf(stderr, "hipinfer: --timeout must be >= 0 milliseconds\n");
    return kExitUsage;
  }
  RunOptions run_options;
  run_options.timeout_ms = timeout.value();
  SessionOptions options;
  options.memory_limit = memory_limit.value();
  options.threads = static_cast<int>(threads.value());
  options.optimization_level = static_cast<int>(level.value());
  if (args.has("--device")) options.devices = split_commas(args.get("--device"));
  if (args.has("--disable-pass")) options.disabled_passes = split_commas(args.get("--disable-pass"));
  options.gpu_graphs = !args.has("--no-graph");
  options.kernel_tuning = args.has("--tune") ? "time" : "auto";
  options.kernel_cache = !args.has("--no-kernel-cache");
  const auto t0 = std::chrono::steady_clock::now();
  auto session = Session::create(path, options);
  if (!session.is_ok()) return report_error(session.status());
  const double create_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  print_warnings(session.value()->warnings());
  if (args.has("--explain")) std::printf("placement:\n%s", session.value()->placement().table().c_str());

  auto made =
      make_model_inputs(*session.value(), args.get_all("--input"), batch.value(), static_cast<uint64_t>(seed.value()));
  if (!made.is_ok()) return report_error(made.status());
  const TensorMap& inputs = made.value();
  std::printf("inputs:\n");
  for (const auto& [name, t] : inputs) print_summary(name, t);
  RunStats stats;
  ValueMap values;
  for (const auto& [name, t] : inputs) values[name] = Value::of(t);
  Result<ValueMap> outputs = Status::ok();
  std::vector<double> run_ms;
  int64_t shapes_timed = 0;
  auto run_once = [&]() -> Status {
    outputs = session.value()->run_values(values, {}, &stats, &run_options);
    if (!outputs.is_ok()) return outputs.status();
    run_ms.push_back(stats.latency_ms);
    shapes_timed += stats.shapes_timed;
    return Status::ok();
  };
  for (int64_t k = 0; k < repeat.value(); ++k)
    if (Status s = run_once(); !s.is_ok()) return report_error(s);

  const std::string dir = args.get("--output-dir");
  const std::string format = args.has("--output-format") ? args.get("--output-format") : "npy";
  if (format != "npy" && format != "pb") {
    std::fprintf(stderr, "hipinfer: --output-format must be npy or pb, got '%s'\n", format.c_str());
    return kExitUsage;
  }
  if (!dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec)
      return report_error(
          error(StatusCode::kInvalidArgument, "cannot create output directory '", dir, "': ", ec.message()));
  }
  std::printf("outputs:\n");
  std::set<std::string> taken;  // file names: outputs "a/b" and "a_b" must not share one
  for (const auto& info : session.value()->outputs()) {
    const Value& v = outputs.value().at(info.name);
    print_value_summary(info.name, v);
    if (!dir.empty()) {
      const std::string base = safe_file_name(info.name);
      std::string stem = base;
      for (int n = 2; !taken.insert(stem).second; ++n) stem = base + "_" + std::to_string(n);
      const std::string ext = "." + format;
      const std::string file = (std::filesystem::path(dir) / (stem + ext)).string();
      if (format == "npy" && !v.is_tensor())
        return report_error(error(StatusCode::kInvalidArgument, "output '", info.name, "' is ", v.describe(),
                                  "; .npy holds tensors only, --output-format pb writes it"));
      Status s = format == "pb" ? write_value_proto(file, v, info.name) : write_npy(file, v.tensor);
      if (!s.is_ok() && format == "npy" && dtype_is_low_precision(v.tensor.dtype()))
        s = s.with_context(str("output '", info.name, "' (--output-format pb writes it)"));
      if (!s.is_ok()) return report_error(s);
      if (stem != base)
        std::printf("  (written as %s%s: %s%s holds another output)\n", stem.c_str(), ext.c_str(), base.c_str(),
                    ext.c_str());
    }
  }
  if (top.value() > 0 && !session.value()->outputs().empty()) {
    const auto& first = session.value()->outputs().front().name;
    const Value& v = outputs.value().at(first);
    if (v.is_tensor()) print_top_k(first, v.tensor, top.value());
    else
      std::printf("--top: the first output '%s' is %s, not a tensor of scores\n", first.c_str(), v.describe().c_str());
  }
  // The first run still makes kernels; without --repeat a few more runs, after the
  // outputs are out, give the time a caller sees from then on.
  if (!args.has("--repeat")) {
    double extra_ms = 0;
    for (int k = 0; k < 3 && extra_ms < 500; ++k) {
      if (Status s = run_once(); !s.is_ok()) return report_error(s);
      extra_ms += run_ms.back();
    }
  }
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  std::printf("session created in %.1f ms; %s; peak tensor memory %s; process peak RSS %s\n", create_ms,
              run_times(run_ms, shapes_timed).c_str(), human_bytes(static_cast<double>(stats.peak_host_bytes)).c_str(),
              human_bytes(static_cast<double>(ru.ru_maxrss) * 1024).c_str());
  std::printf("placement: %s\n", session.value()->placement().summary().c_str());
  if (const PartitionGraphStats g = session.value()->graph_stats(); g.enabled || g.direct_runs > 0)
    std::printf("gpu %s\n", g.summary().c_str());
  for (const GpuMemoryStats& g : gpu_memory_stats())
    std::printf("%s memory: allocated %s, reserved %s, peak allocated %s\n", g.device.c_str(),
                human_bytes(static_cast<double>(g.allocated_bytes)).c_str(),
                human_bytes(static_cast<double>(g.reserved_bytes)).c_str(),
                human_bytes(static_cast<double>(g.peak_allocated_bytes)).c_str());
  if (!dir.empty()) std::printf("outputs written to %s/\n", dir.c_str());
  return kExitOk;
}

}  // namespace hi::cli
