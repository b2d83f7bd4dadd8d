// The latency chart of `hipinfer bench --plot FILE.svg`: one box-and-strip column per engine
// (every run as a dot, the box from p25 to p75, a line at the median, whiskers from min to max),
// side by side on one latency axis, which turns logarithmic when the engines differ by more than
// 20x so the faster one does not shrink to a line.
#pragma once

#include <string>
#include <vector>

namespace hi::cli {

struct SvgSeries {
  std::string label;  // "hipinfer", "ONNX Runtime 1.30.0"
  std::vector<double> latencies_ms;
};

std::string latency_chart_svg(const std::string& title, const std::vector<SvgSeries>& series);

// Text made safe for XML character data and attribute values.
std::string xml_escape(const std::string& s);

// Tick values covering [lo, hi]: multiples of 1, 2 or 5 x 10^k (about 5 of them) on a linear
// axis; 1, 2, 5 x 10^k on a log axis. The first tick is <= lo and the last >= hi.
std::vector<double> axis_ticks(double lo, double hi, bool log_scale);

}  // namespace hi::cli
