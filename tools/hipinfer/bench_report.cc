// The renderings of a bench report; see bench_report.h.
#include "bench_report.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "bench_json.h"
#include "bench_stats.h"
#include "cli.h"

namespace hi::cli {
namespace {

const char* state_name(EngineResult::State s) {
  switch (s) {
    case EngineResult::State::kMeasured: return "measured";
    case EngineResult::State::kUnavailable: return "unavailable";
    case EngineResult::State::kFailed: return "failed";
  }
  return "?";
}

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string bytes_or_dash(int64_t b) { return b < 0 ? "-" : human_bytes(static_cast<double>(b)); }

std::string method_text(const BenchReport& r) {
  std::string limit;
  if (r.max_runs > 0 && r.time_budget_s > 0)
    limit =
        "up to " + std::to_string(r.max_runs) + " runs or " + fmt("%g", r.time_budget_s) + " s, whichever comes first,";
  else if (r.max_runs > 0) limit = std::to_string(r.max_runs) + " runs";
  else limit = fmt("%g", r.time_budget_s) + " s of runs";
  std::string s = std::to_string(r.warmup) + (r.warmup == 1 ? " warm-up run, then " : " warm-up runs, then ") + limit +
                  " per engine";
  if (!r.peers.empty()) s += ", engines alternating in blocks";
  if (r.busy_processes > 0)
    s += ", " + std::to_string(r.busy_processes) +
         (r.busy_processes == 1 ? " busy-loop process" : " busy-loop processes") + " running beside (--busy)";
  return s;
}

// The measured engines, hipinfer first.
std::vector<const EngineResult*> measured(const BenchReport& r) {
  std::vector<const EngineResult*> engines = {&r.hipinfer};
  for (const auto& p : r.peers)
    if (p.state == EngineResult::State::kMeasured && !p.latencies_ms.empty()) engines.push_back(&p);
  return engines;
}

void print_row(std::FILE* out, const std::string& label, const std::vector<std::string>& cells) {
  std::fprintf(out, "  %-28s", label.c_str());
  for (const auto& c : cells) std::fprintf(out, " %22s", c.c_str());
  std::fprintf(out, "\n");
}

void write_engine(JsonWriter& j, const EngineResult& e, long long batch) {
  j.begin_object();
  j.key("name").value(e.name).key("label").value(e.label).key("version").value(e.version);
  j.key("precision").value(e.precision);
  j.key("state").value(state_name(e.state));
  if (!e.message.empty()) j.key("message").value(e.message);
  if (e.state == EngineResult::State::kMeasured) {
    const LatencySummary s = summarize(e.latencies_ms);
    j.key("session_create_ms").value(e.create_ms);
    j.key("first_run_ms").value(e.first_run_ms);
    j.key("runs").value(s.runs).key("total_ms").value(s.total_ms);
    j.key("latency_ms").begin_object();
    j.key("min").value(s.min_ms).key("mean").value(s.mean_ms).key("median").value(s.median_ms);
    j.key("p90").value(s.p90_ms).key("p99").value(s.p99_ms).key("max").value(s.max_ms).key("stddev").value(s.stddev_ms);
    j.end_object();
    j.key("throughput_per_s").value(throughput_per_s(s, batch));
    j.key("peak_rss_bytes").value(e.peak_rss_bytes);
    if (e.planned_arena_bytes >= 0) j.key("planned_arena_bytes").value(e.planned_arena_bytes);
    if (e.planned_activation_bytes >= 0) j.key("planned_activation_bytes").value(e.planned_activation_bytes);
    if (e.peak_host_bytes >= 0) j.key("peak_host_bytes").value(e.peak_host_bytes);
    if (e.nodes_executed >= 0) j.key("nodes_executed").value(e.nodes_executed);
    if (e.reduced_thread_runs >= 0) j.key("reduced_thread_runs").value(e.reduced_thread_runs);
    j.key("latencies_ms").value(e.latencies_ms);
  }
  j.end_object();
}

}  // namespace

bool comparisons_ok(const BenchReport& r) {
  for (const auto& p : r.peers) {
    if (p.state == EngineResult::State::kFailed || !p.output_check_error.empty()) return false;
    for (const auto& d : p.output_check)
      if (!d.match) return false;
  }
  return true;
}

std::string chart_title(const BenchReport& r) {
  return std::filesystem::path(r.model).filename().string() + ": batch " + std::to_string(r.batch) + ", " +
         std::to_string(r.threads) + (r.threads == 1 ? " thread, " : " threads, ") + r.precision + ", " +
         r.machine.cpu_model;
}

// The device work of the timed runs: GPU activity per run (when a GPU ran anything) and the
// tensor traffic, heaviest nodes first.
static void print_work(std::FILE* out, const Profile& p) {
  if (p.work_runs == 0) return;
  const GpuActivity& g = p.gpu_total;
  const double n = static_cast<double>(p.work_runs);
  if (g.kernel_launches + g.graph_launches + g.host_syncs + g.allocator_requests + g.device_allocations > 0)
    std::fprintf(out,
                 "  gpu per run: %.1f kernel launches, %.1f graph launches, %.1f host synchronisations, "
                 "%.1f device allocations, %.1f allocator requests\n",
                 static_cast<double>(g.kernel_launches) / n, static_cast<double>(g.graph_launches) / n,
                 static_cast<double>(g.host_syncs) / n, static_cast<double>(g.device_allocations) / n,
                 static_cast<double>(g.allocator_requests) / n);
  int64_t read = 0, written = 0;
  for (const NodeTraffic& t : p.traffic) {
    read += t.bytes_read;
    written += t.bytes_written;
  }
  std::fprintf(out, "  tensor traffic per run: %s read, %s written by %zu nodes; heaviest (every node in --json):\n",
               human_bytes(static_cast<double>(read)).c_str(), human_bytes(static_cast<double>(written)).c_str(),
               p.traffic.size());
  std::vector<const NodeTraffic*> heavy;
  for (const NodeTraffic& t : p.traffic) heavy.push_back(&t);
  std::sort(heavy.begin(), heavy.end(), [](const NodeTraffic* a, const NodeTraffic* b) {
    return a->bytes_read + a->bytes_written > b->bytes_read + b->bytes_written;
  });
  for (size_t i = 0; i < std::min<size_t>(10, heavy.size()); ++i)
    std::fprintf(out, "  %10s read %10s written  %s (%s) on %s\n",
                 human_bytes(static_cast<double>(heavy[i]->bytes_read)).c_str(),
                 human_bytes(static_cast<double>(heavy[i]->bytes_written)).c_str(), heavy[i]->node.c_str(),
                 heavy[i]->op_type.c_str(), heavy[i]->device.c_str());
}

static void print_profile(std::FILE* out, const BenchReport& r) {
  const Profile& p = r.profile;
  if (p.runs == 0) return;
  const LatencySummary ours = summarize(r.hipinfer.latencies_ms);
  std::fprintf(out,
               "\nprofile over %lld timed runs: nodes %.3f ms per run of a %.3f ms mean run (the rest is overhead)\n",
               static_cast<long long>(p.runs), p.node_ms_per_run, ours.mean_ms);
  std::fprintf(out, "  %-34s %6s %12s %7s\n", "op type", "nodes", "ms per run", "share");
  for (const OpTime& o : p.ops)
    std::fprintf(out, "  %-34s %6lld %12.4f %6.1f%%\n", o.op_type.c_str(), static_cast<long long>(o.nodes),
                 o.ms_per_run, 100 * o.share);
  std::fprintf(out, "  slowest nodes (every node in --json):\n");
  for (size_t i = 0; i < std::min<size_t>(10, p.nodes.size()); ++i) {
    const NodeTimeSummary& n = p.nodes[i];
    std::fprintf(out, "  %9.4f ms %6.1f%%  %s (%s%s%s)\n", n.ms_per_run, 100 * n.share, n.node.c_str(),
                 n.op_type.c_str(), n.kernel.empty() ? "" : ": ", n.kernel.c_str());
  }
  print_work(out, p);
}

void print_report(std::FILE* out, const BenchReport& r) {
  std::fprintf(out, "hipinfer bench  %s\n", r.model.c_str());
  std::fprintf(out, "  machine    %s, %d logical CPUs, %d physical cores\n", r.machine.cpu_model.c_str(),
               r.machine.logical_cpus, r.machine.physical_cores);
  std::fprintf(out, "  settings   batch %lld, %d threads, precision %s, opt level %d\n",
               static_cast<long long>(r.batch), r.threads, r.precision.c_str(), r.opt_level);
  if (!r.placement.empty()) std::fprintf(out, "  placement  %s\n", r.placement.c_str());
  if (!r.gpu_graphs.empty()) std::fprintf(out, "  gpu        %s\n", r.gpu_graphs.c_str());
  for (const GpuMemoryStats& g : r.gpu_memory)
    std::fprintf(out, "  %s  allocated %s, reserved %s, peak allocated %s (after the runs)\n", g.device.c_str(),
                 human_bytes(static_cast<double>(g.allocated_bytes)).c_str(),
                 human_bytes(static_cast<double>(g.reserved_bytes)).c_str(),
                 human_bytes(static_cast<double>(g.peak_allocated_bytes)).c_str());
  std::fprintf(out, "  method     %s\n", method_text(r).c_str());
  if (r.hipinfer.reduced_thread_runs > 0)
    std::fprintf(out,
                 "  threads    hipinfer ran %lld of its %zu timed runs on fewer threads (other processes took cores)\n",
                 static_cast<long long>(r.hipinfer.reduced_thread_runs), r.hipinfer.latencies_ms.size());
  std::fprintf(out, "\n");

  const auto engines = measured(r);
  std::vector<std::string> header;
  for (const auto* e : engines) header.push_back(e->label + (e->version.empty() ? "" : " " + e->version));
  print_row(out, "", header);
  auto row = [&](const std::string& label, auto cell) {
    std::vector<std::string> cells;
    for (const auto* e : engines) cells.push_back(cell(*e, summarize(e->latencies_ms)));
    print_row(out, label, cells);
  };
  row("precision", [](const EngineResult& e, const LatencySummary&) { return e.precision; });
  row("session creation (ms)",
      [](const EngineResult& e, const LatencySummary&) { return e.create_ms < 0 ? "-" : fmt("%.1f", e.create_ms); });
  row("first run (ms)", [](const EngineResult& e, const LatencySummary&) {
    return e.first_run_ms < 0 ? "-" : fmt("%.1f", e.first_run_ms);
  });
  row("runs", [](const EngineResult&, const LatencySummary& s) { return std::to_string(s.runs); });
  row("latency min (ms)", [](const EngineResult&, const LatencySummary& s) { return fmt("%.3f", s.min_ms); });
  row("latency mean (ms)", [](const EngineResult&, const LatencySummary& s) { return fmt("%.3f", s.mean_ms); });
  row("latency median (ms)", [](const EngineResult&, const LatencySummary& s) { return fmt("%.3f", s.median_ms); });
  row("latency p90 (ms)", [](const EngineResult&, const LatencySummary& s) { return fmt("%.3f", s.p90_ms); });
  row("latency p99 (ms)", [](const EngineResult&, const LatencySummary& s) { return fmt("%.3f", s.p99_ms); });
  row("latency max (ms)", [](const EngineResult&, const LatencySummary& s) { return fmt("%.3f", s.max_ms); });
  row("latency std. dev. (ms)", [](const EngineResult&, const LatencySummary& s) { return fmt("%.3f", s.stddev_ms); });
  const long long batch = r.batch;
  row("throughput (inferences/s)",
      [batch](const EngineResult&, const LatencySummary& s) { return fmt("%.2f", throughput_per_s(s, batch)); });
  row("planned arena", [](const EngineResult& e, const LatencySummary&) {
    return e.planned_arena_bytes == 0 ? std::string("none") : bytes_or_dash(e.planned_arena_bytes);
  });
  row("planned tensors (sum)", [](const EngineResult& e, const LatencySummary&) {
    return e.planned_activation_bytes <= 0 ? std::string("-") : bytes_or_dash(e.planned_activation_bytes);
  });
  row("peak tensor memory",
      [](const EngineResult& e, const LatencySummary&) { return bytes_or_dash(e.peak_host_bytes); });
  row("process peak RSS", [](const EngineResult& e, const LatencySummary&) { return bytes_or_dash(e.peak_rss_bytes); });

  const LatencySummary ours = summarize(r.hipinfer.latencies_ms);
  for (const auto& p : r.peers) {
    std::fprintf(out, "\n");
    if (p.state != EngineResult::State::kMeasured) {
      std::fprintf(out, "  %s: %s: %s\n", p.label.c_str(),
                   p.state == EngineResult::State::kFailed ? "FAILED" : "not compared", p.message.c_str());
      continue;
    }
    const LatencySummary theirs = summarize(p.latencies_ms);
    std::fprintf(out, "  median latency   %.2f x %s  (hipinfer's median over %s's; below 1: hipinfer is faster)\n",
                 theirs.median_ms > 0 ? ours.median_ms / theirs.median_ms : NAN, p.label.c_str(), p.label.c_str());
    const double their_tp = throughput_per_s(theirs, r.batch);
    std::fprintf(out, "  throughput       %.2f x %s  (above 1: hipinfer is faster)\n",
                 their_tp > 0 ? throughput_per_s(ours, r.batch) / their_tp : NAN, p.label.c_str());
    if (p.peak_rss_bytes >= 0)
      std::fprintf(out, "  (%s's peak RSS is its Python worker's, the interpreter and numpy included)\n",
                   p.label.c_str());
    if (!p.output_check_error.empty()) {
      std::fprintf(out, "  output check against %s FAILED: %s\n", p.label.c_str(), p.output_check_error.c_str());
      continue;
    }
    std::fprintf(out, "  outputs against %s (max rel is relative to the largest |value| of %s's output; allowed %g):\n",
                 p.label.c_str(), p.label.c_str(), output_tolerance(r.precision));
    for (const auto& d : p.output_check) {
      if (!d.problem.empty()) {
        std::fprintf(out, "    %-28s MISMATCH: %s\n", d.name.c_str(), d.problem.c_str());
        continue;
      }
      std::fprintf(out, "    %-28s max abs %-10.3g max rel %-10.3g %s", d.name.c_str(), d.max_abs_error,
                   d.max_rel_error, d.match ? "ok" : "MISMATCH");
      if (d.nonfinite_mismatches)
        std::fprintf(out, " (%lld NaN/Inf differ)", static_cast<long long>(d.nonfinite_mismatches));
      std::fprintf(out, "\n");
    }
  }
  print_profile(out, r);
}

std::string one_line_summary(const BenchReport& r) {
  const LatencySummary ours = summarize(r.hipinfer.latencies_ms);
  std::string s = "median " + fmt("%.3f", ours.median_ms) + " ms, p99 " + fmt("%.3f", ours.p99_ms) + " ms, " +
                  fmt("%.2f", throughput_per_s(ours, r.batch)) + " inferences/s over " + std::to_string(ours.runs) +
                  " runs";
  for (const auto& p : r.peers) {
    if (p.state != EngineResult::State::kMeasured) continue;
    const LatencySummary theirs = summarize(p.latencies_ms);
    if (theirs.median_ms > 0)
      s += "; median " + fmt("%.2f", ours.median_ms / theirs.median_ms) + " x " + p.label + " " + p.precision;
  }
  for (const GpuMemoryStats& g : r.gpu_memory)
    s += "; " + g.device + " peak allocated " + human_bytes(static_cast<double>(g.peak_allocated_bytes)) +
         ", reserved " + human_bytes(static_cast<double>(g.reserved_bytes));
  if (!r.gpu_graphs.empty()) s += "; " + r.gpu_graphs;
  return s;
}

std::string report_json(const BenchReport& r) {
  JsonWriter j;
  j.begin_object();
  j.key("hipinfer_version").value(r.hipinfer_version);
  j.key("model").value(r.model);
  j.key("batch").value(r.batch).key("threads").value(r.threads).key("precision").value(r.precision);
  j.key("opt_level").value(r.opt_level).key("warmup_runs").value(r.warmup);
  j.key("busy_processes").value(r.busy_processes);
  j.key("placement").value(r.placement).key("fallback_nodes").value(r.fallback_nodes);
  j.key("gpu_graphs").value(r.gpu_graphs);
  j.key("gpu_memory").begin_array();
  for (const GpuMemoryStats& g : r.gpu_memory) {
    j.begin_object().key("device").value(g.device).key("allocated_bytes").value(g.allocated_bytes);
    j.key("reserved_bytes").value(g.reserved_bytes).key("peak_allocated_bytes").value(g.peak_allocated_bytes);
    j.key("peak_reserved_bytes").value(g.peak_reserved_bytes).key("device_allocations").value(g.device_allocations);
    j.end_object();
  }
  j.end_array();
  j.key("max_runs");
  if (r.max_runs > 0) j.value(r.max_runs);
  else j.null();
  j.key("time_budget_s");
  if (r.time_budget_s > 0) j.value(r.time_budget_s);
  else j.null();
  j.key("machine").begin_object();
  j.key("cpu_model").value(r.machine.cpu_model).key("logical_cpus").value(r.machine.logical_cpus);
  j.key("physical_cores").value(r.machine.physical_cores).end_object();
  j.key("hipinfer");
  write_engine(j, r.hipinfer, r.batch);
  j.key("peers").begin_array();
  const LatencySummary ours = summarize(r.hipinfer.latencies_ms);
  for (const auto& p : r.peers) {
    write_engine(j, p, r.batch);
  }
  j.end_array();
  // Ratios and output checks per measured peer, keyed by its name.
  j.key("comparisons").begin_object();
  for (const auto& p : r.peers) {
    if (p.state != EngineResult::State::kMeasured) continue;
    const LatencySummary theirs = summarize(p.latencies_ms);
    j.key(p.name).begin_object();
    j.key("median_latency_ratio").value(theirs.median_ms > 0 ? ours.median_ms / theirs.median_ms : NAN);
    const double their_tp = throughput_per_s(theirs, r.batch);
    j.key("throughput_ratio").value(their_tp > 0 ? throughput_per_s(ours, r.batch) / their_tp : NAN);
    j.key("tolerance").value(output_tolerance(r.precision));
    if (!p.output_check_error.empty()) j.key("output_check_error").value(p.output_check_error);
    j.key("outputs").begin_array();
    for (const auto& d : p.output_check) {
      j.begin_object().key("name").value(d.name).key("match").value(d.match);
      if (!d.problem.empty()) j.key("problem").value(d.problem);
      j.key("elements").value(d.elements).key("max_abs_error").value(d.max_abs_error);
      j.key("max_rel_error").value(d.max_rel_error).key("nonfinite_mismatches").value(d.nonfinite_mismatches);
      j.end_object();
    }
    j.end_array();
    j.end_object();
  }
  j.end_object();
  if (r.profile.runs > 0) {
    j.key("profile").begin_object().key("runs").value(r.profile.runs);
    j.key("node_ms_per_run").value(r.profile.node_ms_per_run).key("ops").begin_array();
    for (const OpTime& o : r.profile.ops)
      j.begin_object()
          .key("op_type")
          .value(o.op_type)
          .key("nodes")
          .value(o.nodes)
          .key("ms_per_run")
          .value(o.ms_per_run)
          .key("share")
          .value(o.share)
          .end_object();
    j.end_array().key("nodes").begin_array();  // every node, slowest first
    for (const NodeTimeSummary& n : r.profile.nodes)
      j.begin_object()
          .key("node")
          .value(n.node)
          .key("op_type")
          .value(n.op_type)
          .key("kernel")
          .value(n.kernel)
          .key("ms_per_run")
          .value(n.ms_per_run)
          .key("share")
          .value(n.share)
          .end_object();
    j.end_array();
    if (r.profile.work_runs > 0) {
      const GpuActivity& g = r.profile.gpu_total;
      const double n = static_cast<double>(r.profile.work_runs);
      j.key("gpu_per_run").begin_object().key("kernel_launches").value(static_cast<double>(g.kernel_launches) / n);
      j.key("graph_launches").value(static_cast<double>(g.graph_launches) / n);
      j.key("host_syncs").value(static_cast<double>(g.host_syncs) / n);
      j.key("device_allocations").value(static_cast<double>(g.device_allocations) / n);
      j.key("allocator_requests").value(static_cast<double>(g.allocator_requests) / n).end_object();
      j.key("traffic").begin_array();  // one run's, in execution order
      for (const NodeTraffic& t : r.profile.traffic)
        j.begin_object()
            .key("node")
            .value(t.node)
            .key("op_type")
            .value(t.op_type)
            .key("device")
            .value(t.device)
            .key("bytes_read")
            .value(t.bytes_read)
            .key("bytes_written")
            .value(t.bytes_written)
            .end_object();
      j.end_array();
    }
    j.end_object();
  }
  if (r.accuracy) {
    j.key("accuracy").begin_object().key("precision").value(r.precision).key("samples").value(r.accuracy->samples);
    j.key("outputs").begin_array();
    for (const OutputAccuracy& a : r.accuracy->outputs) {
      j.begin_object().key("name").value(a.name).key("max_abs_error").value(a.max_abs_error);
      j.key("max_rel_error").value(a.max_rel_error);
      if (a.rows > 0) j.key("rows").value(a.rows).key("top1_agree").value(a.top1_agree);
      if (!a.leads.empty()) {
        j.key("median_top1_lead_sd").value(median_lead(a)).key("clear_lead_sd").value(OutputAccuracy::kClearLead);
        j.key("clear_rows").value(a.clear_rows).key("clear_top1_agree").value(a.clear_agree);
      }
      j.end_object();
    }
    j.end_array().end_object();
  }
  j.key("ok").value(comparisons_ok(r));
  j.end_object();
  return j.str();
}

}  // namespace hi::cli
