// GPUs, from every place that knows about them: PCI devices under /sys/bus/pci, the AMD KFD
// topology, rocminfo / rocm-smi / nvidia-smi output and, last, hipinfer's own GPU runtime. Each
// source fills in what it knows; disagreements between them are what the findings are about.
#include <cstdio>
#include <cstdlib>

#include "doctor/context.h"

namespace hi::doctor {
namespace {

constexpr const char* kPciDevices = "/sys/bus/pci/devices";
constexpr const char* kKfdNodes = "/sys/class/kfd/kfd/topology/nodes";

std::string vendor_of(const std::string& pci_vendor) {
  if (pci_vendor == "0x1002") return "amd";
  if (pci_vendor == "0x10de") return "nvidia";
  return "";
}

std::string vendor_title(const std::string& vendor) { return vendor == "amd" ? "AMD" : "NVIDIA"; }

// "0000:03:00.0", lower case, from nvidia-smi's "00000000:03:00.0" or any other spelling.
std::string normalize_bdf(const std::string& bdf) {
  const auto parts = split(lower(bdf), ':');
  if (parts.size() != 3) return lower(bdf);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04lx:%s:%s", std::strtoul(parts[0].c_str(), nullptr, 16), parts[1].c_str(),
                parts[2].c_str());
  return buf;
}

GpuFacts* gpu_at(SystemFacts& f, const std::string& bdf) {
  for (auto& g : f.gpus)
    if (g.pci_bus_id == bdf) return &g;
  return nullptr;
}

void add_source(GpuFacts& g, const std::string& source) {
  for (const auto& s : g.sources)
    if (s == source) return;
  g.sources.push_back(source);
}

// Device name from the PCI id database, where the system has one.
std::string pci_ids_name(const Context& ctx, const std::string& vendor_id, const std::string& device_id) {
  static const char* kDbs[] = {"/usr/share/misc/pci.ids", "/usr/share/hwdata/pci.ids"};
  for (const char* db : kDbs) {
    const auto text = ctx.read(db, 8 << 20);
    if (!text) continue;
    const std::string v = vendor_id.substr(2), d = device_id.substr(2);  // drop "0x"
    bool in_vendor = false;
    for (const auto& line : split(*text, '\n')) {
      if (line.empty() || line[0] == '#') continue;
      if (line[0] != '\t') {
        in_vendor = starts_with(line, v + "  ");
      } else if (in_vendor && line.size() > 1 && line[1] != '\t' && starts_with(line.substr(1), d + "  ")) {
        return trim(line.substr(1 + d.size()));
      }
    }
  }
  return "";
}

int64_t read_int(const Context& ctx, const std::string& path, int64_t def = 0) {
  const std::string v = ctx.read_line(path);
  return v.empty() ? def : std::strtoll(v.c_str(), nullptr, 0);
}

void scan_pci(const Context& ctx, SystemFacts& f) {
  for (const auto& bdf : ctx.list(kPciDevices)) {
    const std::string dir = std::string(kPciDevices) + "/" + bdf;
    const std::string cls = ctx.read_line(dir + "/class");
    const std::string vendor = vendor_of(ctx.read_line(dir + "/vendor"));
    if (vendor.empty() || !starts_with(cls, "0x03")) continue;  // 0x03xxxx: display controllers
    GpuFacts g;
    g.vendor = vendor;
    g.pci_bus_id = normalize_bdf(bdf);
    const std::string device_id = ctx.read_line(dir + "/device");
    g.name = ctx.read_line(dir + "/product_name");  // AMD Instinct boards say it here
    if (g.name.empty()) g.name = pci_ids_name(ctx, ctx.read_line(dir + "/vendor"), device_id);
    if (g.name.empty())
      g.name = vendor_title(vendor) + " GPU [" + ctx.read_line(dir + "/vendor") + ":" + device_id + "]";
    g.link_width = static_cast<int>(read_int(ctx, dir + "/current_link_width"));
    g.link_width_max = static_cast<int>(read_int(ctx, dir + "/max_link_width"));
    g.link_speed = ctx.read_line(dir + "/current_link_speed");
    g.link_speed_max = ctx.read_line(dir + "/max_link_speed");
    g.memory_total = read_int(ctx, dir + "/mem_info_vram_total");  // amdgpu only
    if (g.memory_total > 0) g.memory_used = read_int(ctx, dir + "/mem_info_vram_used", -1);
    for (const auto& e : ctx.list(dir + "/drm"))
      if (starts_with(e, "renderD")) g.render_node = "/dev/dri/" + e;
    add_source(g, "pci");
    f.gpus.push_back(std::move(g));
  }
}

// gfx_target_version 90010 -> "gfx90a": major, then minor and stepping as hex digits.
std::string gfx_name(int64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "gfx%lld%llx%llx", static_cast<long long>(v / 10000),
                static_cast<long long>((v / 100) % 100), static_cast<long long>(v % 100));
  return buf;
}

int scan_kfd(const Context& ctx, SystemFacts& f) {
  int gpus = 0;
  for (const auto& node : ctx.list(kKfdNodes)) {
    const std::string dir = std::string(kKfdNodes) + "/" + node;
    const std::string props = ctx.read(dir + "/properties").value_or("");
    auto num = [&](const std::string& key) {
      for (const auto& line : split(props, '\n')) {
        const auto kv = split(line, ' ');
        if (kv.size() == 2 && kv[0] == key) return std::strtoll(kv[1].c_str(), nullptr, 10);
      }
      return 0LL;
    };
    if (num("simd_count") == 0) continue;  // a CPU node
    ++gpus;
    const long long loc = num("location_id");
    char bdf[32];
    std::snprintf(bdf, sizeof bdf, "%04llx:%02llx:%02llx.%llx", num("domain"), loc >> 8, (loc >> 3) & 0x1f, loc & 7);
    GpuFacts* g = gpu_at(f, bdf);
    if (!g) {  // KFD knows a GPU the PCI scan did not show (a container without /sys/bus/pci)
      f.gpus.push_back({});
      g = &f.gpus.back();
      g->vendor = "amd";
      g->pci_bus_id = bdf;
      g->name = "AMD GPU";
    }
    if (const long long v = num("gfx_target_version")) g->arch = gfx_name(v);
    if (g->render_node.empty() && num("drm_render_minor") > 0)
      g->render_node = "/dev/dri/renderD" + std::to_string(num("drm_render_minor"));
    if (g->memory_total == 0) {
      const std::string bank = ctx.read(dir + "/mem_banks/0/properties").value_or("");
      for (const auto& line : split(bank, '\n'))
        if (starts_with(line, "size_in_bytes ")) g->memory_total = std::strtoll(line.c_str() + 14, nullptr, 10);
    }
    add_source(*g, "kfd");
  }
  return gpus;
}

// rocminfo lists agents; GPU agents carry the gfx name and the marketing name.
void read_rocminfo(const Context& ctx, SystemFacts& f) {
  const auto out = ctx.tool("rocminfo", {}, {"/opt/rocm/bin"});
  if (!out) return;
  std::vector<std::pair<std::string, std::string>> agents;  // (gfx, marketing name), GPUs only
  std::string name, marketing;
  for (const auto& raw : split(*out, '\n')) {
    const std::string line = trim(raw);
    if (starts_with(line, "Name:") && name.empty()) name = trim(line.substr(5));
    else if (starts_with(line, "Marketing Name:")) marketing = trim(line.substr(15));
    else if (starts_with(line, "Device Type:")) {
      if (trim(line.substr(12)) == "GPU") agents.emplace_back(name, marketing);
      name.clear();
      marketing.clear();
    } else if (starts_with(line, "Agent ")) {
      name.clear();
      marketing.clear();
    }
  }
  size_t i = 0;
  for (auto& g : f.gpus) {
    if (g.vendor != "amd" || i >= agents.size()) continue;
    const auto& [gfx, market] = agents[i++];
    if (g.arch.empty()) g.arch = gfx;
    if (!market.empty() && market != gfx) g.name = market;
    add_source(g, "rocminfo");
  }
}

// rocm-smi: VRAM use where sysfs did not give it, and the driver version.
void read_rocm_smi(const Context& ctx, SystemFacts& f) {
  const auto out = ctx.tool("rocm-smi", {"--showmeminfo", "vram", "--showdriverversion", "--json"}, {"/opt/rocm/bin"});
  if (!out) return;
  auto parsed = Json::parse(out->substr(std::min(out->size(), out->find('{'))));
  if (!parsed.is_ok()) return;
  const Json& j = parsed.value();
  if (f.amdgpu_driver.empty()) f.amdgpu_driver = j["system"]["Driver version"].str();
  size_t i = 0;
  for (auto& g : f.gpus) {
    if (g.vendor != "amd") continue;
    const Json& card = j["card" + std::to_string(i++)];
    if (!card.is_object()) continue;
    if (g.memory_total == 0) g.memory_total = std::strtoll(card["VRAM Total Memory (B)"].str().c_str(), nullptr, 10);
    if (g.memory_used < 0 && card["VRAM Total Used Memory (B)"].is_string())
      g.memory_used = std::strtoll(card["VRAM Total Used Memory (B)"].str().c_str(), nullptr, 10);
    add_source(g, "rocm-smi");
  }
}

constexpr const char* kNvidiaSmiQuery =
    "--query-gpu=pci.bus_id,name,memory.total,memory.used,driver_version,compute_cap";

void read_nvidia_smi(const Context& ctx, SystemFacts& f) {
  const auto out = ctx.tool("nvidia-smi", {kNvidiaSmiQuery, "--format=csv,noheader,nounits"});
  if (!out) return;
  for (const auto& line : split(*out, '\n')) {
    auto cols = split(line, ',', false);
    if (cols.size() < 6) continue;
    for (auto& c : cols) c = trim(c);
    const std::string bdf = normalize_bdf(cols[0]);
    GpuFacts* g = gpu_at(f, bdf);
    if (!g) {
      f.gpus.push_back({});
      g = &f.gpus.back();
      g->vendor = "nvidia";
      g->pci_bus_id = bdf;
    }
    g->name = cols[1];
    g->memory_total = std::strtoll(cols[2].c_str(), nullptr, 10) << 20;  // MiB
    g->memory_used = std::strtoll(cols[3].c_str(), nullptr, 10) << 20;
    if (f.nvidia_driver.empty()) f.nvidia_driver = cols[4];
    const auto cc = split(cols[5], '.');
    if (cc.size() == 2) g->arch = "sm_" + cc[0] + cc[1];
    add_source(*g, "nvidia-smi");
  }
}

void read_drivers(const Context& ctx, SystemFacts& f) {
  f.amdgpu_driver = ctx.read_line("/sys/module/amdgpu/version");  // only the DKMS driver has one
  if (f.amdgpu_driver.empty() && ctx.exists("/sys/module/amdgpu"))
    f.amdgpu_driver = "in-kernel (Linux " + f.kernel + ")";
  // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22 ..."
  const auto words = split(ctx.read_line("/proc/driver/nvidia/version"), ' ');
  for (size_t i = 0; i + 1 < words.size(); ++i)
    if (words[i] == "Module") f.nvidia_driver = words[i + 1];
  f.rocm_version = ctx.read_line("/opt/rocm/.info/version");
  // /usr/local/cuda/version.json: {"cuda": {"version": "12.4.1"}, ...}
  if (const auto cuda = ctx.read("/usr/local/cuda/version.json")) {
    auto j = Json::parse(*cuda);
    if (j.is_ok()) f.cuda_toolkit_version = j.value()["cuda"]["version"].str();
  }
  // Installs without version.json (pip-assembled toolkits): "#define CUDART_VERSION 12040".
  for (const auto& dir : ctx.list("/usr/local")) {
    if (!f.cuda_toolkit_version.empty() || !starts_with(dir, "cuda")) continue;
    const std::string header = ctx.read("/usr/local/" + dir + "/include/cuda_runtime_api.h").value_or("");
    const auto at = header.find("#define CUDART_VERSION");
    if (at == std::string::npos) continue;
    const long v = std::strtol(header.c_str() + at + 22, nullptr, 10);
    f.cuda_toolkit_version = str(v / 1000, ".", (v % 1000) / 10);
  }
}

void merge_runtime(const GpuRuntimeInfo& rt, SystemFacts& f) {
  f.hipinfer_runtime = rt.runtime_version;
  f.hipinfer_backends = rt.compiled_backends;
  for (const auto& d : rt.devices) {
    GpuFacts* g = gpu_at(f, normalize_bdf(d.pci_bus_id));
    if (!g) {
      f.gpus.push_back({});
      g = &f.gpus.back();
      g->vendor = d.backend == "hip" ? "amd" : "nvidia";
      g->pci_bus_id = normalize_bdf(d.pci_bus_id);
    }
    if (!d.name.empty()) g->name = d.name;
    if (!d.arch.empty()) g->arch = d.arch;
    if (d.total_memory > 0) {
      g->memory_total = d.total_memory;
      g->memory_used = d.total_memory - d.free_memory;
    }
    add_source(*g, "runtime");
  }
}

// A kernel module hipinfer needs is installed for the running kernel (modules.dep lists it).
bool module_installed(const Context& ctx, const SystemFacts& f, const std::string& module) {
  const std::string dep = ctx.read("/lib/modules/" + f.kernel + "/modules.dep", 8 << 20).value_or("");
  return dep.find("/" + module + ".ko") != std::string::npos;
}

std::string os_id(const Context& ctx) { return field(ctx.read("/etc/os-release").value_or(""), "ID", '='); }

void check_drivers(const Context& ctx, Sink& sink, int kfd_gpus) {
  const auto& f = sink.facts;
  if (count_gpus(f, "amd") > 0 && kfd_gpus == 0 && ctx.is_dir("/sys/bus/pci/devices"))
    sink.error("gpu.amd_driver",
               "An AMD GPU is installed but the amdgpu kernel driver is not running (no /sys/class/kfd)",
               "ROCm talks to the GPU through /dev/kfd, which only the loaded amdgpu driver provides.",
               "sudo modprobe amdgpu");
  if (count_gpus(f, "nvidia") > 0 && f.nvidia_driver.empty()) {
    std::string fix = "sudo modprobe nvidia";
    if (!module_installed(ctx, f, "nvidia"))
      fix = os_id(ctx) == "ubuntu"   ? "sudo ubuntu-drivers install"
            : os_id(ctx) == "debian" ? "sudo apt-get install nvidia-driver"
                                     : "";
    sink.error("gpu.nvidia_driver", "An NVIDIA GPU is installed but the NVIDIA kernel driver is not loaded",
               "Without it no CUDA program can use the GPU (there is no /proc/driver/nvidia/version).", fix);
  }
}

void check_runtime_view(const GpuRuntimeInfo& rt, Sink& sink) {
  const auto& f = sink.facts;
  for (const std::string vendor : {"amd", "nvidia"}) {
    const int listed = count_gpus(f, vendor);
    if (listed == 0) continue;
    const std::string backend = vendor == "amd" ? "hip" : "cuda", flag = vendor == "amd" ? "HI_HIP" : "HI_CUDA";
    bool built = false;
    for (const auto& b : rt.compiled_backends) built |= b == backend;
    if (!built) {
      sink.warn("gpu.backend_not_built",
                "This hipinfer was built without the " + vendor_title(vendor) + " GPU backend: it runs on the CPU",
                "The system has " + std::to_string(listed) + " " + vendor_title(vendor) +
                    " GPU(s), but only a build with -D" + flag + "=ON can use them.",
                "cmake -S . -B build -G Ninja -D" + flag + "=ON && cmake --build build");
      continue;
    }
    int seen = 0;
    for (const auto& d : rt.devices) seen += d.backend == backend;
    if (seen == 0)
      sink.error("gpu.runtime_sees_none",
                 "The " + (backend == "hip" ? std::string("HIP") : std::string("CUDA")) +
                     " runtime sees no GPU although the system has " + std::to_string(listed),
                 "hipinfer would silently run on the CPU. The runtime says: " +
                     (rt.no_gpu_reason.empty() ? std::string("no reason given") : rt.no_gpu_reason) +
                     " (see the permission and library findings).");
  }
}

std::string describe(const GpuFacts& g) {
  std::vector<std::string> parts;
  if (!g.arch.empty()) parts.push_back(g.arch);
  if (g.memory_total > 0) parts.push_back(format_bytes(g.memory_total));
  return g.name + (parts.empty() ? "" : " (" + join(parts, ", ") + ")");
}

}  // namespace

void check_gpus(const Context& ctx, Sink& sink) {
  SystemFacts& f = sink.facts;
  read_drivers(ctx, f);
  scan_pci(ctx, f);
  const int kfd_gpus = scan_kfd(ctx, f);
  read_rocminfo(ctx, f);
  read_rocm_smi(ctx, f);
  read_nvidia_smi(ctx, f);
  std::optional<GpuRuntimeInfo> rt;
  if (ctx.options().query_runtime) rt = ctx.options().query_runtime();
  else if (!ctx.fake()) rt = query_gpus();
  if (rt) merge_runtime(*rt, f);

  if (f.gpus.empty()) {
    sink.ok("gpu.none", "No GPU found: hipinfer will run on the CPU",
            "Looked for AMD and NVIDIA display devices in /sys/bus/pci, the KFD topology, rocminfo, nvidia-smi and the "
            "GPU runtime.");
  }
  for (size_t i = 0; i < f.gpus.size(); ++i) {
    const auto& g = f.gpus[i];
    sink.ok("gpu.found", "GPU " + std::to_string(i) + ": " + describe(g) + " at " + g.pci_bus_id,
            "Seen by: " + join(g.sources, ", ") + ".");
    // Why 90%: a model's weights and activations need room; this much in use means another process holds it.
    if (g.memory_total > 0 && g.memory_used >= 0 && g.memory_used * 10 > g.memory_total * 9) {
      const std::string who =
          g.vendor == "nvidia" ? "nvidia-smi --query-compute-apps=pid,used_memory --format=csv" : "rocm-smi --showpids";
      sink.warn("gpu.memory_busy",
                "GPU " + std::to_string(i) + " has only " + format_bytes(g.memory_total - g.memory_used) + " of " +
                    format_bytes(g.memory_total) + " free",
                "Other processes hold its memory; `" + who + "` lists them, and stopping them frees it.");
    }
  }
  check_drivers(ctx, sink, kfd_gpus);
  if (rt) check_runtime_view(*rt, sink);
}

}  // namespace hi::doctor
