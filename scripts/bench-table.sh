#!/usr/bin/env bash
# bench-table.sh — `orprof table` on the 87 MB MTIA Kineto trace and on 2× and 8× copies of it,
# plain and gzip-compressed, side by side in one run with its anchors: the floor (streaming the
# file through a 256 KiB buffer and bytes.Count over it, scripts/floor), `gzip -dc` for .gz
# input, and Python's json.load (1× only). Each command runs N times after one warm-up run;
# the table gives the median and the minimum wall time, MB/s of uncompressed input, the peak
# RSS (largest of the runs) as a share of the uncompressed size, and the ratios. For humans
# (docs/performance.md numbers), not CI: timings on a shared machine are noisy, and the results never
# change the exit status.
#
#   scripts/bench-table.sh [N] [SCALES]   N timed runs of each (default 5); SCALES (default
#                                         "1 2 8") are the sizes, in copies of the trace
#
# Environment: TRACE_GZ overrides the input (a Kineto .json.gz); ORPROF_BASELINE=/path/to/an/
# older/orprof times that binary too (before/after numbers). Needs go, python3, gzip and GNU
# time (/usr/bin/time); copies are made with scripts/scale-trace.py in a temporary directory
# (the 8× plain trace is ~700 MB).
set -euo pipefail

runs=${1:-5}
scales=${2:-1 2 8}
root=$(cd "$(dirname "$0")/.." && pwd)
gz=${TRACE_GZ:-$root/testdata/kineto/mtia_rank0.json.gz}
for need in go python3 gzip /usr/bin/time; do
	if ! command -v "$need" >/dev/null; then
		echo "bench-table: $need not found; nothing measured" >&2
		exit 0
	fi
done
if [[ ! -f $gz ]]; then
	echo "bench-table: trace not found (set TRACE_GZ); nothing measured" >&2
	exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/orprof" ./cmd/orprof && go build -o "$tmp/floor" ./scripts/floor)
gzip -dc "$gz" >"$tmp/x1.json"
for k in $scales; do
	if [[ $k != 1 ]]; then
		python3 "$root/scripts/scale-trace.py" "$k" "$tmp/x1.json" "$tmp/x$k.json"
	fi
	gzip -1 -c "$tmp/x$k.json" >"$tmp/x$k.json.gz"
done
sync

# measure LABEL SIZE CMD...: one warm-up run (page cache, binary), then $runs timed runs. Wall
# time is taken around /usr/bin/time with the shell's microsecond clock; RSS is GNU time's
# maximum resident set size. Appends "LABEL SIZE median_s min_s max_rss_kb" to results.
measure() {
	local label=$1 size=$2 max_kb=0 t0 t1 kb
	shift 2
	"$@" >/dev/null
	: >"$tmp/times"
	for ((i = 1; i <= runs; i++)); do
		t0=$EPOCHREALTIME
		/usr/bin/time -f "%M" -o "$tmp/rss" "$@" >/dev/null 2>&1 # the warm-up run showed stderr
		t1=$EPOCHREALTIME
		kb=$(tail -n 1 "$tmp/rss")
		awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.4f\n", b-a}' >>"$tmp/times"
		if ((kb > max_kb)); then max_kb=$kb; fi
	done
	sort -n "$tmp/times" | awk -v l="$label" -v s="$size" -v kb="$max_kb" '
		{ t[NR] = $1 }
		END { m = NR % 2 ? t[(NR+1)/2] : (t[NR/2] + t[NR/2+1]) / 2; print l, s, m, t[1], kb }' >>"$tmp/results"
}

cpu=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)
echo "$(date -u '+%Y-%m-%d %H:%M UTC'); $cpu; $(nproc) CPUs; load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "trace: $(basename "$gz"); $runs runs of each after a warm-up"
: >"$tmp/results"
for k in $scales; do
	f=$tmp/x$k.json
	size=$(stat -c %s "$f")
	measure "floor_${k}x" "$size" "$tmp/floor" "$f"
	if [[ -n ${ORPROF_BASELINE:-} ]]; then
		measure "baseline_${k}x" "$size" "$ORPROF_BASELINE" table "$f"
	fi
	measure "table_${k}x" "$size" "$tmp/orprof" table "$f"
	measure "gzip-dc_${k}x.gz" "$size" gzip -dc "$f.gz"
	measure "table_${k}x.gz" "$size" "$tmp/orprof" table "$f.gz"
	if [[ $k == 1 ]]; then
		measure "python_json.load_1x" "$size" python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$f"
	fi
done

echo "medians (MB = 10^6 bytes of uncompressed input; RSS is the largest of the runs):"
awk '
	{ label[NR] = $1; size[NR] = $2; med[NR] = $3; mn[NR] = $4; kb[NR] = $5
	  split($1, p, "_"); sc = p[2]; if (p[1] == "floor") floor[sc] = $3
	  if (p[1] == "gzip-dc") gzf[sc] = $3; if (p[1] == "python") py = $3; if ($1 == "table_1x") t1 = $3; if ($1 == "table_1x") s1 = $2 }
	END {
		printf "  %-22s %9s %9s %9s %9s %7s  %s\n", "command", "size MB", "median s", "min s", "MB/s", "RSS/size", "ratio"
		for (i = 1; i <= NR; i++) {
			split(label[i], p, "_"); sc = p[2]
			r = ""
			if (p[1] == "table" || p[1] == "baseline") {
				if (sc ~ /gz$/) r = sprintf("%.2fx gzip -dc", med[i] / gzf[sc])
				else r = sprintf("%.2fx floor", med[i] / floor[sc])
				if (label[i] == "table_1x" && py > 0) r = r sprintf(", python %.1fx slower", py / med[i])
				if (p[1] == "table" && sc !~ /gz$/ && t1 > 0 && sc != "1x") r = r sprintf(", %.2fx the 1x time for %.2fx the size", med[i] / t1, size[i] / s1)
			}
			printf "  %-22s %9.1f %9.3f %9.3f %9.0f %6.0f%%  %s\n", label[i], size[i] / 1e6, med[i], mn[i], size[i] / 1e6 / med[i], 100 * kb[i] * 1024 / size[i], r
		}
	}' "$tmp/results"
exit 0
