#include "load/svg_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace ralph::bench {
namespace {

constexpr double k_width = 720;
constexpr double k_height = 420;
constexpr double k_left = 80;
constexpr double k_right = 170; // room for the legend
constexpr double k_top = 40;
constexpr double k_bottom = 60;
constexpr std::array<const char*, 6> k_colours = {"#1f77b4", "#d62728", "#2ca02c",
                                                  "#ff7f0e", "#9467bd", "#8c564b"};

// A step of 1, 2 or 5 × 10^n giving about `count` ticks over [0, top].
double tick_step(double top, int count) {
  const double raw = top / count;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double mult : {1.0, 2.0, 5.0}) {
    if (mult * power >= raw) {
      return mult * power;
    }
  }
  return 10 * power;
}

std::string number(double value) {
  if (value != 0 && std::abs(value) < 1) {
    return fmt::format("{:g}", value);
  }
  return fmt::format("{:.0f}", value);
}

std::string escape(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '&':
      out += "&amp;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

} // namespace

std::string render_svg(const Chart& chart) {
  double x_min = chart.log_x ? 1e300 : 0;
  double x_max = 0;
  double y_max = 0;
  for (const Series& series : chart.series) {
    for (const auto& [x, y] : series.points) {
      x_min = std::min(x_min, x);
      x_max = std::max(x_max, x);
      y_max = std::max(y_max, y);
    }
  }
  if (chart.log_x) {
    x_min = std::pow(10.0, std::floor(std::log10(std::max(x_min, 1e-9))));
    x_max = std::pow(10.0, std::ceil(std::log10(std::max(x_max, x_min * 10))));
  }
  const double y_step = tick_step(y_max > 0 ? y_max : 1, 5);
  const double y_top = std::ceil((y_max > 0 ? y_max : 1) / y_step) * y_step;
  const double x_step = chart.log_x ? 10 : tick_step(x_max > 0 ? x_max : 1, 8);
  const double x_top = chart.log_x ? x_max : std::ceil((x_max > 0 ? x_max : 1) / x_step) * x_step;
  const double plot_w = k_width - k_left - k_right;
  const double plot_h = k_height - k_top - k_bottom;
  const auto px = [&](double x) {
    const double share =
        chart.log_x ? std::log10(x / x_min) / std::log10(x_top / x_min) : x / x_top;
    return k_left + share * plot_w;
  };
  const auto py = [&](double y) { return k_top + plot_h - y / y_top * plot_h; };

  std::string svg = fmt::format(
      R"(<svg xmlns="http://www.w3.org/2000/svg" width="{0}" height="{1}" viewBox="0 0 {0} {1}" )"
      R"(font-family="sans-serif" font-size="12">)"
      "\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
      k_width, k_height);
  svg += fmt::format(R"(<text x="{}" y="22" font-size="15" text-anchor="middle">{}</text>)"
                     "\n",
                     k_left + plot_w / 2, escape(chart.title));
  // Grid and ticks.
  for (double y = 0; y <= y_top + y_step / 2; y += y_step) {
    svg += fmt::format(R"(<line x1="{0}" y1="{1:.1f}" x2="{2}" y2="{1:.1f}" stroke="#ddd"/>)"
                       R"(<text x="{3}" y="{4:.1f}" text-anchor="end">{5}</text>)"
                       "\n",
                       k_left, py(y), k_left + plot_w, k_left - 6, py(y) + 4, number(y));
  }
  const auto x_tick = [&](double x) {
    svg += fmt::format(R"(<line x1="{0:.1f}" y1="{1}" x2="{0:.1f}" y2="{2}" stroke="#ddd"/>)"
                       R"(<text x="{0:.1f}" y="{3}" text-anchor="middle">{4}</text>)"
                       "\n",
                       px(x), k_top, k_top + plot_h, k_top + plot_h + 18, number(x));
  };
  if (chart.log_x) {
    for (double x = x_min; x <= x_top * 1.001; x *= 10) {
      x_tick(x);
    }
  } else {
    for (double x = 0; x <= x_top + x_step / 2; x += x_step) {
      x_tick(x);
    }
  }
  svg += fmt::format(R"(<line x1="{0}" y1="{1}" x2="{2}" y2="{1}" stroke="black"/>)"
                     R"(<line x1="{0}" y1="{3}" x2="{0}" y2="{1}" stroke="black"/>)"
                     "\n",
                     k_left, k_top + plot_h, k_left + plot_w, k_top);
  svg += fmt::format(R"(<text x="{}" y="{}" text-anchor="middle">{}</text>)"
                     "\n",
                     k_left + plot_w / 2, k_height - 18, escape(chart.x_label));
  svg += fmt::format(
      R"svg(<text x="18" y="{0}" text-anchor="middle" transform="rotate(-90 18 {0})">{1}</text>)svg"
      "\n",
      k_top + plot_h / 2, escape(chart.y_label));
  // The series, each with its legend entry.
  for (std::size_t i = 0; i < chart.series.size(); ++i) {
    const Series& series = chart.series[i];
    const char* colour = k_colours[i % k_colours.size()];
    std::string points;
    for (const auto& [x, y] : series.points) {
      points += fmt::format("{:.1f},{:.1f} ", px(x), py(y));
    }
    svg += fmt::format(R"(<polyline fill="none" stroke="{}" stroke-width="2" points="{}"/>)"
                       "\n",
                       colour, points);
    if (series.points.size() <= 40) {
      for (const auto& [x, y] : series.points) {
        svg += fmt::format(R"(<circle cx="{:.1f}" cy="{:.1f}" r="3" fill="{}"/>)", px(x), py(y),
                           colour);
      }
      svg += "\n";
    }
    const double legend_y = k_top + 10 + static_cast<double>(i) * 20;
    svg +=
        fmt::format(R"(<line x1="{0}" y1="{1}" x2="{2}" y2="{1}" stroke="{3}" stroke-width="2"/>)"
                    R"(<text x="{4}" y="{5}">{6}</text>)"
                    "\n",
                    k_left + plot_w + 12, legend_y, k_left + plot_w + 32, colour,
                    k_left + plot_w + 38, legend_y + 4, escape(series.name));
  }
  return svg + "</svg>\n";
}

} // namespace ralph::bench
