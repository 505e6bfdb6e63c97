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
      var series = [];
      M.devices.forEach(function (d, i) {
        series.push({ name: d.name + " allocated", color: PALETTE[(2 * i) % PALETTE.length], points: d.points.map(function (p) { return [p[0], p[1]]; }) });
        if (d.has_reserved) series.push({ name: d.name + " reserved", color: PALETTE[(2 * i + 1) % PALETTE.length], points: d.points.map(function (p) { return [p[0], p[2]]; }) });
      });
      sec.appendChild(legend(series.map(function (se) { return { label: se.name, color: se.color }; })));
      sec.appendChild(curve(series, { fmtX: function (v) { return fmtTime(v); }, fmtY: fmtMem }));
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

  VIEWS.push(["memory", "Memory", viewMemory, 40]);
