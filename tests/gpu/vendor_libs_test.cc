// vendor_libs.h, compiled once per backend: the list of libraries and what comes back for what no
// library does (no GPU needed: everything here is refused before a device call). cudnn_test.cc
// and cublaslt_test.cc check the CUDA libraries themselves on a GPU.
#include "backends/gpu/vendor_libs.h"

#include <gtest/gtest.h>

#include <string>

namespace hi::gpu::HI_GPU_NS {
namespace {

TEST(HI_GPU_TEST_SUITE, VendorLibrariesAreListedWithAVersionOrAReason) {
  const std::vector<VendorLibraryInfo> libs = vendor_libraries();
  ASSERT_EQ(libs.size(), 2u);
  std::string names;
  for (const VendorLibraryInfo& lib : libs) {
    names += lib.name + " ";
    if (lib.available) EXPECT_EQ(lib.version.rfind(lib.name + " ", 0), 0u) << lib.version;
    else EXPECT_FALSE(lib.reason.empty()) << lib.name;
  }
  if (std::string(backend_name()) == "hip") EXPECT_EQ(names, "MIOpen hipBLASLt ");
  else EXPECT_EQ(names, "cuDNN cuBLASLt ");  // the emulated GPU lists them as not emulated
  if (std::string(backend_name()) == "emu") {
    for (const VendorLibraryInfo& lib : libs) {
      EXPECT_NE(lib.reason.find("not emulated"), std::string::npos) << lib.reason;
    }
  }
}

TEST(HI_GPU_TEST_SUITE, VendorPathsRefuseWhatTheyCannotDo) {
  void* p = reinterpret_cast<void*>(256);
  Conv2dDesc conv;
  conv.batch = 1;
  conv.in_channels = conv.out_channels = 4;
  conv.in_h = conv.in_w = conv.out_h = conv.out_w = 5;
  EXPECT_EQ(vendor_conv2d_workspace(DType::kInt64, conv).status().code(), StatusCode::kUnsupported);
  EXPECT_EQ(vendor_conv2d(DType::kInt64, conv, p, p, nullptr, nullptr, p, nullptr, 0, nullptr).code(),
            StatusCode::kUnsupported);
  MatMulDesc mm;
  mm.m = mm.n = mm.k = 2;
  mm.c_row_stride = 1;  // a column broadcast of C: no cuBLASLt layout for it
  const Status s = vendor_matmul(DType::kFloat32, mm, p, p, p, p, nullptr);
  EXPECT_EQ(s.code(), StatusCode::kUnsupported) << s.to_string();
  EXPECT_EQ(vendor_matmul(DType::kInt32, MatMulDesc{}, p, p, nullptr, p, nullptr).code(), StatusCode::kUnsupported);
}

}  // namespace
}  // namespace hi::gpu::HI_GPU_NS
