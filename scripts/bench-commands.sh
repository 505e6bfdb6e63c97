#!/usr/bin/env bash
# bench-commands.sh [N] [TRACE]: orprof table, report, code, convert and export on one trace,
# run in turn N times (interleaved, so a change in the machine's load reaches them alike), and
# each one's median wall time, CPU time (user + sys) and peak RSS beside the table's, from
# GNU time. Default: 7 runs of testdata's mtia_rank0 decompressed. The figures of
# docs/performance.md's "second stop" section.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-7}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trace=${2:-}
if [ -z "$trace" ]; then
  trace=$tmp/mtia_rank0.json
  gunzip -c testdata/kineto/mtia_rank0.json.gz >"$trace"
fi
go build -o "$tmp/orprof" ./cmd/orprof
cp "$tmp/orprof" "$tmp/orprof.run" # a copied binary: a fresh link maps more of its pages
for _ in $(seq "$n"); do
  for c in table report code convert export; do
    rm -rf "$tmp/out" "$tmp/out.html" "$tmp/out.pftrace"
    case $c in
      table | code) args=("$c" "$trace") ;;
      report) args=(report -o "$tmp/out.html" "$trace") ;;
      convert) args=(convert -o "$tmp/out.pftrace" "$trace") ;;
      export) args=(export -o "$tmp/out" "$trace") ;;
    esac
    /usr/bin/time -f "$c %e %U %S %M" -a -o "$tmp/times" "$tmp/orprof.run" "${args[@]}" >/dev/null 2>&1
  done
done
python3 - "$tmp/times" <<'PY'
import statistics as st, sys
d = {}
for line in open(sys.argv[1]):
    c, w, u, s, m = line.split()
    d.setdefault(c, []).append((float(w), float(u) + float(s), int(m)))
med = lambda v, i: st.median(x[i] for x in v)
tw, tc = med(d["table"], 0), med(d["table"], 1)
for c, v in d.items():
    w, cpu, rss = med(v, 0), med(v, 1), med(v, 2)
    print(f"{c:8s} wall {w:.3f} s ({w / tw:.2f}x)  cpu {cpu:.3f} s ({cpu / tc:.2f}x)  peak RSS {rss / 1024:.0f} MB  ({len(v)} runs)")
PY
