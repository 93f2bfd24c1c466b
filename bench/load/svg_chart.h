#pragma once

#include <string>
#include <utility>
#include <vector>

namespace ralph::bench {

// One line of a chart: its name in the legend and its points (x, y), drawn in order.
struct Series {
  std::string name;
  std::vector<std::pair<double, double>> points;
};

// A plain line chart: axes from zero (x from the smallest x on a log axis), ticks, labels, one
// polyline with dots per series and a legend.
struct Chart {
  std::string title;
  std::string x_label;
  std::string y_label;
  bool log_x = false; // base-10 x axis (concurrency 1 … 1000)
  std::vector<Series> series;
};

// The chart as a standalone SVG document (no scripts, no external fonts).
std::string render_svg(const Chart& chart);

} // namespace ralph::bench
