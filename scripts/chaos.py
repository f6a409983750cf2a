#!/usr/bin/env python3
"""A crash harness for `vouch serve` on PostgreSQL: workers are killed, cut off and restarted,
and PostgreSQL itself is restarted, while task trees run; then the invariants are checked.

    python3 scripts/chaos.py [--runs N] [--seed S] [--workers 3] [--trees 3] [--tasks 16]
                             [--lease 1] [--sleep 1.9] [--vouch target/release/vouch] [--freeze]

Each run uses a fresh database on one throwaway cluster (initdb + pg_ctl on a socket in a
temporary folder; as root, PostgreSQL runs as `postgres`), an API process and --workers worker
processes (--lease, 1 s; 4 tasks at once each). It creates --trees trees of --tasks `command`
tasks, each depending at random on earlier ones; every execution sleeps up to --sleep seconds
and appends `start`/`end` lines (its token, the time, its worker) to a log, and prints the
token. Each worker has a keeper (`vouch __keeper`, outside the worker's process tree). While the trees run, a chaos loop picks
one action every 0.05-0.25 s:

  kill      kill -9 a worker, and start a new one
  cut       terminate a worker's database connections (pg_terminate_backend)
  restart   restart PostgreSQL at once (pg_ctl restart -m immediate), about one time in 15
  freeze    (with --freeze) SIGSTOP a worker and the task processes under it for 1.5 leases,
            then SIGCONT them: a stalled worker (its keeper is not frozen)

A worker that exits on its own (one started while PostgreSQL restarts cannot open the store,
and exits with 2) is started again, as a service manager would (`respawn` in the counts).

Checked after each run (any violation fails the run, and the script exits 1):

  ended     every task ended completed, within 90 s
  lost      every task created is there, once (tasks.get answers "not found" for a lost one;
            a tasks.get that fails five times, a second apart, for another reason is
            `unanswered`, with the error)
  fenced    each task's stored result is the token of its last execution to start: no
            stale attempt's write was accepted over a newer one's
  overlap   no two executions of one task that both ended overlapped in time (a violation
            names the first one's worker and whether it was frozen)
  events    each tree's event stream ends with every task's final status
  api       the API process (never signalled) is still running

Prints one line per run and a summary; exit 0 when every run held every invariant.
"""

import argparse
import importlib.util
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The throwaway cluster and the JSON-RPC call are bench-server.py's.
_spec = importlib.util.spec_from_file_location("bench_server", os.path.join(ROOT, "scripts", "bench-server.py"))
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)
rpc = bench.rpc


def try_rpc(url, method, params):
    """`rpc`, or None while the database is restarting."""
    try:
        return rpc(url, method, params, timeout=30)
    except (RuntimeError, OSError):
        return None


def free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def descendants(pid):
    """`pid` and every process under it."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            with open(f"/proc/{p}/task/{p}/children") as f:
                todo.extend(int(c) for c in f.read().split())
        except OSError:
            pass
    return out


def one_run(k, rng, args, cluster, vouch, work):
    db = f"chaos_{k}"
    cluster.sql(f"CREATE DATABASE {db}")
    url = cluster.url_of(db)
    log = os.path.join(work, f"executions-{k}.log")
    # What the servers say goes to files kept with a failed run (main() keeps them).
    server_log = open(os.path.join(work, "servers.log"), "ab")
    port = free_port()
    api = subprocess.Popen([vouch, "serve", "--quiet", "--listen", f"127.0.0.1:{port}", "--db", url,
                            "--concurrency", "0"], stderr=server_log, cwd=work)
    base = f"http://127.0.0.1:{port}/"
    for _ in range(200):
        if try_rpc(base, "system.health", {}) is not None:
            break
        time.sleep(0.05)
    worker_argv = [vouch, "serve", "--worker", "--db", url, "--concurrency", "4", "--lease", str(args.lease),
                   "--shutdown-timeout", "1", "--sandbox", "off"]
    workers = [subprocess.Popen(worker_argv, stderr=server_log, cwd=work) for _ in range(args.workers)]
    # The trees: each task depends at random on earlier ones of its tree.
    command = (
        't=$(cat /proc/sys/kernel/random/uuid); '
        f'echo "start $VOUCH_TASK_ID $t $(date +%s%N) $PPID" >> {log}; '
        f'm=$(( $(od -An -N2 -tu2 /dev/urandom) % {int(args.sleep * 1000) + 1} )); '
        'sleep $((m / 1000)).$(printf %03d $((m % 1000))); '
        f'echo "end $VOUCH_TASK_ID $t $(date +%s%N) $PPID" >> {log}; echo "$t"'
    )
    roots, all_ids = [], []
    for _ in range(args.trees):
        ids = [str(uuid.uuid4()) for _ in range(args.tasks)]
        tasks = [{"id": ids[0], "name": "root", "schemas": {"method": "command"},
                  "inputs": {"command": command}, "dependencies": ids[1:]}]
        for i in range(1, args.tasks):
            deps = [d for d in ids[1:i] if rng.random() < 0.3]
            tasks.append({"id": ids[i], "name": f"t{i}", "parent_id": ids[0], "schemas": {"method": "command"},
                          "inputs": {"command": command}, "dependencies": deps})
        rpc(base, "tasks.execute", {"tasks": tasks})
        roots.append(ids[0])
        all_ids.extend(ids)
    actions = ["kill", "cut", "kill", "cut", "restart"] + (["freeze", "freeze"] if args.freeze else [])
    done_by = time.time() + 90
    frozen = []
    counts = {}
    def supervise():
        """Starts again a worker that exited on its own, as a service manager would: one
        started while PostgreSQL restarts cannot open the store and exits with 2."""
        for i, w in enumerate(workers):
            if w.poll() is not None:
                counts["respawn"] = counts.get("respawn", 0) + 1
                workers[i] = subprocess.Popen(worker_argv, stderr=server_log, cwd=work)

    while time.time() < done_by:
        supervise()
        states = [try_rpc(base, "tasks.get", {"task_id": r}) for r in roots]
        if all(s is not None and s["status"] in ("completed", "failed", "cancelled") for s in states):
            break
        time.sleep(rng.uniform(0.05, 0.25))
        action = rng.choice(actions)
        if action == "restart" and rng.random() > 0.3:
            action = "cut"
        counts[action] = counts.get(action, 0) + 1
        i = rng.randrange(len(workers))
        if action == "kill":
            workers[i].kill()
            workers[i].wait()
            workers[i] = subprocess.Popen(worker_argv, stderr=server_log, cwd=work)
        elif action == "cut":
            pids = cluster.sql(
                f"SELECT pid FROM pg_stat_activity WHERE datname = '{db}' AND pid <> pg_backend_pid() "
                f"AND application_name = ''", db).split()
            if pids:
                cluster.sql(f"SELECT pg_terminate_backend({rng.choice(pids)})", db)
        elif action == "restart":
            cluster.restart()
        elif action == "freeze":
            procs = descendants(workers[i].pid)
            stopped_at = time.time_ns()
            for p in procs:
                try:
                    os.kill(p, signal.SIGSTOP)
                except OSError:
                    pass
            time.sleep(1.5 * args.lease)
            for p in procs:
                try:
                    os.kill(p, signal.SIGCONT)
                except OSError:
                    pass
            frozen.append((workers[i].pid, stopped_at, time.time_ns()))
    # Let what was running settle before checking (no more chaos).
    settle_by = time.time() + 60
    while time.time() < settle_by:
        supervise()
        states = [try_rpc(base, "tasks.get", {"task_id": r}) for r in roots]
        if all(s is not None and s["status"] in ("completed", "failed", "cancelled") for s in states):
            break
        time.sleep(0.2)
    violations = check(base, roots, all_ids, log, frozen)
    if api.poll() is not None:
        # Nothing in the chaos touches the API process: its exit is a finding of its own.
        violations.insert(0, f"api: the API process exited with {api.returncode}")
    for w in workers:
        w.terminate()
    for w in workers:
        try:
            w.wait(timeout=10)
        except subprocess.TimeoutExpired:
            w.kill()
    api.terminate()
    api.wait()
    server_log.close()
    return violations, counts


def get_task(base, task_id):
    """The task, or None and why not: "lost" when the store has no such task."""
    why = None
    for _ in range(5):
        try:
            return rpc(base, "tasks.get", {"task_id": task_id}, timeout=30), None
        except RuntimeError as e:
            if "not found" in str(e).lower():
                return None, "lost"
            why = str(e)
        except OSError as e:
            why = str(e)
        time.sleep(1)
    return None, why


def check(base, roots, all_ids, log, frozen):
    v = []
    tasks = {}
    for i in all_ids:
        t, why = get_task(base, i)
        if t is not None:
            tasks[i] = t
        elif why == "lost":
            v.append(f"lost: {i}")
        else:
            v.append(f"unanswered: tasks.get {i}: {why}")
    for i, t in tasks.items():
        if t["status"] != "completed":
            v.append(f"ended: {i} is {t['status']} ({t.get('error')})")
    starts, ends = {}, {}
    for line in open(log).read().splitlines() if os.path.exists(log) else []:
        parts = line.split()
        if len(parts) != 5:
            continue
        kind, task, token, at, worker = parts
        (starts if kind == "start" else ends).setdefault(task, []).append((int(at), token, int(worker)))
    for i, t in tasks.items():
        if t["status"] != "completed":
            continue
        stored = (t.get("result") or {}).get("stdout", "").strip()
        started = sorted(starts.get(i, []))
        if not started or stored != started[-1][1]:
            v.append(f"fenced: {i} holds {stored!r}, its last execution to start was {started[-1][1] if started else None!r}")
        spans = []
        begun = {tok: (at, w) for at, tok, w in starts.get(i, [])}
        for at, tok, _ in ends.get(i, []):
            if tok in begun:
                spans.append((begun[tok][0], at, tok, begun[tok][1]))
        spans.sort()
        for a, b in zip(spans, spans[1:]):
            if b[0] < a[1]:
                stalled = [f for f in frozen if f[0] == a[3] and a[0] < f[2] and f[1] < a[1]]
                v.append(f"overlap: {i} ran {a[2]} and {b[2]} at once"
                         + (f" (the first one's worker was frozen {stalled})" if stalled else f" (worker {a[3]}, not frozen)"))
    for r in roots:
        if any(t["status"] not in ("completed", "failed", "cancelled") for t in tasks.values()
               if t.get("parent_id") == r or t["id"] == r):
            # Its stream stays open while tasks wait: `ended` has said what is wrong.
            continue
        req = urllib.request.Request(base.rstrip("/") + f"/events/{r}")
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                body = resp.read().decode()
        except OSError as e:
            v.append(f"events: {r}: {e}")
            continue
        last = {}
        for block in body.split("\n\n"):
            data = [l[5:].strip() for l in block.splitlines() if l.startswith("data:")]
            if data:
                d = json.loads(data[0])
                last[d["task_id"]] = d["status"]
        for i, t in tasks.items():
            if t.get("parent_id") == r or i == r:
                if last.get(i) != t["status"]:
                    v.append(f"events: {i} ends {last.get(i)} in its stream, {t['status']} in the store")
    return v


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--seed", type=int, default=int(time.time()))
    ap.add_argument("--workers", type=int, default=3)
    ap.add_argument("--trees", type=int, default=3)
    ap.add_argument("--tasks", type=int, default=16)
    ap.add_argument("--freeze", action="store_true", help="also SIGSTOP workers past their lease")
    ap.add_argument("--lease", type=float, default=1.0, help="the workers' lease, in seconds")
    ap.add_argument("--sleep", type=float, default=1.9, help="the longest a task runs, in seconds")
    ap.add_argument("--vouch", default=os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")), "release", "vouch"))
    args = ap.parse_args()
    rng = random.Random(args.seed)
    print(f"seed {args.seed}", flush=True)
    cluster = bench.Postgres(max_connections=300, prefix="vouch-chaos-pg-")
    work = tempfile.mkdtemp(prefix="vouch-chaos-")
    failed = 0
    started = time.time()
    totals = {}
    try:
        for k in range(args.runs):
            run_dir = os.path.join(work, f"run-{k + 1}")
            os.makedirs(run_dir)
            violations, counts = one_run(k, rng, args, cluster, os.path.abspath(args.vouch), run_dir)
            for a, n in counts.items():
                totals[a] = totals.get(a, 0) + n
            failed += bool(violations)
            print(f"run {k + 1}: {'FAILED' if violations else 'ok'} {counts}", flush=True)
            for line in violations[:20]:
                print(f"  {line}", flush=True)
            if violations:
                kept = f"/tmp/vouch-chaos-failed-{args.seed}-{k + 1}"
                shutil.rmtree(kept, ignore_errors=True)
                shutil.move(run_dir, kept)
                print(f"  the run's execution log and server output: {kept}", flush=True)
            else:
                shutil.rmtree(run_dir, ignore_errors=True)
    finally:
        cluster.stop()
        shutil.rmtree(work, ignore_errors=True)
    print(f"{args.runs} runs, {failed} failed, {time.time() - started:.0f} s; chaos: {totals}", flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
