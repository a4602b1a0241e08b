#!/usr/bin/env python3
"""Summarize ridge-bench JSON (--benchmark_out=FILE): one row per shape, the
median per library (GEMM: GFLOP/s; GEMV: GB/s of A streamed), ridge's percent
of its bound (decode shapes: of min(peak, I x DRAM bandwidth); other GEMMs: of
the peak of the instruction ridge's kernel for that input type runs: fp32 FMA,
or for bf16 AMX's tdpbf16ps or vdpbf16ps) and ridge's ratio to the best peer."""
import json
import re
import sys
from collections import OrderedDict


# Each compute probe of ridge-bench (bench/peak.cpp): its benchmark's name and
# the context key of its start-up figure, by instruction family.
PROBES = {
    "avx512": ("BM_peak/fma/avx512/f32", "peak_fp32_avx512_gflops_1t", "avx512 fp32 FMA"),
    "avx2": ("BM_peak/fma/avx2/f32", "peak_fp32_avx2_gflops_1t", "avx2 fp32 FMA"),
    "avx512bf16": ("BM_peak/dpbf16/avx512bf16/bf16", "peak_bf16_avx512bf16_gflops_1t", "vdpbf16ps"),
    "amx": ("BM_peak/tdpbf16/amx/bf16", "peak_bf16_amx_gflops_1t", "AMX tdpbf16ps"),
}


def interleaved_peak(data, family):
    """Median GFLOP/s of the family's BM_peak, or None when the run did not time it."""
    for b in data["benchmarks"]:
        if b.get("aggregate_name") == "median" and b["run_name"].startswith(PROBES[family][0]):
            return b["FLOPS"] / 1e9
    return None


def ridge_family(ctx, dtype):
    """The probe ridge's rows of `dtype` are held to (ridge-bench's context says
    which; a run from before it said ran fp32 FMA for every type: AVX2 when
    forced to, or when the CPU has no AVX-512, its zmm peak recorded as 0)."""
    family = ctx.get(f"peak_family_ridge_{dtype}")
    if family in PROBES:
        return family
    no_zmm = "peak_fp32_avx512_gflops_1t" in ctx and not float(ctx["peak_fp32_avx512_gflops_1t"])
    return "avx2" if ctx.get("env_RIDGE_ISA") == "avx2" or no_zmm else "avx512"


def peak_scale(data, ctx, family):
    """Factor from ridge-bench's percent of peak to percent of the interleaved peak.

    ridge-bench divides by the peak it measured once at start-up; the host
    of a shared machine can slow down by 10% or more minutes later (AMX's
    probe by half, from one minute to the next, on the Intel VM). BM_peak
    runs among the shapes (random interleaving), so its median saw the same
    host as the rows: percent of that is what the rows can be held to."""
    startup = float(ctx.get(PROBES[family][1], 0))
    interleaved = interleaved_peak(data, family)
    if not startup or not interleaved:
        return startup, interleaved, 1.0
    return startup, interleaved, startup / interleaved


def interleaved_read(data, bytes_):
    """Median GB/s of BM_read/<bytes> (one thread's read bandwidth at that working
    set, timed among the rows), or None when the run did not time it."""
    for b in data["benchmarks"]:
        if b.get("aggregate_name") == "median" and b["run_name"].startswith(f"BM_read/{int(bytes_)}/"):
            return b["GBps"]
    return None


def compute_bound(b, startup_peak):
    """Whether a GEMM row's bound is the compute peak (times its threads), not bandwidth."""
    if "bound_FLOPS" not in b:
        return "pct_peak" in b
    if "peak_FLOPS" in b:
        return abs(b["bound_FLOPS"] - b["peak_FLOPS"]) <= 1e-6 * b["peak_FLOPS"]
    times = b["bound_FLOPS"] / (startup_peak * 1e9) if startup_peak else 0
    return times >= 0.999 and abs(times - round(times)) < 1e-6


def main(path):
    data = json.load(open(path))
    ctx = data.get("context", {})
    rows = OrderedDict()
    families_used = OrderedDict()  # family -> the input types of ridge's rows held to it
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
        if lib.startswith("ridge") and kind == "gemm":
            family = ridge_family(ctx, dtype)
            startup_peak, _, scale = peak_scale(data, ctx, family)
            if pct is not None and compute_bound(b, startup_peak):
                pct *= scale
            elif pct is not None and "bw_bytes" in b and b.get("bw_GBps"):
                # Bound by bandwidth: ridge-bench's bound read the bandwidth once, at
                # the first row of that size; hold the row to its median among the rows.
                read = interleaved_read(data, b["bw_bytes"])
                if read:
                    pct *= b["bw_GBps"] / read
            families_used.setdefault(family, set()).add(dtype)
        rows.setdefault(key, {})[lib] = (value, pct)
        if lib not in libs:
            libs.append(lib)
    for family, dtypes in families_used.items():
        startup_peak, interleaved, _ = peak_scale(data, ctx, family)
        if interleaved:
            print(f"# ridge % of {'/'.join(sorted(dtypes))} GEMM: of the {PROBES[family][2]} peak timed among "
                  f"the rows: {interleaved:.1f} GFLOP/s (median of BM_peak; {startup_peak:.1f} at start-up)")
    print("# rows bound by bandwidth (decode among them): ridge % of their roofline bound, at the read bandwidth "
          "timed among the rows (BM_read) where the run has it; GEMV rows: as ridge-bench gives it")
    # The microkernels alone, panels in L1 (BM_ukr): the ceiling of every GEMM row below.
    peaks = {k: interleaved_peak(data, k) or float(ctx.get(PROBES[k][1], 0)) for k in PROBES}
    for b in data["benchmarks"]:
        m = re.match(r"BM_ukr/(\w+)/(\w+)/(\w+?)(/real_time)?$", b["run_name"])
        if m and b.get("aggregate_name") == "median":
            gf = b["FLOPS"] / 1e9
            peak = peaks.get(m.group(2), 0)
            share = f" ({100 * gf / peak:.0f}% of the {PROBES[m.group(2)][2]} peak)" if peak else ""
            print(f"# microkernel {m.group(1)}/{m.group(2)}/{m.group(3)} in L1: {gf:.1f} GFLOP/s{share}")
    for k in ("peak_fp32_avx512_gflops_1t", "peak_fp32_avx2_gflops_1t", "peak_bf16_avx512bf16_gflops_1t",
              "peak_bf16_amx_gflops_1t", "read_gbps_1t_256MiB", "read_gbps_1t_64MiB",
              "read_streams_1t_256MiB_64MiB", "lib_openblas",
              "openblas_own_pick", "lib_blis", "env_OPENBLAS_CORETYPE", "env_RIDGE_ISA"):
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
