#!/usr/bin/env python3
"""`ridge-bench scaling`: runs, prints each round's two rates (positive) and speed-up (the team's rate
over one thread's, not the inverse), then medians and quartiles that are those of the rounds; a
malformed shape or a team of one is a usage error (exit 2), not a run. Nothing here depends on how
fast the host runs: every check compares numbers the tool printed with each other.

usage: check_scaling.py RIDGE_BENCH
"""
import re
import subprocess
import sys

from bench_tool_checks import at, usage_error


def main():
    bench = sys.argv[1]
    usage_error(bench, "scaling", "64", "64", "64", "XY")
    usage_error(bench, "scaling", "64", "64", "64", "NN", "1")  # a team of one compares nothing

    run = subprocess.run([bench, "scaling", "256", "192", "256", "TN", "2", "6"], capture_output=True, text=True)
    assert run.returncode == 0, f"exit {run.returncode}: {run.stderr}"
    out = run.stdout
    assert re.search(r"^sgemm 256x192x256 TN, ridge on 1 and 2 threads, 5 rounds of \d+ call\(s\) each$", out, re.M), out
    rounds = [tuple(float(m.group(i)) for i in (1, 2, 3)) for m in re.finditer(
        r"^round \d+: 1 thread ([0-9.]+), 2 threads ([0-9.]+) GFLOP/s, speed-up ([0-9.]+)$", out, re.M)]
    assert len(rounds) == 5, out
    for one, team, speedup in rounds:
        assert one > 0 and team > 0, out
        # Printed to 3 decimals of GFLOP/s and 4 of the ratio: agreement within 0.1% and half
        # the ratio's last digit (a speed-up of 0.0346 is a round whose team was starved).
        assert abs(speedup - team / one) <= 5e-5 + 1e-3 * team / one, \
            f"speed-up {speedup} against {team} / {one} (inverted?)"
    one = re.search(r"^1 thread\s+([0-9.]+) GFLOP/s median$", out, re.M)
    team = re.search(r"^2 threads\s+([0-9.]+) GFLOP/s median$", out, re.M)
    summary = re.search(r"^speed-up\s+([0-9.]+) median of the rounds \(quartiles ([0-9.]+)-([0-9.]+)\)$", out, re.M)
    assert one and team and summary, out
    ones, teams, speedups = (sorted(r[i] for r in rounds) for i in (0, 1, 2))
    # The medians are printed to 0.1 GFLOP/s, the rounds to 3 decimals: within half the last digit.
    assert abs(float(one.group(1)) - at(ones, 0.5)) <= 0.05 + 1e-9, out
    assert abs(float(team.group(1)) - at(teams, 0.5)) <= 0.05 + 1e-9, out
    for value, q in zip((float(summary.group(i)) for i in (1, 2, 3)), (0.5, 0.25, 0.75)):
        # (printed to 3 decimals, the rounds' to 4)
        assert abs(value - at(speedups, q)) <= 5e-4 + 1e-9, f"quantile {q}: {value}, rounds say {at(speedups, q)}"
    print(f"scaling: {len(rounds)} rounds, speed-up {summary.group(1)} OK")


if __name__ == "__main__":
    main()
