#!/usr/bin/env python3
"""ridge-bench on a CPU without AVX-512: valgrind's CPU has AVX2 and no
AVX-512 (and executing an AVX-512 instruction under it is an illegal
instruction), so running ridge-bench under it shows that every probe and
kernel the bench runs is chosen by what the CPU has.

usage: check_without_avx512.py VALGRIND RIDGE_BENCH WORKDIR SUMMARIZE_PY"""
import json
import math
import os
import subprocess
import sys


def run(cmd):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        tail = "\n".join(r.stderr.splitlines()[-25:])
        sys.exit(f"FAIL: exit {r.returncode}: {' '.join(cmd)}\n{tail}")
    return r


def main(valgrind, bench, work, summarize):
    os.makedirs(work, exist_ok=True)
    vg = [valgrind, "--tool=none", "--quiet"]

    # The benchmarks: the FMA peaks, the microkernels, one ridge GEMM.
    shapes = os.path.join(work, "shapes.txt")
    with open(shapes, "w") as f:
        f.write("64 64 64\n")
    out = os.path.join(work, "bench.json")
    # --quick: the context's probes short (under valgrind they were most of the time).
    run(vg + [bench, "--quick", "--shapes", shapes, "--libs", "ridge", "--benchmark_filter=BM_peak|BM_ukr|BM_gemm",
              "--benchmark_min_time=0.01", "--benchmark_repetitions=2", "--benchmark_out=" + out,
              "--benchmark_out_format=json"])
    data = json.load(open(out))
    ctx = data["context"]
    names = [b["run_name"] for b in data["benchmarks"]]
    if float(ctx["peak_fp32_avx512_gflops_1t"]) != 0:
        sys.exit("FAIL: the zmm FMA peak was measured on a CPU without AVX-512 (is valgrind hiding it?)")
    if float(ctx["peak_fp32_avx2_gflops_1t"]) <= 0:
        sys.exit("FAIL: no ymm FMA peak")
    if any("avx512" in n for n in names):
        sys.exit(f"FAIL: AVX-512 benchmarks registered: {names}")
    if not any(n.startswith("BM_peak/fma/avx2/f32") for n in names):
        sys.exit(f"FAIL: no BM_peak/fma/avx2/f32 among {names}")
    gemm = [b for b in data["benchmarks"] if b["run_name"].startswith("BM_gemm/f32/ridge/64x64x64")]
    if not gemm or not math.isfinite(gemm[0]["pct_peak"]) or gemm[0]["pct_peak"] <= 0:
        sys.exit(f"FAIL: the ridge GEMM row has no finite percent of the ymm peak: {gemm}")
    for key in ("read_gbps_1t_256MiB", "read_gbps_1t_64MiB"):
        if float(ctx[key]) <= 0:
            sys.exit(f"FAIL: {key} = {ctx[key]}: no read bandwidth without AVX-512")

    # The summary holds ridge's rows to the ymm peak.
    table = run([sys.executable, summarize, out]).stdout
    if "ridge % of f32 GEMM: of the avx2 fp32 FMA peak" not in table:
        sys.exit(f"FAIL: the summary does not hold ridge to the AVX2 peak:\n{table}")

    # The roofline: the ymm FMA roof first, ymm bandwidth kernels.
    roof = os.path.join(work, "roofline.json")
    run(vg + [bench, "roofline", "--quick", "--json", roof, "--svg", os.path.join(work, "roofline.svg")])
    r = json.load(open(roof))
    first = r["peaks"][0]["name"]
    if first != "fp32 FMA ymm":
        sys.exit(f"FAIL: the roofline's first compute roof is {first!r}, not the ymm FMA")
    if not r["bandwidth"]["kernels"]["read"].startswith("ymm"):
        sys.exit(f"FAIL: read kernel {r['bandwidth']['kernels']['read']!r}")
    print(f"PASS: ridge-bench without AVX-512: {len(names)} benchmarks, ymm peak "
          f"{float(ctx['peak_fp32_avx2_gflops_1t']):.2f} GFLOP/s under valgrind; roofline on ymm")


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    main(*sys.argv[1:])
