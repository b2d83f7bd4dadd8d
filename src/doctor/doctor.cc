// run_doctor(): runs the check families in order, and renders the result as text or JSON.
#include <unistd.h>

#include <algorithm>

#include "doctor/context.h"

extern char** environ;

namespace hi::doctor {

const char* level_name(Level level) {
  switch (level) {
    case Level::kOk: return "ok";
    case Level::kWarning: return "warning";
    case Level::kError: return "error";
  }
  return "?";
}

bool DoctorResult::has_errors() const { return count(Level::kError) > 0; }

int DoctorResult::count(Level level) const {
  return static_cast<int>(
      std::count_if(findings.begin(), findings.end(), [&](const Finding& f) { return f.level == level; }));
}

std::map<std::string, std::string> environment_from_process() {
  std::map<std::string, std::string> env;
  for (char** e = environ; e && *e; ++e) {
    const std::string kv = *e;
    const auto eq = kv.find('=');
    if (eq != std::string::npos) env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  return env;
}

DoctorResult run_doctor(const DoctorOptions& options) {
  DoctorResult result;
  const Context ctx(options);
  Sink sink{result.facts, result.findings};
  // Order matters: the GPU list and the libraries found feed the later families.
  check_system(ctx, sink);
  check_gpus(ctx, sink);
  check_pcie(ctx, sink);
  check_permissions(ctx, sink);
  check_environment(ctx, sink);
  check_libraries(ctx, sink);
  check_frameworks(ctx, sink);
  check_elf_versions(ctx, sink);
  check_compat(ctx, sink);
  return result;
}

namespace {

std::string json_strings(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + json_quote(items[i]);
  return out + "]";
}

std::string json_component(const Component& c) {
  return "{\"name\": " + json_quote(c.name) + ", \"version\": " + json_quote(c.version) +
         ", \"path\": " + json_quote(c.path) + ", \"built_for\": " + json_quote(c.built_for) +
         ", \"cudnn\": " + json_quote(c.cudnn) + ", \"archs\": " + json_strings(c.archs) + "}";
}

template <typename T, typename F>
std::string json_list(const std::vector<T>& items, F&& one, const std::string& indent) {
  if (items.empty()) return "[]";
  std::string out = "[\n";
  for (size_t i = 0; i < items.size(); ++i)
    out += indent + "  " + one(items[i]) + (i + 1 < items.size() ? ",\n" : "\n");
  return out + indent + "]";
}

}  // namespace

std::string to_json(const DoctorResult& r) {
  const SystemFacts& f = r.facts;
  auto q = json_quote;
  std::string s = "{\n  \"errors\": " + std::to_string(r.count(Level::kError)) +
                  ",\n  \"warnings\": " + std::to_string(r.count(Level::kWarning)) + ",\n";
  s += "  \"findings\": " +
       json_list(
           r.findings,
           [&](const Finding& x) {
             return "{\"id\": " + q(x.id) + ", \"level\": " + q(level_name(x.level)) + ", \"title\": " + q(x.title) +
                    ", \"detail\": " + q(x.detail) + ", \"fix\": " + q(x.fix) + "}";
           },
           "  ") +
       ",\n";
  s += "  \"system\": {\n";
  s += "    \"os\": " + q(f.os) + ", \"kernel\": " + q(f.kernel) + ",\n";
  s += "    \"cpu\": {\"model\": " + q(f.cpu_model) + ", \"logical\": " + std::to_string(f.cpu_logical) +
       ", \"features\": " + json_strings(f.cpu_features) + "},\n";
  s += "    \"host_memory\": {\"total\": " + std::to_string(f.host_memory_total) +
       ", \"available\": " + std::to_string(f.host_memory_available) + "},\n";
  s += "    \"rocm\": " + q(f.rocm_version) + ", \"cuda_toolkit\": " + q(f.cuda_toolkit_version) +
       ", \"amdgpu_driver\": " + q(f.amdgpu_driver) + ", \"nvidia_driver\": " + q(f.nvidia_driver) + ",\n";
  s += "    \"hipinfer_runtime\": " + q(f.hipinfer_runtime) +
       ", \"hipinfer_backends\": " + json_strings(f.hipinfer_backends) + ",\n";
  s += "    \"gpus\": " +
       json_list(
           f.gpus,
           [&](const GpuFacts& g) {
             return "{\"vendor\": " + q(g.vendor) + ", \"name\": " + q(g.name) + ", \"arch\": " + q(g.arch) +
                    ", \"pci_bus_id\": " + q(g.pci_bus_id) + ", \"memory_total\": " + std::to_string(g.memory_total) +
                    ", \"memory_used\": " + std::to_string(g.memory_used) + ", \"render_node\": " + q(g.render_node) +
                    ", \"link_width\": " + std::to_string(g.link_width) +
                    ", \"link_width_max\": " + std::to_string(g.link_width_max) +
                    ", \"link_speed\": " + q(g.link_speed) + ", \"link_speed_max\": " + q(g.link_speed_max) +
                    ", \"sources\": " + json_strings(g.sources) + "}";
           },
           "    ") +
       ",\n";
  s += "    \"libraries\": " + json_list(f.libraries, json_component, "    ") + ",\n";
  s += "    \"frameworks\": " + json_list(f.frameworks, json_component, "    ") + ",\n";
  s += "    \"python\": " + q(f.python) + ", \"libstdcxx\": " + q(f.libstdcxx) +
       ", \"compat_matrix_checked\": " + q(f.compat_matrix_checked) + "\n";
  return s + "  }\n}\n";
}

std::string format_text(const DoctorResult& r, bool color) {
  auto paint = [&](const char* code, const std::string& text) {
    return color ? "\033[" + std::string(code) + "m" + text + "\033[0m" : text;
  };
  const SystemFacts& f = r.facts;
  std::string s = paint("1", "hipinfer doctor") + "\n";
  auto line = [&](const std::string& label, const std::string& value) {
    if (!value.empty()) s += "  " + label + std::string(10 - std::min<size_t>(label.size(), 9), ' ') + value + "\n";
  };
  line("system", f.os + (f.kernel.empty() ? "" : ", Linux " + f.kernel));
  line("cpu", f.cpu_model + (f.cpu_logical ? ", " + std::to_string(f.cpu_logical) + " logical CPUs" : "") +
                  (f.cpu_features.empty() ? "" : "; " + join(f.cpu_features, " ")));
  line("gpus", f.gpus.empty() ? "none" : std::to_string(f.gpus.size()));
  line("rocm", f.rocm_version);
  line("cuda", f.cuda_toolkit_version);
  line("driver", !f.nvidia_driver.empty()  ? "NVIDIA " + f.nvidia_driver
                 : f.amdgpu_driver.empty() ? ""
                                           : "amdgpu " + f.amdgpu_driver);
  line("runtime", f.hipinfer_runtime.empty() ? "hipinfer built without a GPU backend" : f.hipinfer_runtime);
  s += "\n";
  for (const auto& x : r.findings) {
    const std::string tag = x.level == Level::kOk        ? paint("32", "  ok ")
                            : x.level == Level::kWarning ? paint("33", " warn")
                                                         : paint("31;1", "ERROR");
    s += tag + "  " + x.title + paint("2", "  [" + x.id + "]") + "\n";
    if (!x.detail.empty() && x.level != Level::kOk) s += "       why: " + x.detail + "\n";
    else if (!x.detail.empty()) s += paint("2", "       " + x.detail) + "\n";
    if (!x.fix.empty()) s += "       fix: " + paint("1", x.fix) + "\n";
  }
  const int e = r.count(Level::kError), w = r.count(Level::kWarning);
  s += "\n" + std::to_string(r.count(Level::kOk)) + " ok, " + std::to_string(w) +
       (w == 1 ? " warning, " : " warnings, ") + std::to_string(e) + (e == 1 ? " error" : " errors") +
       (f.compat_matrix_checked.empty() ? "" : " (compatibility matrix checked " + f.compat_matrix_checked + ")") +
       "\n";
  return s;
}

}  // namespace hi::doctor
