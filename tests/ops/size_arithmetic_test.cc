// Issue 24: sizes and integer arithmetic taken from attributes and inputs. One table of tiny
// nodes, each run with its inputs as graph inputs (the kernel's run-time checks) and as
// constants (inference and folding at build). A case either gives the stated output, or fails
// with a Status naming the node, the attribute or input and its value: never a crash, undefined
// behaviour, a huge allocation or an overflowed shape. Huge but countable shapes are left to the
// memory limit (not tested here: they would allocate).
#include <cmath>
#include <limits>
#include <optional>

#include "ops/tensor_builders.h"

namespace hi::test {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t k2e40 = int64_t{1} << 40;
constexpr int64_t k2e62 = int64_t{1} << 62;
const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

template <typename T>
Tensor scalar(T v) {
  return make<T>({}, {v});
}
ir::Attribute ints(const std::vector<int64_t>& v) { return attr_ints(v); }

struct SizeCase {
  std::string what;
  OpCase op;
  std::vector<std::string> fragments;   // the message's fragments; empty: must succeed
  std::optional<Tensor> expected = {};  // with success: the output (else only "no error")
};

std::vector<SizeCase> cases() {
  const Tensor x22 = f32({2, 2}, {1, 2, 3, 4});
  const Tensor x1122 = f32({1, 1, 2, 2}, {1, 2, 3, 4});
  return {
      // ---- ConstantOfShape, Expand -------------------------------------------------------
      {"ConstantOfShape: shape overflows",
       {"ConstantOfShape", "", 20, {}, {i64({3}, {k2e40, k2e40, k2e40})}},
       {"input 'shape'", "[1099511627776, 1099511627776, 1099511627776]", "overflows int64"}},
      {"ConstantOfShape: negative dim",
       {"ConstantOfShape", "", 20, {}, {i64({2}, {2, -3})}},
       {"input 'shape'", "[2, -3]", "negative"}},
      {"Expand: shape overflows",
       {"Expand", "", 13, {}, {f32({1}, {1}), i64({2}, {k2e40, k2e40})}},
       {"input 'shape' [1099511627776, 1099511627776]", "overflows int64"}},
      // ---- Range ---------------------------------------------------------------------------
      {"Range: int64 count past int64",
       {"Range", "", 11, {}, {scalar<int64_t>(kMin), scalar<int64_t>(kMax), scalar<int64_t>(1)}},
       {"start -9223372036854775808", "limit 9223372036854775807", "more than int64 can count"}},
      {"Range: int delta 0",
       {"Range", "", 11, {}, {scalar<int64_t>(0), scalar<int64_t>(5), scalar<int64_t>(0)}},
       {"delta is 0"}},
      {"Range: float delta 0",
       {"Range", "", 11, {}, {scalar<float>(0), scalar<float>(5), scalar<float>(0)}},
       {"delta is 0"}},
      {"Range: NaN start",
       {"Range", "", 11, {}, {scalar<float>(kNaN), scalar<float>(5), scalar<float>(1)}},
       {"start nan", "no defined length"}},
      {"Range: NaN delta",
       {"Range", "", 11, {}, {scalar<float>(0), scalar<float>(5), scalar<float>(kNaN)}},
       {"delta nan", "no defined length"}},
      {"Range: infinite limit",
       {"Range", "", 11, {}, {scalar<float>(0), scalar<float>(kInf), scalar<float>(1)}},
       {"limit inf", "more than int64 can count"}},
      {"Range: 1e30 elements",
       {"Range", "", 11, {}, {scalar<float>(0), scalar<float>(1e30f), scalar<float>(1)}},
       {"more than int64 can count"}},
      {"Range: infinite delta is empty",
       {"Range", "", 11, {}, {scalar<float>(0), scalar<float>(5), scalar<float>(kInf)}},
       {},
       f32({0}, {})},
      // ---- OneHot --------------------------------------------------------------------------
      {"OneHot: depth overflows the output",
       {"OneHot", "", 11, {}, {i64({4}, {0, 1, 2, 3}), scalar<int64_t>(k2e62), f32({2}, {0, 1})}},
       {"input 'depth' = 4611686018427387904", "overflows int64"}},
      {"OneHot: NaN depth",
       {"OneHot", "", 11, {}, {i64({1}, {0}), scalar<float>(kNaN), f32({2}, {0, 1})}},
       {"'depth' is NaN"}},
      {"OneHot: depth 0",
       {"OneHot", "", 11, {}, {i64({1}, {0}), scalar<int64_t>(0), f32({2}, {0, 1})}},
       {"depth", "got 0"}},
      // ---- Tile ----------------------------------------------------------------------------
      {"Tile: one dim overflows",
       {"Tile", "", 13, {}, {x22, i64({2}, {k2e62, 1})}},
       {"input 'repeats' [4611686018427387904, 1]", "dim 0 (2 x 4611686018427387904)", "larger than int64"}},
      {"Tile: the product overflows",
       {"Tile", "", 13, {}, {f32({1, 1}, {1}), i64({2}, {k2e40, k2e40})}},
       {"input 'repeats' [1099511627776, 1099511627776]", "overflows int64"}},
      {"Tile: negative repeats", {"Tile", "", 13, {}, {x22, i64({2}, {1, -2})}}, {"repeats", "negative"}},
      // ---- Pad (fixed before: the style the others follow) ----------------------------------
      {"Pad: pads past 2^62",
       {"Pad", "", 18, {}, {x22, i64({4}, {0, k2e62, 0, 0})}},
       {"pads", "4611686018427387904", "out of range"}},
      // ---- Resize, Upsample ----------------------------------------------------------------
      {"Resize: sizes overflow",
       {"Resize", "", 19, {}, {x1122, Tensor(), Tensor(), i64({4}, {1, 1, k2e40, k2e40})}},
       {"input 'sizes' [1, 1, 1099511627776, 1099511627776]", "overflows int64"}},
      {"Resize: NaN scale",
       {"Resize", "", 19, {}, {x1122, Tensor(), f32({4}, {1, 1, kNaN, 2})}},
       {"scales[2] = nan", "positive finite"}},
      {"Resize: infinite scale",
       {"Resize", "", 19, {}, {x1122, Tensor(), f32({4}, {1, 1, kInf, 2})}},
       {"scales[2] = inf", "positive finite"}},
      {"Resize: negative scale",
       {"Resize", "", 19, {}, {x1122, Tensor(), f32({4}, {1, 1, -2, 2})}},
       {"scales[2] = -2", "positive finite"}},
      {"Resize: huge scale",
       {"Resize", "", 19, {}, {x1122, Tensor(), f32({4}, {1, 1, 1e30f, 1})}},
       {"scales[2] = 1e+30", "more than int64 can count"}},
      {"Resize: negative size",
       {"Resize", "", 19, {}, {x1122, Tensor(), Tensor(), i64({4}, {1, 1, -1, 2})}},
       {"sizes", "negative"}},
      {"Resize: keep_aspect_ratio_policy scales past int64",
       {"Resize",
        "",
        19,
        {{"keep_aspect_ratio_policy", attr_string("not_smaller")}},
        {f32({1, 1000}, std::vector<float>(1000, 1.f)), Tensor(), Tensor(), i64({2}, {k2e62, 1})}},
       {"input 'sizes' [4611686018427387904, 1]", "keep_aspect_ratio_policy", "more than int64 can count"}},
      {"Upsample: scales overflow the output",
       {"Upsample", "", 9, {}, {f32({1, 1, 4, 4}, std::vector<float>(16, 1.f)), f32({4}, {1, 1, 1e9f, 1e9f})}},
       {"scales [1, 1, 1e+09, 1e+09]", "overflows int64"}},
      {"Upsample: NaN scale", {"Upsample", "", 9, {}, {x1122, f32({4}, {1, 1, kNaN, 2})}}, {"scales[2] = nan"}},
      // ---- ConvTranspose -------------------------------------------------------------------
      {"ConvTranspose: output_shape overflows",
       {"ConvTranspose", "", 11, {{"output_shape", ints({k2e40, k2e40})}}, {x1122, f32({1, 1, 1, 1}, {1})}},
       {"attribute 'output_shape' [1099511627776, 1099511627776]", "overflows int64"}},
      {"ConvTranspose: negative output_shape",
       {"ConvTranspose", "", 11, {{"output_shape", ints({-4, 2})}}, {x1122, f32({1, 1, 1, 1}, {1})}},
       {"output size -4"}},
      {"ConvTranspose: huge strides",
       {"ConvTranspose", "", 11, {{"strides", ints({k2e62, 1})}}, {x1122, f32({1, 1, 1, 1}, {1})}},
       {"strides/dilations/kernel/pads are too large"}},
      {"ConvTranspose: huge pads",
       {"ConvTranspose", "", 11, {{"pads", ints({k2e62, k2e62, 0, 0})}}, {x1122, f32({1, 1, 1, 1}, {1})}},
       {"strides/dilations/kernel/pads are too large"}},
      {"ConvTranspose: output_padding past the stride",
       {"ConvTranspose", "", 11, {{"output_padding", ints({kMax, 0})}}, {x1122, f32({1, 1, 1, 1}, {1})}},
       {"output_padding [9223372036854775807, 0]"}},
      {"ConvTranspose: group overflows M",
       {"ConvTranspose", "", 11, {{"group", attr_int(k2e62)}}, {f32({1, 0, 2, 2}, {}), f32({0, 4, 1, 1}, {})}},
       {"group 4611686018427387904", "more output channels than int64 can count"}},
      // ---- DeformConv ----------------------------------------------------------------------
      {"DeformConv: offset_group overflows the offset channels",
       {"DeformConv",
        "",
        19,
        {{"offset_group", attr_int(k2e62)}},
        {f32({1, 0, 2, 2}, {}), f32({1, 0, 1, 1}, {}), f32({1, 2, 2, 2}, std::vector<float>(8, 0.f))}},
       {"offset_group 4611686018427387904", "more offset channels than int64 can count"}},
      {"DeformConv: group overflows C",
       {"DeformConv",
        "",
        19,
        {{"group", attr_int(k2e62)}},
        {f32({1, 0, 2, 2}, {}), f32({1, 4, 1, 1}, std::vector<float>(4, 0.f)),
         f32({1, 2, 2, 2}, std::vector<float>(8, 0.f))}},
       {"group 4611686018427387904"}},
      {"DeformConv: nine spatial dims (2^9 corners per tap)",
       {"DeformConv",
        "",
        19,
        {},
        {f32({1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, {1}), f32({1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, {1}),
         f32({1, 9, 1, 1, 1, 1, 1, 1, 1, 1, 1}, std::vector<float>(9, 0.f))}},
       {"X has 9 spatial dims; DeformConv supports up to 8"}},
      // ---- Col2Im --------------------------------------------------------------------------
      {"Col2Im: image_shape overflows",
       {"Col2Im", "", 18, {}, {f32({1, 1, 1}, {1}), i64({2}, {k2e40, k2e40}), i64({2}, {1, 1})}},
       {"input 'image_shape' [1099511627776, 1099511627776]", "more elements than int64 can count"}},
      {"Col2Im: block_shape overflows",
       {"Col2Im",
        "",
        18,
        {},
        {f32({1, 1, 1}, {1}), i64({3}, {int64_t{1} << 31, int64_t{1} << 31, int64_t{1} << 31}),
         i64({3}, {int64_t{1} << 31, int64_t{1} << 31, int64_t{1} << 31})}},
       {"input 'block_shape' [2147483648, 2147483648, 2147483648]", "more elements than int64 can count"}},
      // ---- CenterCropPad, SpaceToDepth, DepthToSpace, Reshape ----------------------------------
      {"CenterCropPad: shape overflows",
       {"CenterCropPad", "", 18, {}, {x22, i64({2}, {k2e40, k2e40})}},
       {"input 'shape' [1099511627776, 1099511627776]", "overflows int64"}},
      {"SpaceToDepth: blocksize^2 overflows",
       {"SpaceToDepth", "", 13, {{"blocksize", attr_int(int64_t{1} << 32)}}, {x1122}},
       {"attribute 'blocksize' = 4294967296", "blocksize^2 is larger than int64"}},
      {"SpaceToDepth: channels overflow",
       {"SpaceToDepth", "", 13, {{"blocksize", attr_int(1024)}}, {f32({1, int64_t{1} << 45, 0, 0}, {})}},
       {"attribute 'blocksize' = 1024", "35184372088832 channels", "larger than int64"}},
      {"DepthToSpace: blocksize^2 overflows",
       {"DepthToSpace", "", 13, {{"blocksize", attr_int(3037000500)}}, {x1122}},
       {"attribute 'blocksize' = 3037000500", "blocksize^2 is larger than int64"}},
      {"DepthToSpace: height overflows",
       {"DepthToSpace", "", 13, {{"blocksize", attr_int(int64_t{1} << 20)}}, {f32({1, 0, int64_t{1} << 50, 1}, {})}},
       {"attribute 'blocksize' = 1048576", "dim 2 of 1125899906842624", "larger than int64"}},
      {"Reshape: shape overflows",
       {"Reshape", "", 14, {}, {f32({0}, {}), i64({3}, {int64_t{1} << 32, int64_t{1} << 32, -1})}},
       {"input 'shape' [4294967296, 4294967296, -1]", "more elements than int64 can count"}},
      // ---- Slice, Trilu: extreme steps and diagonals ------------------------------------------
      {"Slice: step INT64_MAX",
       {"Slice", "", 13, {}, {x22, i64({1}, {0}), i64({1}, {kMax}), i64({1}, {1}), i64({1}, {kMax})}},
       {},
       f32({2, 1}, {1, 3})},
      {"Slice: step INT64_MIN",
       {"Slice", "", 13, {}, {x22, i64({1}, {-1}), i64({1}, {kMin}), i64({1}, {1}), i64({1}, {kMin})}},
       {},
       f32({2, 1}, {2, 4})},
      {"Trilu: k INT64_MAX", {"Trilu", "", 14, {}, {x22, scalar<int64_t>(kMax)}}, {}, f32({2, 2}, {0, 0, 0, 0})},
      {"Trilu: k INT64_MIN", {"Trilu", "", 14, {}, {x22, scalar<int64_t>(kMin)}}, {}, x22},
      {"Trilu: lower, k INT64_MIN",
       {"Trilu", "", 14, {{"upper", attr_int(0)}}, {x22, scalar<int64_t>(kMin)}},
       {},
       f32({2, 2}, {0, 0, 0, 0})},
      // ---- Integer arithmetic: ONNX's (numpy's) wrapping results, no undefined behaviour ---------
      {"BitShift: uint8 by 8 and 200",
       {"BitShift",
        "",
        11,
        {{"direction", attr_string("LEFT")}},
        {make<uint8_t>({2}, {255, 1}), make<uint8_t>({2}, {8, 200})}},
       {},
       make<uint8_t>({2}, {0, 0})},
      {"BitShift: uint64 right by 64",
       {"BitShift",
        "",
        11,
        {{"direction", attr_string("RIGHT")}},
        {make<uint64_t>({1}, {~uint64_t{0}}), make<uint64_t>({1}, {64})}},
       {},
       make<uint64_t>({1}, {0})},
      {"BitShift: uint16 left by 15",
       {"BitShift",
        "",
        11,
        {{"direction", attr_string("LEFT")}},
        {make<uint16_t>({1}, {65535}), make<uint16_t>({1}, {15})}},
       {},
       make<uint16_t>({1}, {32768})},
      {"Abs: INT32_MIN", {"Abs", "", 13, {}, {i32({2}, {INT32_MIN, -5})}}, {}, i32({2}, {INT32_MIN, 5})},
      {"Abs: INT64_MIN", {"Abs", "", 13, {}, {i64({1}, {kMin})}}, {}, i64({1}, {kMin})},
      {"Neg: INT32_MIN", {"Neg", "", 13, {}, {i32({2}, {INT32_MIN, 7})}}, {}, i32({2}, {INT32_MIN, -7})},
      {"Neg: INT64_MIN", {"Neg", "", 13, {}, {i64({2}, {kMin, kMax})}}, {}, i64({2}, {kMin, kMin + 1})},
      {"Neg: int8 -128", {"Neg", "", 13, {}, {make<int8_t>({1}, {-128})}}, {}, make<int8_t>({1}, {-128})},
      {"Div: INT32_MIN / -1",
       {"Div", "", 14, {}, {i32({1}, {INT32_MIN}), i32({1}, {-1})}},
       {"integer division overflow"}},
      {"Div: by zero", {"Div", "", 14, {}, {i64({1}, {5}), i64({1}, {0})}}, {"integer division by zero"}},
      {"Mod: INT64_MIN % -1", {"Mod", "", 13, {}, {i64({1}, {kMin}), i64({1}, {-1})}}, {}, i64({1}, {0})},
      {"Mod fmod: INT32_MIN % -1",
       {"Mod", "", 13, {{"fmod", attr_int(1)}}, {i32({1}, {INT32_MIN}), i32({1}, {-1})}},
       {},
       i32({1}, {0})},
      {"Mod: by zero", {"Mod", "", 13, {}, {i64({1}, {5}), i64({1}, {0})}}, {"integer division by zero"}},
      {"Pow: uint16 65535^2 wraps",
       {"Pow", "", 15, {}, {make<uint16_t>({1}, {65535}), make<uint16_t>({1}, {2})}},
       {},
       make<uint16_t>({1}, {1})},
      {"Pow: int16 (-1)^3",
       {"Pow", "", 15, {}, {make<int16_t>({2}, {-1, -2}), make<int16_t>({2}, {3, 15})}},
       {},
       make<int16_t>({2}, {-1, -32768})},
      {"Pow: int64 2^63 wraps", {"Pow", "", 15, {}, {i64({1}, {2}), i64({1}, {63})}}, {}, i64({1}, {kMin})},
      {"Pow: uint64 exponent past 2^63",
       {"Pow", "", 15, {}, {make<uint64_t>({2}, {0, 1}), make<uint64_t>({2}, {~uint64_t{0}, ~uint64_t{0}})}},
       {},
       make<uint64_t>({2}, {0, 1})},
      {"Mul: int64 wraps", {"Mul", "", 14, {}, {i64({1}, {kMax}), i64({1}, {2})}}, {}, i64({1}, {-2})},
      {"Mul: uint16 65535 * 65535 wraps",
       {"Mul", "", 14, {}, {make<uint16_t>({1}, {65535}), make<uint16_t>({1}, {65535})}},
       {},
       make<uint16_t>({1}, {1})},
      {"Add: int64 wraps", {"Add", "", 14, {}, {i64({1}, {kMax}), i64({1}, {1})}}, {}, i64({1}, {kMin})},
      {"Sub: int32 wraps", {"Sub", "", 14, {}, {i32({1}, {INT32_MIN}), i32({1}, {1})}}, {}, i32({1}, {INT32_MAX})},
  };
}

TEST(SizeArithmetic, EveryCaseFailsCleanlyOrGivesTheStatedOutput) {
  for (const SizeCase& c : cases()) {
    for (bool constants : {false, true}) {
      SCOPED_TRACE(c.what + (constants ? " (constant inputs)" : " (graph inputs)"));
      auto r = run_op_once(c.op, constants);
      if (c.fragments.empty()) {
        EXPECT_TRUE(r.is_ok()) << r.status().to_string();
        if (r.is_ok() && c.expected) expect_tensor_eq(r.value()[0], *c.expected);
        continue;
      }
      EXPECT_FALSE(r.is_ok()) << "should have failed";
      if (r.is_ok()) continue;
      const std::string& m = r.status().message();
      EXPECT_TRUE(r.status().code() == StatusCode::kInvalidModel || r.status().code() == StatusCode::kInvalidArgument)
          << r.status().to_string();
      EXPECT_NE(m.find("under_test"), std::string::npos) << "the node is not named: " << m;
      for (const auto& f : c.fragments) EXPECT_NE(m.find(f), std::string::npos) << "missing '" << f << "' in: " << m;
    }
  }
}

}  // namespace
}  // namespace hi::test
