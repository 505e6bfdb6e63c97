  // ---- the Device view: HolisticTraceAnalysis's and the TensorBoard plugin's plots ----

  // zoomPlot: step series [{name, color, points: [[x, y], ...], attrs}] (each y holds until the
  // next point's x) on a shared x axis; drag to zoom into a window, double-click to reset,
  // hover for the values at the pointer. o: {fmtX, fmtY, id, marks: [{x, label}]}. The svg
  // carries its window (data-x0, data-x1); the readout the hovered x and values.
  function zoomPlot(series, o) {
    var width = o.width || 900, height = o.height || 220, l = 78, r = 24, t = 10, b = 26;
    var box = el("div", { cls: "zplot", "data-zplot": o.id || "" });
    var read = el("div", { cls: "sub", "data-readout": o.id || "", text: "Hover for values; drag to zoom into a window, double-click to see it all." });
    read.style.minHeight = "1.4em";
    read.style.color = "#555";
    read.style.fontSize = "12px";
    var full = [Infinity, -Infinity];
    series.forEach(function (se) {
      se.points.forEach(function (p) { full[0] = Math.min(full[0], p[0]); full[1] = Math.max(full[1], p[0]); });
    });
    if (!(full[1] > full[0])) full[1] = full[0] + 1;
    var dom = full.slice();
    var s = svg("svg", { width: width, height: height, viewBox: "0 0 " + width + " " + height, role: "img", "class": "curve zoom" });
    s.style.cursor = "crosshair";
    s.style.userSelect = "none";
    box.appendChild(s);
    box.appendChild(read);
    var X, Y, sel, cursor, drag = null;
    // valueAt is a series' value at x: its last point at or before x (null before its first).
    function valueAt(se, x) {
      var lo = 0, hi = se.points.length - 1, k = -1;
      while (lo <= hi) {
        var m = (lo + hi) >> 1;
        if (se.points[m][0] <= x) { k = m; lo = m + 1; } else hi = m - 1;
      }
      return k < 0 ? null : se.points[k][1];
    }
    function draw() {
      s.textContent = "";
      s.setAttribute("data-x0", String(dom[0]));
      s.setAttribute("data-x1", String(dom[1]));
      var y1 = 0;
      series.forEach(function (se) {
        var v = valueAt(se, dom[0]);
        if (v !== null) y1 = Math.max(y1, v);
        se.points.forEach(function (p) { if (p[0] >= dom[0] && p[0] <= dom[1]) y1 = Math.max(y1, p[1]); });
      });
      if (!(y1 > 0)) y1 = 1;
      X = function (v) { return l + (width - l - r) * (v - dom[0]) / (dom[1] - dom[0]); };
      Y = function (v) { return height - b - (height - t - b) * v / y1; };
      for (var g = 0; g <= 4; g++) {
        var yv = y1 * g / 4;
        s.appendChild(svg("line", { x1: l, x2: width - r, y1: Y(yv), y2: Y(yv), "class": "grid" }));
        var ty = svg("text", { x: l - 4, y: Y(yv) + 4, "text-anchor": "end", "class": "lbl" });
        ty.textContent = o.fmtY(yv);
        s.appendChild(ty);
        var xv = dom[0] + (dom[1] - dom[0]) * g / 4;
        var tx = svg("text", { x: X(xv), y: height - 8, "text-anchor": g === 0 ? "start" : g === 4 ? "end" : "middle", "class": "lbl", "data-axis-x": String(xv) });
        tx.textContent = o.fmtX(xv);
        s.appendChild(tx);
      }
      s.appendChild(svg("line", { x1: l, x2: l, y1: t, y2: height - b, "class": "axis" }));
      (o.marks || []).forEach(function (m) {
        if (m.x < dom[0] || m.x > dom[1]) return;
        var ln = svg("line", { x1: X(m.x), x2: X(m.x), y1: t, y2: height - b, stroke: "#c0392b", "stroke-dasharray": "4 3", "data-mark": String(m.x) });
        s.appendChild(title(ln, m.label));
      });
      series.forEach(function (se) {
        // The steps inside the window only (no clip path: the page fetches nothing, not even
        // a fragment url): the value at the window's start, each point in it, held to its end.
        var d = "", started = false, v0 = valueAt(se, dom[0]);
        if (v0 !== null) { d = "M" + X(dom[0]).toFixed(1) + "," + Y(v0).toFixed(1); started = true; }
        se.points.forEach(function (p) {
          if (p[0] < dom[0] || p[0] > dom[1] || (p[0] === dom[0] && started)) return;
          if (!started) { d += "M" + X(p[0]).toFixed(1) + "," + Y(p[1]).toFixed(1); started = true; }
          else d += "H" + X(p[0]).toFixed(1) + "V" + Y(p[1]).toFixed(1);
        });
        if (started && se.points.length && se.points[se.points.length - 1][0] > dom[1]) d += "H" + X(dom[1]).toFixed(1);
        var path = svg("path", { d: d, fill: "none", stroke: se.color, "stroke-width": 1.5 });
        for (var k in se.attrs || {}) path.setAttribute(k, se.attrs[k]);
        s.appendChild(title(path, se.name));
      });
      sel = svg("rect", { x: 0, y: t, width: 0, height: height - t - b, fill: "rgba(47,111,214,0.15)", visibility: "hidden" });
      cursor = svg("line", { x1: 0, x2: 0, y1: t, y2: height - b, stroke: "#888", visibility: "hidden" });
      s.appendChild(sel);
      s.appendChild(cursor);
    }
    function dataX(ev) {
      var rc = s.getBoundingClientRect();
      var px = (ev.clientX - rc.left) * width / (rc.width || width);
      px = Math.min(Math.max(px, l), width - r);
      return { px: px, x: dom[0] + (px - l) * (dom[1] - dom[0]) / (width - l - r) };
    }
    function hover(ev) {
      var p = dataX(ev);
      cursor.setAttribute("x1", p.px);
      cursor.setAttribute("x2", p.px);
      cursor.setAttribute("visibility", "visible");
      var vals = series.map(function (se) { return valueAt(se, p.x); });
      read.textContent = o.fmtX(p.x) + " \u2014 " + series.map(function (se, i) {
        return se.name + ": " + (vals[i] === null ? "\u2014" : o.fmtY(vals[i]));
      }).join(", ");
      read.setAttribute("data-x", String(p.x));
      read.setAttribute("data-values", JSON.stringify(vals));
      if (drag) {
        sel.setAttribute("x", Math.min(drag.px, p.px));
        sel.setAttribute("width", Math.abs(p.px - drag.px));
        sel.setAttribute("visibility", "visible");
      }
    }
    s.addEventListener("mousedown", function (ev) { drag = dataX(ev); ev.preventDefault(); });
    s.addEventListener("mousemove", hover);
    s.addEventListener("mouseleave", function () { cursor.setAttribute("visibility", "hidden"); });
    window.addEventListener("mouseup", function (ev) {
      if (!drag) return;
      var a = drag, z = dataX(ev);
      drag = null;
      sel.setAttribute("visibility", "hidden");
      if (Math.abs(z.px - a.px) < 4) return;
      dom = [Math.min(a.x, z.x), Math.max(a.x, z.x)];
      draw();
    });
    s.addEventListener("dblclick", function () { dom = full.slice(); draw(); });
    draw();
    return box;
  }

  // cutNote says how many of a list's items a view left out.
  function cutNote(shown, total, what) {
    return shown < total ? el("div", { cls: "sub", "data-cut": String(total - shown), text: (total - shown) + " more " + what + " not shown (" + shown + " of " + total + ")." }) : null;
  }

  var CAT_COLORS = { communication: "#c94f7c", memory: "#e8833a", gemm: "#2f6fd6", attention: "#8a63d2", convolution: "#4fb3c9",
    elementwise: "#3aa374", reduction: "#c9a227", computation: "#7a8699", other: "#b5533c" };
  var DEVICE_MAX_STREAMS = 16, DEVICE_MAX_STEPS = 60, DEVICE_MAX_CARDS = 4, DEVICE_MAX_RECS = 20;

  // delayLabel names bucket i of a launch-delay histogram (the timeline's DelayBoundsNs: below 0,
  // then [1 µs · 2^(i−2), 1 µs · 2^(i−1)), the last open).
  function delayLabel(i, n) {
    if (i === 0) return "< 0";
    if (i === 1) return "0\u20131us";
    var lo = Math.pow(2, i - 2), f = function (us) { return us >= 1000 ? (us / 1000) + "ms" : us + "us"; };
    return i === n - 1 ? "\u2265 " + f(lo) : f(lo) + "\u2013" + f(2 * lo);
  }

  function delayHist(q, label) {
    var d = q.delay, n = d.buckets.length, last = 0;
    d.buckets.forEach(function (c, i) { if (c > 0) last = i; });
    var shown = d.buckets.slice(0, last + 1), top = Math.max.apply(null, shown.concat([1]));
    var width = 900, height = 190, l = 50, bw = Math.min(44, (width - l - 10) / shown.length), base = height - 62;
    var s = svg("svg", { width: width, height: height, viewBox: "0 0 " + width + " " + height, role: "img", "class": "hist",
      "data-delay-stream": label, "data-count": String(d.count) });
    shown.forEach(function (c, i) {
      var h = (base - 16) * c / top, x = l + i * bw;
      var rc = svg("rect", { x: x + 1, y: base - h, width: bw - 2, height: h, fill: i === 0 ? "#b5533c" : PALETTE[0], "data-bucket": String(i), "data-count": String(c) });
      s.appendChild(title(rc, delayLabel(i, n) + ": " + c + " launches"));
      var ty = base + 12, tx = svg("text", { x: x + bw / 2, y: ty, "text-anchor": "end", "class": "lbl", transform: "rotate(-40 " + (x + bw / 2) + " " + ty + ")" });
      tx.textContent = delayLabel(i, n);
      tx.style.fontSize = "10px";
      s.appendChild(tx);
      if (c > 0) {
        var v = svg("text", { x: x + bw / 2, y: base - h - 3, "text-anchor": "middle", "class": "lbl" });
        v.style.fontSize = "10px";
        v.textContent = String(c);
        s.appendChild(v);
      }
    });
    return s;
  }

  function viewDevice(sec) {
    var tl = D.timeline;
    if (!tl) { sec.appendChild(why(D.why.timeline || "No device timeline.")); return; }
    var multi = tl.ranks && tl.ranks.length > 1;
    var rk = function (r) { return multi ? "rank " + r + " \u00b7 " : ""; };

    // GPU summary (the TensorBoard plugin's).
    sec.appendChild(h2("GPU summary"));
    var gpus = [];
    (tl.breakdown || []).forEach(function (b) { (b.gpu || []).forEach(function (g) { gpus.push([b.rank, g]); }); });
    if (!gpus.length) sec.appendChild(why("No GPU summary: the device timeline has no kernels (copies, fills and waits are not summarized), or its summary was written by an orprof that did not make one."));
    var noEst = gpus.length > 0 && gpus.every(function (x) { return x[1].sm_efficiency === undefined && x[1].achieved_occupancy_pct === undefined; });
    if (gpus.length > DEVICE_MAX_CARDS) {
      // Many devices (ranks): one sortable row each, the least utilized first.
      var pctOr = function (v) { return v === null || v === undefined ? "\u2014" : (100 * v).toFixed(2) + "%"; };
      var grows = gpus.map(function (x) {
        var r = x[0], g = x[1];
        return { key: rk(r) + "device " + g.device, util: g.window_ns ? g.busy_ns / g.window_ns : 0, tc: g.kernel_ns ? g.tensor_core_ns / g.kernel_ns : null,
          sm: g.sm_efficiency === undefined ? null : g.sm_efficiency, occ: g.achieved_occupancy_pct === undefined ? null : g.achieved_occupancy_pct / 100,
          kernels: g.kernels, kernel_us: g.kernel_ns / 1000 };
      }).sort(function (a, b) { return a.util - b.util; });
      var gbox = el("div");
      sec.appendChild(gbox);
      dataTable(gbox, grows, [{ key: "key", label: "Device", cls: "name", num: false }, { key: "util", label: "Utilization", fmt: pctOr },
        { key: "tc", label: "Tensor cores", fmt: pctOr }, { key: "sm", label: "Est. SM efficiency", fmt: pctOr },
        { key: "occ", label: "Est. achieved occupancy", fmt: pctOr }, { key: "kernels", label: "Kernels" }, { key: "kernel_us", label: "Kernel time", fmt: fmtTime }],
      { id: "gpu" });
    }
    gpus.slice(0, gpus.length > DEVICE_MAX_CARDS ? 0 : gpus.length).forEach(function (x) {
      var r = x[0], g = x[1], cards = el("div", { cls: "cards", "data-gpu": r + ":" + g.device });
      var util = g.window_ns ? g.busy_ns / g.window_ns : 0, tc = g.kernel_ns ? g.tensor_core_ns / g.kernel_ns : null;
      cards.appendChild(card(rk(r) + "device " + g.device + " utilization", (100 * util).toFixed(2) + "%", "gpu-util-" + r + "-" + g.device));
      cards.appendChild(card("Kernel time using tensor cores", tc === null ? "\u2014" : (100 * tc).toFixed(2) + "%", "gpu-tc-" + r + "-" + g.device));
      cards.appendChild(card("Est. SM efficiency", g.sm_efficiency === undefined ? "\u2014" : (100 * g.sm_efficiency).toFixed(2) + "%", "gpu-sm-" + r + "-" + g.device));
      cards.appendChild(card("Est. achieved occupancy", g.achieved_occupancy_pct === undefined ? "\u2014" : g.achieved_occupancy_pct.toFixed(2) + "%", "gpu-occ-" + r + "-" + g.device));
      cards.appendChild(card("Kernels", g.kernels + " (" + fmtTime(g.kernel_ns / 1000) + ")", "gpu-kernels-" + r + "-" + g.device));
      cards.setAttribute("data-util", String(util));
      cards.setAttribute("data-tc", tc === null ? "" : String(tc));
      cards.setAttribute("data-sm", g.sm_efficiency === undefined ? "" : String(g.sm_efficiency));
      cards.setAttribute("data-occ", g.achieved_occupancy_pct === undefined ? "" : String(g.achieved_occupancy_pct));
      sec.appendChild(cards);
    });
    if (noEst) sec.appendChild(why("SM efficiency and achieved occupancy need CUPTI's estimates on the kernels (args \"blocks per SM\", \"est. achieved occupancy %\", which Kineto writes for CUDA kernels); this trace's kernels carry none."));
    if (gpus.length) sec.appendChild(el("div", { cls: "sub", text: "Utilization: the device's kernels' union over the window; tensor cores: the time of kernels named as tensor-core kernels (the plugin's name patterns) over all kernel time; SM efficiency: the blocks per SM of the running kernels (at most 1) averaged over the window; occupancy: weighted by kernel time." }));

    // Recommendations: the findings the summaries derive (the plugin's rules among them).
    sec.appendChild(h2("Recommendations"));
    var recs = (tl.findings || []).map(function (x) { return { id: "timeline-" + x.view, text: (x.rank >= 0 && multi ? "rank " + x.rank + ": " : "") + x.text }; })
      .concat((D.findings || []).filter(function (x) { return x.id === "steps-dataloader"; }));
    if (recs.length) {
      sec.appendChild(el("ul", { cls: "findings" }, recs.slice(0, DEVICE_MAX_RECS).map(function (x) { return el("li", { text: x.text, "data-recommendation": x.id || "" }); })));
      var rcut = cutNote(Math.min(recs.length, DEVICE_MAX_RECS), recs.length, "recommendations (the Overview lists them all)");
      if (rcut) sec.appendChild(rcut);
    }
    else sec.appendChild(why("Nothing to recommend: no figure crossed a threshold (data loading above 5 % of the step, device idle 20 %, launch-bound, exposed communication 10 %, no tensor cores on GEMM/convolution)."));

    // Kernel time by category per step.
    sec.appendChild(h2("Device work per step by kernel category"));
    var steps = [];
    (tl.steps || []).forEach(function (rs) { rs.steps.forEach(function (st) { steps.push([rs.rank, st]); }); });
    var withKernels = steps.filter(function (x) { return x[1].kernels && x[1].kernels.length; });
    if (!steps.length) sec.appendChild(why("The trace has no ProfilerStep#N ranges: no steps to break down."));
    else if (!withKernels.length) sec.appendChild(why("No device work was launched inside the steps."));
    else {
      var cats = [];
      steps.forEach(function (x) { (x[1].kernels || []).forEach(function (c) { if (cats.indexOf(c.category) < 0) cats.push(c.category); }); });
      sec.appendChild(legend(cats.map(function (c) { return { label: c, color: CAT_COLORS[c] || "#999" }; })));
      var shownSteps = steps.slice(0, DEVICE_MAX_STEPS);
      var chart = hbars(shownSteps.map(function (x) {
        var parts = (x[1].kernels || []).map(function (c) { return { name: c.category, value: c.ns / 1000, color: CAT_COLORS[c.category] || "#999" }; });
        var sum = parts.reduce(function (a, p) { return a + p.value; }, 0);
        return { label: rk(x[0]) + "step " + x[1].step, parts: parts.length ? parts : [{ name: "", value: 0, color: "#ccc" }], value: sum, text: fmtTime(sum) };
      }), { cls: "stepcats", labelWidth: 160 });
      // Each drawn segment says its step, category and figure (ns, as the summary has it).
      var rects = chart.querySelectorAll("rect"), k = 0;
      shownSteps.forEach(function (x) {
        var ks = x[1].kernels && x[1].kernels.length ? x[1].kernels : [null];
        ks.forEach(function (c) {
          var rc = rects[k++];
          if (!rc || !c) return;
          rc.setAttribute("data-step", x[0] + ":" + x[1].step);
          rc.setAttribute("data-category", c.category);
          rc.setAttribute("data-ns", String(c.ns));
          rc.setAttribute("data-count", String(c.count));
        });
      });
      sec.appendChild(chart);
      var cut = cutNote(shownSteps.length, steps.length, "steps");
      if (cut) sec.appendChild(cut);
      sec.appendChild(el("div", { cls: "sub", text: "Each step's device work summed per kernel category (the Kernels view's categories); work on several streams at once counts on each, so a bar can exceed the step's duration." }));
    }

    // Queue length over time per stream (HolisticTraceAnalysis's queue length time series).
    sec.appendChild(h2("Queue length over time per stream"));
    var qs = (tl.queue || []).filter(function (q) { return q.series && q.series.points && q.series.points.length; });
    if (!qs.length) sec.appendChild(why("No stream has device work whose launch is in the trace: the queue of launched, unfinished work is unknown."));
    qs.slice(0, DEVICE_MAX_STREAMS).forEach(function (q, i) {
      var label = rk(q.rank) + "device " + q.device + " \u00b7 stream " + q.stream;
      var pts = q.series.points.map(function (p) { return [p[0] / 1000, p[1]]; });
      sec.appendChild(el("div", { cls: "sub", text: label + ": max " + q.max + ", time-weighted mean " + (q.span_ns ? (q.area_ns / q.span_ns).toFixed(2) : "0") +
        (q.series.exact ? "" : " (drawn as the greatest length per " + fmtTime(q.series.bucket_ns / 1000) + ")") }));
      sec.appendChild(zoomPlot([{ name: "queue length", color: PALETTE[i % PALETTE.length], points: pts,
        attrs: { "data-queue": q.rank + ":" + q.device + ":" + q.stream, "data-points": JSON.stringify(q.series.points), "data-start": String(q.series.start_ns) } }],
      { id: "queue-" + q.rank + "-" + q.device + "-" + q.stream, height: 160, fmtX: function (v) { return "+" + fmtTime(v); }, fmtY: function (v) { return v.toFixed(v % 1 ? 1 : 0); } }));
    });
    var qcut = cutNote(Math.min(qs.length, DEVICE_MAX_STREAMS), qs.length, "streams");
    if (qcut) sec.appendChild(qcut);
    if (qs.length) sec.appendChild(el("div", { cls: "sub", text: "Launches outstanding: +1 when the launch call starts, \u22121 when its work ends. HolisticTraceAnalysis decrements when the work starts." }));

    // Launch delay distribution per stream.
    sec.appendChild(h2("Launch delay per stream (launch call's end \u2192 work's start)"));
    var ds = (tl.queue || []).filter(function (q) { return q.delay && q.delay.count; });
    if (!ds.length) sec.appendChild(why("No device work has its launch in the trace: no launch delays."));
    ds.slice(0, DEVICE_MAX_STREAMS).forEach(function (q) {
      var label = rk(q.rank) + "device " + q.device + " \u00b7 stream " + q.stream;
      sec.appendChild(el("div", { cls: "sub", text: label + ": " + q.delay.count + " launches, mean " + fmtTime(q.delay.sum_ns / q.delay.count / 1000) +
        ", min " + fmtSigned(q.delay.min_ns / 1000) + ", max " + fmtSigned(q.delay.max_ns / 1000) }));
      sec.appendChild(delayHist(q, q.rank + ":" + q.device + ":" + q.stream));
    });
    var dcut = cutNote(Math.min(ds.length, DEVICE_MAX_STREAMS), ds.length, "streams");
    if (dcut) sec.appendChild(dcut);
  }

  VIEWS.push(["device", "Device", viewDevice, 35]);
