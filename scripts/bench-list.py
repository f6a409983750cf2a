#!/usr/bin/env python3
"""`tasks.list` by status on a store of 1,000,000 tasks (PostgreSQL and SQLite), for
docs/performance.md.

Usage: scripts/bench-list.py [--tasks 1000000] [--runs 7] [--only postgres|sqlite]
                             [--vouch target/release/vouch]

The store is filled straight by SQL (a real task's stored row, copied with new ids and
sequence numbers: 98% completed, 1% failed, 1% pending, in trees of 100), after `vouch serve`
has created its schema; then, over HTTP, medians of --runs requests of:
  rare-page     tasks.list {status: failed, limit: 100}: the first page of a rare status
  rare-deep     the same at offset 5,000
  common-page   tasks.list {status: completed, limit: 100}
  count         tasks.count (every status's total)
Each answer carries the total of matching tasks, so every figure includes a count.
"""

import argparse
import importlib.util
import json
import os
import sqlite3
import statistics
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
spec = importlib.util.spec_from_file_location("bench_server", os.path.join(ROOT, "scripts", "bench-server.py"))
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)

QUERIES = {
    "rare-page": ("tasks.list", {"status": "failed", "limit": 100}),
    "rare-deep": ("tasks.list", {"status": "failed", "limit": 100, "offset": 5000}),
    "common-page": ("tasks.list", {"status": "completed", "limit": 100}),
    "count": ("tasks.count", {}),
}

# The filling statement, for both databases: a row per number n of a series, its status by n.
FILL = """
INSERT INTO tasks (id, root_id, parent_id, user_id, priority, status, waiting, queued, attempt,
                   progress, created_at, updated_at, body)
SELECT 'bench-' || n, 'bench-' || (n - n % 100),
       CASE WHEN n % 100 = 0 THEN NULL ELSE 'bench-' || (n - n % 100) END,
       'bench', 1,
       CASE WHEN n % 100 = 7 THEN 'failed' WHEN n % 100 = 8 THEN 'pending' ELSE 'completed' END,
       0, 0, 0, 1.0, '{created}', '{created}', '{body}'
FROM {series}
"""


def timed(url, method, params):
    started = time.perf_counter()
    bench.rpc(url, method, params)
    return (time.perf_counter() - started) * 1000


def measure(url, runs):
    out = {}
    for name, (method, params) in QUERIES.items():
        times = [timed(url, method, params) for _ in range(runs)]
        out[name] = statistics.median(times)
    return out


def template(url):
    """A real stored task's body and creation time, created through the API."""
    task = {"id": "0b0e7a8c-5d9e-4c4f-9a51-8b3c2d1e0f11", "name": "bench task", "user_id": "bench"}
    bench.rpc(url, "tasks.create", {"tasks": [task]})
    got = bench.rpc(url, "tasks.get", {"task_id": task["id"]})
    return json.dumps(got).replace("'", "''"), got["created_at"]


def postgres(n, runs):
    pg = bench.Postgres()
    try:
        api = bench.Vouch(pg.url, 18931, 0)
        body, created = template(api.url)
        series = f"generate_series(1, {n}) AS n"
        sql = FILL.replace("{series}", series).replace("{body}", body).replace("{created}", created)
        psql = [f"{pg.bin}/psql", "-h", pg.dir, "-U", "postgres", "-q", "-c", sql, "-c", "VACUUM ANALYZE tasks"]
        if pg.as_pg:
            psql = ["runuser", "-u", "postgres", "--"] + psql
        started = time.time()
        subprocess.run(psql, check=True)
        print(f"postgres: {n} tasks stored in {time.time() - started:.0f} s", flush=True)
        figures = measure(api.url, runs)
        api.stop()
        return figures
    finally:
        pg.stop()


def sqlite(n, runs):
    with tempfile.TemporaryDirectory() as d:
        db = os.path.join(d, "tasks.db")
        api = bench.Vouch(db, 18932, 0)
        body, created = template(api.url)
        api.stop()
        series = f"(WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < {n}) SELECT n FROM s)"
        sql = FILL.replace("{series}", series).replace("{body}", body).replace("{created}", created)
        started = time.time()
        con = sqlite3.connect(db)
        con.execute(sql)
        con.commit()
        con.close()
        print(f"sqlite: {n} tasks stored in {time.time() - started:.0f} s", flush=True)
        api = bench.Vouch(db, 18932, 0)
        figures = measure(api.url, runs)
        api.stop()
        return figures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tasks", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--only", choices=["postgres", "sqlite"])
    ap.add_argument("--vouch", default=bench.VOUCH)
    args = ap.parse_args()
    bench.VOUCH = os.path.abspath(args.vouch)
    for name, run in (("postgres", postgres), ("sqlite", sqlite)):
        if args.only in (None, name):
            figures = run(args.tasks, args.runs)
            print(name + ": " + ", ".join(f"{k} {v:.1f} ms" for k, v in figures.items()), flush=True)


if __name__ == "__main__":
    main()
