// What `hipinfer bench` measured, and its three renderings: the table, the JSON, the chart title.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "hipinfer/device.h"
#include "bench_accuracy.h"
#include "bench_compare.h"
#include "bench_machine.h"
#include "bench_profile.h"

namespace hi::cli {

struct EngineResult {
  std::string name;   // "hipinfer", "onnxruntime", "openvino", "torch": the JSON key and --compare name
  std::string label;  // "hipinfer", "ONNX Runtime": for people
  std::string version;
  std::string precision;  // what it ran at ("fp32", "bf16"), as the engine reports it
  enum class State { kMeasured, kUnavailable, kFailed } state = State::kMeasured;
  std::string message;       // why it is unavailable or failed
  double create_ms = -1;     // session creation; -1 unknown
  double first_run_ms = -1;  // the first run after creation (the first warm-up run); -1 unknown
  std::vector<double> latencies_ms;
  int64_t peak_rss_bytes = -1;  // the process running it (for a peer: its Python worker)
  // hipinfer only (-1: not applicable).
  int64_t planned_arena_bytes = -1;
  int64_t planned_activation_bytes = -1;  // the sum of the planned tensors the arena holds
  int64_t peak_host_bytes = -1;
  int64_t nodes_executed = -1;
  int64_t reduced_thread_runs = -1;  // timed runs on fewer threads than asked (a busy machine)
  // Peers only: their outputs against hipinfer's.
  std::vector<OutputDiff> output_check;
  std::string output_check_error;  // why the check could not run
};

struct BenchReport {
  std::string hipinfer_version;
  std::string model;
  int64_t batch = 1;
  int threads = 0;
  std::string precision;
  int opt_level = 3;
  std::string placement;                   // PlacementReport::summary() of hipinfer's session
  std::string gpu_graphs;                  // PartitionGraphStats::summary(); empty when nothing ran on a GPU
  std::vector<GpuMemoryStats> gpu_memory;  // after hipinfer's runs; empty when nothing ran on a GPU
  int64_t fallback_nodes = 0;
  int warmup = 0;
  int busy_processes = 0;    // --busy: busy-loop processes running beside the measurement
  int64_t max_runs = 0;      // 0: no limit on runs
  double time_budget_s = 0;  // 0: no time limit
  MachineInfo machine;
  EngineResult hipinfer;
  std::vector<EngineResult> peers;
  Profile profile;                         // --profile; profile.runs 0 without it
  std::optional<AccuracyReport> accuracy;  // reduced precision's guard, when it ran
};

// Did every requested comparison run and every output match?
bool comparisons_ok(const BenchReport& r);

void print_report(std::FILE* out, const BenchReport& r);
// "median 12.3 ms, 81.2 inferences/s (0.83 x ONNX Runtime)": --quiet prints only this.
std::string one_line_summary(const BenchReport& r);
std::string report_json(const BenchReport& r);
// "mobilenetv2.onnx: batch 1, 2 threads, fp32"
std::string chart_title(const BenchReport& r);

}  // namespace hi::cli
