#!/usr/bin/env python3
"""`ridge-bench transposes`: runs, prints each round's four rates per library (positive, ridge first),
then per library the median NN rate and the medians and quartiles of TN/NN, NT/NN and TT/NN that are
those of the rounds' ratios (a pair's rate over NN's, not the inverse); a malformed shape or a
transpose argument (the four pairs are always timed) is a usage error (exit 2), not a run. Nothing
here depends on how fast the host runs: every check compares numbers the tool printed with each other.

usage: check_transposes.py RIDGE_BENCH
"""
import re
import subprocess
import sys

from bench_tool_checks import at, usage_error

PAIRS = ("NN", "TN", "NT", "TT")


def parse_round(line):
    """{library: {pair: rate}} from 'round R: lib NN x TN x NT x TT x lib ... GFLOP/s'."""
    words = line.split(":", 1)[1].split()
    assert words[-1] == "GFLOP/s", line
    words = words[:-1]
    assert len(words) % 9 == 0, line
    libs = {}
    for i in range(0, len(words), 9):
        name, rest = words[i], words[i + 1:i + 9]
        assert tuple(rest[0::2]) == PAIRS, line
        libs[name] = {p: float(v) for p, v in zip(PAIRS, rest[1::2])}
    return list(libs.items())


def main():
    bench = sys.argv[1]
    usage_error(bench, "transposes", "64", "64")
    usage_error(bench, "transposes", "64", "64", "0")
    usage_error(bench, "transposes", "64", "64", "64", "NN")  # no transpose argument: all four are timed
    usage_error(bench, "transposes", "64", "64", "64", "1", "1")  # one round is the warm-up alone

    run = subprocess.run([bench, "transposes", "200", "96", "160", "1", "6"], capture_output=True, text=True)
    assert run.returncode == 0, f"exit {run.returncode}: {run.stderr}"
    out = run.stdout
    assert re.search(r"^sgemm 200x96x160, TN NT TT against NN, 1 thread\(s\), 5 rounds of \d+ call\(s\) per timing$",
                     out, re.M), out
    rounds = [parse_round(line) for line in out.splitlines() if re.match(r"^round \d+:", line)]
    assert len(rounds) == 5, out
    names = [name for name, _ in rounds[0]]
    assert names[0] == "ridge", names
    for r in rounds:
        assert [name for name, _ in r] == names, out
        for _, rates in r:
            assert all(v > 0 for v in rates.values()), out
    number = r"([0-9.]+)"
    quartet = rf"\s+{number} \({number}-{number}\)"
    for li, name in enumerate(names):
        row = re.search(rf"^{name}\s+{number}{quartet}{quartet}{quartet}$", out, re.M)
        assert row, f"no summary row for {name}: {out}"
        values = [float(v) for v in row.groups()]
        nn = sorted(r[li][1]["NN"] for r in rounds)
        # Medians printed to 0.1 GFLOP/s, the rounds to 3 decimals: within half the last digit.
        assert abs(values[0] - at(nn, 0.5)) <= 0.05 + 1e-9, (name, values[0], nn)
        for pi, pair in enumerate(PAIRS[1:]):
            ratios = sorted(r[li][1][pair] / r[li][1]["NN"] for r in rounds)
            for value, q in zip(values[1 + 3 * pi:4 + 3 * pi], (0.5, 0.25, 0.75)):
                # Printed to 3 decimals; the rounds' rates to 3 decimals of GFLOP/s (a relative 1e-4 or less).
                want = at(ratios, q)
                assert abs(value - want) <= 5e-4 + 2e-3 * want, \
                    f"{name} {pair}/NN quantile {q}: {value}, rounds say {want}"
    print(f"transposes: {len(rounds)} rounds, {len(names)} libraries OK")


if __name__ == "__main__":
    main()
