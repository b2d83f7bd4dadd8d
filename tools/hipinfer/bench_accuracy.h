// The accuracy guard of reduced precision: the same random inputs through the model at the
// asked precision and at float32, the error per output, and for [rows, classes] outputs how
// often the top-1 class agrees, with how far float32's top-1 leads (in standard deviations of
// the row): where the classes are nearly tied (a random-weight network on random inputs), any
// rounding flips the top-1, so the agreement among the rows with a clear lead is reported too.
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
  // With kLeadClasses classes or more (with two, the lead over the row's std is always 2): per
  // row, float32's top-1 minus its second over the row's standard deviation.
  std::vector<double> leads;
  int64_t clear_rows = 0;   // rows whose lead is at least kClearLead
  int64_t clear_agree = 0;  // ... and whose top-1 agrees
  static constexpr double kClearLead = 0.5;
  static constexpr int64_t kLeadClasses = 10;
};

// Adds one output's comparison (float32 `want`, reduced precision `got`, same shape) to `a`.
void add_to_accuracy(const Tensor& want, const Tensor& got, OutputAccuracy& a);
// The median of `a.leads` (0 when empty).
double median_lead(const OutputAccuracy& a);

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
