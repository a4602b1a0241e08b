#!/usr/bin/env python3
"""test_summarize.py SUMMARIZE_PY: bench/summarize.py on a hand-made ridge-bench JSON.

ridge % of a compute-bound GEMM row is taken against the FMA peak timed among
the rows (BM_peak's median), not the one measured at start-up; rows bound by
bandwidth, GEMV rows and a run without BM_peak keep ridge-bench's own figure.
A bf16 row whose kernel runs AMX is held to AMX's probe, not to fp32 FMA's; a row
bound by bandwidth to the read probe's median among the rows (BM_read) where the run has it.
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
    # bf16 on AMX (as ridge-bench writes it since the rows carry peak_FLOPS):
    # AMX's start-up 2000, its median among the rows 1000; fp32 rows beside it
    # still against the FMA probe.
    amx = bench_json(200.0, 160.0)
    amx["context"].update({"peak_bf16_amx_gflops_1t": "2000.0", "peak_family_ridge_bf16": "amx",
                           "peak_family_ridge_f32": "avx512"})
    amx["benchmarks"] += [
        {"run_name": "BM_gemm/bf16/ridge/2048x2048x2048/real_time", "aggregate_name": "median",
         "FLOPS": 500e9, "bound_FLOPS": 2000e9, "peak_FLOPS": 2000e9, "pct_bound": 25.0, "pct_peak": 25.0},
        {"run_name": "BM_gemm/bf16/ridge/512x512x512/t2/real_time", "aggregate_name": "median",  # bandwidth bound
         "FLOPS": 300e9, "bound_FLOPS": 600e9, "peak_FLOPS": 4000e9, "pct_bound": 50.0, "pct_peak": 7.5},
        {"run_name": "BM_peak/tdpbf16/amx/bf16/real_time", "aggregate_name": "median", "FLOPS": 1000e9}]
    got = ridge_percent(summarize, amx)
    expect("2048x2048x2048", got, 50.0)      # 500 of AMX's 1000, not of fp32's 160
    expect("512x512x512/t2", got, 50.0)      # bandwidth bound: as ridge-bench said
    expect("1024x1024x1024", got, 100.0)     # fp32: 160 of 160
    # A row bound by bandwidth, its bound read at 10 GB/s (ridge-bench's one
    # measurement at 64 MiB), the read probe's median among the rows 20: the row
    # is held to 20, half the percent ridge-bench gave; without BM_read, as given.
    bw = bench_json(200.0, 160.0)
    bw["benchmarks"] += [
        {"run_name": "BM_gemm/f32/ridge/4096x4096x16/real_time", "aggregate_name": "median",
         "FLOPS": 120e9, "bound_FLOPS": 80e9, "peak_FLOPS": 200e9, "pct_bound": 150.0,
         "bw_GBps": 10.0, "bw_bytes": 67108864.0},
        {"run_name": "BM_read/67108864/real_time", "aggregate_name": "median", "GBps": 20.0}]
    got = ridge_percent(summarize, bw)
    expect("4096x4096x16", got, 75.0)        # 150 x 10 / 20
    expect("4096x16x4096", got, 60.0)        # no bw_bytes (an older run's row): as given
    bw["benchmarks"].pop()
    expect("4096x4096x16", ridge_percent(summarize, bw), 150.0)
    # Without BM_peak in the run: ridge-bench's figures unchanged.
    got = ridge_percent(summarize, bench_json(200.0, None))
    expect("1024x1024x1024", got, 80.0)
    expect("1024x1024x1024/t2", got, 80.0)
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
