#!/usr/bin/env bash
# bench-table.sh — `orprof table` against Python's json.load on the uncompressed 87 MB MTIA
# Kineto trace, side by side in one run: best of N wall seconds and the peak RSS of each, MB/s,
# and the ratio. For humans (README numbers), not CI: timings on a shared machine are noisy,
# and the results never change the exit status.
#
#   scripts/bench-table.sh [N]     N timed runs of each (default 3), after one warm-up run each
#
# Environment: TRACE_GZ overrides the input; ORPROF_BASELINE=/path/to/an/older/orprof times
# that binary too (before/after numbers). Needs go, python3, zcat and GNU time (/usr/bin/time).
set -euo pipefail

runs=${1:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
gz=${TRACE_GZ:-$root/testdata/kineto/mtia_rank0.json.gz}
for need in go python3 zcat /usr/bin/time; do
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
(cd "$root" && go build -o "$tmp/orprof" ./cmd/orprof)
zcat "$gz" >"$tmp/trace.json"
sync "$tmp/trace.json" 2>/dev/null || sync
size=$(stat -c %s "$tmp/trace.json")

# measure LABEL CMD...: one warm-up run (page cache, binary), then $runs timed runs. Wall time
# is taken around /usr/bin/time with the shell's microsecond clock; RSS is GNU time's maximum
# resident set size. Appends "LABEL best_s max_rss_kb" to $tmp/results.
measure() {
	local label=$1 best= max_kb=0 t0 t1 s kb
	shift
	"$@" >/dev/null
	for ((i = 1; i <= runs; i++)); do
		t0=$EPOCHREALTIME
		/usr/bin/time -f "%M" -o "$tmp/rss" "$@" >/dev/null
		t1=$EPOCHREALTIME
		kb=$(tail -n 1 "$tmp/rss")
		s=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b-a}')
		printf '  %-16s run %d: %6.3f s  %7.1f MB RSS\n' "$label" "$i" "$s" "$(awk -v k="$kb" 'BEGIN{printf "%.1f", k*1024/1e6}')"
		if [[ -z $best ]] || awk -v a="$s" -v b="$best" 'BEGIN{exit !(a < b)}'; then best=$s; fi
		if ((kb > max_kb)); then max_kb=$kb; fi
	done
	echo "$label $best $max_kb" >>"$tmp/results"
}

echo "trace: $(basename "$gz"), uncompressed $size bytes ($(awk -v b="$size" 'BEGIN{printf "%.1f", b/1e6}') MB); $(nproc) CPUs"
if [[ -n ${ORPROF_BASELINE:-} ]]; then
	measure "baseline table" "$ORPROF_BASELINE" table "$tmp/trace.json"
fi
measure "orprof table" "$tmp/orprof" table "$tmp/trace.json"
measure "python json.load" python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/trace.json"

echo "best of $runs (MB = 10^6 bytes; peak RSS is the largest of the runs):"
awk -v size="$size" '
	{ label[NR] = $1 " " $2; s[NR] = $3; kb[NR] = $4; if ($1 == "python") py = $3 }
	END {
		for (i = 1; i <= NR; i++) {
			printf "  %-16s %6.3f s  %6.1f MB/s  peak RSS %6.1f MB (%3.0f%% of the file)", label[i], s[i], size/1e6/s[i], kb[i]*1024/1e6, 100*kb[i]*1024/size
			if (label[i] != "python json.load") printf "  %5.1fx python", py/s[i]
			printf "\n"
		}
	}' "$tmp/results"
exit 0
