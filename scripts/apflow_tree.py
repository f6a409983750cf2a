#!/usr/bin/env python3
"""Times the task protocol's Python reference, apflow 0.18.2, creating a task tree.

    pip install "apflow==0.18.2" greenlet
    python3 scripts/apflow_tree.py tasks.json        # prints the seconds taken, then exits

Reads a JSON array of tasks (as `gen-log tasks N` writes them), opens a fresh DuckDB file in a
temporary folder, and times `TaskCreator.create_task_tree_from_array` — apflow's validation of
a tree (one root, references, dependencies) and its insertion — the closest thing the
reference has to `vouch tasks validate`. Python's start-up and imports are not counted here;
time the whole process from outside to count them.
"""
import asyncio
import json
import logging
import os
import sys
import tempfile
import time

logging.disable(logging.CRITICAL)

from apflow.core.execution.task_creator import TaskCreator  # noqa: E402
from apflow.core.storage.factory import create_session  # noqa: E402

tasks = json.load(open(sys.argv[1]))
with tempfile.TemporaryDirectory() as folder:
    session = create_session(path=os.path.join(folder, "tasks.duckdb"))
    start = time.perf_counter()
    tree = asyncio.run(TaskCreator(session).create_task_tree_from_array(tasks))
    took = time.perf_counter() - start
print(f"{took:.3f} s for {len(tasks)} tasks (root {tree.task.id})")
