#include "roofline_svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <numbers>
#include <sstream>

namespace ridge_bench {
namespace {

// Canvas: the plot on the left, the legend in a column to its right, so that
// the legend never covers a roof or a point.
constexpr double kWidth = 1320, kHeight = 720;
constexpr double kLeft = 84, kTop = 78, kPlotW = 760, kPlotH = 560;
constexpr double kRight = kLeft + kPlotW, kBottom = kTop + kPlotH;
constexpr double kLegendX = kRight + 24;
// x is fixed so that pictures from different machines compare at a glance:
// 0.01 FLOP/byte (streaming kernels) to 1000 (large GEMMs).
constexpr double kXLo = -2, kXHi = 3;

const char* const kMemoryColors[] = {"#1f77b4", "#2ca02c", "#9467bd", "#8c564b", "#17becf", "#7f7f7f"};
const char* const kComputeColors[] = {"#d62728", "#ff7f0e", "#e377c2", "#bcbd22", "#e6550d", "#843c39"};
// Compute roofs can coincide (bf16 dot products at the fp32 FMA's flop rate on
// some CPUs): distinct dash patterns keep both visible where they overlap.
const char* const kComputeDashes[] = {"", "9 4", "3 3", "12 3 3 3", "6 2", "2 6"};

std::string escape(const std::string& text) {
    std::string out;
    for (char c : text) {
        if (c == '&')
            out += "&amp;";
        else if (c == '<')
            out += "&lt;";
        else if (c == '>')
            out += "&gt;";
        else if (c == '"')
            out += "&quot;";
        else
            out += c;
    }
    return out;
}

// Three significant digits without exponents: roof values span 0.1 to 10^4.
std::string number(double v) {
    char buf[32];
    const double a = std::fabs(v);
    if (a >= 100)
        std::snprintf(buf, sizeof buf, "%.0f", v);
    else if (a >= 10)
        std::snprintf(buf, sizeof buf, "%.1f", v);
    else if (a >= 1)
        std::snprintf(buf, sizeof buf, "%.2f", v);
    else
        std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
}

std::string coord(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", v);
    return buf;
}

std::string decade_label(int e) {
    if (e >= 0 && e <= 4) return std::to_string(int(std::lround(std::pow(10.0, e))));
    if (e < 0 && e >= -3) {
        std::string s = "0.";
        for (int i = 1; i < -e; ++i) s += '0';
        return s + "1";
    }
    return "1e" + std::to_string(e);
}

// Axis mapping, log10 on both axes.
struct Axes {
    double ylo, yhi;
    double x(double intensity) const { return kLeft + (std::log10(intensity) - kXLo) / (kXHi - kXLo) * kPlotW; }
    double y(double gflops) const { return kBottom - (std::log10(gflops) - ylo) / (yhi - ylo) * kPlotH; }
    double imin() const { return std::pow(10.0, kXLo); }
    double imax() const { return std::pow(10.0, kXHi); }
    double gmin() const { return std::pow(10.0, ylo); }
    double gmax() const { return std::pow(10.0, yhi); }
};

// Characters, not bytes: labels carry "³" and "×".
size_t utf8_length(const std::string& text) {
    return size_t(
        std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

// Text boxes already placed; a label that would overlap one tries its next
// candidate position, and is dropped when none is free (the JSON has every value).
struct Box {
    double x0, y0, x1, y1;
    bool overlaps(const Box& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
};

struct Label {
    double x, y;
    std::string anchor;  // "start" | "end" | "middle"
};

class Placer {
public:
    // An estimate of the text's box: sans-serif digits and letters average about 0.58 em.
    // Two pixels of margin all round, so that neighbours never touch.
    static Box box_of(const Label& l, const std::string& text, double size) {
        const double w = 0.58 * size * double(utf8_length(text));
        const double x0 = l.anchor == "end" ? l.x - w : l.anchor == "middle" ? l.x - w / 2 : l.x;
        return {x0 - 2, l.y - size * 0.8 - 2, x0 + w + 2, l.y + size * 0.25 + 2};
    }
    bool place(const std::vector<Label>& candidates, const std::string& text, double size, Label* chosen) {
        for (const Label& c : candidates) {
            const Box b = box_of(c, text, size);
            if (b.x0 < kLeft + 2 || b.x1 > kRight - 2 || b.y0 < kTop + 2 || b.y1 > kBottom - 2) continue;
            if (std::any_of(boxes_.begin(), boxes_.end(), [&](const Box& o) { return o.overlaps(b); })) continue;
            boxes_.push_back(b);
            *chosen = c;
            return true;
        }
        return false;
    }
    void reserve(const Box& b) { boxes_.push_back(b); }

private:
    std::vector<Box> boxes_;
};

std::string text_element(const Label& l, const std::string& text, double size, const std::string& cls,
                         const std::string& fill = "#222222", const std::string& extra = "") {
    return "<text class=\"" + cls + "\" x=\"" + coord(l.x) + "\" y=\"" + coord(l.y) + "\" font-size=\"" + coord(size) +
           "\" text-anchor=\"" + l.anchor + "\" fill=\"" + fill + "\"" + extra + ">" + escape(text) + "</text>\n";
}

std::string marker_element(double x, double y, const PointStyle& s, bool filled, const std::string& cls) {
    const std::string fill = filled ? s.color : "#ffffff";
    const std::string paint = "fill=\"" + fill + "\" stroke=\"" + s.color + "\" stroke-width=\"1.8\"";
    const std::string head = "class=\"" + cls + "\" ";
    switch (s.marker) {
        case Marker::square:
            return "<rect " + head + "x=\"" + coord(x - 5) + "\" y=\"" + coord(y - 5) +
                   "\" width=\"10\" height=\"10\" " + paint + "/>\n";
        case Marker::diamond:
            return "<polygon " + head + "points=\"" + coord(x) + "," + coord(y - 6.5) + " " + coord(x + 6.5) + "," +
                   coord(y) + " " + coord(x) + "," + coord(y + 6.5) + " " + coord(x - 6.5) + "," + coord(y) + "\" " +
                   paint + "/>\n";
        case Marker::triangle:
            return "<polygon " + head + "points=\"" + coord(x) + "," + coord(y - 6.5) + " " + coord(x + 6) + "," +
                   coord(y + 5) + " " + coord(x - 6) + "," + coord(y + 5) + "\" " + paint + "/>\n";
        case Marker::circle:
            break;
    }
    return "<circle " + head + "cx=\"" + coord(x) + "\" cy=\"" + coord(y) + "\" r=\"5\" " + paint + "/>\n";
}

}  // namespace

void RooflinePlot::add_memory_roof(const std::string& name, double gbps) {
    if (gbps > 0) memory_roofs_.push_back({name, gbps});
}

void RooflinePlot::add_compute_roof(const std::string& name, double gflops) {
    if (gflops > 0) compute_roofs_.push_back({name, gflops});
}

void RooflinePlot::add_point(const std::string& name, double intensity, double gflops, const PointStyle& style) {
    if (intensity > 0 && gflops > 0) points_.push_back({name, intensity, gflops, 0.0, style});
}

void RooflinePlot::add_shape(const std::string& name, double ideal_intensity, double realized_intensity, double gflops,
                             const PointStyle& style) {
    if (ideal_intensity > 0 && realized_intensity > 0 && gflops > 0)
        points_.push_back({name, ideal_intensity, gflops, realized_intensity, style});
}

std::string RooflinePlot::svg() const {
    // y spans whole decades: from below the lowest roof at the left edge (or
    // lowest point) to above the highest compute roof (or highest point).
    double lo = 1e300, hi = 0;
    for (const Roof& m : memory_roofs_) lo = std::min(lo, m.value * std::pow(10.0, kXLo));
    for (const Roof& c : compute_roofs_) hi = std::max(hi, c.value);
    for (const Point& p : points_) {
        lo = std::min(lo, p.gflops);
        hi = std::max(hi, p.gflops);
    }
    if (lo > hi) {
        lo = 0.1;
        hi = 1000;
    }
    Axes ax{std::floor(std::log10(lo)), std::ceil(std::log10(hi * 1.6))};
    if (ax.yhi - ax.ylo < 2) ax.ylo = ax.yhi - 2;

    double top_peak = 0;
    for (const Roof& c : compute_roofs_) top_peak = std::max(top_peak, c.value);
    double top_bw = 0;
    for (const Roof& m : memory_roofs_) top_bw = std::max(top_bw, m.value);

    std::ostringstream grid, roofs, dots, labels;
    Placer placer;
    // Markers first: no label may cover a measured point.
    for (const Point& p : points_) {
        const double y = ax.y(p.gflops);
        for (double i : {p.intensity, p.realized_intensity}) {
            if (i <= 0) continue;
            placer.reserve({ax.x(i) - 7, y - 7, ax.x(i) + 7, y + 7});
        }
    }

    // Frame, decade grid, minor ticks, tick labels.
    for (int e = int(kXLo); e <= int(kXHi); ++e) {
        const double x = ax.x(std::pow(10.0, e));
        grid << "<line class=\"grid\" x1=\"" << coord(x) << "\" y1=\"" << coord(kTop) << "\" x2=\"" << coord(x)
             << "\" y2=\"" << coord(kBottom) << "\" stroke=\"#dddddd\"/>\n";
        grid << text_element({x, kBottom + 18, "middle"}, decade_label(e), 12, "tick-label x");
        for (int m = 2; m <= 9 && e < int(kXHi); ++m) {
            const double xm = ax.x(m * std::pow(10.0, e));
            grid << "<line class=\"minor-tick\" x1=\"" << coord(xm) << "\" y1=\"" << coord(kBottom) << "\" x2=\""
                 << coord(xm) << "\" y2=\"" << coord(kBottom - 4) << "\" stroke=\"#888888\"/>\n";
        }
    }
    for (int e = int(ax.ylo); e <= int(ax.yhi); ++e) {
        const double y = ax.y(std::pow(10.0, e));
        grid << "<line class=\"grid\" x1=\"" << coord(kLeft) << "\" y1=\"" << coord(y) << "\" x2=\"" << coord(kRight)
             << "\" y2=\"" << coord(y) << "\" stroke=\"#dddddd\"/>\n";
        grid << text_element({kLeft - 8, y + 4, "end"}, decade_label(e), 12, "tick-label y");
        for (int m = 2; m <= 9 && e < int(ax.yhi); ++m) {
            const double ym = ax.y(m * std::pow(10.0, e));
            grid << "<line class=\"minor-tick\" x1=\"" << coord(kLeft) << "\" y1=\"" << coord(ym) << "\" x2=\""
                 << coord(kLeft + 4) << "\" y2=\"" << coord(ym) << "\" stroke=\"#888888\"/>\n";
        }
    }
    grid << "<rect class=\"frame\" x=\"" << coord(kLeft) << "\" y=\"" << coord(kTop) << "\" width=\"" << coord(kPlotW)
         << "\" height=\"" << coord(kPlotH) << "\" fill=\"none\" stroke=\"#444444\"/>\n";
    grid << text_element({kLeft + kPlotW / 2, kBottom + 44, "middle"}, "arithmetic intensity (FLOP/byte)", 14,
                         "axis-title x");
    grid << text_element(
        {0, 0, "middle"}, "performance (GFLOP/s)", 14, "axis-title y", "#222222",
        " transform=\"translate(" + coord(kLeft - 52) + "," + coord(kTop + kPlotH / 2) + ") rotate(-90)\"");

    // Slanted roofs: from the left edge (or the bottom) up to the highest compute roof.
    // Their labels sit along the line, near its left end, where the roofs are farthest apart.
    const double px_per_x_decade = kPlotW / (kXHi - kXLo), px_per_y_decade = kPlotH / (ax.yhi - ax.ylo);
    const double slant_deg = -std::atan2(px_per_y_decade, px_per_x_decade) * 180.0 / std::numbers::pi;
    for (size_t i = 0; i < memory_roofs_.size(); ++i) {
        const Roof& m = memory_roofs_[i];
        const char* color = kMemoryColors[i % std::size(kMemoryColors)];
        const double i0 = std::max(ax.imin(), ax.gmin() / m.value);
        double i1 = std::min(ax.imax(), ax.gmax() / m.value);
        if (top_peak > 0) i1 = std::min(i1, top_peak / m.value);
        if (i0 >= i1) continue;
        roofs << "<line class=\"roof-memory\" data-name=\"" << escape(m.name) << "\" data-gbps=\"" << number(m.value)
              << "\" x1=\"" << coord(ax.x(i0)) << "\" y1=\"" << coord(ax.y(i0 * m.value)) << "\" x2=\""
              << coord(ax.x(i1)) << "\" y2=\"" << coord(ax.y(i1 * m.value)) << "\" stroke=\"" << color
              << "\" stroke-width=\"2.2\"/>\n";
        const double il = i0 * std::pow(10.0, 0.12);
        const double lx = ax.x(il), ly = ax.y(il * m.value);
        const std::string text = m.name + " " + number(m.value) + " GB/s";
        // Reserve the label's footprint roughly (an axis-aligned box around the rotated text).
        const double w = 0.58 * 12 * double(utf8_length(text));
        const double c = std::cos(slant_deg * std::numbers::pi / 180.0),
                     s = std::sin(slant_deg * std::numbers::pi / 180.0);
        placer.reserve({lx, ly + s * w - 12, lx + c * w, ly});
        labels << "<text class=\"roof-label memory\" x=\"0\" y=\"-5\" font-size=\"12\" fill=\"" << color
               << "\" transform=\"translate(" << coord(lx) << "," << coord(ly) << ") rotate(" << coord(slant_deg)
               << ")\">" << escape(text) << "</text>\n";
    }

    // Flat roofs: from where they meet the fastest memory roof to the right edge.
    for (size_t i = 0; i < compute_roofs_.size(); ++i) {
        const Roof& c = compute_roofs_[i];
        const char* color = kComputeColors[i % std::size(kComputeColors)];
        const char* dash = kComputeDashes[i % std::size(kComputeDashes)];
        const double i0 = top_bw > 0 ? std::max(ax.imin(), c.value / top_bw) : ax.imin();
        const double y = ax.y(c.value);
        roofs << "<line class=\"roof-compute\" data-name=\"" << escape(c.name) << "\" data-gflops=\"" << number(c.value)
              << "\" x1=\"" << coord(ax.x(i0)) << "\" y1=\"" << coord(y) << "\" x2=\"" << coord(kRight) << "\" y2=\""
              << coord(y) << "\" stroke=\"" << color << "\" stroke-width=\"2.2\"";
        if (*dash) roofs << " stroke-dasharray=\"" << dash << "\"";
        roofs << "/>\n";
        const std::string text = c.name + " " + number(c.value) + " GFLOP/s";
        // Above the line at the right end; else below it, or stacked one line further
        // (roofs a few pixels apart share the space: the colours tell them apart);
        // else further left.
        const std::vector<Label> tries = {{kRight - 6, y - 5, "end"},   {kRight - 6, y + 15, "end"},
                                          {kRight - 6, y + 29, "end"},  {kRight - 6, y - 19, "end"},
                                          {kRight - 250, y - 5, "end"}, {kRight - 250, y + 15, "end"}};
        Label at;
        if (placer.place(tries, text, 12, &at)) labels << text_element(at, text, 12, "roof-label compute", color);
    }

    // Points and shapes before the ridge labels: a point's name matters more than a ridge value.
    for (const Point& p : points_) {
        const double y = ax.y(p.gflops);
        double xr = ax.x(p.intensity);
        if (p.realized_intensity > 0) {
            const double xa = ax.x(p.realized_intensity);
            dots << "<line class=\"shape-line\" x1=\"" << coord(ax.x(p.intensity)) << "\" y1=\"" << coord(y)
                 << "\" x2=\"" << coord(xa) << "\" y2=\"" << coord(y) << "\" stroke=\"" << p.style.color
                 << "\" stroke-width=\"1.6\"/>\n";
            dots << marker_element(ax.x(p.intensity), y, p.style, false, "point ideal");
            dots << marker_element(xa, y, p.style, true, "point realized");
            xr = std::max(xr, xa);
        } else {
            dots << marker_element(xr, y, p.style, p.style.filled, "point");
        }
        const double xl = std::min(ax.x(p.intensity), p.realized_intensity > 0 ? ax.x(p.realized_intensity) : xr);
        const std::vector<Label> tries = {{xr + 9, y + 4, "start"},  {xl - 9, y + 4, "end"},
                                          {xr, y - 10, "middle"},    {xr, y + 18, "middle"},
                                          {xr + 9, y - 10, "start"}, {xr + 9, y + 18, "start"}};
        Label at;
        if (placer.place(tries, p.name, 11, &at)) labels << text_element(at, p.name, 11, "point-label", p.style.color);
    }

    // Ridge points: where flat roof c meets slanted roof m, at I* = peak / bandwidth.
    // Every one gets its dot; the values are written for the first compute roof
    // and for each one at least 2x away from every roof before it: two roofs
    // closer than that would put their values on top of each other.
    std::vector<double> earlier;
    for (const Roof& c : compute_roofs_) {
        const bool label_this = std::none_of(earlier.begin(), earlier.end(), [&](double v) {
            return std::max(v, c.value) / std::min(v, c.value) < 2.0;
        });
        earlier.push_back(c.value);
        for (const Roof& m : memory_roofs_) {
            const double ridge = c.value / m.value;
            if (ridge < ax.imin() || ridge > ax.imax()) continue;
            const double x = ax.x(ridge), y = ax.y(c.value);
            dots << "<circle class=\"ridge-point\" data-compute=\"" << escape(c.name) << "\" data-memory=\""
                 << escape(m.name) << "\" data-flop-per-byte=\"" << number(ridge) << "\" cx=\"" << coord(x)
                 << "\" cy=\"" << coord(y) << "\" r=\"3.2\" fill=\"#222222\"/>\n";
            if (!label_this) continue;
            const std::string text = "I*=" + number(ridge);
            // Centred over the dot, else under it (neighbouring dots alternate), else beside it.
            const std::vector<Label> tries = {{x, y - 7, "middle"},     {x, y + 15, "middle"}, {x + 4, y - 7, "start"},
                                              {x + 4, y + 15, "start"}, {x - 4, y - 7, "end"}, {x - 4, y + 15, "end"},
                                              {x, y + 27, "middle"}};
            Label at;
            if (placer.place(tries, text, 10, &at)) labels << text_element(at, text, 10, "ridge-label", "#333333");
        }
    }

    // Legend, in its own column.
    std::ostringstream legend;
    double ly = kTop + 8;
    auto heading = [&](const std::string& text) {
        legend << text_element({kLegendX, ly, "start"}, text, 13, "legend-heading", "#222222", " font-weight=\"bold\"");
        ly += 20;
    };
    auto entry_line = [&](const char* color, const char* dash, const std::string& text) {
        legend << "<line class=\"legend-line\" x1=\"" << coord(kLegendX) << "\" y1=\"" << coord(ly - 4) << "\" x2=\""
               << coord(kLegendX + 28) << "\" y2=\"" << coord(ly - 4) << "\" stroke=\"" << color
               << "\" stroke-width=\"2.2\"";
        if (*dash) legend << " stroke-dasharray=\"" << dash << "\"";
        legend << "/>\n" << text_element({kLegendX + 36, ly, "start"}, text, 12, "legend-entry");
        ly += 18;
    };
    if (!memory_roofs_.empty()) {
        heading("Bandwidth roofs");
        for (size_t i = 0; i < memory_roofs_.size(); ++i)
            entry_line(kMemoryColors[i % std::size(kMemoryColors)], "",
                       memory_roofs_[i].name + ": " + number(memory_roofs_[i].value) + " GB/s");
        ly += 8;
    }
    if (!compute_roofs_.empty()) {
        heading("Compute roofs");
        for (size_t i = 0; i < compute_roofs_.size(); ++i)
            entry_line(kComputeColors[i % std::size(kComputeColors)], kComputeDashes[i % std::size(kComputeDashes)],
                       compute_roofs_[i].name + ": " + number(compute_roofs_[i].value) + " GFLOP/s");
        ly += 8;
    }
    if (!memory_roofs_.empty() && !compute_roofs_.empty()) {
        legend << "<circle class=\"legend-ridge\" cx=\"" << coord(kLegendX + 14) << "\" cy=\"" << coord(ly - 4)
               << "\" r=\"3.2\" fill=\"#222222\"/>\n";
        legend << text_element({kLegendX + 36, ly, "start"}, "ridge point, I* = peak / bandwidth", 12, "legend-entry");
        ly += 16;
        legend << text_element({kLegendX + 36, ly, "start"}, "(FLOP/byte; left of it: memory-bound)", 11,
                               "legend-entry", "#555555");
        ly += 15;
        legend << text_element({kLegendX + 36, ly, "start"},
                               "(values of roofs within 2x of an earlier one: in the JSON)", 11, "legend-entry",
                               "#555555");
        ly += 26;
    }
    if (!points_.empty()) {
        heading(points_heading_);
        bool any_shape = false;
        for (const Point& p : points_) {
            any_shape = any_shape || p.realized_intensity > 0;
            legend << marker_element(kLegendX + 14, ly - 4, p.style, p.realized_intensity > 0 || p.style.filled,
                                     "legend-marker");
            std::string text = p.name + ": " + number(p.gflops) + " GFLOP/s at I=" + number(p.intensity);
            if (p.realized_intensity > 0) text += " (realized " + number(p.realized_intensity) + ")";
            legend << text_element({kLegendX + 36, ly, "start"}, text, 11, "legend-entry");
            ly += 18;
        }
        if (any_shape)
            legend << text_element({kLegendX, ly + 4, "start"}, "hollow: ideal intensity; filled: realized", 11,
                                   "legend-entry", "#555555");
    }

    std::ostringstream out;
    out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\"" << kHeight
        << "\" viewBox=\"0 0 " << kWidth << " " << kHeight << "\" font-family=\"DejaVu Sans, Arial, sans-serif\">\n"
        << "<rect class=\"background\" x=\"0\" y=\"0\" width=\"" << kWidth << "\" height=\"" << kHeight
        << "\" fill=\"#ffffff\"/>\n"
        << "<title>" << escape(title_) << "</title>\n"
        << text_element({kLeft, 32, "start"}, title_, 18, "title", "#111111", " font-weight=\"bold\"");
    if (!subtitle_.empty()) out << text_element({kLeft, 54, "start"}, subtitle_, 12, "subtitle", "#444444");
    out << "<g class=\"axes\">\n"
        << grid.str() << "</g>\n"
        << "<g class=\"roofs\">\n"
        << roofs.str() << "</g>\n"
        << "<g class=\"marks\">\n"
        << dots.str() << "</g>\n"
        << "<g class=\"labels\">\n"
        << labels.str() << "</g>\n"
        << "<g class=\"legend\">\n"
        << legend.str() << "</g>\n"
        << "</svg>\n";
    return out.str();
}

bool RooflinePlot::write(const std::string& path) const {
    std::ofstream f(path);
    f << svg();
    return bool(f);
}

}  // namespace ridge_bench
