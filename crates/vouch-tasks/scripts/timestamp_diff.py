#!/usr/bin/env python3
"""Compares vouch's timestamp parser with Python's datetime.fromisoformat (decision T7).

Mutates valid ISO 8601 strings at random (deleting, inserting and replacing characters,
cutting them short), reads each with both, and prints every disagreement.

    cargo build -p vouch-tasks --example parse_timestamps
    python3 crates/vouch-tasks/scripts/timestamp_diff.py [SEED] [target/debug/examples/parse_timestamps]

Needs Python 3.11 (T7 names its behaviour).
"""
import json
import random
import subprocess
import sys
from datetime import datetime, timezone

seed = int(sys.argv[1]) if len(sys.argv) > 1 else 3
binary = sys.argv[2] if len(sys.argv) > 2 else "target/debug/examples/parse_timestamps"
random.seed(seed)
base = [
    "2024-01-15T09:30:00Z", "2024-01-15", "20240115", "2024-W03-1", "2024W031", "2024-W03",
    "2024W03", "2024-01-15 09:30", "2024-01-15T09:30:00.123+05:30", "2024-01-15T09:30:00,5-08:00",
    "2020-W53-7T23:59:59.999999Z", "2024-02-29T12", "20240115T0930", "2024-01-15T093000Z",
    "2024-01-15T09:30:00+0530", "2024-01-15T09:30:00+05", "2024-01-15T09:30:00+05:30:15",
    "2024-01-15T09:30:00+05:30:15.5", "2024-01-15\u00e909:30", "2024W0319:00",
]
alphabet = "0123456789-:TZW+.,x Z\u00e9"
candidates = set(base)
for b in base:
    for _ in range(600):
        s = list(b)
        for _ in range(random.randrange(1, 3)):
            op = random.randrange(4)
            i = random.randrange(len(s) + 1)
            if op == 0 and s:
                del s[min(i, len(s) - 1)]
            elif op == 1:
                s.insert(i, random.choice(alphabet))
            elif op == 2 and s:
                s[min(i, len(s) - 1)] = random.choice(alphabet)
            else:
                s = s[:i]
        candidates.add("".join(s))
candidates = sorted(candidates)
stdin = "\n".join(json.dumps(c) for c in candidates) + "\n"
answers = subprocess.run([binary], input=stdin, capture_output=True, text=True, check=True).stdout.splitlines()
epoch = datetime(1970, 1, 1, tzinfo=timezone.utc)
disagreements = 0
for text, vouch in zip(candidates, answers):
    try:
        d = datetime.fromisoformat(text.replace("Z", "+00:00"))
        aware = d.tzinfo is not None
        delta = (d if aware else d.replace(tzinfo=timezone.utc)) - epoch
        micros = (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds
        python = f"ok {micros} {'true' if aware else 'false'}"
    except ValueError:
        python = "err"
    if python != vouch:
        disagreements += 1
        print(f"{text!r}: python {python}, vouch {vouch}")
print(f"{len(candidates)} strings, {disagreements} disagreements")
sys.exit(1 if disagreements else 0)
