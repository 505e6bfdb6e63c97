  function viewRanks(sec) {
    if (!T) { sec.appendChild(why(D.why.ranks)); return; }
    var R = S.ranks, seen = {}, dup = false;
    R.forEach(function (r) { dup = dup || seen[r.rank]; seen[r.rank] = true; });
    function rankLabel(r, i) { return "rank " + r.rank + (dup ? " · #" + i + " " + (r.file || "").split("/").pop() : ""); }
    if (D.why.ranks) sec.appendChild(why(D.why.ranks));
    sec.appendChild(h2("Per-rank self CPU time (" + R.length + " rank" + (R.length === 1 ? "" : "s") + ")"));
    var items = R.map(function (r, i) {
      return { label: rankLabel(r, i), value: r.self_cpu_time_total, text: fmtTime(r.self_cpu_time_total) };
    });
    sec.appendChild(hbars(items, { cls: "rank-cpu" }));
    if (DEV) {
      sec.appendChild(h2("Per-rank self " + DEV + " time"));
      sec.appendChild(hbars(R.map(function (r, i) { return { label: rankLabel(r, i), value: r.self_device_time_total, color: PALETTE[1], text: fmtTime(r.self_device_time_total) }; }), { cls: "rank-device" }));
    }
    var tl = D.timeline;
    if (tl && tl.breakdown && tl.breakdown.length > 1) {
      sec.appendChild(h2("Per-rank device timeline (orprof timeline)"));
      drawTimeline(sec, tl);
    }
    if (tl && tl.stragglers && tl.stragglers.length > 1) {
      sec.appendChild(h2("Stragglers: how often each rank arrived last at a collective"));
      sec.appendChild(hbars(tl.stragglers.map(function (r) { return { label: "rank " + r.rank, value: r.arrived_last, color: PALETTE[3],
        text: r.arrived_last + " of " + r.instances + ", others waited " + fmtTime(r.wait_caused_ns / 1000) }; }), { cls: "stragglers", fmt: function (v) { return String(Math.round(v)); } }));
    }
    sec.appendChild(h2("Slowest rank per operator"));
    var box = el("div");
    sec.appendChild(box);
    var rows = T.rows.map(function (r) {
      var dev = r.device_time_total > 0;
      return { key: r.key, ranks: r.ranks, slowest: R[dev ? r.max_device_time_total_at : r.max_cpu_time_total_at].rank,
        slowest_us: dev ? r.max_device_time_total : r.max_cpu_time_total, by: dev ? DEV.toLowerCase() || "device" : "cpu",
        mean_us: (dev ? r.device_time_total : r.cpu_time_total) / Math.max(r.ranks, 1) };
    });
    dataTable(box, rows, [{ key: "key", label: "Name", cls: "name", num: false }, { key: "ranks", label: "Ranks" },
      { key: "slowest", label: "Slowest rank" }, { key: "slowest_us", label: "Its total", fmt: fmtTime },
      { key: "mean_us", label: "Mean per rank", fmt: fmtTime }, { key: "by", label: "By", num: false }], { id: "ranks" });
  }

  VIEWS.push(["ranks", "Ranks", viewRanks, 50]);
