#!/usr/bin/env bash
# bench-export.sh — orprof export's figures for docs/performance.md, beside their anchors in one
# run. For humans, not CI: the exit status does not depend on the figures.
#
#   scripts/bench-export.sh [N] [RANKS]   N timed runs of each (default 5); RANKS (default 1000;
#                                         0 skips the fleet)
#
# 1. Throughput on testdata/kineto/mtia_rank0 (87 MB of JSON), raw and .gz: `orprof export`
#    against `orprof table` of the same file, runs interleaved, medians of wall time, CPU time
#    (user + sys) and peak RSS (GNU time), and the bytes written; then `export --ops-tree` and
#    `export` under GOMEMLIMIT=36MiB beside them.
# 2. A fleet: RANKS copies of testdata/kineto-extra/hta_sampled_rank0 (1.76 MB of JSON), each
#    with its distributedInfo rank rewritten, exported in one call: wall and CPU time, peak RSS,
#    bytes per rank, and from the CPU time per byte what 10,000 ranks of 100 MB (1 TB) cost on
#    32 cores. Then `orprof merge` of the ranks' table summaries against the same GROUP BY in
#    DuckDB over the exported ops table (export/duckdbtest's TestFleetGroupByTiming).
# Needs go, perl, gzip and GNU time (/usr/bin/time); writes about RANKS × 2 MB to $TMPDIR,
# removed at the end.
set -euo pipefail

runs=${1:-5}
nranks=${2:-1000}
root=$(cd "$(dirname "$0")/.." && pwd)
for need in go perl gzip /usr/bin/time; do
	if ! command -v "$need" >/dev/null; then
		echo "bench-export: $need not found; nothing measured" >&2
		exit 0
	fi
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && CGO_ENABLED=0 go build -o "$tmp/orprof" ./cmd/orprof)
orprof=$tmp/orprof

# timed LABEL CMD...: one run; appends "LABEL wall_s rss_kb user_s sys_s" to $tmp/times.
timed() {
	local label=$1
	shift
	/usr/bin/time -f "$label %e %M %U %S" -a -o "$tmp/times" "$@" >/dev/null 2>"$tmp/stderr" || {
		cat "$tmp/stderr" >&2
		exit 1
	}
}
# median LABEL COLUMN: the median of a column (2 wall, 3 RSS, 4 user, 5 sys) of LABEL's runs.
median() {
	awk -v l="$1" -v c="$2" '$1 == l { print $c }' "$tmp/times" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

gz=$root/testdata/kineto/mtia_rank0.json.gz
raw=$tmp/mtia_rank0.json
gzip -dc "$gz" >"$raw"
rawbytes=$(stat -c %s "$raw")
echo "== throughput: mtia_rank0, $rawbytes bytes of JSON, $runs runs each, interleaved; load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
for f in "$raw" "$gz"; do
	timed warm "$orprof" table "$f"
	timed warm "$orprof" export --quiet -o "$tmp/warm" "$f"
done
for i in $(seq "$runs"); do
	for kind in raw gz; do
		f=$raw
		[ "$kind" = gz ] && f=$gz
		timed "table-$kind" "$orprof" table "$f"
		rm -rf "$tmp/out"
		timed "export-$kind" "$orprof" export --quiet -o "$tmp/out" "$f"
	done
	rm -rf "$tmp/tree"
	timed export-tree "$orprof" export --quiet --ops-tree -o "$tmp/tree" "$raw"
	rm -rf "$tmp/lim"
	GOMEMLIMIT=36MiB timed export-limit "$orprof" export --quiet -o "$tmp/lim" "$raw"
done
outbytes=$(du -sb "$tmp/out" | cut -f1)
# cpu LABEL: the median of LABEL's runs' user + sys seconds.
cpu() {
	awk -v l="$1" '$1 == l { print $4 + $5 }' "$tmp/times" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
for kind in raw gz; do
	t=$(median "table-$kind" 2)
	e=$(median "export-$kind" 2)
	printf '%-4s table %6.3f s (%5.3f CPU s) %4d MB   export %6.3f s (%5.3f CPU s) %4d MB   export/table: wall %.2fx, CPU %.2fx   export RSS/input %.2f\n' \
		"$kind" "$t" "$(cpu "table-$kind")" $(($(median "table-$kind" 3) / 1024)) "$e" "$(cpu "export-$kind")" $(($(median "export-$kind" 3) / 1024)) \
		"$(echo "$t / $e" | bc -l)" "$(echo "$(cpu "table-$kind") / $(cpu "export-$kind")" | bc -l)" \
		"$(echo "$(median "export-$kind" 3) * 1024 / $rawbytes" | bc -l)"
done
for l in export-tree export-limit; do
	printf '%-12s (raw) %6.3f s (%5.3f CPU s) %4d MB   RSS/input %.2f\n' "$l" "$(median "$l" 2)" "$(cpu "$l")" \
		$(($(median "$l" 3) / 1024)) "$(echo "$(median "$l" 3) * 1024 / $rawbytes" | bc -l)"
done
printf 'output %d bytes = %.4f of the JSON\n' "$outbytes" "$(echo "$outbytes / $rawbytes" | bc -l)"
# CPU seconds (user + sys) of one export of the raw trace: the per-core figure of a large rank.
cpuraw=$(awk '$1 == "export-raw" { print $4 + $5 }' "$tmp/times" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
big=$(echo "$rawbytes / $cpuraw" | bc -l)
printf 'per core (mtia_rank0, raw): %.3f CPU s = %.1f MB of JSON per CPU second; 10,000 ranks of 100 MB (1 TB) on 32 cores: %.1f minutes\n' \
	"$cpuraw" "$(echo "$big / 1000000" | bc -l)" "$(echo "10^12 / ($big * 32) / 60" | bc -l)"

[ "$nranks" -gt 0 ] || exit 0
echo "== fleet: $nranks ranks of hta_sampled_rank0"
src=$root/testdata/kineto-extra/hta_sampled_rank0.json.gz
mkdir "$tmp/ranks" "$tmp/sums"
"$root/scripts/fleet-ranks.sh" "$src" "$nranks" "$tmp/ranks"
inbytes=$(du -sb "$tmp/ranks" | cut -f1)
timed fleet-export "$orprof" export --quiet -o "$tmp/fleet" "$tmp/ranks"
fleetbytes=$(du -sb "$tmp/fleet" | cut -f1)
read -r wall rss user sys < <(awk '$1 == "fleet-export" { print $2, $3, $4, $5 }' "$tmp/times")
cpu=$(echo "$user + $sys" | bc -l)
printf 'export %d ranks (%d bytes of JSON): %.1f s wall, %.1f s CPU, peak RSS %d MB, %d bytes of Parquet (%d per rank)\n' \
	"$nranks" "$inbytes" "$wall" "$cpu" $((rss / 1024)) "$fleetbytes" $((fleetbytes / nranks))
percore=$(echo "$inbytes / $cpu" | bc -l)
printf 'per core (these small ranks): %.1f MB of JSON per CPU second; 10,000 ranks of 100 MB (1 TB) on 32 cores: %.1f minutes\n' \
	"$(echo "$percore / 1000000" | bc -l)" "$(echo "10^12 / ($percore * 32) / 60" | bc -l)"

# orprof merge's inputs: each rank's table summary (the map step of the merge way).
for f in "$tmp"/ranks/*.json; do
	"$orprof" table --format json "$f" >"$tmp/sums/$(basename "$f")" 2>/dev/null
done
for i in $(seq "$runs"); do
	timed merge "$orprof" merge --format json "$tmp"/sums/
done
echo "orprof merge of $nranks table summaries: $(median merge 2) s (median of $runs), peak RSS $(($(median merge 3) / 1024)) MB"
(cd "$root/export/duckdbtest" && ORPROF_FLEET_DIR=$tmp/fleet ORPROF_FLEET_RUNS=$runs go test -count=1 -run '^TestFleetGroupByTiming$' -v . | grep -E '^\s+fleet' || true)
