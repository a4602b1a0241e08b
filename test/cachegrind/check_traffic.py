#!/usr/bin/env python3
"""Checks ridge's counted memory traffic against valgrind's cachegrind.

For each (shape, blocking) it runs test program traffic_probe twice under
cachegrind, once with the GEMM and once without it (initialization only),
with the simulated last-level cache set to the size the blocking assumes holds
the packed panels. The difference in last-level data misses (reads + writes)
times 64 bytes is the GEMM's traffic from memory as the simulator saw it; it
must agree with the fills implied by ridge's count within 15%.

usage: check_traffic.py PATH/TO/traffic_probe
"""
import re
import subprocess
import sys
import tempfile

TOLERANCE = 0.15
LINE = 64
# (m, n, k, KC, MC, NC, LL bytes, LL ways). The model counts every pass over
# an operand as memory traffic, as it is for operands larger than the cache:
# each matrix here is at least twice the simulated LL, and the packed A block
# plus B panel fit well inside it (the blocking's assumption).
CASES = [
    (640, 640, 640, 128, 192, 504, 1 << 20, 16),   # C passed 5 times
    (768, 600, 640, 96, 256, 204, 1 << 20, 16),    # 3 NC blocks: A read 3 times
    (1024, 500, 768, 256, 128, 168, 2 << 20, 16),  # larger LL, short A blocks, 3 NC blocks
]


def ll_misses(probe, args, ll_bytes, ways):
    with tempfile.NamedTemporaryFile() as out:
        run = subprocess.run(
            ["valgrind", "--tool=cachegrind", "--cache-sim=yes", f"--LL={ll_bytes},{ways},{LINE}",
             "--D1=49152,12,64", "--I1=65536,16,64", f"--cachegrind-out-file={out.name}", probe] + args,
            capture_output=True, text=True, check=True)
    found = re.search(r"LLd misses:\s+([\d,]+)", run.stderr)
    if not found:
        sys.exit("cachegrind printed no 'LLd misses' line:\n" + run.stderr)
    return int(found.group(1).replace(",", "")), run.stdout


def main(probe):
    worst = 0.0
    print(f"{'m x n x k':>16} {'KC MC NC':>14} {'LL':>6} {'ridge fills':>12} {'cachegrind':>12} {'diff':>7}")
    for m, n, k, kc, mc, nc, ll, ways in CASES:
        args = [str(v) for v in (m, n, k, kc, mc, nc)]
        with_gemm, out = ll_misses(probe, args + ["gemm"], ll, ways)
        without, _ = ll_misses(probe, args + ["init"], ll, ways)
        simulated = (with_gemm - without) * LINE
        expected = float(re.search(r"expected_fill_bytes (\d+)", out).group(1))
        diff = (simulated - expected) / expected
        worst = max(worst, abs(diff))
        print(f"{m:>5}x{n:>4}x{k:>4} {kc:>4} {mc:>4} {nc:>4} {ll >> 20:>4}Mi {expected / 1e6:>10.2f}MB "
              f"{simulated / 1e6:>10.2f}MB {100 * diff:>6.1f}%")
    print(f"worst difference {100 * worst:.1f}% (tolerance {100 * TOLERANCE:.0f}%)")
    return 0 if worst <= TOLERANCE else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
