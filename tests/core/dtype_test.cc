// DType names and the float16/bfloat16 conversions, against exact bit patterns.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "hipinfer/dtype.h"

namespace hi {
namespace {

TEST(DType, NamesRoundTrip) {
  for (int code = 1; code <= 26; ++code) {
    const auto t = static_cast<DType>(code);
    EXPECT_EQ(dtype_from_name(dtype_name(t)), t) << dtype_name(t);
  }
  EXPECT_EQ(dtype_from_name("fp16"), DType::kFloat16);
  EXPECT_EQ(dtype_from_name("nonsense"), DType::kUndefined);
  EXPECT_EQ(dtype_name(static_cast<DType>(99)), "dtype(99)");
}

TEST(DType, Sizes) {
  EXPECT_EQ(dtype_size(DType::kFloat32), 4u);
  EXPECT_EQ(dtype_size(DType::kFloat16), 2u);
  EXPECT_EQ(dtype_size(DType::kInt64), 8u);
  EXPECT_EQ(dtype_size(DType::kBool), 1u);
  EXPECT_EQ(dtype_size(DType::kInt4), 1u);  // sub-byte types are held one per byte
  EXPECT_EQ(dtype_bits(DType::kInt4), 4);   // ... and packed in files
  EXPECT_EQ(dtype_bits(DType::kUInt2), 2);
  EXPECT_EQ(dtype_bits(DType::kFloat8E5M2), 8);
  EXPECT_EQ(dtype_size(static_cast<DType>(99)), 0u);
}

TEST(Float16, ExactValues) {
  EXPECT_EQ(Float16::from_float(1.0f), 0x3c00);
  EXPECT_EQ(Float16::from_float(-2.0f), 0xc000);
  EXPECT_EQ(Float16::from_float(65504.0f), 0x7bff);
  EXPECT_EQ(Float16::from_float(65520.0f), 0x7c00);  // rounds to infinity
  EXPECT_EQ(Float16::from_float(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_EQ(Float16::from_float(5.960464477539063e-08f), 0x0001);  // smallest subnormal
  EXPECT_EQ(Float16::from_float(2.98e-08f), 0x0000);               // below half of it
  EXPECT_TRUE(std::isnan(Float16::to_float(Float16::from_float(std::nanf("")))));
  EXPECT_EQ(Float16::to_float(0x3555), 0.333251953125f);
  EXPECT_EQ(Float16::to_float(0x0001), 5.960464477539063e-08f);
}

TEST(Float16, RoundTripsEveryHalf) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float f = Float16::to_float(static_cast<uint16_t>(h));
    if (std::isnan(f)) continue;
    EXPECT_EQ(Float16::from_float(f), h) << std::hex << h;
  }
}

TEST(Float16, RoundsToNearestEven) {
  // 1 + 2^-11 is exactly between 1 and the next half (1 + 2^-10): ties to even gives 1.
  EXPECT_EQ(Float16::from_float(1.0f + 0x1p-11f), 0x3c00);
  EXPECT_EQ(Float16::from_float(1.0f + 3 * 0x1p-11f), 0x3c02);
}

TEST(BFloat16, RoundsToNearestEven) {
  EXPECT_EQ(BFloat16::from_float(1.0f), 0x3f80);
  EXPECT_EQ(BFloat16::to_float(0x3f80), 1.0f);
  EXPECT_EQ(BFloat16::from_float(1.0f + 0x1p-8f), 0x3f80);  // tie -> even
  EXPECT_EQ(BFloat16::from_float(1.0f + 3 * 0x1p-8f), 0x3f82);
}

}  // namespace
}  // namespace hi
