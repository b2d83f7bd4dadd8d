// The model summary in bug reports: what the file system says, and what `inspect` finds (IR,
// opsets, inputs and outputs, ops, parameters, and whatever stops it from running).
#include "doctor/model_summary.h"

#include <sys/stat.h>

#include "doctor/context.h"
#include "hipinfer/model_info.h"

namespace hi::doctor {

std::string summarize_model(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return "- file: `" + path + "` (**not found**)\n";
  std::string s =
      "- file: `" + path + "`\n- size: " + format_bytes(st.st_size) + " (" + std::to_string(st.st_size) + " bytes)\n";
  auto summary = inspect_model(path);
  if (!summary.is_ok()) return s + "- cannot be read: " + summary.status().message() + "\n";
  const ModelSummary& m = summary.value();
  s += "- producer: " + (m.producer.empty() ? std::string("(not set)") : m.producer) + "\n";
  s += "- IR version: " + std::to_string(m.ir_version) + "; opsets:";
  for (const auto& [domain, v] : m.opsets)
    s += " " + (domain.empty() ? std::string("ai.onnx") : domain) + " " + std::to_string(v);
  s += "\n- nodes: " + std::to_string(m.nodes) + "; parameters: " + std::to_string(m.parameters) + " (" +
       format_bytes(m.parameter_bytes) + ")\n";
  for (const auto& t : m.inputs) s += "- input `" + t.name + "`: " + t.to_string() + "\n";
  for (const auto& t : m.outputs) s += "- output `" + t.name + "`: " + t.to_string() + "\n";
  std::string ops;
  for (const auto& [op, n] : m.op_histogram) ops += (ops.empty() ? "" : ", ") + op + " x" + std::to_string(n);
  s += "- ops: " + ops + "\n";
  for (const auto& u : m.unsupported) s += "- **unsupported**: " + u + "\n";
  if (!m.load_error.empty()) s += "- **cannot run**: " + m.load_error + "\n";
  return s;
}

}  // namespace hi::doctor
