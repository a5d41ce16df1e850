#!/usr/bin/env bash
# Runs the example app's "refresh now, then the next tick" test, written as the guides say
# (FeedKitTests' refreshNowThenTheNextTick), 1,000 times side by side on two cores while two
# busy loops load those cores, and prints how many runs failed. Not part of `swift test`.
#
#   ./stress-refresh.sh                                  # the guides' pattern: expect 0 failed
#   FEEDKIT_STRESS_WITHOUT_WAIT=1 ./stress-refresh.sh    # without waitUntilIdle(), to compare
set -euo pipefail
cd "$(dirname "$0")"
swift build --build-tests >/dev/null

loads=()
stop_loads() { for pid in "${loads[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap stop_loads EXIT
for _ in 1 2; do
  taskset -c 0,1 bash -c 'while :; do :; done' &
  loads+=("$!")
done

log=$(mktemp)
status=0
TINYBLOCKS_FULL_STRESS=1 taskset -c 0,1 swift test --skip-build --filter FeedModelStressTests \
  >"$log" 2>&1 || status=$?
runs=$(grep -c "aRefreshNowThenTheNextTick(run:)" "$log" || true)
failed=$({ grep -oE "recorded an issue with 1 argument run → [0-9]+" "$log" || true; } | sort -u | wc -l)
summary=$(grep -E "Test run with|error:" "$log" | tail -1 || true)
echo "runs: 1000 side by side on cores 0-1 under two busy loops; failed: $failed"
echo "swift test: exit $status; $summary"
[ "$runs" -gt 0 ] || { echo "the stress test did not run; see $log"; exit 1; }
rm -f "$log"
[ "$failed" -eq 0 ]
