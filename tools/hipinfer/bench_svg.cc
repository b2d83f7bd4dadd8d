// The latency chart, written as SVG text by hand; see bench_svg.h.
#include "bench_svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "bench_stats.h"

namespace hi::cli {
namespace {

constexpr double kWidth = 760, kHeight = 500;
constexpr double kLeft = 80, kRight = 20, kTop = 60, kBottom = 90;
constexpr size_t kMaxDots = 4000;  // more runs than this are thinned evenly for the dots only

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

std::string tick_label(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// 1, 2 or 5 x 10^k nearest above `x` (for the linear tick step).
double nice_step(double x) {
  const double p = std::pow(10.0, std::floor(std::log10(x)));
  for (double m : {1.0, 2.0, 5.0})
    if (m * p >= x) return m * p;
  return 10 * p;
}

}  // namespace

std::string xml_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        // Control characters other than tab and newline are not allowed in XML 1.0 at all.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n') out += '?';
        else out += c;
    }
  }
  return out;
}

std::vector<double> axis_ticks(double lo, double hi, bool log_scale) {
  std::vector<double> ticks;
  if (!std::isfinite(lo) || !std::isfinite(hi)) return {0, 1};
  if (log_scale && lo <= 0) log_scale = false;
  if (!(hi > lo)) {
    // One value: an axis around it.
    const double pad = lo != 0 ? std::fabs(lo) * 0.1 : 1;
    return axis_ticks(log_scale ? lo / 1.5 : lo - pad, log_scale ? lo * 1.5 : lo + pad, log_scale);
  }
  if (log_scale) {
    const double mantissas[] = {1, 2, 5};
    double decade = std::pow(10.0, std::floor(std::log10(lo)));
    // Start at the largest 1/2/5 x 10^k not above lo.
    double first = decade;
    for (double m : mantissas)
      if (m * decade <= lo) first = m * decade;
    for (int guard = 0; guard < 200; ++guard, decade *= 10) {
      for (double m : mantissas) {
        const double t = m * decade;
        if (t < first * (1 - 1e-12)) continue;
        ticks.push_back(t);
        if (t >= hi) return ticks;
      }
    }
    return ticks;
  }
  const double step = nice_step((hi - lo) / 5);
  const double start = std::floor(lo / step) * step;
  for (int i = 0; i < 100; ++i) {
    const double t = start + i * step;
    ticks.push_back(std::fabs(t) < step * 1e-9 ? 0 : t);
    if (t >= hi - step * 1e-9) break;
  }
  return ticks;
}

std::string latency_chart_svg(const std::string& title, const std::vector<SvgSeries>& series) {
  double lo = INFINITY, hi = -INFINITY, lo_median = INFINITY, hi_median = -INFINITY;
  for (const auto& s : series) {
    if (s.latencies_ms.empty()) continue;
    const LatencySummary sum = summarize(s.latencies_ms);
    lo = std::min(lo, sum.min_ms);
    hi = std::max(hi, sum.max_ms);
    lo_median = std::min(lo_median, sum.median_ms);
    hi_median = std::max(hi_median, sum.median_ms);
  }
  if (!std::isfinite(lo)) lo = hi = 1;  // nothing measured: an empty axis
  const bool log_scale = lo > 0 && hi_median / lo_median > 20;
  if (!log_scale) lo = std::min(lo, 0.0);  // a linear latency axis starts at 0, so heights compare
  const std::vector<double> ticks = axis_ticks(lo, hi, log_scale);
  const double axis_lo = ticks.front(), axis_hi = ticks.back();
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  auto y_of = [&](double v) {
    const double f = log_scale ? (std::log(v) - std::log(axis_lo)) / (std::log(axis_hi) - std::log(axis_lo))
                               : (v - axis_lo) / (axis_hi - axis_lo);
    return kTop + plot_h * (1 - f);
  };

  std::string svg;
  svg += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  svg += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(kWidth) + "\" height=\"" + num(kHeight) +
         "\" viewBox=\"0 0 " + num(kWidth) + " " + num(kHeight) + "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  svg += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  svg += "<text x=\"" + num(kWidth / 2) + "\" y=\"24\" text-anchor=\"middle\" font-size=\"15\">" + xml_escape(title) +
         "</text>\n";
  svg += "<text x=\"" + num(kWidth / 2) +
         "\" y=\"42\" text-anchor=\"middle\" fill=\"#555\">"
         "dots: runs; box: 25th-75th percentile; bar: median; whiskers: min to max" +
         std::string(log_scale ? "; log scale" : "") + "</text>\n";

  // Axes, grid and tick labels.
  svg += "<g stroke=\"#ddd\">\n";
  for (double t : ticks)
    svg += "<line x1=\"" + num(kLeft) + "\" x2=\"" + num(kWidth - kRight) + "\" y1=\"" + num(y_of(t)) + "\" y2=\"" +
           num(y_of(t)) + "\"/>\n";
  svg += "</g>\n<g text-anchor=\"end\">\n";
  for (double t : ticks)
    svg += "<text x=\"" + num(kLeft - 6) + "\" y=\"" + num(y_of(t) + 4) + "\">" + tick_label(t) + "</text>\n";
  svg += "</g>\n";
  svg += "<line x1=\"" + num(kLeft) + "\" x2=\"" + num(kLeft) + "\" y1=\"" + num(kTop) + "\" y2=\"" +
         num(kTop + plot_h) + "\" stroke=\"black\"/>\n";
  svg += "<line x1=\"" + num(kLeft) + "\" x2=\"" + num(kWidth - kRight) + "\" y1=\"" + num(kTop + plot_h) + "\" y2=\"" +
         num(kTop + plot_h) + "\" stroke=\"black\"/>\n";
  svg += "<text transform=\"translate(20 " + num(kTop + plot_h / 2) +
         ") rotate(-90)\" text-anchor=\"middle\">latency per run (ms)</text>\n";
  svg += "<text x=\"" + num(kLeft + plot_w / 2) + "\" y=\"" + num(kHeight - 12) +
         "\" text-anchor=\"middle\">engine</text>\n";

  const char* colours[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728"};
  const double column_w = plot_w / static_cast<double>(std::max<size_t>(series.size(), 1));
  for (size_t i = 0; i < series.size(); ++i) {
    const auto& s = series[i];
    const std::string colour = colours[i % 4];
    const double cx = kLeft + column_w * (static_cast<double>(i) + 0.5);
    const double box_w = std::min(column_w * 0.4, 120.0);
    const LatencySummary sum = summarize(s.latencies_ms);
    svg += "<text x=\"" + num(cx) + "\" y=\"" + num(kTop + plot_h + 20) + "\" text-anchor=\"middle\">" +
           xml_escape(s.label) + "</text>\n";
    char caption[128];
    std::snprintf(caption, sizeof caption, "median %.3g ms, %d runs", sum.median_ms, sum.runs);
    svg += "<text x=\"" + num(cx) + "\" y=\"" + num(kTop + plot_h + 36) + "\" text-anchor=\"middle\" fill=\"#555\">" +
           (sum.runs ? std::string(caption) : "not measured") + "</text>\n";
    if (!sum.runs) continue;
    std::vector<double> sorted = s.latencies_ms;
    std::sort(sorted.begin(), sorted.end());
    // Dots, spread sideways by a fixed low-discrepancy sequence so the file is reproducible.
    svg += "<g fill=\"" + colour + "\" fill-opacity=\"0.35\">\n";
    const size_t stride = (s.latencies_ms.size() + kMaxDots - 1) / kMaxDots;
    for (size_t k = 0; k < s.latencies_ms.size(); k += stride) {
      const double jitter = std::fmod(static_cast<double>(k) * 0.6180339887, 1.0) - 0.5;
      svg += "<circle cx=\"" + num(cx + jitter * box_w * 1.6) + "\" cy=\"" + num(y_of(s.latencies_ms[k])) +
             "\" r=\"2\"/>\n";
    }
    svg += "</g>\n";
    const double q1 = y_of(percentile(sorted, 25)), q3 = y_of(percentile(sorted, 75));
    svg += "<g stroke=\"" + colour + "\" stroke-width=\"1.5\" fill=\"none\">\n";
    svg += "<line x1=\"" + num(cx) + "\" x2=\"" + num(cx) + "\" y1=\"" + num(y_of(sum.max_ms)) + "\" y2=\"" + num(q3) +
           "\"/>\n";
    svg += "<line x1=\"" + num(cx) + "\" x2=\"" + num(cx) + "\" y1=\"" + num(q1) + "\" y2=\"" + num(y_of(sum.min_ms)) +
           "\"/>\n";
    for (double v : {sum.min_ms, sum.max_ms})
      svg += "<line x1=\"" + num(cx - box_w / 4) + "\" x2=\"" + num(cx + box_w / 4) + "\" y1=\"" + num(y_of(v)) +
             "\" y2=\"" + num(y_of(v)) + "\"/>\n";
    svg += "<rect x=\"" + num(cx - box_w / 2) + "\" y=\"" + num(q3) + "\" width=\"" + num(box_w) + "\" height=\"" +
           num(std::max(q1 - q3, 0.5)) + "\"/>\n";
    svg += "<line x1=\"" + num(cx - box_w / 2) + "\" x2=\"" + num(cx + box_w / 2) + "\" y1=\"" +
           num(y_of(sum.median_ms)) + "\" y2=\"" + num(y_of(sum.median_ms)) + "\" stroke-width=\"3\"/>\n";
    svg += "</g>\n";
  }
  svg += "</svg>\n";
  return svg;
}

}  // namespace hi::cli
