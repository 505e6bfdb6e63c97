  // viewDiff: two profiles compared. The step time leads (what a change is judged by), then
  // where device time went (the timeline breakdown), kernels by category and the kernels that
  // changed most, then the operators (orprof diff).
  function viewDiff(sec) {
    var F = D.diff;
    if (!F) { sec.appendChild(why(D.why.diff)); return; }
    var tb = F.totals.before, ta = F.totals.after;
    sec.appendChild(el("div", { cls: "sub", "data-sides": "1", text: "before: " + F.before + "   after: " + F.after }));
    diffSteps(sec, F);
    diffTimeline(sec, F);
    diffKernels(sec, F);
    sec.appendChild(h2("Operators (orprof diff)"));
    var cards = el("div", { cls: "cards" });
    cards.appendChild(card("Self CPU before \u2192 after", fmtTime(tb.self_cpu_time_total) + " \u2192 " + fmtTime(ta.self_cpu_time_total), "diff-cpu"));
    if (tb.self_device_time_total || ta.self_device_time_total) cards.appendChild(card("Self device before \u2192 after", fmtTime(tb.self_device_time_total) + " \u2192 " + fmtTime(ta.self_device_time_total), "diff-device"));
    sec.appendChild(cards);
    var rows = F.doc.rows.map(function (r) {
      return { key: r.key, device_type: r.device_type, only: r.only || "", count_before: r.before.count, count_after: r.after.count,
        self_cpu_before: r.before.self_cpu_time_total, self_cpu_after: r.after.self_cpu_time_total,
        self_device_before: r.before.self_device_time_total, self_device_after: r.after.self_device_time_total,
        delta: (r.after.self_cpu_time_total - r.before.self_cpu_time_total) + (r.after.self_device_time_total - r.before.self_device_time_total) };
    });
    var up = rows.filter(function (r) { return r.delta > 0; });
    sec.appendChild(h2("Largest operator regressions (self CPU + self device time)"));
    if (up.length) addCut(sec, up, 10, function (top) {
      return hbars(top.map(function (r) { return { label: r.key, value: r.delta, color: "#c2410c", text: fmtSigned(r.delta) }; }), { cls: "regress" });
    }, "operators that got slower", "the table below");
    else sec.appendChild(why("No op got slower."));
    sec.appendChild(h2("All ops, largest regression first (orprof diff)"));
    var box = el("div");
    sec.appendChild(box);
    var tone = function (v) { return v > 0 ? "up" : v < 0 ? "down" : ""; };
    dataTable(box, rows, [{ key: "key", label: "Name", cls: "name", num: false },
      { key: "kind", label: "Kind", num: false, get: function (r) { var d = String(r.device_type || "cpu"); return (d === "cpu" ? "op" : "kernel") + " \u00b7 " + d.toUpperCase(); } },
      { key: "delta", label: "\u0394 self CPU+device", fmt: fmtSigned, tone: tone },
      { key: "count_before", label: "Calls before" }, { key: "count_after", label: "Calls after" },
      { key: "self_cpu_before", label: "Self CPU before", fmt: fmtTime }, { key: "self_cpu_after", label: "Self CPU after", fmt: fmtTime },
      { key: "self_device_before", label: "Self device before", fmt: fmtTime }, { key: "self_device_after", label: "Self device after", fmt: fmtTime },
      { key: "only", label: "Note", num: false }], { id: "diff" });
    var c = cutNote(rows.length, rows.length + (F.ops_left_out || 0), "operators (the smallest changes, between the regressions and the improvements)", "orprof diff");
    if (c) sec.appendChild(c);
  }

  function fmtDelta(b, a, f) {
    f = f || fmtTime;
    var d = a - b;
    return (d > 0 ? "+" : d < 0 ? "-" : "") + f(Math.abs(d)) + (b ? " (" + (d > 0 ? "+" : "") + (d * 100 / b).toFixed(1) + "%)" : "");
  }
  // pairRanks: the ranks of two sides matched, by rank number, or one to one when each side
  // has one rank (two runs of one program need not number it alike).
  function pairRanks(before, after) {
    if (before.length === 1 && after.length === 1) return [[before[0], after[0]]];
    var out = [];
    before.forEach(function (b) {
      var a = after.filter(function (x) { return x.rank === b.rank; })[0];
      out.push([b, a || null]);
    });
    after.forEach(function (a) { if (!before.some(function (b) { return b.rank === a.rank; })) out.push([null, a]); });
    return out;
  }
  // diffTable: a table of rows [label, before, after] with the change, formatted by f.
  function diffTable(id, rows, f) {
    f = f || fmtTime;
    var t = el("table", { "data-table": id });
    t.appendChild(el("thead", {}, [el("tr", {}, ["", "Before", "After", "Change"].map(function (h) { return el("th", { text: h }); }))]));
    var tbody = el("tbody");
    rows.forEach(function (r) {
      tbody.appendChild(el("tr", { "data-key": r[0] }, [el("td", { cls: "name", text: r[0] }),
        el("td", { text: r[1] === null ? "\u2014" : f(r[1]), "data-col": "before", "data-v": String(r[1]) }),
        el("td", { text: r[2] === null ? "\u2014" : f(r[2]), "data-col": "after", "data-v": String(r[2]) }),
        el("td", { text: r[1] === null || r[2] === null ? "" : fmtDelta(r[1], r[2], f), cls: r[1] !== null && r[2] !== null ? (r[2] > r[1] ? "up" : r[2] < r[1] ? "down" : "") : "", "data-col": "change" })]));
    });
    t.appendChild(tbody);
    var w = el("div", { cls: "tbl-wrap" }, [t]);
    w.style.maxWidth = "60em";
    return w;
  }

  // diffSteps: each rank's average step, before and after, by the plugin's categories.
  function diffSteps(sec, F) {
    sec.appendChild(h2("Step time before \u2192 after (the TensorBoard plugin's breakdown)"));
    var sb = F.steps && F.steps.before, sa = F.steps && F.steps.after;
    var has = function (s) { return s && s.ranks && s.ranks.some(function (r) { return r.steps && r.steps.length; }); };
    if (!has(sb) || !has(sa)) {
      sec.appendChild(why("No step comparison: " + (!has(sb) ? "BEFORE" : "AFTER") + " has no steps (ProfilerStep#N ranges), or was read from table summaries, which carry none."));
      return;
    }
    var cats = sa.categories, ns = function (v) { return fmtTime(v / 1000); };
    var colors = cats.map(function (c, i) { return PALETTE[i % PALETTE.length]; });
    var pairs = pairRanks(sb.ranks, sa.ranks);
    var both = pairs.filter(function (p) { return p[0] && p[1]; });
    if (both.length) {
      // The verdict in one sentence: the mean over the ranks of each side's average step.
      var mean = function (k) { return both.reduce(function (a, p) { return a + p[k].average_total_ns; }, 0) / both.length; };
      var b = mean(0), a = mean(1);
      sec.appendChild(el("p", { "data-lead": "steps", text: "The average step" + (both.length > 1 ? " (mean over " + both.length + " ranks)" : "") + " got " +
        (a < b ? "faster" : a > b ? "slower" : "neither faster nor slower") + ": " + ns(b) + " \u2192 " + ns(a) + (b ? " (" + (a > b ? "+" : "") + ((a - b) * 100 / b).toFixed(1) + "%)." : ".") }));
    }
    var cards = el("div", { cls: "cards" });
    pairs.forEach(function (p) {
      if (!p[0] || !p[1]) return;
      var lbl = pairs.length > 1 ? "rank " + p[1].rank + " " : "";
      cards.appendChild(card(lbl + "Average step before \u2192 after", ns(p[0].average_total_ns) + " \u2192 " + ns(p[1].average_total_ns) + "  " + fmtDelta(p[0].average_total_ns, p[1].average_total_ns, ns), "diff-step-" + p[1].rank));
      cards.appendChild(card(lbl + "Steps before \u2192 after", p[0].steps.length + " \u2192 " + p[1].steps.length, "diff-steps-" + p[1].rank));
    });
    sec.appendChild(cards);
    pairs.forEach(function (p) {
      if (!p[0] || !p[1]) {
        sec.appendChild(why("rank " + (p[0] || p[1]).rank + " is only " + (p[0] ? "BEFORE" : "AFTER") + ": nothing to compare."));
        return;
      }
      if (pairs.length > 1) sec.appendChild(el("h3", { text: "rank " + p[1].rank }));
      var show = cats.map(function (c, i) { return i; }).filter(function (i) { return p[0].average_ns[i] > 0 || p[1].average_ns[i] > 0; });
      sec.appendChild(legend(show.map(function (i) { return { label: cats[i], color: colors[i] }; })));
      sec.appendChild(hbars([["before", p[0]], ["after", p[1]]].map(function (x) {
        return { label: x[0] + " \u00b7 average step", value: x[1].average_total_ns, text: ns(x[1].average_total_ns),
          parts: show.map(function (i) { return { name: cats[i], value: x[1].average_ns[i], color: colors[i] }; }) };
      }), { cls: "diff-steps", fmt: ns }));
      var rows = [["average step", p[0].average_total_ns, p[1].average_total_ns]];
      show.forEach(function (i) { rows.push([cats[i], p[0].average_ns[i], p[1].average_ns[i]]); });
      sec.appendChild(diffTable("diff-steps" + (pairs.length > 1 ? "-" + p[1].rank : ""), rows, ns));
    });
  }

  // diffTimeline: each rank's device window split by kind of work, before and after.
  function diffTimeline(sec, F) {
    sec.appendChild(h2("Device time breakdown before \u2192 after (orprof timeline)"));
    var tb = F.timeline && F.timeline.before, ta = F.timeline && F.timeline.after;
    if (!tb || !ta) {
      sec.appendChild(why("No device timeline comparison: " + (!tb ? "BEFORE" : "AFTER") + " has no device timeline (no kernels, copies or fills on a device timeline, or read from table summaries)."));
      return;
    }
    var EX = [["compute_ns", "computation"], ["communication_ns", "communication"], ["memory_ns", "memory"], ["other_ns", "other work"], ["idle_ns", "idle"]];
    var colors = [PALETTE[0], PALETTE[3], PALETTE[2], PALETTE[5], "#c8ccd4"], ns = function (v) { return fmtTime(v / 1000); };
    var pairs = pairRanks(tb.breakdown, ta.breakdown);
    sec.appendChild(legend(EX.map(function (x, i) { return { label: x[1], color: colors[i] }; })));
    var items = [];
    pairs.forEach(function (p) {
      [["before", p[0]], ["after", p[1]]].forEach(function (x) {
        if (!x[1]) return;
        items.push({ label: (pairs.length > 1 ? "rank " + x[1].rank + " " : "") + x[0] + " \u00b7 whole window", value: x[1].total_ns, text: ns(x[1].total_ns) + "  busy " + fmtPct(x[1].busy_ns, x[1].total_ns),
          parts: EX.map(function (e, i) { return { name: e[1], value: x[1].exclusive[e[0]], color: colors[i] }; }) });
      });
    });
    addCut(sec, items, 40, function (its) { return hbars(its, { cls: "diff-timeline", fmt: ns }); }, "bars", "orprof timeline of each side");
    pairs.forEach(function (p) {
      if (!p[0] || !p[1]) return;
      if (pairs.length > 1) sec.appendChild(el("h3", { text: "rank " + p[1].rank }));
      var rows = [["window", p[0].total_ns, p[1].total_ns], ["busy", p[0].busy_ns, p[1].busy_ns]];
      EX.forEach(function (e) { rows.push([e[1] + " (exclusive)", p[0].exclusive[e[0]], p[1].exclusive[e[0]]]); });
      sec.appendChild(diffTable("diff-timeline" + (pairs.length > 1 ? "-" + p[1].rank : ""), rows, ns));
    });
  }

  // diffKernels: device time by kernel category on each side, and the kernels that changed most.
  function diffKernels(sec, F) {
    sec.appendChild(h2("Kernels by category before \u2192 after (orprof kernels)"));
    var kb = F.kernels && F.kernels.before, ka = F.kernels && F.kernels.after;
    if (!kb || !ka) {
      sec.appendChild(why("No kernel comparison: " + (!kb ? "BEFORE" : "AFTER") + " has no kernels (no device work, or read from table summaries)."));
      return;
    }
    var names = [];
    kb.categories.concat(ka.categories).forEach(function (c) { if (names.indexOf(c.name) < 0) names.push(c.name); });
    var of = function (side, n) { var c = side.categories.filter(function (x) { return x.name === n; })[0]; return c ? c.total_us : 0; };
    var rows = [["device time", kb.device_us, ka.device_us]];
    names.forEach(function (n) { rows.push([n, of(kb, n), of(ka, n)]); });
    sec.appendChild(diffTable("diff-kcats", rows));
    var K = F.kernel_changes;
    if (!K || !K.kernels || !K.kernels.length) return;
    var up = K.kernels.filter(function (r) { return r.delta_us > 0; });
    var down = K.kernels.filter(function (r) { return r.delta_us < 0; }).reverse();
    sec.appendChild(h2("Kernels that changed most"));
    var bar = function (rows, color) {
      return hbars(rows.map(function (r) { return { label: r.name, value: r.delta_us, color: color, text: fmtSigned(r.delta_us) + "  (" + fmtTime(r.total_us_before) + " \u2192 " + fmtTime(r.total_us_after) + ")" }; }), { cls: "kernel-changes" });
    };
    if (up.length) { sec.appendChild(el("div", { cls: "sub", text: "slower (or new)" })); addCut(sec, up, 10, function (r) { return bar(r, "#c2410c"); }, "kernels that got slower", "the table below"); }
    if (down.length) { sec.appendChild(el("div", { cls: "sub", text: "faster (or gone)" })); addCut(sec, down, 10, function (r) { return bar(r, "#15803d"); }, "kernels that got faster", "the table below"); }
    var box = el("div");
    sec.appendChild(box);
    var tone = function (v) { return v > 0 ? "up" : v < 0 ? "down" : ""; };
    dataTable(box, K.kernels.map(function (r) { var o = {}; for (var k in r) o[k] = r[k]; o.key = r.name; return o; }), [{ key: "key", label: "Kernel", cls: "name", num: false },
      { key: "kind", label: "Kind", num: false }, { key: "category", label: "Category", num: false },
      { key: "delta_us", label: "\u0394 total", fmt: fmtSigned, tone: tone },
      { key: "calls_before", label: "Calls before" }, { key: "calls_after", label: "Calls after" },
      { key: "total_us_before", label: "Total before", fmt: fmtTime }, { key: "total_us_after", label: "Total after", fmt: fmtTime }], { id: "diff-kernels" });
    var c = cutNote(K.kernels.length, K.kernels.length + (F.kernels_left_out || 0), "kernels (the smallest changes)", "orprof diff on the two sides' orprof kernels --format json");
    if (c) sec.appendChild(c);
  }

  VIEWS.push(["diff", "Diff", viewDiff, 60]);

  // diffSide is the line that opens every other view of a diff report (99-boot.js): they show
  // AFTER's summaries.
  function diffSide() {
    return el("div", { cls: "why", "data-side": "after", text: "Diff report: this view shows AFTER only (" + D.diff.after + "). The Diff view compares it with BEFORE (" + D.diff.before + ")." });
  }
