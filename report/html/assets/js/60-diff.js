  function viewDiff(sec) {
    var F = D.diff;
    if (!F) { sec.appendChild(why(D.why.diff)); return; }
    var tb = F.totals.before, ta = F.totals.after;
    var cards = el("div", { cls: "cards" });
    cards.appendChild(card("Self CPU before \u2192 after", fmtTime(tb.self_cpu_time_total) + " \u2192 " + fmtTime(ta.self_cpu_time_total), "diff-cpu"));
    if (tb.self_device_time_total || ta.self_device_time_total) cards.appendChild(card("Self device before \u2192 after", fmtTime(tb.self_device_time_total) + " \u2192 " + fmtTime(ta.self_device_time_total), "diff-device"));
    sec.appendChild(el("div", { cls: "sub", text: "before: " + F.before + "   after: " + F.after }));
    sec.appendChild(cards);
    var rows = F.doc.rows.map(function (r) {
      return { key: r.key, device_type: r.device_type, only: r.only || "", count_before: r.before.count, count_after: r.after.count,
        self_cpu_before: r.before.self_cpu_time_total, self_cpu_after: r.after.self_cpu_time_total,
        self_device_before: r.before.self_device_time_total, self_device_after: r.after.self_device_time_total,
        delta: (r.after.self_cpu_time_total - r.before.self_cpu_time_total) + (r.after.self_device_time_total - r.before.self_device_time_total) };
    });
    var top = rows.filter(function (r) { return r.delta > 0; }).slice(0, 10);
    sec.appendChild(h2("Largest regressions (self CPU + self device time)"));
    if (top.length) sec.appendChild(hbars(top.map(function (r) { return { label: r.key, value: r.delta, color: "#c2410c", text: fmtSigned(r.delta) }; }), { cls: "regress" }));
    else sec.appendChild(why("No op got slower."));
    sec.appendChild(h2("All ops, largest regression first (orprof diff)"));
    var box = el("div");
    sec.appendChild(box);
    var tone = function (v) { return v > 0 ? "up" : v < 0 ? "down" : ""; };
    dataTable(box, rows, [{ key: "key", label: "Name", cls: "name", num: false },
      { key: "delta", label: "\u0394 self CPU+device", fmt: fmtSigned, tone: tone },
      { key: "count_before", label: "Calls before" }, { key: "count_after", label: "Calls after" },
      { key: "self_cpu_before", label: "Self CPU before", fmt: fmtTime }, { key: "self_cpu_after", label: "Self CPU after", fmt: fmtTime },
      { key: "self_device_before", label: "Self device before", fmt: fmtTime }, { key: "self_device_after", label: "Self device after", fmt: fmtTime },
      { key: "only", label: "Note", num: false }], { id: "diff" });
  }

  VIEWS.push(["diff", "Diff", viewDiff, 60]);
