#!/usr/bin/env bash
# bench-commands.sh [N] [TRACE]: orprof table, report, code, convert and export on one trace,
# run in turn N times (interleaved, so a change in the machine's load reaches them alike), and
# each one's median wall time, CPU time (user + sys) and peak RSS beside the table's, from
# GNU time. Default: 7 runs of testdata's mtia_rank0 decompressed. The figures of
# docs/performance.md's "second stop" section. orprof code needs python stacks, which
# mtia_rank0 has not: it runs on bert_x60 (the TraceLens BERT trace, recorded with_stack=True,
# 60 times over, built here), beside orprof table on the same trace ("table-py"), and its
# ratio is to that table's (docs/performance.md, "orprof code beside orprof table").
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
pytrace=$tmp/bert_x60.json
gunzip -c testdata/kineto-extra/tracelens_mi300_bert_small.json.gz | python3 -c '
import json, sys
# The trace 60 times over: copy c of the events c spans later (a span: the ts range + 1 ms).
t = json.load(sys.stdin)
evs = t["traceEvents"]
ts = [e["ts"] for e in evs if isinstance(e.get("ts"), (int, float))]
span = max(ts) - min(ts) + 1000
t["traceEvents"] = [e if c == 0 or not isinstance(e.get("ts"), (int, float)) else dict(e, ts=round(e["ts"] + c * span, 3))
                    for c in range(60) for e in evs]
json.dump(t, open(sys.argv[1], "w"))
' "$pytrace"
go build -o "$tmp/orprof" ./cmd/orprof
cp "$tmp/orprof" "$tmp/orprof.run" # a copied binary: a fresh link maps more of its pages
for _ in $(seq "$n"); do
  for c in table report convert export table-py code; do
    rm -rf "$tmp/out" "$tmp/out.html" "$tmp/out.pftrace"
    case $c in
      table) args=(table "$trace") ;;
      table-py) args=(table "$pytrace") ;;
      code) args=(code "$pytrace") ;;
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
for c, v in d.items():
    t = d["table-py" if c == "code" else "table"]  # code: beside the table of its own trace
    tw, tc = med(t, 0), med(t, 1)
    w, cpu, rss = med(v, 0), med(v, 1), med(v, 2)
    print(f"{c:8s} wall {w:.3f} s ({w / tw:.2f}x)  cpu {cpu:.3f} s ({cpu / tc:.2f}x)  peak RSS {rss / 1024:.0f} MB  ({len(v)} runs)")
PY
