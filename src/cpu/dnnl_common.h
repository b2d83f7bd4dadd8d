// Shared oneDNN state: one CPU engine for the process; a stream per calling thread.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include "cpu/kernels.h"

namespace hi::cpu {

dnnl::engine& dnnl_engine();
dnnl::stream& dnnl_stream();  // thread-local: oneDNN CPU streams are cheap and not shared

// The post-op chain for an optional residual sum followed by an activation.
dnnl::post_ops make_post_ops(const Activation& act, bool with_sum);

}  // namespace hi::cpu
