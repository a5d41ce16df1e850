#!/usr/bin/env bash
# Compares two revisions of TinyBlocks on the same benchmark suites, side by side, in one
# session: each revision is checked out in its own worktree and built once, then the suites of
# the two revisions run alternately, RUNS times (default 3), so both see the same machine. The
# table shows, per benchmark, each revision's median ratio to its floor (the hand-written
# equivalent measured in the same process) and its mallocs: ratios, not times, because this
# machine's speed changes from run to run.
#
# Usage, from Benchmarks/:
#   [RUNS=3] ./compare-revisions.sh <old-revision> <new-revision> <Suite>...
#   e.g. ./compare-revisions.sh c9a5f85 HEAD ObservationBenchmarks WaitingBenchmarks
set -euo pipefail
cd "$(dirname "$0")"
old=${1:?usage: ./compare-revisions.sh <old> <new> <Suite>...}
new=${2:?usage: ./compare-revisions.sh <old> <new> <Suite>...}
shift 2
[ $# -gt 0 ] || { echo "name at least one suite, such as ObservationBenchmarks"; exit 2; }
runs=${RUNS:-3}
top=$(git rev-parse --show-toplevel)
work=$top/.build-revisions
mkdir -p "$work"
checkout() {  # revision -> folder
  local commit folder
  commit=$(git rev-parse --short "$1")
  folder=$work/TinyBlocks-$commit
  [ -d "$folder" ] || git worktree add --detach "$folder" "$commit" >/dev/null
  echo "$folder"
}
old_dir=$(checkout "$old")
new_dir=$(checkout "$new")
for suite in "$@"; do
  for dir in "$old_dir" "$new_dir"; do
    (cd "$dir/Benchmarks" && swift build -c release --product "$suite" >/dev/null)
  done
  : >"$work/old.raw"
  : >"$work/new.raw"
  for run in $(seq 1 "$runs"); do
    echo "$suite: run $run of $runs" >&2
    (cd "$old_dir/Benchmarks" && swift package --disable-sandbox benchmark --target "$suite" \
      --no-progress) >>"$work/old.raw"
    (cd "$new_dir/Benchmarks" && swift package --disable-sandbox benchmark --target "$suite" \
      --no-progress) >>"$work/new.raw"
  done
  echo "### $suite: $(git rev-parse --short "$old") against $(git rev-parse --short "$new")"
  echo
  echo "Command: \`cd Benchmarks && RUNS=$runs ./compare-revisions.sh $old $new $suite\`" \
    "($(date +%F), $(nproc) cores, $(swift --version 2>&1 | head -1 | sed 's/ (.*//'))"
  echo
  FROM_RAW=$work/old.raw ./report.sh "$suite" >"$work/old.md"
  FROM_RAW=$work/new.raw ./report.sh "$suite" >"$work/new.md"
  python3 - "$work/old.md" "$work/new.md" <<'PY'
import sys
def rows(path):
    table, group = {}, ""
    for line in open(path):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 5 or cells[0] == "benchmark" or cells[0].startswith("---"):
            continue
        group = cells[0] or group
        table[(group, cells[1])] = (cells[3], cells[4])
    return table
old, new = rows(sys.argv[1]), rows(sys.argv[2])
print("| benchmark | variant | old: ratio to floor | new: ratio to floor | old mallocs | new mallocs |")
print("|---|---|---:|---:|---:|---:|")
for key in new:
    o = old.get(key, ("—", "—"))
    print(f"| {key[0]} | {key[1]} | {o[0]} | {new[key][0]} | {o[1]} | {new[key][1]} |")
PY
  echo
done
