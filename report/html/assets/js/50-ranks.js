  // cutNote says how many rows a cut list left out ("" when none).
  function ranksCut(shown, total, what) {
    return total > shown ? el("div", { cls: "why", text: (total - shown) + " more " + what + " not shown (" + shown + " of " + total + ").", "data-cut": String(total - shown) }) : null;
  }
  function ranksBytes(n) { return n > 0 ? fmtMem(n) : "-"; }
  function ranksGBs(v) { return v > 0 ? v.toFixed(2) + " GB/s" : "-"; }

  // stepHeatMap draws one row per rank (the slowest median step at the top) and one column per
  // step number on a canvas, coloured by the step's duration, with its legend, the outlier
  // ranks named beside it and a tooltip on hover.
  function stepHeatMap(sec, tl) {
    // Each row's steps: the entry of tl.steps with the row's rank and median (two traces may
    // claim one rank number), else any left with its rank.
    var sr = tl.step_ranks, stepNums = {}, entries = (tl.steps || []).map(function (rs) {
      var m = {}, d = [];
      // times.total_ns: the window's length, exact (end_ns − start_ns would pass 2^53 ns).
      (rs.steps || []).forEach(function (st) { m[st.step] = st.times.total_ns; d.push(st.times.total_ns); stepNums[st.step] = true; });
      d.sort(function (a, b) { return a - b; });
      return { rank: rs.rank, steps: m, median: d.length ? d[(d.length - 1) >> 1] : -1, used: false };
    });
    function take(r, exact) {
      for (var i = 0; i < entries.length; i++) {
        var e = entries[i];
        if (!e.used && e.rank === r.rank && (!exact || e.median === r.median_ns)) { e.used = true; return e.steps; }
      }
      return null;
    }
    var rows = sr.ranks.slice().reverse(), cols = Object.keys(stepNums).map(Number).sort(function (a, b) { return a - b; });
    var cells = rows.map(function (r) { return take(r, true); });
    cells = cells.map(function (c, i) { return c || take(rows[i], false) || {}; });
    if (!rows.length || !cols.length) return;
    var lo = Infinity, hi = -Infinity;
    cells.forEach(function (m) { cols.forEach(function (c) { var v = m[c]; if (v !== undefined) { lo = Math.min(lo, v); hi = Math.max(hi, v); } }); });
    // A sequential scale: pale yellow (the fastest step) to dark red (the slowest).
    var A = [255, 247, 188], B = [189, 0, 38];
    function colour(v) {
      var t = hi > lo ? (v - lo) / (hi - lo) : 0;
      return "rgb(" + A.map(function (a, i) { return Math.round(a + (B[i] - a) * t); }).join(",") + ")";
    }
    var rowH = Math.max(1, Math.min(16, Math.floor(800 / rows.length))), labelW = rowH >= 9 ? 80 : 0;
    var plotW = Math.max(cols.length, Math.min(760, cols.length * 60)), colW = plotW / cols.length, gutter = 10;
    var cv = el("canvas", { width: labelW + plotW + gutter, height: rows.length * rowH, "data-heatmap": "1", "data-rows": String(rows.length),
      "data-cols": String(cols.length), "data-ranks": rows.map(function (r) { return r.rank; }).join(",") });
    var g = cv.getContext("2d");
    g.font = Math.min(rowH - 1, 12) + "px sans-serif";
    g.textBaseline = "middle";
    rows.forEach(function (r, i) {
      if (labelW) { g.fillStyle = "#333"; g.fillText("rank " + r.rank, 2, i * rowH + rowH / 2); }
      cols.forEach(function (c, j) {
        var v = cells[i][c];
        g.fillStyle = v === undefined ? "#eef0f3" : colour(v);
        g.fillRect(labelW + j * colW, i * rowH, Math.max(colW - (colW > 4 ? 1 : 0), 1), rowH);
      });
    });
    // A tick in the right gutter marks each outlier's row, at least 3 px tall however thin the rows.
    var isOut = {};
    (sr.outliers || []).forEach(function (o) { isOut[o.rank] = true; });
    g.fillStyle = "#111";
    rows.forEach(function (r, i) { if (isOut[r.rank]) g.fillRect(labelW + plotW + 2, Math.max(0, i * rowH + rowH / 2 - 1.5), gutter - 3, Math.max(rowH, 3)); });
    var tip = el("div", { "data-heat-tip": "1" });
    tip.style.cssText = "position:fixed;display:none;pointer-events:none;background:#222;color:#fff;padding:3px 6px;border-radius:3px;font:12px sans-serif;z-index:9";
    cv.onmousemove = function (e) {
      var b = cv.getBoundingClientRect(), x = (e.clientX - b.left) * cv.width / b.width - labelW, y = (e.clientY - b.top) * cv.height / b.height;
      var i = Math.floor(y / rowH), j = Math.floor(x / colW);
      if (x < 0 || x >= plotW || i < 0 || i >= rows.length || j < 0 || j >= cols.length) { tip.style.display = "none"; return; }
      var v = cells[i][cols[j]];
      tip.textContent = "rank " + rows[i].rank + " · step " + cols[j] + " · " + (v === undefined ? "no such step" : fmtTime(v / 1000)) +
        " (median " + fmtTime(rows[i].median_ns / 1000) + ")";
      tip.setAttribute("data-row", i); tip.setAttribute("data-rank", rows[i].rank); tip.setAttribute("data-step", cols[j]); tip.setAttribute("data-ns", v === undefined ? "" : v);
      tip.style.left = (e.clientX + 12) + "px"; tip.style.top = (e.clientY + 12) + "px"; tip.style.display = "block";
    };
    cv.onmouseleave = function () { tip.style.display = "none"; };
    // The legend: the colour scale from the fastest to the slowest step.
    var lg = el("canvas", { width: 200, height: 12, "data-heat-legend": "1" }), lc = lg.getContext("2d");
    for (var x = 0; x < 200; x++) { lc.fillStyle = colour(lo + (hi - lo) * x / 199); lc.fillRect(x, 0, 1, 12); }
    var legendBox = el("div", { cls: "legend" }, [el("span", { text: fmtTime(lo / 1000) + " " }), lg, el("span", { text: " " + fmtTime(hi / 1000) + " step time; grey: no such step; a black tick: an outlier rank" })]);
    var out = el("div", { "data-outliers": (sr.outliers || []).map(function (o) { return o.rank; }).join(",") });
    out.appendChild(el("div", { cls: "k", text: "Outlier ranks (median step more than " + sr.k + " × MAD " + fmtTime(sr.mad_ns / 1000) +
      " and 5% from the ranks' median " + fmtTime(sr.median_ns / 1000) + ")" }));
    var OUTMAX = 30, outs = sr.outliers || [];
    if (!outs.length) out.appendChild(el("div", { text: sr.ranks.length < 3 ? "(needs three ranks or more)" : "none" }));
    outs.slice(0, OUTMAX).forEach(function (o) {
      out.appendChild(el("div", { "data-outlier": String(o.rank), text: "rank " + o.rank + ": " + fmtTime(o.median_ns / 1000) + " (" +
        (o.median_ns >= sr.median_ns ? "+" : "") + fmtPct(o.median_ns - sr.median_ns, sr.median_ns) + ")" }));
    });
    var n = ranksCut(Math.min(outs.length, OUTMAX), outs.length, "outlier ranks");
    if (n) out.appendChild(n);
    out.style.cssText = "min-width:240px;margin-left:16px";
    sec.appendChild(legendBox);
    var wrap = el("div", {}, [el("div", { style: "overflow:auto;max-height:820px" }, [cv]), out]);
    wrap.style.cssText = "display:flex;align-items:flex-start";
    sec.appendChild(wrap);
    sec.appendChild(el("div", { cls: "why", text: rows.length + " ranks × " + cols.length + " steps; rows sorted by median step time, the slowest at the top" +
      (labelW ? "" : "; hover a row for its rank") + "." }));
    document.body.appendChild(tip);
  }

  // collectivesTable is the per-call, per-group table (orprof timeline's stragglers view) and
  // its waiting vs transferring bars.
  function collectivesTable(sec, tl) {
    var cs = tl.by_collective || [];
    if (!cs.length) return;
    sec.appendChild(h2("Collectives per call and process group"));
    if (tl.by_collective_omitted > 0) sec.appendChild(ranksCut(cs.length, cs.length + tl.by_collective_omitted, "collectives (the summary keeps those with the most kernel time)"));
    var rows = cs.map(function (c) {
      return { key: c.op + (c.group ? " · group " + c.group : ""), op: c.op, group: c.group || "-", ranks: c.ranks, calls: c.calls, instances: c.instances,
        time: c.duration_ns / 1000, bytes_per_call: c.bytes_per_call, algbw: c.algbw_gb_s, busbw: c.has_busbw ? c.busbw_gb_s : 0,
        bw_from: c.bw_from || "-", wait: c.wait_ns / 1000, transfer: c.transfer_ns / 1000,
        last: c.last_rank >= 0 ? "rank " + c.last_rank + " (" + c.last_rank_times + " of " + c.instances + ")" : "-" };
    });
    var box = el("div");
    sec.appendChild(box);
    dataTable(box, rows, [{ key: "op", label: "Call", cls: "name", num: false }, { key: "group", label: "Group", num: false },
      { key: "ranks", label: "Ranks" }, { key: "calls", label: "Calls" }, { key: "instances", label: "Matched" },
      { key: "time", label: "Kernel time", fmt: fmtTime }, { key: "bytes_per_call", label: "Bytes/call", fmt: ranksBytes },
      { key: "algbw", label: "Algbw", fmt: ranksGBs, tip: "bytes / transfer time (nccl-tests' algbw)" },
      { key: "busbw", label: "Busbw", fmt: ranksGBs, tip: "algbw × 2(n−1)/n (all-reduce), (n−1)/n (all-gather, reduce-scatter, all-to-all), 1 (broadcast, reduce, send, recv)" },
      { key: "bw_from", label: "Bw from", num: false }, { key: "wait", label: "Waiting", fmt: fmtTime }, { key: "transfer", label: "Transferring", fmt: fmtTime },
      { key: "last", label: "Last to arrive", num: false }], { id: "collectives" });
    var BARS = 20, withTime = cs.filter(function (c) { return c.wait_ns + c.transfer_ns > 0; });
    if (!withTime.length) return;
    sec.appendChild(h2("Waiting for the last rank vs transferring, per collective"));
    sec.appendChild(legend([{ label: "waiting (own arrival → last rank's arrival)", color: PALETTE[1] }, { label: "transferring (last arrival → end)", color: PALETTE[0] }]));
    sec.appendChild(hbars(withTime.slice(0, BARS).map(function (c) {
      var total = c.wait_ns + c.transfer_ns;
      return { label: c.op + (c.group ? " · group " + c.group : ""), value: total, text: fmtPct(c.wait_ns, total) + " waiting of " + fmtTime(total / 1000),
        parts: [{ name: "waiting", value: c.wait_ns, color: PALETTE[1] }, { name: "transferring", value: c.transfer_ns, color: PALETTE[0] }] };
    }), { cls: "coll-wait", fmt: function (ns) { return fmtTime(ns / 1000); } }));
    var n = ranksCut(Math.min(withTime.length, BARS), withTime.length, "collectives");
    if (n) sec.appendChild(n);
  }

  function viewRanks(sec) {
    if (!T) { sec.appendChild(why(D.why.ranks)); return; }
    var t0 = performance.now();
    var R = S.ranks, seen = {}, dup = false, BARS = 40;
    R.forEach(function (r) { dup = dup || seen[r.rank]; seen[r.rank] = true; });
    function rankLabel(r, i) { return "rank " + r.rank + (dup ? " · #" + i + " " + (r.file || "").split("/").pop() : ""); }
    // topBars: the BARS largest items (all of them in rank order when they fit), and a note of
    // the rest.
    function topBars(items, o) {
      var shown = items;
      if (items.length > BARS) shown = items.slice().sort(function (a, b) { return b.value - a.value; }).slice(0, BARS);
      sec.appendChild(hbars(shown, o));
      var n = ranksCut(shown.length, items.length, "ranks (the " + BARS + " largest are shown)");
      if (n) sec.appendChild(n);
    }
    if (D.why.ranks) sec.appendChild(why(D.why.ranks));
    sec.appendChild(h2("Per-rank self CPU time (" + R.length + " rank" + (R.length === 1 ? "" : "s") + ")"));
    topBars(R.map(function (r, i) {
      return { label: rankLabel(r, i), value: r.self_cpu_time_total, text: fmtTime(r.self_cpu_time_total) };
    }), { cls: "rank-cpu" });
    if (DEV) {
      sec.appendChild(h2("Per-rank self " + DEV + " time"));
      topBars(R.map(function (r, i) { return { label: rankLabel(r, i), value: r.self_device_time_total, color: PALETTE[1], text: fmtTime(r.self_device_time_total) }; }), { cls: "rank-device" });
    }
    var tl = D.timeline;
    if (tl && tl.step_ranks && tl.step_ranks.ranks.length > 1) {
      sec.appendChild(h2("Step time per rank and step (" + tl.step_ranks.ranks.length + " ranks)"));
      stepHeatMap(sec, tl);
    }
    if (tl && tl.breakdown && tl.breakdown.length > 1) {
      sec.appendChild(h2("Per-rank device timeline (orprof timeline)"));
      var MAXR = 16;
      if (tl.breakdown.length > MAXR) {
        // The slowest ranks by median step (outliers first), else the first: a digest, not a wall.
        var keep = {}, order = (tl.step_ranks ? (tl.step_ranks.outliers || []).concat(tl.step_ranks.ranks.slice().reverse()) : []).map(function (r) { return r.rank; });
        tl.breakdown.forEach(function (b) { order.push(b.rank); });
        order.forEach(function (r) { if (Object.keys(keep).length < MAXR) keep[r] = true; });
        var only = function (xs) { return (xs || []).filter(function (x) { return keep[x.rank]; }); };
        drawTimeline(sec, { ranks: tl.ranks, breakdown: only(tl.breakdown), overlap: only(tl.overlap), steps: only(tl.steps), idle: only(tl.idle) });
        sec.appendChild(ranksCut(MAXR, tl.breakdown.length, "ranks (shown: the outliers and the slowest by median step)"));
      } else {
        drawTimeline(sec, tl);
      }
    }
    collectivesTable(sec, tl || {});
    if (tl && tl.stragglers && tl.stragglers.length > 1) {
      sec.appendChild(h2("Stragglers: how often each rank arrived last at a collective"));
      topBars(tl.stragglers.map(function (r) { return { label: "rank " + r.rank, value: r.arrived_last, color: PALETTE[3],
        text: r.arrived_last + " of " + r.instances + ", others waited " + fmtTime(r.wait_caused_ns / 1000) }; }), { cls: "stragglers", fmt: function (v) { return String(Math.round(v)); } });
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
    sec.setAttribute("data-build-ms", (performance.now() - t0).toFixed(1));
  }

  VIEWS.push(["ranks", "Ranks", viewRanks, 50]);
