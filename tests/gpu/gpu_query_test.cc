// hi::query_gpus(): never fails, always explains an empty device list, and reports exactly the
// backends this build was configured with.
#include <gtest/gtest.h>

#include <algorithm>

#include "hipinfer/device.h"

namespace hi {
namespace {

std::vector<std::string> expected_backends() {
  std::vector<std::string> names;
#if defined(HI_HAVE_CUDA)
  names.push_back("cuda");
#endif
#if defined(HI_HAVE_HIP)
  names.push_back("hip");
#endif
#if defined(HI_HAVE_EMU)
  names.push_back("emu");
#endif
  return names;
}

TEST(QueryGpus, ReportsTheCompiledBackends) {
  const GpuRuntimeInfo info = query_gpus();
  EXPECT_EQ(info.compiled_backends, expected_backends());
  ASSERT_EQ(info.backends.size(), info.compiled_backends.size());
  for (size_t i = 0; i < info.backends.size(); ++i) {
    EXPECT_EQ(info.backends[i].name, info.compiled_backends[i]);
    EXPECT_FALSE(info.backends[i].runtime_version.empty()) << info.backends[i].name;
    EXPECT_EQ(info.backends[i].device_count == 0, !info.backends[i].no_gpu_reason.empty())
        << info.backends[i].name << ": " << info.backends[i].no_gpu_reason;
  }
}

TEST(QueryGpus, EmptyDeviceListComesWithAReason) {
  const GpuRuntimeInfo info = query_gpus();
  if (info.devices.empty()) {
    EXPECT_FALSE(info.no_gpu_reason.empty());
    std::printf("no GPU: %s\n", info.no_gpu_reason.c_str());
  } else {
    EXPECT_TRUE(info.no_gpu_reason.empty()) << info.no_gpu_reason;
  }
}

TEST(QueryGpus, WithoutABackendSaysHowToBuildOne) {
  const GpuRuntimeInfo info = query_gpus();
  if (!info.compiled_backends.empty()) GTEST_SKIP() << "this build has a GPU backend";
  EXPECT_TRUE(info.devices.empty());
  EXPECT_TRUE(info.runtime_version.empty());
  EXPECT_EQ(info.no_gpu_reason, "this build has no GPU backend (configure with -DHI_CUDA=ON or -DHI_HIP=ON)");
}

TEST(QueryGpus, DevicesAreDescribed) {
  const GpuRuntimeInfo info = query_gpus();
  if (info.devices.empty()) GTEST_SKIP() << "no GPU: " << info.no_gpu_reason;
  for (const DeviceInfo& d : info.devices) {
    SCOPED_TRACE(d.backend + ":" + std::to_string(d.index) + " " + d.name);
    EXPECT_NE(std::find(info.compiled_backends.begin(), info.compiled_backends.end(), d.backend),
              info.compiled_backends.end());
    EXPECT_FALSE(d.name.empty());
    EXPECT_TRUE(d.arch.rfind("sm_", 0) == 0 || d.arch.rfind("gfx", 0) == 0) << d.arch;
    EXPECT_EQ(d.arch.find(':'), std::string::npos) << d.arch;
    EXPECT_GT(d.total_memory, 0);
    EXPECT_GT(d.free_memory, 0);
    EXPECT_LE(d.free_memory, d.total_memory);
    EXPECT_GT(d.multiprocessors, 0);
    EXPECT_TRUE(d.warp_size == 32 || d.warp_size == 64) << d.warp_size;
    EXPECT_GT(d.compute_major, 0);
    if (d.backend == "emu") EXPECT_EQ(d.pci_bus_id, "emulated");  // on no bus
    else EXPECT_EQ(d.pci_bus_id.size(), 12u) << d.pci_bus_id;     // "0000:17:00.0"
  }
}

}  // namespace
}  // namespace hi
