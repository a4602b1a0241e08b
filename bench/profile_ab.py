#!/usr/bin/env python3
"""With and without the tuned profile, interleaved: does any shape get slower?

Runs ridge-bench's ridge-only benchmarks (--benchmark_filter=/ridge/) in
alternating processes, RIDGE_PROFILE=none against RIDGE_PROFILE=<profile>
(the runtime configuration is read once per process, so each arm needs its
own), ROUNDS times each, and per benchmark compares the median over the rounds
of each run's median. Prints one row per shape and the shapes slower with the
profile by more than the noise allowance (2%).

usage: profile_ab.py RIDGE_BENCH PROFILE [ROUNDS=3] [FILTER=/ridge/]
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

NOISE = 0.02  # the allowance the tuner's issue sets: slower by more than 2% counts


def run_arm(bench, profile, bench_filter):
    env = dict(os.environ, RIDGE_PROFILE=profile)
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        subprocess.run([bench, f"--benchmark_filter={bench_filter}", f"--benchmark_out={out.name}",
                        "--benchmark_out_format=json"], env=env, check=True, stdout=subprocess.DEVNULL)
        data = json.load(open(out.name))
    rates = {}
    for b in data["benchmarks"]:
        if b.get("aggregate_name") != "median":
            continue
        rate = b.get("A_bytes_per_s") or b.get("FLOPS")
        if rate:
            rates[b["run_name"]] = rate
    return rates


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    bench, profile = sys.argv[1], os.path.abspath(sys.argv[2])
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    bench_filter = sys.argv[4] if len(sys.argv) > 4 else "/ridge/"
    arms = {"none": [], "profile": []}
    for r in range(rounds):
        # Alternate which arm goes first, so a slow spell does not always hit the same one.
        order = [("none", "none"), ("profile", profile)]
        if r % 2:
            order.reverse()
        for name, value in order:
            arms[name].append(run_arm(bench, value, bench_filter))
            print(f"round {r + 1}/{rounds}: {name} done", file=sys.stderr)
    names = [n for n in arms["none"][0] if all(n in run for arm in arms.values() for run in arm)]
    slower = []
    print(f"{'benchmark':60s}{'none':>10s}{'profile':>10s}{'ratio':>8s}")
    for n in names:
        base = statistics.median(run[n] for run in arms["none"])
        tuned = statistics.median(run[n] for run in arms["profile"])
        ratio = tuned / base
        print(f"{n:60s}{base / 1e9:10.1f}{tuned / 1e9:10.1f}{ratio:8.3f}")
        if ratio < 1 - NOISE:
            slower.append((n, ratio))
    print(f"\n{len(names)} benchmarks, {rounds} rounds per arm; slower with the profile by more than "
          f"{NOISE:.0%}: {len(slower)}")
    for n, ratio in slower:
        print(f"  {n}: {ratio:.3f}")
    return 1 if slower else 0


if __name__ == "__main__":
    sys.exit(main())
