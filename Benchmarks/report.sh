#!/usr/bin/env bash
# Runs one benchmark suite RUNS times (default 3) and prints a Markdown table for
# Docs/Performance.md: per benchmark, the median over the runs of its median wall-clock time,
# its median ratio to its group's baseline, and its median malloc count.
#
# Benchmarks are named "<group> · <variant>" and registered with `compare` (BenchmarkSupport),
# which times every sample of a variant back to back with the group's baseline in the same
# process and records the ratio: that ratio is what the table shows. A group without paired
# ratios falls back to dividing medians by the first variant's. This machine is shared and has
# no hardware counters, so whole runs are repeated and their medians taken.
#
# Usage, from Benchmarks/:  [RUNS=3] ./report.sh SequenceBenchmarks [benchmark arguments...]
# KEEP_RAW=<file> also keeps the harness's raw output there (custom metrics such as latencies
# are not tabulated; read them from it). FROM_RAW=<file> tabulates a raw output kept earlier
# instead of running anything (compare-revisions.sh uses it).
set -euo pipefail
cd "$(dirname "$0")"
target=${1:?usage: [RUNS=3] ./report.sh <TargetName> [benchmark arguments...]}
shift
runs=${RUNS:-3}
raw=$(mktemp)
if [ -n "${FROM_RAW:-}" ]; then
  cp "$FROM_RAW" "$raw"
else
  for run in $(seq 1 "$runs"); do
    echo "run $run of $runs" >&2
    swift package --disable-sandbox benchmark --target "$target" --no-progress "$@" >>"$raw"
  done
  echo "Command: \`cd Benchmarks && RUNS=$runs ./report.sh $target${*:+ $*}\`" \
    "($(date +%F), $(nproc) cores, $(swift --version 2>&1 | head -1 | sed 's/ (.*//'))"
  echo
fi
awk '
  function trim(s) { gsub(/^[ \t│]+|[ \t│*]+$/, "", s); return s }
  function median(list,    values, m, i, j, t) {
    m = split(list, values, " ")
    if (m == 0) return ""
    for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++)
      if (values[j] + 0 < values[i] + 0) { t = values[i]; values[i] = values[j]; values[j] = t }
    return (m % 2) ? values[(m + 1) / 2] : (values[m / 2] + values[m / 2 + 1]) / 2
  }
  / · / && $0 !~ /[│╒╞├╘]/ {
    name = trim($0)
    if (!(name in seen)) { seen[name] = 1; order[++n] = name }
    next
  }
  /^│ / && !/│ Metric/ {
    split($0, cells, "│")
    metric = trim(cells[2]); p50 = trim(cells[5])
    if (metric ~ /\(K\)$/) p50 *= 1000; else if (metric ~ /\(M\)$/) p50 *= 1000000
    if (metric ~ /^Time \(wall clock\)/) {
      unit = metric; sub(/.*\(/, "", unit); sub(/\).*/, "", unit)
      times[name] = times[name] " " p50; units[name] = unit
    } else if (metric ~ /^Malloc \(total\)/) { mallocs[name] = mallocs[name] " " p50
    } else if (metric ~ /^ratio to baseline/) { ratios[name] = ratios[name] " " p50 }
  }
  END {
    for (i = 1; i <= n; i++) {
      name = order[i]; split(name, part, " · ")
      if (!(part[1] in first)) first[part[1]] = name
    }
    print "| benchmark | variant | median | ratio | mallocs |"
    print "|---|---|---:|---:|---:|"
    last = ""
    for (i = 1; i <= n; i++) {
      name = order[i]; split(name, part, " · "); group = part[1]
      if (ratios[name] != "") ratio = sprintf("%.2f×", median(ratios[name]) / 1000)
      else if (group in paired && !(name in ratios)) ratio = "1.00× (baseline)"
      else ratio = sprintf("%.2f×", median(times[name]) / median(times[first[group]]))
      row[name] = ratio
      if (ratios[name] != "") paired[group] = 1
    }
    for (i = 1; i <= n; i++) {
      name = order[i]; split(name, part, " · "); group = part[1]
      if (group in paired && ratios[name] == "") row[name] = "baseline"
      printf "| %s | %s | %s %s | %s | %s |\n", (group == last ? "" : group), part[2], \
        median(times[name]), units[name], row[name], median(mallocs[name])
      last = group
    }
  }' "$raw"
if [ -n "${KEEP_RAW:-}" ]; then cp "$raw" "$KEEP_RAW"; fi
rm -f "$raw"
