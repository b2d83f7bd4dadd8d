// `hipinfer inspect MODEL`: IR, opsets, inputs/outputs, op histogram, parameters, FLOPs.
#include <algorithm>
#include <cstdio>

#include "cli.h"
#include "hipinfer/model_info.h"

namespace hi::cli {

const CommandSpec* cmd_inspect_spec() {
  static const CommandSpec spec{
      "inspect",
      "MODEL [options]",
      "Summarise a model: IR and opsets, inputs and outputs, op histogram, parameters, FLOPs.",
      "Symbolic dims are set to --batch when estimating FLOPs. Ops hipinfer cannot run are listed\n"
      "with their nodes; the exit code is then 3.",
      {{"--batch", "", "N", "value for symbolic dims in the FLOPs estimate (default 1)"}},
      1,
      1};
  return &spec;
}

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
  std::printf("model:       %s (%s)\n", s.path.c_str(), human_bytes(static_cast<double>(s.file_bytes)).c_str());
  std::printf("producer:    %s\n", s.producer.empty() ? "(not set)" : s.producer.c_str());
  std::printf("IR version:  %lld\n", static_cast<long long>(s.ir_version));
  std::printf("opsets:     ");
  for (const auto& [d, v] : s.opsets) std::printf(" %s %lld", d.empty() ? "ai.onnx" : d.c_str(), static_cast<long long>(v));
  std::printf("\n");
  std::printf("inputs:\n");
  for (const auto& t : s.inputs) std::printf("  %-30s %s\n", t.name.c_str(), t.to_string().c_str());
  std::printf("outputs:\n");
  for (const auto& t : s.outputs) std::printf("  %-30s %s\n", t.name.c_str(), t.to_string().c_str());
  std::printf("nodes:       %lld\n", static_cast<long long>(s.nodes));
  std::printf("parameters:  %lld (%s)\n", static_cast<long long>(s.parameters),
              human_bytes(static_cast<double>(s.parameter_bytes)).c_str());
  if (s.flops >= 0)
    std::printf("FLOPs:       %.3f G (batch %lld)\n", static_cast<double>(s.flops) / 1e9, static_cast<long long>(options.batch));
  else
    std::printf("FLOPs:       unknown (shapes depend on input values)\n");
  std::vector<std::pair<int64_t, std::string>> ops;
  for (const auto& [op, n] : s.op_histogram) ops.emplace_back(-n, op);
  std::sort(ops.begin(), ops.end());
  std::printf("ops:\n");
  for (const auto& [n, op] : ops) std::printf("  %-28s %lld\n", op.c_str(), static_cast<long long>(-n));
  if (!s.unsupported.empty()) {
    std::printf("unsupported ops (%zu):\n", s.unsupported.size());
    for (const auto& u : s.unsupported) std::printf("  %s\n", u.c_str());
    return kExitBadModel;
  }
  if (!s.load_error.empty()) {
    std::printf("cannot run: %s\n", s.load_error.c_str());
    return kExitBadModel;
  }
  return kExitOk;
}

}  // namespace hi::cli
