// The discrete Fourier transform shared by DFT and STFT: one transform of n complex values,
// radix-2 (O(n log n)) when n is a power of two, the defining O(n^2) sum otherwise. Computed in
// double whatever the tensor type.
#pragma once

#include <complex>
#include <vector>

namespace hi::ops {

// data[k] <- sum_t data[t] * exp(-+2 pi i k t / n) (sign + when inverse), unscaled: the caller
// divides by n for the inverse transform.
void dft_in_place(std::vector<std::complex<double>>& data, bool inverse);

// The O(n^2) sum on its own (what dft_in_place uses for other lengths); for tests.
void dft_naive(std::vector<std::complex<double>>& data, bool inverse);

}  // namespace hi::ops
