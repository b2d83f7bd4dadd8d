// Inputs for a model on the command line: given ones from files (--input NAME=FILE), the rest
// random. Shared by `hipinfer run` and `hipinfer bench` so both feed a model the same way.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "hipinfer/session.h"
#include "hipinfer/status.h"

namespace hi::cli {

// Random values suited to the dtype: normal floats, small non-negative integers in [0, 9] (or
// below the input's index_limit when smaller: safe as Gather/embedding indices), random bools. Symbolic dims take the
// value `batch`.
Result<Tensor> random_input(const TensorInfo& info, int64_t batch, std::mt19937_64& rng);

// Checks the form of each "NAME=FILE" spec (before any slow work); the error names the bad one.
Status check_input_specs(const std::vector<std::string>& specs);

// Reads each "NAME=FILE" spec (.npy, or an ONNX TensorProto when FILE ends in .pb), then fills
// every model input not given with random values (seeded by `seed`, in model input order).
// A malformed spec is kInvalidArgument; unknown input names are left for Session::run to report.
Result<TensorMap> make_model_inputs(const Session& session, const std::vector<std::string>& specs, int64_t batch,
                                    uint64_t seed);

}  // namespace hi::cli
