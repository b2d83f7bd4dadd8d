// Shared oneDNN state: one CPU engine for the process; a stream per calling thread.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include <memory>
#include <vector>

#include "backends/cpu/kernels/fastest.h"
#include "backends/cpu/kernels/kernels.h"

namespace hi::cpu {

dnnl::engine& dnnl_engine();
dnnl::stream& dnnl_stream();  // thread-local: oneDNN CPU streams are cheap and not shared

// Primitives are made with scratchpad_mode::user and given this at each call: the calling thread's
// own scratch buffer, grown as needed. oneDNN's library-managed scratchpad belongs to the
// primitive, so two threads running one session (one primitive) at once would share it.
dnnl::primitive_attr make_attr(const Activation& act, bool with_sum);
dnnl::memory thread_scratchpad(const dnnl::memory::desc& desc);

// Plain float32 weights (`user`) reordered into the layout a primitive wants, through the op's
// weight cache: kernels for other shapes that want the same layout share one copy, for as long
// as one of them holds the pointer.
std::shared_ptr<const dnnl::memory> reordered_weights(const dnnl::memory::desc& user, const float* weights,
                                                      const dnnl::memory::desc& wanted, WeightCache* cache);

// The post-op chain for an optional residual sum followed by an activation.
dnnl::post_ops make_post_ops(const Activation& act, bool with_sum);

}  // namespace hi::cpu
