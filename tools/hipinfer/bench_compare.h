// The one-off output check of `hipinfer bench --compare`: hipinfer's outputs against a peer's.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "hipinfer/session.h"

namespace hi::cli {

struct OutputDiff {
  std::string name;
  std::string problem;  // why the values could not be compared (missing, shape, dtype); "" if they were
  int64_t elements = 0;
  double max_abs_error = 0;
  // Largest |ours - peer| relative to the peer output's scale (its largest finite |value|), so
  // outputs near zero do not blow it up; infinite when the peer's output is all zeros and ours not.
  double max_rel_error = 0;
  int64_t nonfinite_mismatches = 0;  // elements where only one side is NaN, or infinities differ
  bool match = false;
};

// Relative tolerance (to the output's scale) for floating outputs; integers, bools and strings
// must be equal. bf16 computes in 8-bit mantissas, so it is allowed more.
double output_tolerance(const std::string& precision);

// One entry per peer output, in the peer's order; an output hipinfer lacks is a problem.
std::vector<OutputDiff> compare_outputs(const TensorMap& ours, const std::vector<std::pair<std::string, Tensor>>& peer,
                                        double tolerance);

}  // namespace hi::cli
