#!/usr/bin/env python3
"""scale-trace.py K IN OUT: write a Kineto trace K times the size of IN.

The trace-event array of IN is repeated K times; copy c has every "ts" moved c spans later
(a span = the trace's ts range plus 1 ms), so that copies follow each other in time instead of
nesting, as a longer profile of the same program would. For benchmarks of time and memory
against input size (scripts/bench-table.sh); it expects Kineto's layout of one member per line
with the array opening on a line of its own ("traceEvents": [) and closing on one ("],").
"""
import re
import sys

TS = re.compile(rb'("ts": )(-?\d+)(\.\d+)?')


def main():
    k, src, dst = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    with open(src, "rb") as f:
        lines = f.readlines()
    start = next(i for i, l in enumerate(lines) if l.strip() == b'"traceEvents": [')
    end = next(i for i in range(len(lines) - 1, start, -1) if lines[i].strip() in (b"],", b"]"))
    body = b"".join(lines[start + 1:end])
    stamps = [int(m.group(2)) for m in TS.finditer(body)]
    span = max(stamps) - min(stamps) + 1000 if stamps else 1000
    if not body.rstrip().endswith(b"}"):
        sys.exit("scale-trace: the event array does not end with an object")
    cut = body.rstrip()
    with open(dst, "wb") as out:
        out.writelines(lines[:start + 1])
        for c in range(k):
            if c == 0:
                out.write(cut)
            else:
                shift = c * span
                out.write(b",\n")
                out.write(TS.sub(lambda m: m.group(1) + str(int(m.group(2)) + shift).encode() + (m.group(3) or b""), cut))
        out.write(b"\n")
        out.writelines(lines[end:])


if __name__ == "__main__":
    main()
