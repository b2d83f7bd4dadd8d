// RNN, GRU and LSTM on the CPU: the ops' float32 products on sgemm and their Sigmoid and Tanh
// gates on the vector activation kernels (a step's activations one call at a time were a third of
// a small LSTM's time).
#pragma once

#include "backends/cpu/kernels/kernels.h"
#include "ops/rnn_util.h"

namespace hi::cpu {

template <class Op>
class CpuRecurrent final : public Op {
 protected:
  const ops::rnn::Float32Kernels* float32_kernels() const override {
    static const ops::rnn::Float32Kernels kernels{&gemm_nt, &sigmoid_or_tanh};
    return &kernels;
  }

 private:
  static void gemm_nt(int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda, const float* b,
                      int64_t ldb, float beta, float* c, int64_t ldc) {
    sgemm(false, true, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
  static void sigmoid_or_tanh(float* x, int64_t n, bool sigmoid) {
    Activation act;
    act.kind = sigmoid ? Activation::Kind::kSigmoid : Activation::Kind::kTanh;
    activate_in_place(x, n, act);
  }
};

}  // namespace hi::cpu
