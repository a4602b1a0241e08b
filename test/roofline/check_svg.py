#!/usr/bin/env python3
"""check_svg.py SVG JSON: the roofline SVG is well-formed XML and draws what the JSON measured.

One slanted roof per 1-thread memory level with a read figure, one flat roof per
1-thread compute peak, a ridge point for every pair (at the JSON's intensity),
labels on the roofs and ridge points, a point per sgemm shape, decade-labelled
axes with titles, a legend, and a title naming the CPU and the date.
Exit 0 when all hold; 1 with the reasons otherwise.
"""
import json
import sys
import xml.etree.ElementTree as ET

SVG_NS = "{http://www.w3.org/2000/svg}"


def classes(element):
    return element.get("class", "").split()


def main():
    svg_path, json_path = sys.argv[1], sys.argv[2]
    failures = []

    def expect(condition, what):
        if not condition:
            failures.append(what)

    try:
        root = ET.parse(svg_path).getroot()  # raises on anything not well-formed
    except ET.ParseError as error:
        print(f"FAIL: {svg_path} is not well-formed XML: {error}")
        return 1
    with open(json_path) as f:
        data = json.load(f)

    expect(root.tag == SVG_NS + "svg", f"root element is <svg> in the SVG namespace (got {root.tag})")
    elements = list(root.iter())

    def with_class(name):
        return [e for e in elements if name in classes(e)]

    def texts(name):
        return ["".join(e.itertext()) for e in with_class(name)]

    levels = [l for l in data["levels"] if l["threads"] == 1 and "read_gbps" in l]
    peaks = [p for p in data["peaks"] if p["threads"] == 1]

    memory_roofs = with_class("roof-memory")
    compute_roofs = with_class("roof-compute")
    expect(len(memory_roofs) == len(levels), f"{len(levels)} slanted roofs (found {len(memory_roofs)})")
    expect(len(compute_roofs) == len(peaks), f"{len(peaks)} flat roofs (found {len(compute_roofs)})")
    expect({e.get("data-name") for e in memory_roofs} == {l["level"] for l in levels}, "slanted roofs named after the levels")
    expect({e.get("data-name") for e in compute_roofs} == {p["name"] for p in peaks}, "flat roofs named after the peaks")

    # A slanted roof rises one decade of GFLOP/s per decade of intensity: on the
    # page its slope must be the ratio of the axes' decade spacings, read off
    # the positions of the decade tick labels.
    x_decades = sorted(float(e.get("x")) for e in with_class("tick-label") if "x" in classes(e))
    y_decades = sorted(float(e.get("y")) for e in with_class("tick-label") if "y" in classes(e))
    expect(len(x_decades) >= 2 and len(y_decades) >= 2, "decade tick labels on both axes")
    if len(x_decades) >= 2 and len(y_decades) >= 2:
        x_step = (x_decades[-1] - x_decades[0]) / (len(x_decades) - 1)
        y_step = (y_decades[-1] - y_decades[0]) / (len(y_decades) - 1)
        for e in memory_roofs:
            x1, y1, x2, y2 = (float(e.get(k)) for k in ("x1", "y1", "x2", "y2"))
            slope = (y1 - y2) / (x2 - x1) if x2 > x1 else 0
            expect(abs(slope / (y_step / x_step) - 1) < 0.02,
                   f"roof {e.get('data-name')} rises a decade per decade (slope {slope:.3f}, axes {y_step / x_step:.3f})")
    for e in compute_roofs:
        expect(e.get("y1") == e.get("y2"), f"compute roof {e.get('data-name')} is flat")

    memory_labels = texts("roof-label")
    for l in levels:
        expect(any(t.startswith(l["level"] + " ") and "GB/s" in t for t in memory_labels), f"label on roof {l['level']}")

    ridges = with_class("ridge-point")
    expect(len(ridges) == len(levels) * len(peaks), f"{len(levels) * len(peaks)} ridge points (found {len(ridges)})")
    for r in data["ridge_points"]:
        drawn = [e for e in ridges if e.get("data-compute") == r["compute"] and e.get("data-memory") == r["memory"]]
        expect(len(drawn) == 1, f"ridge point {r['compute']} / {r['memory']} drawn once")
        if drawn:
            value = float(drawn[0].get("data-flop-per-byte"))
            expect(abs(value / r["ridge_flop_per_byte"] - 1) < 0.01,
                   f"ridge point {r['compute']} / {r['memory']} at {r['ridge_flop_per_byte']:.3g} FLOP/byte (drawn {value})")
    ridge_labels = texts("ridge-label")
    expect(len(ridge_labels) >= 1 and all(t.startswith("I*=") for t in ridge_labels), "ridge points labelled I*=...")

    # Each shape: one measured marker (filled, at the realized intensity when ridge
    # reported one), and where it did, a hollow marker at the ideal intensity joined by a line.
    measured = [e for e in root.iter() if e.get("class") in ("point", "point realized")]
    ideal = [e for e in root.iter() if e.get("class") == "point ideal"]
    lines = [e for e in root.iter() if e.get("class") == "shape-line"]
    shapes = data["sgemm"] + data.get("bf16_gemm", [])  # the full run adds a bf16 GEMM on its own roof
    expect(len(measured) == len(shapes), f"{len(shapes)} GEMM points (found {len(measured)})")
    expect(len(ideal) == len(lines), f"each ideal marker joined to its realized one ({len(ideal)} vs {len(lines)})")
    realized = [g for g in shapes if "realized_memory_intensity_flop_per_byte" in g]
    expect(len(ideal) == len(realized), f"an ideal marker per shape with a realized intensity ({len(realized)})")

    x_ticks = texts("tick-label")
    for decade in ("0.01", "0.1", "1", "10", "100", "1000"):
        expect(decade in x_ticks, f"decade tick label {decade}")
    axis_titles = " ".join(texts("axis-title"))
    expect("FLOP/byte" in axis_titles and "GFLOP/s" in axis_titles, "axis titles with units")
    expect(len(with_class("legend-entry")) >= len(levels) + len(peaks), "legend entries for every roof")

    title = " ".join(texts("title"))
    expect(data["machine"]["cpu_brand"] in title, "title names the CPU")
    expect(data["date_utc"] in title, "title carries the date")

    for f in failures:
        print("FAIL:", f)
    if not failures:
        print(f"SVG ok: {len(memory_roofs)} slanted roofs, {len(compute_roofs)} flat, {len(ridges)} ridge points, "
              f"{len(measured)} shapes ({len(ideal)} with realized intensity)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
