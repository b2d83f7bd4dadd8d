// C = act(A W + bias (+ Z)) with W packed once: the register-tiled AVX-512 product behind the own
// CPU kernels (the inverted residual block's 1x1 convolutions, FusedMatMul). W is stored as
// vectors of 16 output columns, [n / 16][k][16], so a tile of up to 12 rows x 4 vectors keeps its
// accumulators in registers and reads each weight vector once per k for all its rows.
// Call only where avx512_kernels_available() (backends/cpu/kernels/avx512_util.h).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>
#include <vector>

#include "backends/cpu/kernels/aligned.h"
#include "backends/cpu/kernels/kernels.h"
#include "core/threading.h"

namespace hi::cpu {

// Output vectors [v0, ...) of packed weights, over all their k rows.
struct WeightSlice {
  const float* w;
  int64_t w_stride, k;  // floats from one output vector's panel to the next; rows
  const float* bias;    // 16 floats per vector
};

struct PackedWeights {
  AlignedVector<float> w, bias;  // [vectors][k][16], [vectors * 16]; zeros past n and the real k
  int64_t k = 0, vectors = 0;
  // From weights [n][k_real] (an ONNX 1x1 convolution's [O, I, 1, 1]), k padded to k_padded rows.
  void pack_rows(const float* weights, const float* bias, int64_t n, int64_t k_real, int64_t k_padded);
  // From weights [k][n] (a MatMul's B).
  void pack_columns(const float* weights, const float* bias, int64_t k, int64_t n);
  // From any strided [k_real, n] view, element (i, j) at src[i * k_stride + j * n_stride], times
  // scale; k padded to k_padded rows; bias may be null (zeros). Reuses the storage it has.
  void pack(const float* src, int64_t k_real, int64_t k_padded, int64_t n, int64_t k_stride, int64_t n_stride,
            float scale, const float* bias);
  WeightSlice slice(int64_t v0) const {
    return {w.data() + v0 * k * kVector, k * kVector, k, bias.data() + v0 * kVector};
  }
  static constexpr int64_t kVector = 16;  // output columns per packed vector
};

// C[m, n] = act(A[m, k] W + bias (+ Z[m, n])) for the first n output columns of the slice; rows
// of A, C and Z lda, ldc and ldz floats apart. act: none, Relu or Clip. One thread.
void packed_gemm(const float* a, int64_t lda, int64_t m, const WeightSlice& w, int64_t n, float* c, int64_t ldc,
                 const float* z, int64_t ldz, const Activation& act);

// How the products (this one and the bfloat16 one) cut C into register tiles: runs of up to 4
// vectors of 16 columns (5 left: 3 + 2, never a lone vector), each run taken kTileRows[vectors]
// rows at a time, so a tile's accumulators plus one weight vector per column fit the 32
// registers. Calls f(v0, vectors, lanes in the last vector, r0, rows) per tile.
constexpr int kTileRows[5] = {0, 12, 12, 8, 6};
template <typename F>
void walk_tiles(int64_t m, int64_t n, F&& f) {
  constexpr int64_t lanes = PackedWeights::kVector;
  const int64_t vectors = (n + lanes - 1) / lanes;
  for (int64_t v0 = 0; v0 < vectors;) {
    const int64_t left = vectors - v0;
    const int nv = static_cast<int>(left <= 4 ? left : left == 5 ? 3 : 4);
    const int64_t last_lanes = std::min(lanes, n - (v0 + nv - 1) * lanes);
    for (int64_t r0 = 0; r0 < m; r0 += kTileRows[nv])
      f(v0, nv, last_lanes, r0, static_cast<int>(std::min<int64_t>(kTileRows[nv], m - r0)));
    v0 += nv;
  }
}

// The register-tile functions of one product by vectors (1-4) and rows (1 to kTileRows[vectors]):
// F<M, NV>::fn is the tile for M rows of NV vectors (a function template instantiated per size).
template <template <int, int> class F>
class TileTable {
 public:
  using Fn = std::remove_const_t<decltype(F<1, 1>::fn)>;
  static Fn get(int vectors, int rows) {
    static const std::array<Fn, 12> one = make<1>(std::make_integer_sequence<int, 12>());
    static const std::array<Fn, 12> two = make<2>(std::make_integer_sequence<int, 12>());
    static const std::array<Fn, 8> three = make<3>(std::make_integer_sequence<int, 8>());
    static const std::array<Fn, 6> four = make<4>(std::make_integer_sequence<int, 6>());
    const size_t r = static_cast<size_t>(rows - 1);
    switch (vectors) {
      case 1: return one[r];
      case 2: return two[r];
      case 3: return three[r];
      default: return four[r];
    }
  }

 private:
  template <int NV, int... R>
  static constexpr std::array<Fn, sizeof...(R)> make(std::integer_sequence<int, R...>) {
    return {F<R + 1, NV>::fn...};
  }
};

// How the kernels on the packed products share C[rows, n] out among threads: blocks of 48 rows x
// 64 columns, handed out in order. Row blocks outermost when the rows outweigh the weights (each
// thread then reads its rows once while the weights stay in its cache), else column blocks
// (each thread reads its share of the weights).
struct ProductBlocks {
  static constexpr int64_t kRows = 48, kColumns = 64;
  struct Block {
    int64_t row_block, r0, rows, c0, cols;
  };
  ProductBlocks(int64_t rows, int64_t k, int64_t n)
      : rows_(rows), n_(n), row_blocks_((rows + kRows - 1) / kRows), col_blocks_((n + kColumns - 1) / kColumns),
        rows_outer_(rows * k > k * ((n + 15) / 16 * 16)) {}
  int64_t count() const { return row_blocks_ * col_blocks_; }
  int64_t row_blocks() const { return row_blocks_; }
  bool rows_outer() const { return rows_outer_; }
  Block operator[](int64_t t) const {
    const int64_t rb = rows_outer_ ? t / col_blocks_ : t % row_blocks_;
    const int64_t cb = rows_outer_ ? t % col_blocks_ : t / row_blocks_;
    return {rb, rb * kRows, std::min(kRows, rows_ - rb * kRows), cb * kColumns, std::min(kColumns, n_ - cb * kColumns)};
  }

 private:
  int64_t rows_, n_, row_blocks_, col_blocks_;
  bool rows_outer_;
};

// Runs a product whose A rows must first be made (gathered from a convolution's input, rounded to
// bfloat16) into rows of k values of T: with row blocks outermost a thread makes a block's rows
// when it reaches it, otherwise all rows are made first (each made once either way).
// make(r0, rows, dst) writes rows [r0, r0 + rows); product(a, block) multiplies a block, `a` its
// first row. `in_place`, when not null, already holds every row (nothing is made).
template <typename T, typename Make, typename Product>
void run_made_rows(const ProductBlocks& blocks, int64_t rows, int64_t k, const T* in_place, Make&& make,
                   Product&& product) {
  const bool make_per_block = !in_place && blocks.rows_outer();
  // (A thread_local named inside a lambda is the running thread's own: hence the pointer.)
  thread_local AlignedVector<T> all_rows;
  const T* made = in_place;
  if (!in_place && !make_per_block) {
    all_rows.resize(static_cast<size_t>(rows * k));
    T* dst = all_rows.data();
    parallel_for(blocks.row_blocks(), 1, [&](int64_t b0, int64_t b1) {
      const int64_t r0 = b0 * ProductBlocks::kRows, r1 = std::min(rows, b1 * ProductBlocks::kRows);
      make(r0, r1 - r0, dst + r0 * k);
    });
    made = dst;
  }
  parallel_for(blocks.count(), 1, [&](int64_t t0, int64_t t1) {
    thread_local AlignedVector<T> panel;
    int64_t panel_block = -1;
    for (int64_t t = t0; t < t1; ++t) {
      const ProductBlocks::Block b = blocks[t];
      if (make_per_block && panel_block != b.row_block) {
        panel.resize(static_cast<size_t>(ProductBlocks::kRows * k));
        make(b.r0, b.rows, panel.data());
        panel_block = b.row_block;
      }
      product(make_per_block ? panel.data() : made + b.r0 * k, b);
    }
  });
}

}  // namespace hi::cpu
