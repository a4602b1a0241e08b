#!/usr/bin/env python3
"""`ridge-bench paired`: runs, prints each round's rate of ridge and of every peer (positive), then
each library's median rate and the median of ridge's rate over its rate per round (ridge's own exactly
1, not the inverse), which must be those of the printed rounds; a malformed shape or input type is a
usage error (exit 2), not a run; bf16 inputs time ridge and only the peers that take them. Nothing
here depends on how fast the host runs: every check compares numbers the tool printed with each other.

usage: check_paired.py RIDGE_BENCH
"""
import re
import subprocess
import sys

from bench_tool_checks import at, usage_error


def main():
    bench = sys.argv[1]
    usage_error(bench, "paired", "64", "64", "64", "XY")
    usage_error(bench, "paired", "64", "64", "64", "NN", "1", "3", "f64")

    bf16 = subprocess.run([bench, "paired", "64", "48", "32", "NN", "1", "3", "bf16"], capture_output=True, text=True)
    assert bf16.returncode == 0, f"bf16: exit {bf16.returncode}: {bf16.stderr}"
    assert re.search(r"^bf16 64x48x32 NN, 1 thread\(s\), 2 rounds of \d+ call\(s\) per library$", bf16.stdout,
                     re.M), bf16.stdout
    bf16_libraries = re.findall(r"^round 1:((?: \w+ [0-9.]+)+) GFLOP/s$", bf16.stdout, re.M)[0].split()[::2]
    assert bf16_libraries[0] == "ridge" and "blis" not in bf16_libraries, bf16.stdout  # BLIS has no bf16 GEMM

    run = subprocess.run([bench, "paired", "96", "80", "64", "TN", "1", "6"], capture_output=True, text=True)
    assert run.returncode == 0, f"exit {run.returncode}: {run.stderr}"
    out = run.stdout
    assert re.search(r"^sgemm 96x80x64 TN, 1 thread\(s\), 5 rounds of \d+ call\(s\) per library$", out, re.M), out

    rounds = []  # one {library: rate} per round, in the order printed
    for line in re.finditer(r"^round (\d+):((?: \w+ [0-9.]+)+) GFLOP/s$", out, re.M):
        assert int(line.group(1)) == len(rounds) + 1, out
        pairs = line.group(2).split()
        rounds.append({pairs[i]: float(pairs[i + 1]) for i in range(0, len(pairs), 2)})
    assert len(rounds) == 5, out
    libraries = list(rounds[0])
    assert libraries[0] == "ridge", f"ridge first, the ratios' numerator: {libraries}"
    assert all(list(r) == libraries for r in rounds), out
    assert all(rate > 0 for r in rounds for rate in r.values()), out

    rows = {m.group(1): (float(m.group(2)), float(m.group(3)))
            for m in re.finditer(r"^(\w+)\s+([0-9.]+)\s+([0-9.]+)$", out, re.M)}
    assert sorted(rows) == sorted(libraries), f"summary rows {sorted(rows)}, rounds {libraries}"
    assert rows["ridge"][1] == 1.0, f"ridge over itself is {rows['ridge'][1]}"
    for lib, (rate, ratio) in rows.items():
        rates = sorted(r[lib] for r in rounds)
        # The summary prints a rate to 0.1 GFLOP/s and a ratio to 3 decimals, the rounds to 3.
        assert abs(rate - at(rates, 0.5)) <= 0.05 + 1e-9, f"{lib}: median {rate}, rounds say {at(rates, 0.5)}"
        ratios = sorted(r["ridge"] / r[lib] for r in rounds)
        # (the ratio to 3 decimals, from rates to 3 decimals: half its last digit and 0.1%)
        assert abs(ratio - at(ratios, 0.5)) <= 5e-4 + 1e-3 * ratio, \
            f"{lib}: ratio {ratio}, rounds say {at(ratios, 0.5):.4f} (inverted or against another library?)"
    print(f"paired: {libraries}, {len(rounds)} rounds OK")


if __name__ == "__main__":
    main()
