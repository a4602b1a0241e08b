#!/usr/bin/env python3
"""`ridge-bench paired`: runs, reports ridge and each peer with a positive rate, and its ratios are
ridge's rate over each library's (ridge's own exactly 1); a malformed shape is a usage error (exit 2),
not a run.

usage: check_paired.py RIDGE_BENCH
"""
import re
import subprocess
import sys


def main():
    bench = sys.argv[1]
    bad = subprocess.run([bench, "paired", "64", "64", "64", "XY"], capture_output=True, text=True)
    assert bad.returncode == 2, f"TRANS XY: exit {bad.returncode}, expected the usage error 2"
    assert "usage: ridge-bench paired" in bad.stderr, bad.stderr

    run = subprocess.run([bench, "paired", "96", "80", "64", "TN", "1", "4"], capture_output=True, text=True)
    assert run.returncode == 0, f"exit {run.returncode}: {run.stderr}"
    out = run.stdout
    assert re.search(r"^sgemm 96x80x64 TN, 1 thread\(s\), 3 rounds of \d+ call\(s\) per library$", out, re.M), out
    rows = {m.group(1): (float(m.group(2)), float(m.group(3)))
            for m in re.finditer(r"^(\w+)\s+([0-9.]+)\s+([0-9.]+)$", out, re.M)}
    assert "ridge" in rows, out
    assert rows["ridge"][1] == 1.0, f"ridge over itself is {rows['ridge'][1]}"
    ridge_rate = rows["ridge"][0]
    for lib, (rate, ratio) in rows.items():
        assert rate > 0, f"{lib}: rate {rate}"
        # A median of per-round ratios, against the ratio of the median rates: the same
        # quantity on a quiet machine; a factor of 2 apart only if the ratio were inverted
        # or taken against the wrong library (BLIS here runs at about half ridge's rate).
        expected = ridge_rate / rate
        assert expected / 2 < ratio < expected * 2, f"{lib}: ratio {ratio}, rates say {expected:.3f}"
    print(f"paired: {sorted(rows)} OK")


if __name__ == "__main__":
    main()
