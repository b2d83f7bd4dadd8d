// Device files the GPU runtimes open (/dev/kfd and /dev/dri/renderD* for ROCm, /dev/nvidia* for
// CUDA) and whether the user may open them: the usual cause of "no GPU" on a fresh ROCm install is
// a user outside the render/video groups.
#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "doctor/context.h"

namespace hi::doctor {
namespace {

struct DeviceNode {
  std::string path;  // system path
  std::string mode;  // "crw-rw----"
  std::string owner, group;
  bool exists = false;
};

// A fake root cannot hold device files, so it lists them like `ls -l` does in <root>/dev-listing:
// "crw-rw---- root render /dev/kfd".
std::vector<DeviceNode> fake_nodes(const Context& ctx) {
  std::vector<DeviceNode> nodes;
  for (const auto& line : split(ctx.read("/dev-listing").value_or(""), '\n')) {
    const auto f = split(line, ' ');
    if (f.size() == 4) nodes.push_back({f[3], f[0], f[1], f[2], true});
  }
  return nodes;
}

std::string mode_string(mode_t m) {
  std::string s = S_ISCHR(m) ? "c" : "-";
  const char* rwx = "rwxrwxrwx";
  for (int i = 0; i < 9; ++i) s += (m & (1 << (8 - i))) ? rwx[i] : '-';
  return s;
}

DeviceNode real_node(const std::string& path) {
  DeviceNode n{path, "", "", "", false};
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return n;
  n.exists = true;
  n.mode = mode_string(st.st_mode);
  if (const passwd* pw = getpwuid(st.st_uid)) n.owner = pw->pw_name;
  if (const group* gr = getgrgid(st.st_gid)) n.group = gr->gr_name;
  return n;
}

DeviceNode find_node(const Context& ctx, const std::vector<DeviceNode>& listing, const std::string& path) {
  if (!ctx.fake()) return real_node(path);
  for (const auto& n : listing)
    if (n.path == path) return n;
  return {path, "", "", "", false};
}

// Read and write, which every GPU device node needs.
bool can_open(const Context& ctx, const DeviceNode& n) {
  if (!ctx.fake()) return ::access(n.path.c_str(), R_OK | W_OK) == 0;
  if (ctx.user_is_root()) return true;
  auto rw = [&](int at) { return n.mode.size() >= 10 && n.mode[at] == 'r' && n.mode[at + 1] == 'w'; };
  if (n.owner == ctx.user() && rw(1)) return true;
  if (ctx.user_groups().count(n.group) && rw(4)) return true;
  return rw(7);
}

// Groups the user has in /etc/group but not in this process: added, but not logged in again since.
std::vector<std::string> pending_groups(const Context& ctx) {
  std::vector<std::string> pending;
  if (ctx.fake()) return pending;
  std::vector<gid_t> gids(static_cast<size_t>(std::max(getgroups(0, nullptr), 0)));
  gids.resize(static_cast<size_t>(std::max(getgroups(static_cast<int>(gids.size()), gids.data()), 0)));
  for (const auto& name : ctx.user_groups()) {
    const group* gr = getgrnam(name.c_str());
    if (gr && gr->gr_gid != getegid() && std::find(gids.begin(), gids.end(), gr->gr_gid) == gids.end())
      pending.push_back(name);
  }
  return pending;
}

void check_amd(const Context& ctx, Sink& sink, const std::vector<DeviceNode>& listing) {
  std::vector<std::string> paths = {"/dev/kfd"};
  for (const auto& g : sink.facts.gpus)
    if (g.vendor == "amd" && !g.render_node.empty()) paths.push_back(g.render_node);
  std::vector<std::string> blocked, missing, groups;
  for (const auto& p : paths) {
    const DeviceNode n = find_node(ctx, listing, p);
    if (!n.exists) missing.push_back(p);
    else if (!can_open(ctx, n)) {
      blocked.push_back(p + " (" + n.mode + " " + n.owner + ":" + n.group + ")");
      if (!n.group.empty() && std::find(groups.begin(), groups.end(), n.group) == groups.end())
        groups.push_back(n.group);
    }
  }
  if (!missing.empty())
    sink.error("perm.device_missing", "Missing device files: " + join(missing, ", "),
               "ROCm needs /dev/kfd and a render node per GPU; in a container pass them with --device=/dev/kfd "
               "--device=/dev/dri.");
  if (!blocked.empty()) {
    // ROCm's install guide adds users to both groups: render owns the nodes on current distributions, video on older
    // ones.
    for (const char* g : {"render", "video"})
      if (std::find(groups.begin(), groups.end(), g) == groups.end()) groups.push_back(g);
    sink.error("perm.device_access", "User " + ctx.user() + " cannot open " + join(blocked, ", "),
               ctx.user() + " is not in the group that owns them; after the fix, log out and back in.",
               "sudo usermod -a -G " + join(groups, ",") + " " + ctx.user());
  } else if (missing.empty()) {
    sink.ok("perm.device_access", "User " + ctx.user() + " can open " + join(paths, ", "));
  }
}

void check_nvidia(const Context& ctx, Sink& sink, const std::vector<DeviceNode>& listing) {
  // nvidia-uvm is created on first use by nvidia-modprobe; its absence breaks cudaMalloc.
  std::vector<std::string> blocked, missing;
  for (const char* p : {"/dev/nvidiactl", "/dev/nvidia0", "/dev/nvidia-uvm"}) {
    const DeviceNode n = find_node(ctx, listing, p);
    if (!n.exists) missing.push_back(p);
    else if (!can_open(ctx, n)) blocked.push_back(std::string(p) + " (" + n.mode + " " + n.owner + ":" + n.group + ")");
  }
  if (!missing.empty() && !sink.facts.nvidia_driver.empty())
    sink.error(
        "perm.device_missing", "Missing device files: " + join(missing, ", "),
        "The NVIDIA driver is loaded but its device files are not there (in a container, run it with --gpus all).",
        "sudo nvidia-modprobe -u -c=0");
  if (!blocked.empty())
    sink.error("perm.device_access", "User " + ctx.user() + " cannot open " + join(blocked, ", "),
               "The NVIDIA device files normally allow everyone (crw-rw-rw-); these were restricted, typically to the "
               "video group.",
               "sudo usermod -a -G video " + ctx.user());
  else if (missing.empty()) sink.ok("perm.device_access", "User " + ctx.user() + " can open the NVIDIA device files");
}

}  // namespace

void check_permissions(const Context& ctx, Sink& sink) {
  const auto listing = ctx.fake() ? fake_nodes(ctx) : std::vector<DeviceNode>{};
  if (count_gpus(sink.facts, "amd") > 0) check_amd(ctx, sink, listing);
  if (count_gpus(sink.facts, "nvidia") > 0) check_nvidia(ctx, sink, listing);
  const auto pending = pending_groups(ctx);
  if (!pending.empty() && count_gpus(sink.facts, "amd") + count_gpus(sink.facts, "nvidia") > 0)
    sink.warn("perm.group_pending", "Group membership not active yet: " + join(pending, ", "),
              "You were added to these groups after this login session started; log out and back in, or start a shell "
              "in the group.",
              "newgrp " + pending[0]);
}

}  // namespace hi::doctor
