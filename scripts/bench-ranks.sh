#!/usr/bin/env bash
# bench-ranks.sh — `orprof table` over 16 rank files of ~50 MB each against `orprof table` over
# one file holding the same events (~800 MB), side by side in one run: the median of N wall
# times of each, their peak RSS, and the ratio (target: 16 files ≤ 1.2× one file). Then
# `orprof merge` of the 16 per-rank summaries, and `orprof diff` and a two-rank `orprof table`
# of mtia_rank0 against a copy, each beside a plain read of the same trace. For humans
# (docs/performance.md numbers), not CI: the exit status does not depend on the figures.
#
#   scripts/bench-ranks.sh [N]     N timed runs of each (default 5), after one warm-up run each
#
# The rank files are cut from testdata/kineto/mtia_rank0.json.gz (456k events, 87 MB): the first
# events up to ~50 MB, each rank's pids and tids moved apart so that the one-file trace holds 16
# separate hosts' threads. Needs go, python3 and GNU time (/usr/bin/time); writes ~1.7 GB to
# $TMPDIR.
set -euo pipefail

runs=${1:-5}
root=$(cd "$(dirname "$0")/.." && pwd)
gz=$root/testdata/kineto/mtia_rank0.json.gz
for need in go python3 /usr/bin/time; do
	if ! command -v "$need" >/dev/null; then
		echo "bench-ranks: $need not found; nothing measured" >&2
		exit 0
	fi
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/orprof" ./cmd/orprof)

python3 - "$gz" "$tmp" <<'PY'
import gzip, json, sys
src, out = sys.argv[1], sys.argv[2]
doc = json.load(gzip.open(src))
evs = doc.pop("traceEvents")
# Keep the first events up to ~50 MB of JSON.
size, keep = 0, []
for e in evs:
    s = len(json.dumps(e)) + 2
    if size + s > 50_000_000:
        break
    size += s
    keep.append(e)
head = {k: v for k, v in doc.items()}
def moved(r):
    off = r * 10_000_000
    for e in keep:
        e = dict(e)
        for k in ("pid", "tid"):
            if isinstance(e.get(k), int):
                e[k] += off
        yield e
parts = []
for r in range(16):
    h = dict(head)
    h["distributedInfo"] = {"rank": r}
    body = ",\n".join(json.dumps(e) for e in moved(r))
    parts.append(body)
    with open(f"{out}/rank{r:02d}.json", "w") as f:
        f.write(json.dumps(h)[:-1] + ', "traceEvents": [\n' + body + "\n]}\n")
with open(f"{out}/all.json", "w") as f:
    f.write(json.dumps(head)[:-1] + ', "traceEvents": [\n' + ",\n".join(parts) + "\n]}\n")
PY
zcat "$gz" >"$tmp/mtia.json"
cp "$tmp/mtia.json" "$tmp/mtia_copy.json"
sync
echo "16 rank files: $(du -cb "$tmp"/rank*.json | tail -1 | cut -f1) bytes; one file: $(stat -c %s "$tmp/all.json") bytes; $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"

# measure LABEL CMD...: one warm-up run, then $runs timed runs; appends "LABEL median_s max_kb".
measure() {
	local label=$1 t0 t1 kb times=() max_kb=0
	shift
	"$@" >/dev/null
	for ((i = 1; i <= runs; i++)); do
		t0=$EPOCHREALTIME
		/usr/bin/time -f "%M" -o "$tmp/rss" "$@" >/dev/null
		t1=$EPOCHREALTIME
		kb=$(tail -n 1 "$tmp/rss")
		times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b-a}')")
		if ((kb > max_kb)); then max_kb=$kb; fi
	done
	local med
	med=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}')
	printf '  %-34s median %6.3f s of %s   peak RSS %7.1f MB\n' "$label" "$med" "${times[*]}" "$(awk -v k="$max_kb" 'BEGIN{printf "%.1f", k*1024/1e6}')"
	echo "$label $med" | tr ' ' '_' | sed 's/_\([0-9.]*\)$/ \1/' >>"$tmp/results"
}

O=$tmp/orprof
measure "table 1 file (800 MB)" "$O" table --row-limit 5 "$tmp/all.json"
measure "table 16 files (16 x 50 MB)" "$O" table --row-limit 5 "$tmp"/rank*.json
# The summaries go where the rank*.json globs below do not reach (orprof timeline would read
# them as inputs, and refuse a table summary).
mkdir -p "$tmp/sums"
for r in "$tmp"/rank*.json; do "$O" table --format json "$r" >"$tmp/sums/$(basename "$r")"; done
measure "merge 16 summaries" "$O" merge --row-limit 5 "$tmp"/sums/rank*.json
measure "table mtia_rank0 (read once)" "$O" table --row-limit 5 "$tmp/mtia.json"
measure "table mtia_rank0 + copy (2 ranks)" "$O" table --row-limit 5 "$tmp/mtia.json" "$tmp/mtia_copy.json"
measure "diff mtia_rank0 copy" "$O" diff --row-limit 5 "$tmp/mtia.json" "$tmp/mtia_copy.json"
measure "timeline 1 file (800 MB)" "$O" timeline --view breakdown "$tmp/all.json"
measure "timeline 16 files (16 x 50 MB)" "$O" timeline --view breakdown "$tmp"/rank*.json
awk '{ t[$1] = $2 } END {
	printf "ratio 16 files / 1 file: %.2f (target <= 1.2)\n", t["table_16_files_(16_x_50_MB)"] / t["table_1_file_(800_MB)"]
	printf "diff of two mtia_rank0 / one read: %.2f; two-rank table / one read: %.2f\n", t["diff_mtia_rank0_copy"] / t["table_mtia_rank0_(read_once)"], t["table_mtia_rank0_+_copy_(2_ranks)"] / t["table_mtia_rank0_(read_once)"]
	printf "timeline 16 files / 1 file: %.2f (target: 16 ranks as fast per byte as one)\n", t["timeline_16_files_(16_x_50_MB)"] / t["timeline_1_file_(800_MB)"]
}' "$tmp/results"
exit 0
