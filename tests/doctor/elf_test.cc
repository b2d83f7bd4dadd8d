// The ELF reader on real binaries (this test, the system's libstdc++) and on the linker-made
// fixtures the fake roots use.
#include <link.h>

#include <gtest/gtest.h>

#include <algorithm>

#include "doctor/elf.h"
#include "doctor/doctor_test_util.h"

namespace hi::doctor {
namespace {

bool contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// The libstdc++ this test process loaded.
std::string loaded_libstdcxx() {
  std::string found;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        const std::string name = info->dlpi_name ? info->dlpi_name : "";
        if (name.find("libstdc++.so") != std::string::npos) *static_cast<std::string*>(data) = name;
        return 0;
      },
      &found);
  return found;
}

TEST(Elf, ReadsTheSystemLibstdcxxVersionDefinitions) {
  const std::string path = loaded_libstdcxx();
  ASSERT_FALSE(path.empty());
  const auto elf = read_elf(path);
  ASSERT_TRUE(elf);
  EXPECT_EQ(elf->soname, "libstdc++.so.6");
  EXPECT_TRUE(contains(elf->version_defs, "GLIBCXX_3.4"));
  EXPECT_TRUE(contains(elf->version_defs, "CXXABI_1.3"));
  EXPECT_FALSE(contains(elf->version_defs, "libstdc++.so.6"));  // the base entry is the file, not a version
}

TEST(Elf, ReadsThisTestsOwnNeedsAndVersionNeeds) {
  const auto elf = read_elf("/proc/self/exe");
  ASSERT_TRUE(elf);
  EXPECT_TRUE(contains(elf->needed, "libstdc++.so.6"));
  ASSERT_TRUE(elf->version_needs.count("libstdc++.so.6"));
  for (const auto& v : elf->version_needs.at("libstdc++.so.6"))
    EXPECT_TRUE(v.rfind("GLIBCXX_", 0) == 0 || v.rfind("CXXABI_", 0) == 0) << v;
}

TEST(Elf, FixturesCarryTheVersionsTheRootsRelyOn) {
  const std::string dir = HI_DOCTOR_ELF_DIR;
  auto consumer = read_elf(dir + "/consumer.so");
  ASSERT_TRUE(consumer);
  EXPECT_EQ(consumer->needed, std::vector<std::string>{"libstdc++.so.6"});
  EXPECT_TRUE(contains(consumer->version_needs["libstdc++.so.6"], "GLIBCXX_3.4.30"));
  const auto old_lib = read_elf(dir + "/libstdcxx_old.so"), new_lib = read_elf(dir + "/libstdcxx_new.so");
  ASSERT_TRUE(old_lib && new_lib);
  EXPECT_TRUE(contains(old_lib->version_defs, "GLIBCXX_3.4.29"));
  EXPECT_FALSE(contains(old_lib->version_defs, "GLIBCXX_3.4.30"));
  EXPECT_TRUE(contains(new_lib->version_defs, "GLIBCXX_3.4.30"));
  EXPECT_TRUE(contains(new_lib->version_defs, "CXXABI_1.3.13"));
  EXPECT_EQ(hip_offload_targets(dir + "/torch_hip_with_gfx1100.so"),
            (std::vector<std::string>{"gfx900", "gfx906", "gfx908", "gfx90a", "gfx942", "gfx1030", "gfx1100"}));
  EXPECT_TRUE(hip_offload_targets(dir + "/consumer.so").empty());
}

TEST(Elf, NonElfFilesAreRefused) {
  EXPECT_FALSE(read_elf(std::string(HI_DOCTOR_ROOTS) + "/no_gpu/expected"));
  EXPECT_FALSE(read_elf("/nonexistent/libnothing.so"));
}

TEST(DoctorRealMachine, RunsAndDescribesTheCpu) {
  DoctorOptions o;
  o.env = environment_from_process();
  const DoctorResult r = run_doctor(o);
  EXPECT_TRUE(testing::find(r, "cpu.info"));
  EXPECT_GT(r.facts.cpu_logical, 0);
  EXPECT_TRUE(testing::find(r, "gpu.none") || !r.facts.gpus.empty());
}

}  // namespace
}  // namespace hi::doctor
