// `hipinfer inspect MODEL`: IR, opsets, inputs/outputs, op histogram, parameters, FLOPs.
#include <algorithm>
#include <cstdio>

#include "cli.h"
#include "hipinfer/model_info.h"
#include "hipinfer/session.h"
#include "model_inputs.h"

namespace hi::cli {

const CommandSpec* cmd_inspect_spec() {
  static const CommandSpec spec{
      "inspect",
      "MODEL [options]",
      "Summarise a model: IR and opsets, inputs and outputs, op histogram, parameters, FLOPs.",
      "Symbolic dims are set to --batch when estimating FLOPs. Ops hipinfer cannot run are listed\n"
      "with their nodes; the exit code is then 3. --plan builds a session and makes its memory plan\n"
      "for --batch: the plan is recorded from one run on random inputs, then printed.",
      {{"--batch", "", "N", "value for symbolic dims in the FLOPs estimate and the memory plan (default 1)"},
       {"--plan", "", "", "also make the static memory plan for --batch and print its arena size"}},
      1,
      1};
  return &spec;
}

namespace {

// The static memory plan for `batch`: one run records the tensors' sizes and lifetimes, the
// second reports the plan it used.
int print_plan(const std::string& model, int64_t batch) {
  auto session = Session::create(model);
  if (!session.is_ok()) return report_error(session.status());
  auto inputs = make_model_inputs(*session.value(), {}, batch, 0);
  if (!inputs.is_ok()) return report_error(inputs.status());
  RunStats stats;
  for (int run = 0; run < 2; ++run) {
    auto r = session.value()->run(inputs.value(), {}, &stats);
    if (!r.is_ok()) return report_error(r.status());
  }
  if (stats.planned_arena_bytes == 0) {
    std::printf("memory plan: none (the graph holds sequences, optionals or subgraphs, or optimisation is off)\n");
    return kExitOk;
  }
  std::printf("memory plan: arena %s for %s of intermediate tensors (%.2fx their sum), batch %lld\n",
              human_bytes(static_cast<double>(stats.planned_arena_bytes)).c_str(),
              human_bytes(static_cast<double>(stats.planned_activation_bytes)).c_str(),
              static_cast<double>(stats.planned_arena_bytes) / static_cast<double>(stats.planned_activation_bytes),
              static_cast<long long>(batch));
  return kExitOk;
}

}  // namespace

int cmd_inspect(const Args& args) {
  InspectOptions options;
  auto batch = args.get_int("--batch", 1);
  if (!batch.is_ok() || batch.value() < 1) {
    std::fprintf(stderr, "hipinfer: --batch must be a positive integer\n");
    return kExitUsage;
  }
  options.batch = batch.value();
  auto r = inspect_model(args.positional()[0], options);
  if (!r.is_ok()) return report_error(r.status());
  const ModelSummary& s = r.value();
  std::printf("model:       %s (%s)\n", printable(s.path).c_str(),
              human_bytes(static_cast<double>(s.file_bytes)).c_str());
  std::printf("producer:    %s\n", s.producer.empty() ? "(not set)" : printable(s.producer).c_str());
  std::printf("IR version:  %lld\n", static_cast<long long>(s.ir_version));
  std::printf("opsets:     ");
  for (const auto& [d, v] : s.opsets)
    std::printf(" %s %lld", d.empty() ? "ai.onnx" : d.c_str(), static_cast<long long>(v));
  std::printf("\n");
  std::printf("inputs:\n");
  for (const auto& t : s.inputs) std::printf("  %-30s %s\n", printable(t.name).c_str(), t.to_string().c_str());
  std::printf("outputs:\n");
  for (const auto& t : s.outputs) std::printf("  %-30s %s\n", printable(t.name).c_str(), t.to_string().c_str());
  std::printf("nodes:       %lld\n", static_cast<long long>(s.nodes));
  std::printf("parameters:  %lld (%s)\n", static_cast<long long>(s.parameters),
              human_bytes(static_cast<double>(s.parameter_bytes)).c_str());
  if (s.flops >= 0)
    std::printf("FLOPs:       %.3f G (batch %lld)\n", static_cast<double>(s.flops) / 1e9,
                static_cast<long long>(options.batch));
  else std::printf("FLOPs:       unknown (shapes depend on input values)\n");
  std::vector<std::pair<int64_t, std::string>> ops;
  for (const auto& [op, n] : s.op_histogram) ops.emplace_back(-n, op);
  std::sort(ops.begin(), ops.end());
  std::printf("ops:\n");
  for (const auto& [n, op] : ops) std::printf("  %-28s %lld\n", printable(op).c_str(), static_cast<long long>(-n));
  if (!s.unsupported.empty()) {
    std::printf("unsupported ops (%zu):\n", s.unsupported.size());
    for (const auto& u : s.unsupported) std::printf("  %s\n", u.c_str());
    return kExitBadModel;
  }
  if (!s.load_error.empty()) {
    std::printf("cannot run: %s\n", s.load_error.c_str());
    return kExitBadModel;
  }
  if (args.has("--plan")) return print_plan(args.positional()[0], options.batch);
  return kExitOk;
}

}  // namespace hi::cli
