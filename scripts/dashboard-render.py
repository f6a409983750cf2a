#!/usr/bin/env python3
"""Measures how long `vouch serve`'s dashboard takes to fetch and render a 10,000-task tree in
headless Chromium: starts the server (an empty SQLite store in a temporary folder, no workers),
creates the tree (a root, 99 groups of 100), opens `/ui#root=…` RUNS times through
scripts/cdp.py and reads the page's own measure (`data-render-ms`: from the tree's request to
the rows drawn). Prints each run and the median.

    python3 scripts/dashboard-render.py [--vouch target/release/vouch] [--runs 5]
"""
import argparse
import json
import os
import re
import socket
import statistics
import subprocess
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))


def tid(n):
    return f"00000000-0000-4000-8000-{n:012}"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call(url, method, params):
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
    req = urllib.request.Request(url + "/", body, {"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=120) as r:
        answer = json.load(r)
    if "error" in answer:
        raise SystemExit(f"{method} failed: {answer['error']}")
    return answer["result"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--vouch", default="target/release/vouch")
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        server = subprocess.Popen(
            [os.path.abspath(args.vouch), "serve", "--listen", f"127.0.0.1:{port}",
             "--db", "tasks.db", "--concurrency", "0", "--quiet"], cwd=tmp)
        try:
            for _ in range(100):
                try:
                    call(url, "system.health", {})
                    break
                except OSError:
                    time.sleep(0.1)
            tasks = [{"id": tid(0), "name": "root", "schemas": {"method": "aggregate_results"}}]
            for n in range(1, 10_000):
                parent = tid(n // 100 * 100 if n % 100 else 0)
                tasks.append({"id": tid(n), "name": f"task {n}", "parent_id": parent,
                              "schemas": {"method": "aggregate_results"}})
            call(url, "tasks.create", {"tasks": tasks})
            times = []
            for i in range(args.runs):
                dom = subprocess.run(
                    ["python3", os.path.join(HERE, "cdp.py"), f"{url}/ui#root={tid(0)}",
                     "--step", "wait:document.querySelectorAll('#tree .row').length === 10000 "
                               "&& document.getElementById('tree').dataset.renderMs !== undefined",
                     "--screenshot", os.path.join(tmp, "shot.png"), "--timeout", "60"],
                    capture_output=True, text=True, check=True).stdout
                ms = int(re.search(r'data-render-ms="(\d+)"', dom).group(1))
                times.append(ms)
                print(f"run {i + 1}: {ms} ms")
            print(f"median of {len(times)}: {statistics.median(times)} ms "
                  f"(min {min(times)}, max {max(times)})")
        finally:
            server.terminate()
            server.wait()


if __name__ == "__main__":
    main()
