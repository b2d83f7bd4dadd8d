// PCIe links of the GPUs (/sys/bus/pci/devices/*/current_link_* against max_link_*). A GPU in a
// x4 slot or behind a x1 riser moves weights and inputs several times slower than it could.
#include <cstdlib>

#include "doctor/context.h"

namespace hi::doctor {

void check_pcie(const Context& ctx, Sink& sink) {
  for (size_t i = 0; i < sink.facts.gpus.size(); ++i) {
    const GpuFacts& g = sink.facts.gpus[i];
    if (g.link_width <= 0 || g.link_width_max <= 0) continue;  // not from PCI sysfs (container, fake root)
    // hi::str rather than operator+ chains: GCC 12 gives a false -Wrestrict on "x" + to_string().
    const std::string gpu = str("GPU ", i, " (", g.pci_bus_id, ")");
    if (g.link_width < g.link_width_max) {
      sink.warn("pcie.link_narrow", str(gpu, " runs its PCIe link at x", g.link_width, " of x", g.link_width_max),
                str("Host-device copies get ", g.link_width, "/", g.link_width_max,
                    " of the bandwidth: move the card to a full-width slot (no riser), or check the slot's lane "
                    "sharing in the board manual."));
      continue;
    }
    // Speed below the maximum is normal at idle: GPUs lower the link speed to save power.
    const bool slower = std::strtod(g.link_speed.c_str(), nullptr) < std::strtod(g.link_speed_max.c_str(), nullptr);
    sink.ok("pcie.link", str(gpu, " PCIe link x", g.link_width, " at ", g.link_speed),
            slower ? "Below its maximum of " + g.link_speed_max +
                         " now; GPUs lower the link speed when idle, so check again under load."
                   : "Full width and speed.");
  }
}

}  // namespace hi::doctor
