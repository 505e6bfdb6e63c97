"""Record the code view's test traces with PyTorch itself (see README.md).

Run with Debian's python3-torch (1.13, CPU, no Kineto):

    /usr/bin/python3 analysis/code/testdata/gen/gen_traces.py analysis/code/testdata

Each model is profiled with torch.autograd.profiler.profile(with_stack=True,
record_shapes=True). That build's export_chrome_trace writes the legacy array, without
python stacks; but each of the profiler's events carries its Python stack (the module calls
among its frames, as "nn.Module: Linear_0"), its sequence number and its forward thread. This
script writes those events in Kineto's layout: cpu_op events with "Sequence number" and
"Fwd thread id", python_function events for the calls on the stacks, fwdbwd flows.
"""

import gzip
import json
import os
import re
import sys
import threading

import torch
from torch import nn
from torch.autograd import profiler


class Heavy(nn.Module):
    """Ten times the work of one Linear: ten Linear layers of the same shape."""

    def __init__(self, width):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(width, width) for _ in range(10)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


class Net(nn.Module):
    def __init__(self, width=64, classes=10):
        super().__init__()
        self.light = nn.Linear(width, width)
        self.act = nn.ReLU()
        self.heavy = Heavy(width)
        self.head = nn.Linear(width, classes)

    def forward(self, x):
        return self.head(self.heavy(self.act(self.light(x))))


def conv_net():
    return nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1),
        nn.BatchNorm2d(8),
        nn.ReLU(),
        nn.Sequential(nn.Conv2d(8, 8, 3, padding=1), nn.ReLU()),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(8, 4),
    )


def train(model, x, y, steps):
    loss_fn = nn.CrossEntropyLoss()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for _ in range(steps):
        with profiler.record_function("train_step"):
            out = model(x)
            loss = loss_fn(out, y)
            opt.zero_grad()
            loss.backward()
            opt.step()


BASE_US = 1_700_000_000_000_000  # a Kineto-like absolute time origin, in µs


def num(us):
    """A time as Kineto writes it: µs with three decimals, a JSON number (marked here, and
    unquoted when the document is written)."""
    return "\x00%.3f\x00" % us


def kineto_events(events, native_tid):
    """The profiler's events as a Kineto trace's cpu_op, user_annotation, python_function
    and fwdbwd events."""
    tid_of = lambda t: native_tid if t == 1 else native_tid + t  # PyTorch's thread number → a tid
    pid = os.getpid()
    out = []

    def ts(us):
        return num(BASE_US + us)

    evs = sorted(events, key=lambda e: (e.time_range.start, -e.time_range.end))
    for i, e in enumerate(evs):
        args = {"External id": i + 1, "Input Dims": e.input_shapes}
        if e.sequence_nr >= 0:
            args["Sequence number"] = e.sequence_nr
            args["Fwd thread id"] = e.fwd_thread
        cat = "user_annotation" if e.name == "train_step" else "cpu_op"
        out.append({"ph": "X", "cat": cat, "name": e.name, "pid": pid, "tid": tid_of(e.thread),
                    "ts": ts(e.time_range.start), "dur": num(e.time_range.end - e.time_range.start),
                    "args": args})

    # The Python calls: each frame of the top-level ops' stacks (outermost first) is a call
    # that lasts as long as the run of consecutive top-level ops whose stacks share it and
    # every frame above it. A top-level op's stack is the real one (an autograd node nested
    # in the engine's op carries its forward op's stack instead).
    py = []
    next_id = [1]
    by_thread = {}
    for e in evs:
        # (An autograd node's op carries its forward op's stack: not the Python of its time.)
        top = e.cpu_parent is None or e.cpu_parent.name == "train_step"
        if e.name != "train_step" and top and e.fwd_thread == 0:
            by_thread.setdefault(e.thread, []).append(e)
    for thread, tops in by_thread.items():
        openc = []  # [frame, start, end, id, parent id]

        def close(depth):
            while len(openc) > depth:
                f, s, en, pid_, par = openc.pop()
                py.append((f, s, en, pid_, par, thread, len(openc)))

        for e in tops:
            chain = list(reversed(e.stack))
            p = 0
            while p < len(openc) and p < len(chain) and openc[p][0] == chain[p]:
                p += 1
            close(p)
            for f in chain[p:]:
                parent = openc[-1][3] if openc else None
                openc.append([f, e.time_range.start, e.time_range.end, next_id[0], parent])
                next_id[0] += 1
            for o in openc:
                o[2] = max(o[2], e.time_range.end)
        close(0)
    py.sort(key=lambda c: (c[1], -c[2], c[6]))  # outer calls first, at equal times too
    for f, s, en, pid_, par, thread, _ in py:
        args = {"Python parent id": par, "Python id": pid_}
        if f.startswith("nn.Module: "):
            args["Python module id"] = 0
        out.append({"ph": "X", "cat": "python_function", "name": f, "pid": pid, "tid": tid_of(thread),
                    "ts": ts(s), "dur": num(en - s), "args": args})

    # fwdbwd flows: from the last forward op of a sequence number on its thread to the
    # innermost op of the backward node that has that number and names that thread.
    fwd = {}
    for e in evs:
        if e.sequence_nr >= 0 and e.fwd_thread == 0:
            fwd[(e.thread, e.sequence_nr)] = e
    flow = 1
    for e in evs:
        if e.sequence_nr < 0 or e.fwd_thread <= 0:
            continue
        if any(c.sequence_nr == e.sequence_nr and c.fwd_thread == e.fwd_thread for c in e.cpu_children):
            continue  # not the innermost op of its node
        f = fwd.get((e.fwd_thread, e.sequence_nr))
        if f is None:
            continue
        out.append({"ph": "s", "id": flow, "pid": pid, "tid": tid_of(f.thread), "ts": ts(f.time_range.start),
                    "cat": "fwdbwd", "name": "fwdbwd"})
        out.append({"ph": "f", "id": flow, "pid": pid, "tid": tid_of(e.thread), "ts": ts(e.time_range.start),
                    "cat": "fwdbwd", "name": "fwdbwd", "bp": "e"})
        flow += 1
    return out


def record(name, model, x, y, steps, outdir):
    torch.manual_seed(0)
    train(model, x, y, 1)  # warm up outside the profile
    with profiler.profile(with_stack=True, record_shapes=True) as prof:
        train(model, x, y, steps)
    evs = kineto_events(prof.function_events, threading.get_native_id())
    doc = {"schemaVersion": 1, "deviceProperties": [],
           "generator": "analysis/code/testdata/gen/gen_traces.py, torch " + torch.__version__,
           "traceEvents": evs}
    text = re.sub(r'"\\u0000([-0-9.]+)\\u0000"', r"\1", json.dumps(doc, indent=1))
    path = os.path.join(outdir, name + ".json")
    if len(text) > 200_000:
        path += ".gz"
        with gzip.GzipFile(path, "wb", mtime=0) as f:
            f.write(text.encode())
    else:
        with open(path, "w") as f:
            f.write(text)
    print(path, len(evs), "events")


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else "."
    torch.manual_seed(0)
    torch.set_num_threads(1)
    record("mlp_train", Net(), torch.randn(32, 64), torch.randint(0, 10, (32,)), 3, outdir)
    torch.manual_seed(0)
    record("conv_train", conv_net(), torch.randn(4, 3, 16, 16), torch.randint(0, 4, (4,)), 2, outdir)


if __name__ == "__main__":
    main()
