#!/usr/bin/env python3
"""Summarize ridge-bench JSON (--benchmark_out=FILE): one row per shape, the
median per library (GEMM: GFLOP/s; GEMV: GB/s of A streamed), ridge's percent
of its bound (decode shapes: of min(peak, I x DRAM bandwidth); other GEMMs: of
the FMA peak) and ridge's ratio to the best peer."""
import json
import re
import sys
from collections import OrderedDict


def interleaved_peak(data, isa):
    """Median GFLOP/s of BM_peak/fma/<isa>/f32, or None when the run did not time it."""
    for b in data["benchmarks"]:
        if b.get("aggregate_name") == "median" and b["run_name"].startswith(f"BM_peak/fma/{isa}/f32"):
            return b["FLOPS"] / 1e9
    return None


def peak_scale(data, ctx):
    """Factor from ridge-bench's percent of peak to percent of the interleaved peak.

    ridge-bench divides by the FMA peak it measured once at start-up; the host
    of a shared machine can slow down by 10% or more minutes later. BM_peak
    runs among the shapes (random interleaving), so its median saw the same
    host as the rows: percent of that is what the rows can be held to."""
    # ridge ran AVX2 when forced to, or when the CPU has no AVX-512 (its zmm peak
    # recorded as 0; a run from before that key existed had AVX-512).
    no_zmm = "peak_fp32_avx512_gflops_1t" in ctx and not float(ctx["peak_fp32_avx512_gflops_1t"])
    isa = "avx2" if ctx.get("env_RIDGE_ISA") == "avx2" or no_zmm else "avx512"
    startup = float(ctx.get(f"peak_fp32_{isa}_gflops_1t", 0))
    interleaved = interleaved_peak(data, isa)
    if not startup or not interleaved:
        return isa, startup, interleaved, 1.0
    return isa, startup, interleaved, startup / interleaved


def compute_bound(b, startup_peak):
    """Whether a GEMM row's bound is the FMA peak (times its threads), not bandwidth."""
    if "bound_FLOPS" not in b:
        return "pct_peak" in b
    times = b["bound_FLOPS"] / (startup_peak * 1e9) if startup_peak else 0
    return times >= 0.999 and abs(times - round(times)) < 1e-6


def main(path):
    data = json.load(open(path))
    ctx = data.get("context", {})
    isa, startup_peak, interleaved, scale = peak_scale(data, ctx)
    rows = OrderedDict()
    libs = []
    for b in data["benchmarks"]:
        if b.get("aggregate_name") != "median":
            continue
        m = re.match(r"BM_(gemm|gemv)/(\w+)/([\w+]+)/(.+?)(/real_time)?$", b["run_name"])
        if not m:
            continue
        kind, dtype, lib, shape = m.group(1), m.group(2), m.group(3), m.group(4)
        key = f"{kind} {dtype} {shape}"
        value = b["A_bytes_per_s"] / 1e9 if "A_bytes_per_s" in b else b["FLOPS"] / 1e9
        pct = b.get("pct_bound", b.get("pct_peak"))
        if pct is not None and kind == "gemm" and compute_bound(b, startup_peak):
            pct *= scale
        rows.setdefault(key, {})[lib] = (value, pct)
        if lib not in libs:
            libs.append(lib)
    if interleaved:
        print(f"# ridge % of the {isa} fp32 FMA peak timed among the rows: {interleaved:.1f} GFLOP/s "
              f"(median of BM_peak; {startup_peak:.1f} at start-up); decode and GEMV rows: of their roofline bound")
    # The microkernels alone, panels in L1 (BM_ukr): the ceiling of every GEMM row below.
    peaks = {k: interleaved_peak(data, k) or float(ctx.get(f"peak_fp32_{k}_gflops_1t", 0)) for k in ("avx512", "avx2")}
    for b in data["benchmarks"]:
        m = re.match(r"BM_ukr/(\w+)/(\w+)/(\w+?)(/real_time)?$", b["run_name"])
        if m and b.get("aggregate_name") == "median":
            gf = b["FLOPS"] / 1e9
            peak = peaks.get(m.group(2), 0) if m.group(1) == "f32" else 0
            share = f" ({100 * gf / peak:.0f}% of the {m.group(2)} fp32 peak)" if peak else ""
            print(f"# microkernel {m.group(1)}/{m.group(2)}/{m.group(3)} in L1: {gf:.1f} GFLOP/s{share}")
    for k in ("peak_fp32_avx512_gflops_1t", "peak_fp32_avx2_gflops_1t", "read_gbps_1t_256MiB", "read_gbps_1t_64MiB", "lib_openblas", "openblas_own_pick", "lib_blis",
              "env_OPENBLAS_CORETYPE", "env_RIDGE_ISA"):
        if k in ctx:
            print(f"# {k}: {ctx[k]}")
    width = {l: max(10, len(l) + 2) for l in libs}
    header = f"{'shape':32s}" + "".join(f"{l:>{width[l]}s}" for l in libs) + f"{'ridge %':>10s}{'vs best':>9s}"
    print(header)
    for key, per_lib in rows.items():
        line = f"{key:32s}"
        for lib in libs:
            line += f"{per_lib[lib][0]:{width[lib]}.1f}" if lib in per_lib else f"{'-':>{width[lib]}s}"
        if "ridge" in per_lib:
            gf, pct = per_lib["ridge"]
            # ridge+batch (the batch entry point) and ridge+report are ridge too, not peers
            peers = [v[0] for l, v in per_lib.items() if not l.startswith("ridge")]
            line += f"{pct:10.1f}" if pct is not None else f"{'':10s}"
            line += f"{gf / max(peers):9.2f}" if peers else ""
            if "ridge+batch" in per_lib and peers:
                line += f"   ridge+batch vs best {per_lib['ridge+batch'][0] / max(peers):.2f}"
        print(line)


if __name__ == "__main__":
    main(sys.argv[1])
