  function viewMemory(sec) {
    var M = D.memory;
    sec.appendChild(h2("Memory over time"));
    if (M && M.devices && M.devices.length) {
      var cards = el("div", { cls: "cards" });
      M.devices.forEach(function (d) {
        cards.appendChild(card("Peak " + (d.relative ? "allocated during the profile " : "allocated ") + d.name, fmtMem(d.peak_allocated), "peak-" + d.name));
        if (d.has_reserved) cards.appendChild(card("Peak reserved " + d.name, fmtMem(d.peak_reserved), "peak-reserved-" + d.name));
      });
      sec.appendChild(cards);
      var series = [], marks = [];
      M.devices.forEach(function (d, i) {
        series.push({ name: d.name + " allocated", color: PALETTE[(2 * i) % PALETTE.length], points: d.points.map(function (p) { return [p[0], p[1]]; }),
          attrs: { "data-memory": d.name, "data-series": "allocated" } });
        if (d.has_reserved) series.push({ name: d.name + " reserved", color: PALETTE[(2 * i + 1) % PALETTE.length], points: d.points.map(function (p) { return [p[0], p[2]]; }),
          attrs: { "data-memory": d.name, "data-series": "reserved" } });
        marks.push({ x: (d.peak_at_ns - M.start_ns) / 1000, label: d.name + " peak: " + fmtMem(d.peak_allocated) });
      });
      sec.appendChild(legend(series.map(function (se) { return { label: se.name, color: se.color }; })));
      sec.appendChild(zoomPlot(series, { id: "memory", height: 280, marks: marks, fmtX: function (v) { return fmtTime(v); }, fmtY: fmtMem }));
      sec.appendChild(el("div", { cls: "sub", text: "Time from the first memory record; the dashed line is each device's first peak." }));
      M.devices.forEach(function (d, i) { peakBlocks(sec, d, i); });
      if (M.devices.some(function (d) { return d.relative; })) {
        sec.appendChild(el("div", { cls: "sub", text: "The trace has no allocator totals: the curve is the running sum of its [memory] records' bytes from 0 at the first record (what the profile allocated), not the allocator's total." }));
      }
    } else {
      sec.appendChild(why(D.why.memory_curve));
    }
    sec.appendChild(h2("Memory by operator (the table's memory columns)"));
    if (!T || !S.profile_memory) { sec.appendChild(why(D.why.memory)); return; }
    var rows = T.rows.filter(function (r) { return r.cpu_memory_usage || r.self_cpu_memory_usage || r.device_memory_usage || r.self_device_memory_usage; });
    var cols = [{ key: "key", label: "Name", cls: "name", num: false },
      { key: "cpu_memory_usage", label: "CPU Mem", fmt: fmtMem }, { key: "self_cpu_memory_usage", label: "Self CPU Mem", fmt: fmtMem }];
    if (DEV) cols.push({ key: "device_memory_usage", label: DEV + " Mem", fmt: fmtMem }, { key: "self_device_memory_usage", label: "Self " + DEV + " Mem", fmt: fmtMem });
    cols.push({ key: "count", label: "# of Calls", fmt: fmtInt });
    if (S.group_by_input_shape) cols.push({ key: "input_shapes", label: "Input Shapes", cls: "name", num: false });
    var box = el("div");
    sec.appendChild(box);
    dataTable(box, rows, cols, { id: "memory" });
  }

  // peakBlocks lists the blocks live at a device's peak (memcurve: the largest of them, each
  // with its size, time and the operator that allocated it).
  function peakBlocks(sec, d, i) {
    sec.appendChild(h2("What was live at the peak: " + d.name + " (" + fmtMem(d.peak_allocated) + " at " + fmtTime((d.peak_at_ns - D.memory.start_ns) / 1000) + ")"));
    if (!d.has_addr) {
      sec.appendChild(why("The trace's memory records carry no block addresses (\"Addr\"): an allocation cannot be paired with its free, so the blocks live at the peak are unknown."));
      return;
    }
    var blocks = d.peak_allocs || [];
    var listed = blocks.reduce(function (a, b) { return a + b.bytes; }, 0);
    sec.appendChild(el("div", { cls: "sub", "data-peak-live": String(d.peak_live), text: d.peak_live + (d.peak_live === 1 ? " block" : " blocks") + " allocated during the profile " + (d.peak_live === 1 ? "was" : "were") + " live at the peak, " + fmtMem(d.peak_live_bytes) +
      " in all" + (d.relative ? "" : " (the allocator's total counts " + fmtMem(Math.max(d.peak_allocated - d.peak_live_bytes, 0)) + " more, allocated before the profile started)") +
      (blocks.length < d.peak_live ? "; the largest " + blocks.length + " are listed (" + fmtMem(listed) + "), " + (d.peak_live - blocks.length) + " smaller ones left out." : ".") }));
    if (!blocks.length) return;
    var box = el("div");
    sec.appendChild(box);
    dataTable(box, blocks.map(function (b, k) { return { key: b.op || "<unknown>", bytes: b.bytes, at_us: b.at_us, rank: k + 1 }; }),
      [{ key: "rank", label: "#" }, { key: "bytes", label: "Size", fmt: fmtMem }, { key: "at_us", label: "Allocated at", fmt: fmtTime },
        { key: "key", label: "Allocated by", cls: "name", num: false }], { id: "peak-" + i });
  }

  VIEWS.push(["memory", "Memory", viewMemory, 40]);
