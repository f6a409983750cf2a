#!/usr/bin/env python3
"""Timings of `vouch serve` for docs/performance.md, and the same trees on apflow 0.18.2.

Usage: scripts/bench-server.py [--runs N] [--apflow PATH/TO/apflow-server] [--skip-postgres]
                              [--skip-vouch] [--only FIGURE...] [--concurrency N]

Every figure is the median of --runs runs (default 5), measured from the client over HTTP on
127.0.0.1, each run on fresh ids:
  create-10k    tasks.create of a 10,000-task tree (one request)
  create-1k     tasks.create of a 1,000-task tree
  run-1k        tasks.execute of a stored 1,000-task tree of trivial tasks (aggregate_results),
                until its root (which depends on every other task) completed
  run-10k       the same with 10,000 tasks (SQLite)
  pg-1w, pg-4w  10,000 trivial tasks through PostgreSQL with 1 and 4 `vouch serve --worker`
                processes (--concurrency at once each, default 2), tasks per second: the
                fan-in tree above, and 10,000 independent tasks (the root depends on nothing)
  pg-latency    a chain of 200 tasks without an executor, each depending on the one before, through 4
                PostgreSQL workers: how long after a task completed the next one started
                (started_at minus the previous completed_at; p50 and p90)
The PostgreSQL cluster is a throwaway one (initdb + pg_ctl on a socket in a temporary folder;
run as root, it runs as the `postgres` user). apflow runs with its default store (DuckDB) and
its own executor `aggregate_results_executor`; its trees are the same but for that name.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONCURRENCY = 2
VOUCH = os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")), "release", "vouch")


def rpc(url, method, params, timeout=600):
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
    req = urllib.request.Request(url, body, {"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        answer = json.loads(r.read())
    if "error" in answer:
        raise RuntimeError(f"{method}: {answer['error']}")
    return answer["result"]


def tree(n, method, fan_in=True):
    """A root depending on n-1 trivial children (or, without fan_in, on none of them)."""
    ids = [str(uuid.uuid4()) for _ in range(n)]
    deps = [{"id": i, "required": True} for i in ids[1:]] if fan_in else []
    tasks = [{"id": ids[0], "name": "root", "user_id": "bench", "schemas": {"method": method},
              "dependencies": deps}]
    tasks += [{"id": i, "name": f"t{k}", "user_id": "bench", "parent_id": ids[0],
               "schemas": {"method": method}, "dependencies": []} for k, i in enumerate(ids[1:])]
    return ids[0], tasks


def wait_up(url, proc):
    for _ in range(600):
        if proc.poll() is not None:
            sys.exit(f"the server at {url} exited")
        try:
            urllib.request.urlopen(urllib.request.Request(url, b"{}", {"content-type": "application/json"}), timeout=1)
            return
        except urllib.error.HTTPError:
            return
        except OSError:
            time.sleep(0.1)
    sys.exit(f"the server at {url} did not start")


def status(url, task_id):
    return rpc(url, "tasks.get", {"task_id": task_id})["status"]


def wait_done(url, root):
    while True:
        s = status(url, root)
        if s in ("completed", "failed", "cancelled"):
            return s
        time.sleep(0.01)


class Vouch:
    name = "vouch"
    method = "aggregate_results"

    def __init__(self, db, port, concurrency=None):
        concurrency = CONCURRENCY if concurrency is None else concurrency
        self.url = f"http://127.0.0.1:{port}/"
        self.proc = subprocess.Popen([VOUCH, "serve", "--quiet", "--listen", f"127.0.0.1:{port}", "--db", db,
                                      "--concurrency", str(concurrency)], stderr=subprocess.DEVNULL)
        wait_up(self.url, self.proc)

    def create(self, tasks):
        return rpc(self.url, "tasks.create", {"tasks": tasks})

    def execute(self, root):
        return rpc(self.url, "tasks.execute", {"task_id": root})

    def stop(self):
        self.proc.terminate()
        self.proc.wait()


class Apflow:
    name = "apflow 0.18.2"
    method = "aggregate_results_executor"

    def __init__(self, server, workdir):
        self.url = "http://127.0.0.1:8000/tasks"
        self.proc = subprocess.Popen([server], cwd=workdir, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_up(self.url, self.proc)

    def create(self, tasks):
        return rpc(self.url, "tasks.create", tasks)

    def execute(self, root):
        return rpc(self.url, "tasks.execute", {"task_id": root})

    def stop(self):
        self.proc.terminate()
        self.proc.wait()


def median_of(runs, f, label=""):
    times = []
    for k in range(runs):
        times.append(f())
        print(f"  {label} run {k + 1}: {times[-1] * 1000:.1f} ms", file=sys.stderr, flush=True)
    return statistics.median(times), times


def timed_create(service, n):
    _, tasks = tree(n, service.method)
    t = time.perf_counter()
    service.create(tasks)
    return time.perf_counter() - t


def timed_run(service, n):
    root, tasks = tree(n, service.method)
    service.create(tasks)
    t = time.perf_counter()
    service.execute(root)
    end = wait_done(service.url, root)
    if end != "completed":
        raise RuntimeError(f"{service.name}: the tree ended {end}")
    return time.perf_counter() - t


class Postgres:
    """A throwaway PostgreSQL cluster on a socket in a temporary folder (as root, run as the
    `postgres` user); scripts/chaos.py uses it too."""

    def __init__(self, max_connections=200, prefix="vouch-bench-pg-"):
        bins = sorted(d for d in os.listdir("/usr/lib/postgresql"))
        self.bin = f"/usr/lib/postgresql/{bins[-1]}/bin"
        self.dir = tempfile.mkdtemp(prefix=prefix)
        os.chmod(self.dir, 0o755)
        self.as_pg = os.geteuid() == 0
        if self.as_pg:
            shutil.chown(self.dir, "postgres", "postgres")
        self.options = f"-k {self.dir} -c listen_addresses='' -c max_connections={max_connections}"
        self.sh(["initdb", "-D", f"{self.dir}/data", "-U", "postgres", "--auth=trust", "--no-sync"])
        self.sh(["pg_ctl", "-D", f"{self.dir}/data", "-o", self.options, "-l", f"{self.dir}/log", "-w", "start"])
        self.url = self.url_of("postgres")
        if os.environ.get("VOUCH_BENCH_SLOW_MS"):
            # Statements slower than this go to the PostgreSQL log (printed when a figure fails).
            self.sh(["psql", "-h", self.dir, "-U", "postgres", "-c",
                     f"ALTER SYSTEM SET log_min_duration_statement = {os.environ['VOUCH_BENCH_SLOW_MS']}",
                     "-c", "SELECT pg_reload_conf()"])

    def url_of(self, db):
        return f"postgres://postgres@localhost/{db}?host={self.dir}"

    def sh(self, argv, check=True):
        argv = [f"{self.bin}/{argv[0]}"] + argv[1:]
        if self.as_pg:
            argv = ["runuser", "-u", "postgres", "--"] + argv
        return subprocess.run(argv, check=check, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)

    def sql(self, statement, db="postgres"):
        """Runs `statement` with psql; its rows, one per line (nothing when it failed)."""
        return self.sh(["psql", "-h", self.dir, "-U", "postgres", "-d", db, "-At", "-c", statement], check=False).stdout

    def restart(self):
        """Restarts the cluster at once (`-m immediate`: no shutdown checkpoint, a crash to it)."""
        self.sh(["pg_ctl", "-D", f"{self.dir}/data", "-o", self.options, "-l", f"{self.dir}/log",
                 "-m", "immediate", "-w", "restart"], check=False)

    def stop(self):
        if sys.exc_info()[0] is not None and os.path.exists(f"{self.dir}/log"):
            print("--- the PostgreSQL log's end:", open(f"{self.dir}/log").read()[-4000:], file=sys.stderr)
        self.sh(["pg_ctl", "-D", f"{self.dir}/data", "-m", "immediate", "-w", "stop"], check=False)
        shutil.rmtree(self.dir, ignore_errors=True)


def pg_throughput(pg, workers, n, port, fan_in):
    api = Vouch(pg.url, port, 0)
    root, tasks = tree(n, "aggregate_results", fan_in)
    api.create(tasks)
    done_before = rpc(api.url, "tasks.list", {"status": "completed", "limit": 1})["total"]
    procs = [subprocess.Popen([VOUCH, "serve", "--worker", "--db", pg.url, "--concurrency", str(CONCURRENCY)],
                              stderr=worker_log()) for _ in range(workers)]
    time.sleep(1.0)  # the workers connect and migrate before the clock starts
    t = time.perf_counter()
    api.execute(root)
    if fan_in:
        wait_done(api.url, root)
    else:
        while rpc(api.url, "tasks.list", {"status": "completed", "limit": 1})["total"] < done_before + n:
            time.sleep(0.05)
    took = time.perf_counter() - t
    for p in procs:
        p.terminate()
        p.wait()
    api.stop()
    return n / took


def worker_log():
    """Where a worker's standard error goes: $VOUCH_BENCH_LOGS (appended), else nowhere."""
    path = os.environ.get("VOUCH_BENCH_LOGS")
    return open(path, "a") if path else subprocess.DEVNULL


def stamp(text):
    """Seconds since the epoch of an RFC 3339 time with milliseconds."""
    from datetime import datetime
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def pg_latency(pg, port, n=200):
    api = Vouch(pg.url, port, 0)
    ids = [str(uuid.uuid4()) for _ in range(n)]
    # Tasks without an executor (they complete when they are ready): `aggregate_results` would
    # nest each result in the next, past what a result may hold.
    tasks = [{"id": ids[0], "name": "chain"}]
    tasks += [{"id": ids[k], "name": f"c{k}", "parent_id": ids[0],
               "dependencies": [{"id": ids[k - 1], "required": True}]} for k in range(1, n)]
    api.create(tasks)
    procs = [subprocess.Popen([VOUCH, "serve", "--worker", "--db", pg.url, "--concurrency", str(CONCURRENCY)],
                              stderr=worker_log()) for _ in range(4)]
    time.sleep(1.0)
    api.execute(ids[0])
    while status(api.url, ids[-1]) != "completed":
        time.sleep(0.05)
    got = {t["id"]: t for t in (rpc(api.url, "tasks.get", {"task_id": i}) for i in ids)}
    gaps = sorted((stamp(got[ids[k]]["started_at"]) - stamp(got[ids[k - 1]]["completed_at"])) * 1000
                  for k in range(1, n))
    for p in procs:
        p.terminate()
        p.wait()
    api.stop()
    return gaps[len(gaps) // 2], gaps[len(gaps) * 9 // 10]


def main():
    global CONCURRENCY
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--apflow")
    ap.add_argument("--skip-postgres", action="store_true")
    ap.add_argument("--skip-vouch", action="store_true", help="only apflow's figures")
    ap.add_argument("--only", nargs="*", help="only these figures: create-1k create-10k run-1k run-10k")
    ap.add_argument("--concurrency", type=int, default=2, help="tasks each vouch process runs at once")
    args = ap.parse_args()
    CONCURRENCY = args.concurrency
    if not os.path.exists(VOUCH):
        sys.exit(f"build it first: cargo build --release -p vouch-cli ({VOUCH})")
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        services = [] if args.skip_vouch else [("vouch", lambda: Vouch(os.path.join(tmp, "tasks.db"), 18790))]
        if args.apflow:
            services.append(("apflow 0.18.2", lambda: Apflow(args.apflow, tmp)))
        for name, start in services:
            s = start()
            try:
                for label, f, n in [("create-1k", timed_create, 1000), ("create-10k", timed_create, 10000),
                                    ("run-1k", timed_run, 1000), ("run-10k", timed_run, 10000)]:
                    if name != "vouch" and label == "run-10k":
                        continue
                    if args.only and label not in args.only:
                        continue
                    med, times = median_of(args.runs, lambda: f(s, n), f"{name} {label}")
                    results[(name, label)] = med
                    print(f"{name:14} {label:10} median {med * 1000:9.1f} ms  runs {[round(x * 1000, 1) for x in times]}", flush=True)
            finally:
                s.stop()
    if not args.skip_postgres:
        pg = Postgres()
        try:
            for fan_in, shape in ((True, "fan-in"), (False, "independent")):
                for w in (1, 4):
                    rates = [pg_throughput(pg, w, 10000, 18791, fan_in) for _ in range(max(1, args.runs // 2))]
                    print(f"{'vouch':14} pg-{w}w {shape:11} median {statistics.median(rates):7.0f} tasks/s  runs {[round(r) for r in rates]}"
                          f"  (--concurrency {CONCURRENCY})", flush=True)
            p50, p90 = pg_latency(pg, 18791)
            print(f"{'vouch':14} pg-latency  ready to started p50 {p50:.1f} ms, p90 {p90:.1f} ms  (4 workers, --concurrency {CONCURRENCY})", flush=True)
        finally:
            pg.stop()


if __name__ == "__main__":
    main()
