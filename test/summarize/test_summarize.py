#!/usr/bin/env python3
"""test_summarize.py SUMMARIZE_PY: bench/summarize.py on a hand-made ridge-bench JSON.

ridge % of a compute-bound GEMM row is taken against the FMA peak timed among
the rows (BM_peak's median), not the one measured at start-up; rows bound by
bandwidth, GEMV rows and a run without BM_peak keep ridge-bench's own figure.
Exit 0 when all hold; 1 with the reasons otherwise.
"""
import contextlib
import importlib.util
import io
import json
import sys
import tempfile


def bench_json(startup_peak, peak_median, isa="avx512"):
    gemm = lambda name, gflops, bound, pct: {  # noqa: E731 (one row of ridge-bench's JSON)
        "run_name": f"BM_gemm/f32/ridge/{name}/real_time", "aggregate_name": "median",
        "FLOPS": gflops * 1e9, "bound_FLOPS": bound * 1e9, "pct_bound": pct}
    rows = [
        gemm("1024x1024x1024", 160.0, startup_peak, 80.0),          # compute bound, 1 thread
        gemm("1024x1024x1024/t2", 320.0, 2 * startup_peak, 80.0),  # compute bound, 2 threads
        gemm("4096x16x4096", 60.0, 100.0, 60.0),                   # bound by bandwidth
        {"run_name": "BM_gemv/f32/ridge/4096x4096/N/real_time", "aggregate_name": "median",
         "A_bytes_per_s": 25e9, "pct_bound": 90.0},
    ]
    if peak_median is not None:
        rows.append({"run_name": f"BM_peak/fma/{isa}/f32/real_time", "aggregate_name": "median",
                     "FLOPS": peak_median * 1e9})
    context = {f"peak_fp32_{isa}_gflops_1t": str(startup_peak), "env_RIDGE_ISA": isa if isa == "avx2" else "(unset)"}
    return {"context": context, "benchmarks": rows}


def ridge_percent(summarize, data):
    """{shape: ridge %} from the summary table of `data`."""
    with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
        json.dump(data, f)
        f.flush()
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            summarize.main(f.name)
    table = [line.split() for line in out.getvalue().splitlines() if line.startswith(("gemm ", "gemv "))]
    return {cols[2]: float(cols[4]) for cols in table}  # kind dtype shape ridge ridge% (one library)


def main():
    spec = importlib.util.spec_from_file_location("summarize", sys.argv[1])
    summarize = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(summarize)
    failures = []

    def expect(shape, got, want):
        if abs(got.get(shape, float("nan")) - want) > 0.05:
            failures.append(f"{shape}: ridge % {got.get(shape)}, expected {want:.1f}")

    # Start-up peak 200, the host slower later: BM_peak's median 160.
    got = ridge_percent(summarize, bench_json(200.0, 160.0))
    expect("1024x1024x1024", got, 100.0)      # 160 of 160
    expect("1024x1024x1024/t2", got, 100.0)   # 320 of 2 x 160
    expect("4096x16x4096", got, 60.0)         # bandwidth bound: as ridge-bench said
    expect("4096x4096/N", got, 90.0)          # GEMV: as ridge-bench said
    # The AVX2 run is held to the AVX2 peak's median.
    got = ridge_percent(summarize, bench_json(100.0, 125.0, isa="avx2"))
    expect("1024x1024x1024", got, 64.0)       # 80 x 100 / 125
    # Without BM_peak in the run: ridge-bench's figures unchanged.
    got = ridge_percent(summarize, bench_json(200.0, None))
    expect("1024x1024x1024", got, 80.0)
    expect("1024x1024x1024/t2", got, 80.0)
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
