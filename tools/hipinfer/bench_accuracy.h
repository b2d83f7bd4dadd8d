// The accuracy guard of reduced precision: the same random inputs through the model at the
// asked precision and at float32, the error per output, and for [rows, classes] outputs how
// often the top-1 class agrees.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hipinfer/session.h"

namespace hi::cli {

struct OutputAccuracy {
  std::string name;
  double max_abs_error = 0;
  double max_rel_error = 0;  // relative to the largest |value| of the float32 output, per sample
  int64_t rows = 0;          // rows compared for top-1 (0: not a [rows, classes] float output)
  int64_t top1_agree = 0;
};

struct AccuracyReport {
  int samples = 0;
  std::vector<OutputAccuracy> outputs;
};

// Runs `samples` random inputs (seeds seed, seed+1, ...) through `reduced` and a float32 session
// of the same model and options.
Result<AccuracyReport> accuracy_guard(const std::string& model, const Session& reduced, const SessionOptions& options,
                                      const std::vector<std::string>& input_specs, int64_t batch, uint64_t seed,
                                      int samples);

void print_accuracy(std::FILE* out, const std::string& precision, const AccuracyReport& r);

}  // namespace hi::cli
