// `hipinfer devices`: the GPU backends this build has, their runtime and driver versions, and
// every device they see, or why there is none. Exits 0 either way: no GPU is an answer.
#include <cstdio>
#include <string>
#include <vector>

#include "cli.h"
#include "hipinfer/device.h"

namespace hi::cli {

namespace {

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string json_strings(const std::vector<std::string>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + json_string(v[i]);
  return out + "]";
}

std::string to_json(const GpuRuntimeInfo& info) {
  std::string j = "{\n";
  j += "  \"compiled_backends\": " + json_strings(info.compiled_backends) + ",\n";
  j += "  \"runtime_version\": " + json_string(info.runtime_version) + ",\n";
  j += "  \"driver_version\": " + json_string(info.driver_version) + ",\n";
  j += "  \"no_gpu_reason\": " + json_string(info.no_gpu_reason) + ",\n";
  j += "  \"backends\": [";
  for (size_t i = 0; i < info.backends.size(); ++i) {
    const GpuBackendInfo& b = info.backends[i];
    j += std::string(i ? "," : "") + "\n    {\"name\": " + json_string(b.name) +
         ", \"runtime_version\": " + json_string(b.runtime_version) +
         ", \"driver_version\": " + json_string(b.driver_version) +
         ", \"device_count\": " + std::to_string(b.device_count) +
         ", \"no_gpu_reason\": " + json_string(b.no_gpu_reason) + ", \"warnings\": " + json_strings(b.warnings) + "}";
  }
  j += info.backends.empty() ? "],\n" : "\n  ],\n";
  j += "  \"devices\": [";
  for (size_t i = 0; i < info.devices.size(); ++i) {
    const DeviceInfo& d = info.devices[i];
    j += std::string(i ? "," : "") + "\n    {\"backend\": " + json_string(d.backend) +
         ", \"index\": " + std::to_string(d.index) + ", \"name\": " + json_string(d.name) +
         ", \"arch\": " + json_string(d.arch) + ", \"total_memory\": " + std::to_string(d.total_memory) +
         ", \"free_memory\": " + std::to_string(d.free_memory) +
         ", \"multiprocessors\": " + std::to_string(d.multiprocessors) +
         ", \"warp_size\": " + std::to_string(d.warp_size) + ", \"compute_capability\": " +
         json_string(std::to_string(d.compute_major) + "." + std::to_string(d.compute_minor)) +
         ", \"pci_bus_id\": " + json_string(d.pci_bus_id) + "}";
  }
  j += info.devices.empty() ? "]\n" : "\n  ]\n";
  return j + "}\n";
}

void print_text(const GpuRuntimeInfo& info) {
  if (info.compiled_backends.empty()) {
    std::printf("GPU backends: none\nno GPU: %s\n", info.no_gpu_reason.c_str());
    return;
  }
  std::string names;
  for (const auto& n : info.compiled_backends) names += (names.empty() ? "" : ", ") + n;
  std::printf("GPU backends: %s\n", names.c_str());
  for (const GpuBackendInfo& b : info.backends) {
    std::printf("\n%s: runtime %s, driver %s\n", b.name.c_str(),
                b.runtime_version.empty() ? "unknown" : b.runtime_version.c_str(),
                b.driver_version.empty() ? "none" : b.driver_version.c_str());
    for (const DeviceInfo& d : info.devices) {
      if (d.backend != b.name) continue;
      const std::string free_memory =
          d.free_memory >= 0 ? human_bytes(static_cast<double>(d.free_memory)) + " free" : "free unknown";
      std::printf("  [%d] %s  %s  %s (%s)  %d %s, warp %d  PCI %s\n", d.index, d.name.c_str(), d.arch.c_str(),
                  human_bytes(static_cast<double>(d.total_memory)).c_str(), free_memory.c_str(), d.multiprocessors,
                  d.backend == "hip" ? "CUs" : "SMs", d.warp_size, d.pci_bus_id.empty() ? "?" : d.pci_bus_id.c_str());
    }
    if (b.device_count == 0) std::printf("  no GPU: %s\n", b.no_gpu_reason.c_str());
    for (const auto& w : b.warnings) std::printf("  warning: %s\n", w.c_str());
  }
}

}  // namespace

const CommandSpec* cmd_devices_spec() {
  static const CommandSpec spec{
      "devices",
      "[options]",
      "List the GPUs hipinfer can use",
      "Shows the GPU backends this build has (cuda, hip), their runtime and driver versions,\n"
      "and each device they see: name, architecture, memory, compute units, warp size and\n"
      "PCI bus id. Without a usable GPU it says why (no driver, no device, no backend built).\n"
      "Exits 0 in both cases.",
      {{"--json", "", "", "print the same as JSON"}},
      0,
      0};
  return &spec;
}

int cmd_devices(const Args& args) {
  const GpuRuntimeInfo info = query_gpus();
  if (args.has("--json")) {
    std::printf("%s", to_json(info).c_str());
  } else {
    print_text(info);
  }
  return kExitOk;
}

}  // namespace hi::cli
