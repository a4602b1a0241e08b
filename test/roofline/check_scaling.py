#!/usr/bin/env python3
"""`ridge-bench scaling`: runs, reports one thread's and the team's rates (positive) and a median
speed-up with its quartiles that agree with those rates; a malformed shape or a team of one is a
usage error (exit 2), not a run.

usage: check_scaling.py RIDGE_BENCH
"""
import re
import subprocess
import sys


def usage_error(bench, *args):
    bad = subprocess.run([bench, "scaling", *args], capture_output=True, text=True)
    assert bad.returncode == 2, f"{args}: exit {bad.returncode}, expected the usage error 2"
    assert "usage: ridge-bench scaling" in bad.stderr, bad.stderr


def main():
    bench = sys.argv[1]
    usage_error(bench, "64", "64", "64", "XY")
    usage_error(bench, "64", "64", "64", "NN", "1")  # a team of one compares nothing

    run = subprocess.run([bench, "scaling", "256", "192", "256", "TN", "2", "5"], capture_output=True, text=True)
    assert run.returncode == 0, f"exit {run.returncode}: {run.stderr}"
    out = run.stdout
    assert re.search(r"^sgemm 256x192x256 TN, ridge on 1 and 2 threads, 4 rounds of \d+ call\(s\) each$", out, re.M), out
    one = re.search(r"^1 thread\s+([0-9.]+) GFLOP/s median$", out, re.M)
    team = re.search(r"^2 threads\s+([0-9.]+) GFLOP/s median$", out, re.M)
    speedup = re.search(r"^speed-up\s+([0-9.]+) median of the rounds \(quartiles ([0-9.]+)-([0-9.]+)\)$", out, re.M)
    assert one and team and speedup, out
    one, team = float(one.group(1)), float(team.group(1))
    median, q1, q3 = (float(speedup.group(i)) for i in (1, 2, 3))
    assert one > 0 and team > 0, out
    assert q1 <= median <= q3, out
    # A median of per-round ratios against the ratio of the median rates: the same quantity on a
    # quiet machine, a factor of 2 apart only if the ratio were taken against the wrong rate or
    # inverted (which shows where the team runs faster: 256 x 192 x 256 on two cores ran 1.7-1.9x).
    expected = team / one
    assert expected / 2 < median < expected * 2, f"speed-up {median}, rates say {expected:.3f}"
    print(f"scaling: 1 thread {one}, 2 threads {team}, speed-up {median} OK")


if __name__ == "__main__":
    main()
