"""What the checks of ridge-bench's paired tools (check_paired.py, check_scaling.py,
check_transposes.py) share: the tools' quantile and their usage error."""
import subprocess


def at(sorted_values, q):
    """The tools' quantile (bench/median.h): the element at index q * size of the sorted sample."""
    return sorted_values[int(q * len(sorted_values))]


def usage_error(bench, tool, *args):
    """`ridge-bench TOOL ARGS...` exits 2 with the tool's usage line, without running."""
    bad = subprocess.run([bench, tool, *args], capture_output=True, text=True)
    assert bad.returncode == 2, f"{tool} {args}: exit {bad.returncode}, expected the usage error 2"
    assert f"usage: ridge-bench {tool}" in bad.stderr, bad.stderr
