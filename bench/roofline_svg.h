// A log-log roofline drawn as plain SVG text: slanted roofs (bandwidths),
// flat roofs (compute peaks), their ridge points, and measured points or
// shapes placed under them. No plotting library: the output is a string any
// browser or rsvg-convert renders, and tests can parse as XML.
//
//   RooflinePlot plot;
//   plot.set_title("ridge roofline: <cpu>, <date>");
//   plot.add_memory_roof("DRAM", 13.6);          // GB/s
//   plot.add_compute_roof("fp32 FMA zmm", 235);  // GFLOP/s
//   plot.add_point("sgemm 1024^3", 170.7, 175);  // FLOP/byte, GFLOP/s
//   plot.add_shape("sgemm 4096x16x4096", 7.5, 3.9, 60);  // ideal and realized intensity
//   plot.write("roofline.svg");
#pragma once

#include <string>
#include <vector>

namespace ridge_bench {

enum class Marker { circle, square, diamond, triangle };

struct PointStyle {
    std::string color = "#222222";
    Marker marker = Marker::circle;
    bool filled = true;
};

class RooflinePlot {
public:
    void set_title(const std::string& title) { title_ = title; }
    void set_subtitle(const std::string& subtitle) { subtitle_ = subtitle; }
    // The legend's heading over the points and shapes.
    void set_points_heading(const std::string& heading) { points_heading_ = heading; }

    // A slanted roof: attainable GFLOP/s = intensity x `gbps`.
    void add_memory_roof(const std::string& name, double gbps);
    // A flat roof at `gflops`. Ridge points are drawn where each flat roof meets each slanted one.
    void add_compute_roof(const std::string& name, double gflops);

    // One measured point at `intensity` FLOP/byte and `gflops` GFLOP/s.
    void add_point(const std::string& name, double intensity, double gflops, const PointStyle& style = {});

    // A GEMM shape at its ideal intensity (each matrix moved once; hollow marker)
    // and at its realized intensity (the bytes the schedule actually moved; filled
    // marker), both at the measured GFLOP/s and joined by a line: the line's length
    // is the reuse the schedule failed to capture.
    void add_shape(const std::string& name, double ideal_intensity, double realized_intensity, double gflops,
                   const PointStyle& style = {});

    std::string svg() const;
    bool write(const std::string& path) const;  // false when the file cannot be written

private:
    struct Roof {
        std::string name;
        double value;  // GB/s for memory roofs, GFLOP/s for compute roofs
    };
    struct Point {
        std::string name;
        double intensity;
        double gflops;
        double realized_intensity;  // <= 0: a lone point, not a shape
        PointStyle style;
    };
    std::string title_ = "Roofline";
    std::string subtitle_;
    std::string points_heading_ = "Measured";
    std::vector<Roof> memory_roofs_;
    std::vector<Roof> compute_roofs_;
    std::vector<Point> points_;
};

}  // namespace ridge_bench
