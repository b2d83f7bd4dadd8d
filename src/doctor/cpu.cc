// The host: OS and kernel, the CPU and the instruction sets hipinfer's CPU backend uses
// (/proc/cpuinfo), and host memory (/proc/meminfo).
#include <algorithm>
#include <set>

#include "doctor/context.h"

namespace hi::doctor {
namespace {

// cpuinfo flag -> the name users know. Order is the order shown.
struct IsaFlag {
  const char* flag;
  const char* name;
};
constexpr IsaFlag kX86Flags[] = {
    {"avx2", "AVX2"},
    {"fma", "FMA"},
    {"f16c", "F16C"},
    {"avx_vnni", "AVX-VNNI"},
    {"avx512f", "AVX-512F"},
    {"avx512bw", "AVX-512BW"},
    {"avx512vl", "AVX-512VL"},
    {"avx512_vnni", "AVX512_VNNI"},
    {"avx512_bf16", "AVX512_BF16"},
    {"avx512_fp16", "AVX512_FP16"},
    {"amx_tile", "AMX-TILE"},
    {"amx_bf16", "AMX-BF16"},
    {"amx_int8", "AMX-INT8"},
};
constexpr IsaFlag kArmFlags[] = {
    {"asimd", "NEON"}, {"asimdhp", "FP16"}, {"asimddp", "DOTPROD"}, {"i8mm", "I8MM"},
    {"bf16", "BF16"},  {"sve", "SVE"},      {"sve2", "SVE2"},
};

int64_t meminfo_bytes(const std::string& meminfo, const std::string& key) {
  const std::string v = field(meminfo, key);  // "16384000 kB"
  return v.empty() ? 0 : std::stoll(v) * 1024;
}

void check_cpu(const Context& ctx, Sink& sink) {
  const std::string cpuinfo = ctx.read("/proc/cpuinfo").value_or("");
  if (cpuinfo.empty()) {
    sink.warn("cpu.unreadable", "Could not read /proc/cpuinfo",
              "The CPU's instruction sets are unknown, so the CPU backend's kernels cannot be predicted.");
    return;
  }
  auto& f = sink.facts;
  int logical = 0;
  std::set<std::string> flags;
  for (const auto& line : split(cpuinfo, '\n')) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = trim(line.substr(0, colon)), value = trim(line.substr(colon + 1));
    if (key == "processor") ++logical;
    if ((key == "model name" || key == "Model name") && f.cpu_model.empty()) f.cpu_model = value;
    if ((key == "flags" || key == "Features") && flags.empty())
      for (const auto& fl : split(value, ' ')) flags.insert(fl);
  }
  if (f.cpu_model.empty()) f.cpu_model = field(cpuinfo, "CPU part");  // Arm without a model name
  f.cpu_logical = logical;
  const bool x86 = flags.count("sse2") > 0;
  for (const auto& isa : x86 ? std::vector<IsaFlag>(std::begin(kX86Flags), std::end(kX86Flags))
                             : std::vector<IsaFlag>(std::begin(kArmFlags), std::end(kArmFlags)))
    if (flags.count(isa.flag)) f.cpu_features.push_back(isa.name);

  const std::string isas = f.cpu_features.empty() ? "no vector extensions hipinfer uses" : join(f.cpu_features, " ");
  sink.ok("cpu.info",
          (f.cpu_model.empty() ? std::string("CPU") : f.cpu_model) + ": " + std::to_string(logical) + " logical CPUs",
          "Instruction sets: " + isas + ".");
  if (x86 && !flags.count("avx2"))
    sink.warn("cpu.no_avx2", "The CPU has no AVX2",
              "hipinfer's CPU backend falls back to plain SSE kernels, several times slower than with AVX2.");
}

void check_host_memory(const Context& ctx, Sink& sink) {
  const std::string meminfo = ctx.read("/proc/meminfo").value_or("");
  auto& f = sink.facts;
  f.host_memory_total = meminfo_bytes(meminfo, "MemTotal");
  f.host_memory_available = meminfo_bytes(meminfo, "MemAvailable");
  if (f.host_memory_total <= 0) return;
  const std::string title =
      format_bytes(f.host_memory_available) + " of " + format_bytes(f.host_memory_total) + " host memory available";
  // Why 10% / 2 GiB: below that, loading a model's weights (and pinned staging buffers) swaps or is killed.
  if (f.host_memory_available < f.host_memory_total / 10 && f.host_memory_available < (int64_t{2} << 30))
    sink.warn("mem.host_low", title,
              "Loading a model needs host memory for its weights; other processes hold most of it now.");
  else sink.ok("mem.host", title);
}

}  // namespace

void check_system(const Context& ctx, Sink& sink) {
  auto& f = sink.facts;
  const std::string os_release = ctx.read("/etc/os-release").value_or("");
  f.os = field(os_release, "PRETTY_NAME", '=');
  if (f.os.size() >= 2 && f.os.front() == '"') f.os = f.os.substr(1, f.os.size() - 2);
  f.kernel = ctx.read_line("/proc/sys/kernel/osrelease");
  check_cpu(ctx, sink);
  check_host_memory(ctx, sink);
}

}  // namespace hi::doctor
