// The doctor's checks one by one on the fake roots: facts read, fix lines, environment variables,
// the GPU runtime's view, and the JSON and text output.
#include <gtest/gtest.h>

#include <elf.h>

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <map>

#include "doctor/doctor_test_util.h"
#include "doctor/json.h"

namespace hi::doctor {
namespace {

using testing::find;
using testing::root_options;

TEST(DoctorFacts, AmdMachineFromSysfsKfdAndRocminfo) {
  const DoctorResult r = run_doctor(root_options("amd_not_in_group"));
  ASSERT_EQ(r.facts.gpus.size(), 1u);  // the GPU's HDMI audio function is not a GPU
  const GpuFacts& g = r.facts.gpus[0];
  EXPECT_EQ(g.vendor, "amd");
  EXPECT_EQ(g.name, "AMD Radeon RX 7900 XTX");
  EXPECT_EQ(g.arch, "gfx1100");
  EXPECT_EQ(g.pci_bus_id, "0000:03:00.0");
  EXPECT_EQ(g.render_node, "/dev/dri/renderD128");
  EXPECT_EQ(g.memory_total, 25753026560);
  EXPECT_EQ(r.facts.rocm_version, "6.2.0");
  EXPECT_EQ(r.facts.cpu_logical, 4);
  EXPECT_NE(std::find(r.facts.cpu_features.begin(), r.facts.cpu_features.end(), "AVX512_BF16"),
            r.facts.cpu_features.end());
  const Finding* perm = find(r, "perm.device_access");
  ASSERT_TRUE(perm);
  EXPECT_EQ(perm->fix, "sudo usermod -a -G render,video alice");
  ASSERT_TRUE(find(r, "fw.ort_cpu_only"));
  bool rocblas = false;
  for (const auto& lib : r.facts.libraries)
    if (lib.name == "rocBLAS") rocblas = lib.version == "4.2.60200 (ROCm 6.2.0)";
  EXPECT_TRUE(rocblas);
  for (const auto& fw : r.facts.frameworks)
    if (fw.name == "torch") {
      EXPECT_EQ(fw.built_for, "ROCm 6.2");
      EXPECT_EQ(fw.archs,
                (std::vector<std::string>{"gfx900", "gfx906", "gfx908", "gfx90a", "gfx942", "gfx1030", "gfx1100"}));
    }
}

TEST(DoctorFacts, NvidiaMachineFromNvidiaSmiAndVersionFiles) {
  const DoctorResult r = run_doctor(root_options("nvidia"));
  ASSERT_EQ(r.facts.gpus.size(), 1u);
  EXPECT_EQ(r.facts.gpus[0].name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(r.facts.gpus[0].arch, "sm_90");
  EXPECT_EQ(r.facts.nvidia_driver, "550.54.14");
  EXPECT_EQ(r.facts.cuda_toolkit_version, "12.4.1");
  const Finding* unresolved = find(r, "lib.unresolved");
  ASSERT_TRUE(unresolved);
  EXPECT_NE(unresolved->title.find("libcudnn.so.8"), std::string::npos);
  EXPECT_NE(unresolved->detail.find("silently runs on the CPU"), std::string::npos);
  for (const auto& fw : r.facts.frameworks) {
    if (fw.name == "torch") {
      EXPECT_EQ(fw.cudnn, "9.1.0.70");
    }
    if (fw.name == "onnxruntime-gpu") {
      EXPECT_EQ(fw.built_for, "CUDA 11.8");
    }
  }
}

TEST(DoctorFacts, NoGpuSaysSoAndHasNoErrors) {
  const DoctorResult r = run_doctor(root_options("no_gpu"));
  EXPECT_TRUE(r.facts.gpus.empty());  // the Intel iGPU is not counted
  EXPECT_FALSE(r.has_errors());
  ASSERT_TRUE(find(r, "gpu.none"));
  EXPECT_EQ(r.facts.os, "Debian GNU/Linux 12 (bookworm)");
}

TEST(DoctorChecks, OldLibstdcxxFromLdLibraryPathIsNamedAndTheFixDropsIt) {
  const DoctorResult r = run_doctor(root_options("old_libstdcxx"));
  const Finding* f = find(r, "abi.glibcxx_missing");
  ASSERT_TRUE(f);
  EXPECT_NE(f->title.find("GLIBCXX_3.4.30"), std::string::npos);
  EXPECT_NE(f->title.find("/home/carol/miniconda3/envs/ml/lib/libstdc++.so.6"), std::string::npos);
  EXPECT_NE(f->detail.find("GLIBCXX_3.4.29"), std::string::npos);
  EXPECT_EQ(f->fix, "unset LD_LIBRARY_PATH");  // the system's libstdc++ has it
}

TEST(DoctorChecks, OldLibstdcxxInCondaWithoutABetterOneSuggestsConda) {
  DoctorOptions o = root_options("old_libstdcxx");
  // No newer libstdc++ outside the conda environment: conda's own must be updated.
  std::filesystem::remove(o.root + "/usr/lib/x86_64-linux-gnu/libstdc++.so.6");
  const DoctorResult r = run_doctor(o);
  const Finding* f = find(r, "abi.glibcxx_missing");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->fix, "conda install -c conda-forge 'libstdcxx-ng>=12'");
}

TEST(DoctorChecks, NarrowPcieLink) {
  const DoctorResult r = run_doctor(root_options("narrow_link"));
  const Finding* f = find(r, "pcie.link_narrow");
  ASSERT_TRUE(f);
  EXPECT_NE(f->title.find("x4 of x16"), std::string::npos);
  EXPECT_TRUE(f->fix.empty());  // a hardware change, said in the detail
}

TEST(DoctorChecks, DriversMissing) {
  const DoctorResult r = run_doctor(root_options("no_driver"));
  EXPECT_EQ(find(r, "gpu.amd_driver")->fix, "sudo modprobe amdgpu");
  EXPECT_EQ(find(r, "gpu.nvidia_driver")->fix, "sudo ubuntu-drivers install");  // no nvidia.ko in modules.dep
  EXPECT_EQ(r.facts.gpus[0].name, "Navi 31 [Radeon RX 7900 XT/7900 XTX/7900 GRE/7900M]");  // from pci.ids
}

// Issue 24: a 19-byte text file named libcudnn.so.9 was reported as cuDNN found and ok. Each
// GPU library of the NVIDIA root is broken a different way; each is an error giving the reason,
// and none is "found".
TEST(DoctorChecks, LibrariesTheLoaderCannotLoadAreBrokenWithTheReason) {
  DoctorOptions o = root_options("nvidia");
  const std::string lib = o.root + "/usr/local/cuda/lib64/";
  const std::string real = testing::read_text(std::string(HI_DOCTOR_ELF_DIR) + "/fake_library.so");
  ASSERT_GT(real.size(), 1000u);
  auto write = [](const std::string& path, const std::string& bytes) {
    std::filesystem::remove(path);
    std::ofstream(path, std::ios::binary) << bytes;
  };
  auto patched = [&](size_t at, const std::string& bytes) {
    return real.substr(0, at) + bytes + real.substr(at + bytes.size());
  };
  write(lib + "libcudnn.so.9.1.0", "placeholder library");  // 19 bytes of text
  write(lib + "libcudart.so.12.4.127", patched(EI_CLASS, std::string(1, ELFCLASS32)));
#if defined(__aarch64__)
  const uint16_t other = EM_X86_64;
#else
  const uint16_t other = EM_AARCH64;
#endif
  write(lib + "libcublasLt.so.12.4.5.8",
        patched(offsetof(Elf64_Ehdr, e_machine), std::string(reinterpret_cast<const char*>(&other), 2)));
  write(lib + "libcublas.so.12.4.5.8", real.substr(0, real.size() / 2));  // a download cut short
  const uint16_t exec = ET_EXEC;
  write(o.root + "/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.14",
        patched(offsetof(Elf64_Ehdr, e_type), std::string(reinterpret_cast<const char*>(&exec), 2)));
  const DoctorResult r = run_doctor(o);
  std::map<std::string, std::string> broken;  // library -> title
  for (const auto& f : r.findings) {
    if (f.id == "lib.broken") {
      EXPECT_EQ(f.level, Level::kError);
      broken[f.title.substr(0, f.title.find(" at "))] = f.title;
    }
    EXPECT_FALSE(f.id == "lib.found") << "still found: " << f.title;
  }
  ASSERT_EQ(broken.size(), 5u) << ::testing::PrintToString(broken);
  EXPECT_NE(
      broken["cuDNN"].find(
          "/usr/local/cuda/lib64/libcudnn.so.9 is not a library this machine can load: not an ELF file (19 bytes"),
      std::string::npos)
      << broken["cuDNN"];
  EXPECT_NE(broken["CUDA runtime"].find("a 32-bit ELF file"), std::string::npos) << broken["CUDA runtime"];
  EXPECT_NE(broken["cuBLASLt"].find("built for "), std::string::npos) << broken["cuBLASLt"];
  EXPECT_NE(broken["cuBLAS"].find("truncated"), std::string::npos) << broken["cuBLAS"];
  EXPECT_NE(broken["CUDA driver"].find("an executable, not a shared library"), std::string::npos)
      << broken["CUDA driver"];
}

TEST(DoctorChecks, CompatibilityMatrix) {
  const DoctorResult r = run_doctor(root_options("nvidia_old_driver"));
  const Finding* driver = find(r, "compat.cuda_driver");
  ASSERT_TRUE(driver);
  EXPECT_NE(driver->title.find("580.65.06"), std::string::npos);
  EXPECT_NE(find(r, "compat.cuda_arch")->title.find("sm_61"), std::string::npos);
  EXPECT_EQ(find(r, "perm.device_missing")->fix, "sudo nvidia-modprobe -u -c=0");
  EXPECT_EQ(r.facts.compat_matrix_checked.size(), 10u);
}

// ---- environment variables, on the healthy AMD root ----

std::vector<Finding> env_findings(std::map<std::string, std::string> extra) {
  DoctorOptions o = root_options("hip_launch_blocking");
  o.env.erase("HIP_LAUNCH_BLOCKING");
  for (const auto& [k, v] : extra) o.env[k] = v;
  std::vector<Finding> out;
  for (const auto& f : run_doctor(o).findings)
    if (f.id.rfind("env.", 0) == 0) out.push_back(f);
  return out;
}

TEST(DoctorEnvironment, CleanEnvironmentHasNoFindings) { EXPECT_TRUE(env_findings({}).empty()); }

TEST(DoctorEnvironment, SlowDebugSwitches) {
  for (const char* name :
       {"HIP_LAUNCH_BLOCKING", "CUDA_LAUNCH_BLOCKING", "AMD_SERIALIZE_KERNEL", "PYTORCH_NO_CUDA_MEMORY_CACHING"}) {
    const auto f = env_findings({{name, "1"}});
    ASSERT_EQ(f.size(), 1u) << name;
    EXPECT_EQ(f[0].level, Level::kWarning);
    EXPECT_EQ(f[0].fix, std::string("unset ") + name);
  }
  EXPECT_TRUE(env_findings({{"HIP_LAUNCH_BLOCKING", "0"}}).empty());
}

TEST(DoctorEnvironment, GfxOverride) {
  auto f = env_findings({{"HSA_OVERRIDE_GFX_VERSION", "11.0.0"}});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].level, Level::kWarning);
  EXPECT_EQ(f[0].fix, "unset HSA_OVERRIDE_GFX_VERSION");
  f = env_findings({{"HSA_OVERRIDE_GFX_VERSION", "gfx1100"}});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].level, Level::kError);
}

TEST(DoctorEnvironment, VisibleDevices) {
  auto f = env_findings({{"HIP_VISIBLE_DEVICES", ""}});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].level, Level::kError);
  EXPECT_EQ(f[0].fix, "unset HIP_VISIBLE_DEVICES");
  f = env_findings({{"CUDA_VISIBLE_DEVICES", "0,3"}});  // one GPU here: 3 does not exist
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].fix, "export CUDA_VISIBLE_DEVICES=0");
  EXPECT_TRUE(env_findings({{"ROCR_VISIBLE_DEVICES", "0"}}).empty());
}

TEST(DoctorEnvironment, ThreadOversubscription) {
  const auto f = env_findings({{"OMP_NUM_THREADS", "64"}});  // 16 logical CPUs
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].fix, "export OMP_NUM_THREADS=16");
  EXPECT_TRUE(env_findings({{"OMP_NUM_THREADS", "8"}}).empty());
}

TEST(DoctorEnvironment, LdLibraryPathMixingRocmVersions) {
  const auto f = env_findings({{"LD_LIBRARY_PATH", "/opt/rocm-6.2.0/lib:/home/frank/lib:/opt/rocm-5.7.1/lib"}});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "env.ld_library_path_mixed");
  EXPECT_EQ(f[0].fix, "export LD_LIBRARY_PATH=/opt/rocm-6.2.0/lib:/home/frank/lib");
}

// ---- the GPU runtime's view (injected: fake roots have no runtime) ----

TEST(DoctorRuntime, BuildWithoutTheBackendIsAWarning) {
  DoctorOptions o = root_options("hip_launch_blocking");
  o.query_runtime = [] { return GpuRuntimeInfo{}; };
  const DoctorResult r = run_doctor(o);
  const Finding* f = find(r, "gpu.backend_not_built");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->fix, "cmake -S . -B build -G Ninja -DHI_HIP=ON && cmake --build build");
}

TEST(DoctorRuntime, RuntimeSeeingNoGpuIsTheSilentCpuFallback) {
  DoctorOptions o = root_options("amd_not_in_group");
  o.query_runtime = [] {
    GpuRuntimeInfo rt;
    rt.compiled_backends = {"hip"};
    rt.runtime_version = "HIP 6.2";
    rt.no_gpu_reason = "hipGetDeviceCount: no ROCm-capable device is detected";
    return rt;
  };
  const DoctorResult r = run_doctor(o);
  const Finding* f = find(r, "gpu.runtime_sees_none");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->level, Level::kError);
  EXPECT_NE(f->detail.find("no ROCm-capable device"), std::string::npos);
  EXPECT_EQ(r.facts.hipinfer_runtime, "HIP 6.2");
}

TEST(DoctorRuntime, RuntimeDevicesMergeWithSysfs) {
  DoctorOptions o = root_options("hip_launch_blocking");
  o.query_runtime = [] {
    GpuRuntimeInfo rt;
    rt.compiled_backends = {"hip"};
    DeviceInfo d;
    d.backend = "hip";
    d.name = "AMD Instinct MI210";
    d.arch = "gfx90a";
    d.pci_bus_id = "0000:C1:00.0";
    d.total_memory = 64LL << 30;
    d.free_memory = 1LL << 30;
    rt.devices = {d};
    return rt;
  };
  const DoctorResult r = run_doctor(o);
  ASSERT_EQ(r.facts.gpus.size(), 1u);
  EXPECT_EQ(r.facts.gpus[0].sources.back(), "runtime");
  EXPECT_TRUE(find(r, "gpu.memory_busy"));  // 63 of 64 GiB held by someone else
  EXPECT_FALSE(find(r, "gpu.runtime_sees_none"));
}

// ---- output ----

TEST(DoctorOutput, JsonParsesAndCarriesEveryFinding) {
  const DoctorResult r = run_doctor(root_options("amd_not_in_group"));
  auto j = Json::parse(to_json(r));
  ASSERT_TRUE(j.is_ok()) << j.status().message();
  EXPECT_EQ(j.value()["findings"].items().size(), r.findings.size());
  EXPECT_EQ(j.value()["errors"].num(), 1);
  EXPECT_EQ(j.value()["system"]["gpus"].items()[0]["arch"].str(), "gfx1100");
}

TEST(DoctorOutput, TextHasColourOnlyWhenAsked) {
  const DoctorResult r = run_doctor(root_options("hip_launch_blocking"));
  const std::string plain = format_text(r, false), colour = format_text(r, true);
  EXPECT_EQ(plain.find('\033'), std::string::npos);
  EXPECT_NE(colour.find('\033'), std::string::npos);
  EXPECT_NE(plain.find("fix: unset HIP_LAUNCH_BLOCKING"), std::string::npos);
  EXPECT_NE(plain.find("1 warning, 0 errors"), std::string::npos);
}

TEST(DoctorOutput, BrokenMatrixIsAWarningNotACrash) {
  DoctorOptions o = root_options("no_gpu");
  o.compat_matrix_path = o.root + "/etc/os-release";  // not JSON
  EXPECT_TRUE(find(run_doctor(o), "compat.matrix"));
}

}  // namespace
}  // namespace hi::doctor
