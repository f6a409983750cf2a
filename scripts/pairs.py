#!/usr/bin/env python3
"""Runs two commands alternately (A B A B ...) and prints the medians of their wall time, CPU
time and peak memory, and the medians of the per-pair ratios A/B.

On a shared machine whose speed drifts over minutes, pairs run side by side compare better than
two series run one after the other (hyperfine's order). Output is thrown away; a command that
exits non-zero is reported and counted.

    scripts/pairs.py -n 20 'target/release/vouch session stats /tmp/big.jsonl' \
        'aptitude analyze /tmp/one.aptitude.yaml /tmp/big.jsonl'
"""

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import time


def run(argv):
    """Runs argv once; returns (wall s, cpu s, peak MiB, exit code)."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    cpu = usage.ru_utime + usage.ru_stime
    return wall, cpu, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=20, help="pairs to run (default 20)")
    parser.add_argument("--warmup", type=int, default=1, help="unmeasured pairs first")
    parser.add_argument("a", help="command A")
    parser.add_argument("b", help="command B")
    args = parser.parse_args()
    commands = {"A": shlex.split(args.a), "B": shlex.split(args.b)}
    for _ in range(args.warmup):
        for argv in commands.values():
            run(argv)
    runs = {"A": [], "B": []}
    for _ in range(args.n):
        for name, argv in commands.items():
            runs[name].append(run(argv))
    for name, rows in runs.items():
        failed = sum(1 for r in rows if r[3] != 0)
        wall = [r[0] for r in rows]
        print(
            f"{name}: wall median {statistics.median(wall):.3f} s (min {min(wall):.3f}, "
            f"max {max(wall):.3f}), cpu median {statistics.median(r[1] for r in rows):.3f} s, "
            f"peak median {statistics.median(r[2] for r in rows):.1f} MiB"
            + (f", {failed} of {len(rows)} exited non-zero" if failed else "")
        )
    pairs = list(zip(runs["A"], runs["B"]))
    for label, i in (("wall", 0), ("cpu", 1), ("peak", 2)):
        ratio = statistics.median(a[i] / b[i] for a, b in pairs if b[i] > 0)
        print(f"A/B {label}: median of {len(pairs)} per-pair ratios {ratio:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
