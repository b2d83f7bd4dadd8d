// Element helpers for the low-precision types of dtype.h: minifloat codes (float8 variants,
// float4e2m1) and sub-byte integers (int4/uint4/int2/uint2), all held one element per byte in
// memory. Definitions in minifloat.cc.
#pragma once

#include <cstdint>

#include "hipinfer/dtype.h"

namespace hi {

// The value of one in-memory element of a low-precision type (dtype_is_low_precision(t)).
float low_precision_to_float(DType t, uint8_t byte);
// The in-memory byte for a value: minifloats round to nearest even with the ONNX Cast rules for
// `saturate` (float8e8m0 rounds as `rounding` says); sub-byte integers take the value truncated
// toward zero and wrapped to their width (two's complement), as integer narrowing does.
uint8_t low_precision_from_double(DType t, double x, bool saturate = true, E8M0Rounding rounding = E8M0Rounding::kUp);

// Sub-byte integers held one per byte, from their low bits (sign-extended for int4/int2).
int8_t wrap_to_signed_bits(int64_t v, int bits);
uint8_t wrap_to_unsigned_bits(int64_t v, int bits);

// ONNX files pack 4-bit types two per byte and 2-bit types four per byte, first element in the
// low bits. packed_size is the byte count of n packed elements of type t.
int64_t packed_size(DType t, int64_t n);
// `packed` has packed_size(t, n) bytes; pad bits of the last byte are written as 0.
void pack_sub_byte(DType t, const uint8_t* unpacked, int64_t n, uint8_t* packed);
// Unpacks n elements; int4/int2 come out sign-extended (int8 in [-8, 7] / [-2, 1]).
void unpack_sub_byte(DType t, const uint8_t* packed, int64_t n, uint8_t* unpacked);

}  // namespace hi
