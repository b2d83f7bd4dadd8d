#include "runtime/placement.h"

#include <algorithm>
#include <map>
#include <set>

namespace hi::runtime {
namespace {

// "gpu" is any real GPU; the emulated one ("emu") is used only where it is asked for by name.
bool is_gpu_request(const std::string& r) { return r == "gpu" || r == "cuda" || r == "hip" || r == "emu"; }

bool matches(const std::string& request, const DeviceInfo& d) {
  return request == "gpu" ? d.backend != "emu" : d.backend == request;
}

// Why no device answers `request`: the reasons of the backends it covers (named when several),
// else the machine's.
std::string no_device_reason(const std::string& request, const GpuRuntimeInfo& gpus) {
  std::vector<const GpuBackendInfo*> silent;
  for (const GpuBackendInfo& b : gpus.backends)
    if (!b.no_gpu_reason.empty() && (request == "gpu" ? b.name != "emu" : b.name == request)) silent.push_back(&b);
  if (silent.empty()) return gpus.no_gpu_reason;
  if (silent.size() == 1) return silent[0]->no_gpu_reason;
  std::string out;
  for (const GpuBackendInfo* b : silent) out += (out.empty() ? "" : "; ") + b->name + ": " + b->no_gpu_reason;
  return out;
}

}  // namespace

std::string node_label(const ir::Node& n, size_t index) {
  return n.name.empty() ? "#" + std::to_string(index) : n.name;
}

std::string op_label(const ir::Node& n) {
  return n.domain.empty() || n.domain == "ai.onnx" ? n.op_type : n.domain + "." + n.op_type;
}

Result<std::vector<DeviceSlot>> resolve_devices(const std::vector<std::string>& requested, const GpuRuntimeInfo& gpus) {
  HI_RETURN_IF(requested.empty(), kInvalidArgument,
               "the device list is empty; give one or more of gpu, cuda, hip, emu, cpu");
  std::vector<DeviceSlot> slots;
  std::set<std::string> seen;
  for (const std::string& r : requested) {
    HI_RETURN_IF(r != "cpu" && !is_gpu_request(r), kInvalidArgument, "unknown device '", r,
                 "' in the device list; expected gpu, cuda, hip, emu or cpu");
    HI_RETURN_IF(!seen.insert(r).second, kInvalidArgument, "device '", r, "' is listed twice");
    DeviceSlot slot;
    slot.requested = r;
    if (r == "cpu") {
      slot.name = "cpu";
    } else {
      for (const DeviceInfo& d : gpus.devices)
        if (matches(r, d)) {
          slot.name = d.backend + ":" + std::to_string(d.index);
          break;
        }
      if (slot.name.empty()) {
        bool built = false;
        for (const auto& b : gpus.compiled_backends) built = built || (r == "gpu" ? b != "emu" : b == r);
        const std::string reason = no_device_reason(r, gpus);
        slot.missing = !built           ? "this build has no " + (r == "gpu" ? std::string("GPU") : r) + " backend"
                       : reason.empty() ? "no " + r + " device found"
                                        : "no GPU: " + reason;
      }
    }
    slots.push_back(std::move(slot));
  }
  return slots;
}

Result<PlacementReport> place_nodes(const std::vector<NodeToPlace>& nodes, const std::vector<DeviceSlot>& devices,
                                    const GpuKernelQuery& gpu_query) {
  PlacementReport report;
  for (const DeviceSlot& d : devices) report.devices.push_back(d.name.empty() ? d.requested + " (none)" : d.name);
  std::vector<std::string> unplaced;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const ir::Node& n = *nodes[i].node;
    NodePlacement p;
    p.node = node_label(n, i);
    p.op_type = op_label(n);
    std::string reasons;
    for (const DeviceSlot& d : devices) {
      std::string why;
      if (d.name.empty()) why = d.missing;
      else if (d.name != "cpu") why = gpu_query(n, nodes[i].inputs);
      if (why.empty()) {
        p.device = d.name;
        break;
      }
      reasons += (reasons.empty() ? "" : "; ") + d.requested + ": " + why;
    }
    if (p.device.empty()) {
      unplaced.push_back("node '" + p.node + "' (" + p.op_type + "): " + reasons);
      continue;
    }
    if (p.device != devices.front().name) {
      p.reason = reasons;
      ++report.fallbacks;
    }
    report.nodes.push_back(std::move(p));
  }
  if (!unplaced.empty()) {
    std::string list;
    const size_t shown = std::min<size_t>(unplaced.size(), 10);
    for (size_t i = 0; i < shown; ++i) list += "\n  " + unplaced[i];
    if (unplaced.size() > shown) list += "\n  ... and " + std::to_string(unplaced.size() - shown) + " more";
    return error(StatusCode::kUnsupported, unplaced.size(), " of ", nodes.size(),
                 " nodes can run on none of the listed devices (add cpu to the list to let them run there):", list);
  }
  return report;
}

void keep_shape_math_on_cpu(const std::vector<NodeToPlace>& nodes, const HostInputsQuery& host_inputs,
                            const std::function<const ir::ValueType*(const std::string&)>& types,
                            const std::vector<std::string>& graph_outputs, PlacementReport* report) {
  const std::string& first = report->devices.empty() ? std::string() : report->devices.front();
  if (first.empty() || first == "cpu" || first.find(" (none)") != std::string::npos) return;
  if (std::find(report->devices.begin(), report->devices.end(), "cpu") == report->devices.end()) return;
  // value -> the readers: (node index, read on the host by that node's GPU kernel)
  std::map<std::string, std::vector<std::pair<size_t, bool>>> readers;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const ir::Node& n = *nodes[i].node;
    const bool on_gpu = report->nodes[i].device != "cpu";
    const std::vector<bool> host = on_gpu && host_inputs ? host_inputs(n) : std::vector<bool>{};
    for (size_t k = 0; k < n.inputs.size(); ++k)
      if (!n.inputs[k].empty()) readers[n.inputs[k]].push_back({i, k < host.size() && host[k]});
  }
  const std::set<std::string> outputs(graph_outputs.begin(), graph_outputs.end());
  std::vector<std::string> moved_for(nodes.size());  // moved nodes: the host reader they serve
  for (size_t i = nodes.size(); i-- > 0;) {
    NodePlacement& p = report->nodes[i];
    if (p.device == "cpu") continue;
    const ir::Node& n = *nodes[i].node;
    std::string reader;  // a GPU node that reads one of the outputs on the host
    bool only_host_reads = !n.outputs.empty();
    for (const std::string& o : n.outputs) {
      if (o.empty()) continue;
      const ir::ValueType* t = types(o);
      const bool integer =
          t && t->kind == ir::ValueKind::kTensor && (dtype_is_integer(t->dtype) || t->dtype == DType::kBool);
      if (!integer || outputs.count(o)) {
        only_host_reads = false;
        break;
      }
      auto r = readers.find(o);
      if (r == readers.end()) continue;
      for (const auto& [j, on_host] : r->second) {
        if (!moved_for[j].empty()) {
          if (reader.empty()) reader = moved_for[j];
          continue;
        }
        if (!on_host) {
          only_host_reads = false;
          break;
        }
        if (reader.empty()) reader = op_label(*nodes[j].node) + " '" + report->nodes[j].node + "'";
      }
      if (!only_host_reads) break;
    }
    if (!only_host_reads || reader.empty()) continue;
    moved_for[i] = reader;
    p.reason = "gpu: shape arithmetic for " + reader + ", which reads it on the host, runs on the CPU";
    p.device = "cpu";
    ++report->fallbacks;
  }
}

std::vector<std::string> placement_warnings(const PlacementReport& report) {
  std::map<std::pair<std::string, std::string>, int64_t> by_reason;  // (device, reason) -> count
  for (const NodePlacement& p : report.nodes)
    if (!p.reason.empty()) ++by_reason[{p.device, p.reason}];
  // Reasons that name the op differ per op type: group those under one line per device.
  std::map<std::string, std::pair<int64_t, std::set<std::string>>> per_device;
  for (const auto& [key, count] : by_reason) {
    auto& [total, reasons] = per_device[key.first];
    total += count;
    reasons.insert(key.second);
  }
  std::vector<std::string> warnings;
  for (const auto& [device, entry] : per_device) {
    const auto& [count, reasons] = entry;
    std::string w = std::to_string(count) + " of " + std::to_string(report.nodes.size()) + " nodes run on " + device +
                    " instead of " + report.devices.front() + ": ";
    if (reasons.size() == 1) w += *reasons.begin();
    else w += std::to_string(reasons.size()) + " reasons, the first: " + *reasons.begin();
    w += " (hipinfer run --explain lists every node)";
    warnings.push_back(std::move(w));
  }
  return warnings;
}

}  // namespace hi::runtime

namespace hi {

int64_t PlacementReport::count_on(const std::string& device) const {
  int64_t n = 0;
  for (const NodePlacement& p : nodes) n += p.device == device;
  return n;
}

std::string PartitionGraphStats::summary() const {
  std::string s = std::string("graphs ") + (enabled ? "on" : "off") + ": " + std::to_string(captures) + " captured, " +
                  std::to_string(replays) + " replays, " + std::to_string(direct_runs) + " direct runs";
  if (failures > 0) s += ", " + std::to_string(failures) + " captures failed (last: " + last_failure + ")";
  return s;
}

std::string PlacementReport::summary() const {
  std::string s = std::to_string(nodes.size()) + " nodes:";
  bool first = true;
  for (const std::string& d : devices) {
    const int64_t n = count_on(d);
    if (n == 0 && d.find(" (none)") != std::string::npos) continue;
    s += (first ? " " : ", ") + std::to_string(n) + " on " + d;
    first = false;
  }
  if (fallbacks == 0) return s + "; no fallbacks";
  std::map<std::string, int64_t> reasons;
  for (const NodePlacement& p : nodes)
    if (!p.reason.empty()) ++reasons[p.reason];
  s += "; " + std::to_string(fallbacks) + (fallbacks == 1 ? " fallback" : " fallbacks");
  if (reasons.size() == 1) s += " [" + reasons.begin()->first + "]";
  else s += " [" + std::to_string(reasons.size()) + " distinct reasons; --explain lists them]";
  return s;
}

std::string PlacementReport::table() const {
  size_t wn = 4, wo = 2, wd = 6;
  for (const NodePlacement& p : nodes) {
    wn = std::max(wn, std::min<size_t>(p.node.size(), 40));
    wo = std::max(wo, p.op_type.size());
    wd = std::max(wd, p.device.size());
  }
  auto pad = [](std::string s, size_t w) {
    if (s.size() < w) s.append(w - s.size(), ' ');
    return s;
  };
  std::string t =
      pad("node", wn) + "  " + pad("op", wo) + "  " + pad("device", wd) + "  why not " + devices.front() + "\n";
  for (const NodePlacement& p : nodes)
    t += pad(p.node, wn) + "  " + pad(p.op_type, wo) + "  " + pad(p.device, wd) + "  " +
         (p.reason.empty() ? "-" : p.reason) + "\n";
  return t + summary() + "\n";
}

}  // namespace hi
