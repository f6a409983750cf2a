#!/bin/sh
# Writes a suite of agent tests whose rows are all LLM reviews, for timing `vouch test` on them:
# TESTS tests (default 100) of REVIEWS `stdout:` reviews each (default 10), every one on the
# bundled Claude Code session, graded by an instant scripted grader.
#
#   scripts/review-suite.sh /tmp/reviews 100 10
#   target/release/vouch test /tmp/reviews               # the first run grades and fills the cache
#   hyperfine --warmup 1 'target/release/vouch test /tmp/reviews'              # warm cache
#   hyperfine --warmup 1 'target/release/vouch test /tmp/reviews --no-cache'   # grading each time
set -eu
dir=${1:?usage: review-suite.sh DIR [TESTS] [REVIEWS]}
tests=${2:-100}
reviews=${3:-10}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$dir"
cp "$root/examples/tests-before-success/sessions/9c4e1f08-6b2d-4a73-8e15-2f7a0d3c9b64.jsonl" "$dir/session.jsonl"
cat > "$dir/vouch.yaml" <<'YAML'
graders:
  instant:
    kind: scripted
    file: replies.yaml
YAML
cat > "$dir/replies.yaml" <<'YAML'
replies:
  - reply: '{"score": 8, "reasoning": "Meets the criteria.", "nonce": "{{nonce}}"}'
YAML
t=0
while [ "$t" -lt "$tests" ]; do
  file="$dir/t$t.vouch.yaml"
  printf 'name: reviews %s\nsession: session.jsonl\nassertions:\n' "$t" > "$file"
  r=0
  while [ "$r" -lt "$reviews" ]; do
    printf '  - stdout:\n      review: "Criterion %s-%s: says what was fixed and that the tests pass"\n' "$t" "$r" >> "$file"
    r=$((r + 1))
  done
  t=$((t + 1))
done
echo "wrote $tests tests of $reviews reviews to $dir"
