#!/usr/bin/env bash
# Runs one fuzz target for a while, seeded with the readers' test fixtures.
# Usage: fuzz/run.sh TARGET [SECONDS]   (targets: claude_code codex gemini opencode cursor chat vouch_jsonl detect shell_script)
# Needs cargo-fuzz (`cargo install cargo-fuzz`); RUSTC_BOOTSTRAP=1 lets it run on stable.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: fuzz/run.sh TARGET [SECONDS]}
seconds=${2:-600}
fixtures=crates/vouch-session/tests/fixtures
case "$target" in
  claude_code) seeds="$fixtures/claude $fixtures/claude/nested" ;;
  codex) seeds="$fixtures/codex $fixtures/codex/spawn" ;;
  gemini) seeds="$fixtures/gemini" ;;
  opencode) seeds="$fixtures/opencode" ;;
  cursor) seeds="$fixtures/cursor/5d1e7c0a-1b2c-4d3e-8f90-a1b2c3d4e5f6 $fixtures/cursor/5d1e7c0a-1b2c-4d3e-8f90-a1b2c3d4e5f6/subagents" ;;
  chat) seeds="$fixtures/chat" ;;
  vouch_jsonl|detect) seeds="$fixtures/claude $fixtures/codex $fixtures/chat $fixtures/gemini $fixtures/opencode" ;;
  shell_script) seeds="crates/vouch-evidence/tests/fixtures/commands" ;;
  *) echo "unknown target: $target" >&2; exit 2 ;;
esac
mkdir -p "fuzz/corpus/$target"
# shellcheck disable=SC2086
# vouch forbids unsafe code, so the fuzzers hunt panics, not memory errors: no sanitizer.
RUSTC_BOOTSTRAP=1 cargo fuzz run --sanitizer none "$target" "fuzz/corpus/$target" $seeds -- \
  -max_total_time="$seconds" -max_len=65536 -timeout=10 -print_final_stats=1
