// Shared oneDNN state: one CPU engine for the process; a stream per calling thread.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <chrono>
#include <vector>

#include "cpu/kernels.h"

namespace hi::cpu {

dnnl::engine& dnnl_engine();
dnnl::stream& dnnl_stream();  // thread-local: oneDNN CPU streams are cheap and not shared

// Primitives are made with scratchpad_mode::user and given this at each call: the calling thread's
// own scratch buffer, grown as needed. oneDNN's library-managed scratchpad belongs to the
// primitive, so two threads running one session (one primitive) at once would share it.
dnnl::primitive_attr make_attr(const Activation& act, bool with_sum);
dnnl::memory thread_scratchpad(const dnnl::memory::desc& desc);

// The post-op chain for an optional residual sum followed by an activation.
dnnl::post_ops make_post_ops(const Activation& act, bool with_sum);

// Best of three runs of k.run(input, residual, output) on zeros, in milliseconds (a first run
// warms up): how make_conv_kernel and make_matmul_kernel choose among candidate kernels.
template <typename Kernel>
double time_on_zeros(const Kernel& k, size_t input_floats, size_t output_floats) {
  std::vector<float> x(input_floats, 0.f), z(output_floats, 0.f), y(output_floats, 0.f);
  double best = 1e30;
  for (int i = 0; i < 4; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    (void)k.run(x.data(), z.data(), y.data());
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (i > 0) best = std::min(best, ms);
  }
  return best;
}

}  // namespace hi::cpu
