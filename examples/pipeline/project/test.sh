# The calculator's tests: each line one check; the last line counts them.
. ./calc.sh
passed=0; failed=0
check() { if [ "$2" = "$3" ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL $1: expected $3, got $2"; fi; }
check "2 + 3" "$(add 2 3)" 5
check "0 + 0" "$(add 0 0)" 0
check "-1 + 1" "$(add -1 1)" 0
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
