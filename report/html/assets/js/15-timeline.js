  // Timeline: every rank's host threads and device streams as lanes over time (package lanes'
  // summary, D.lanes), drawn on a canvas at the level of detail of the window: events narrower
  // than a pixel share their pixel, binned events are drawn as their lanes' coverage. Wheel
  // zooms at the cursor, drag pans, W/S zoom, A/D pan, 0 resets; hover tells an event's
  // figures, click draws the flow from its launch. window.orprofTimeline drives it in tests.
  var TL_COLORS = {
    communication: "#c94f7c", memory: "#4fb3c9", gemm: "#2f6fd6", attention: "#8a63d2", convolution: "#5c9e31",
    elementwise: "#e8833a", reduction: "#c9a227", computation: "#3aa374", other: "#7a8699", memcpy: "#1f8fa8",
    memset: "#83c9d9", sync: "#b5533c", "device range": "#cfd5e0", op: "#93a9d6", "user annotation": "#c4b0e6", runtime: "#e0bd6e"
  };
  var TL_CAUSE_COLORS = ["rgba(225,87,89,0.28)", "rgba(242,193,78,0.35)", "rgba(150,150,150,0.25)"];
  var TL_CAUSE_SOLID = ["#e15759", "#f2c14e", "#969696"];

  function fmtNs(ns) { return fmtTime(ns / 1000); }

  // tlModel decodes the summary's columns into typed arrays per lane and row.
  function tlModel(S) {
    var lanes = [], ranks = [], end = 0, y = 22, ROWH = 12;
    var cats = S.categories;
    var pal = cats.map(function (c) { return TL_COLORS[c] || "#999"; });
    S.ranks.forEach(function (r) {
      var R = { rank: r.rank, off: r.offset_ns, span: r.span_ns, names: r.names, steps: r.steps, top: y, lanes: [] };
      y += 16;
      var devs = {};
      r.lanes.forEach(function (l) { if (l.kind === "stream") devs[l.pid] = true; });
      var manyDev = Object.keys(devs).length > 1;
      r.lanes.forEach(function (l, li) {
        var n = l.t.length, s = new Float64Array(n), d = new Float64Array(n), t = r.offset_ns;
        for (var i = 0; i < n; i++) { t += l.t[i]; s[i] = t; d[i] = l.d[i]; }
        var L = {
          rank: R, li: li, kind: l.kind, pid: l.pid, id: l.id, events: l.events, binned: l.binned,
          label: "rank " + r.rank + " · " + (l.kind === "stream" ? (manyDev ? "device " + l.pid + " · " : "") + "stream " + l.id : "thread " + l.id),
          s: s, d: d, n: l.n, c: l.c, r: l.r, op: l.op, ll: l.ll, lt: l.lt, nrows: Math.max(l.rows, 1), rows: [],
          binW: r.bin_ns, bins: null, gaps: null, gapCount: l.gap_count, gapNs: l.gap_ns
        };
        L.col = new Array(n);
        for (i = 0; i < n; i++) L.col[i] = pal[l.c[i]];
        var per = [];
        for (i = 0; i < L.nrows; i++) per.push([]);
        for (i = 0; i < n; i++) per[l.r[i]].push(i);
        per.forEach(function (idx) {
          var m = idx.length, rs = new Float64Array(m), me = new Float64Array(m), ix = new Int32Array(m), mx = -Infinity;
          for (var k = 0; k < m; k++) { ix[k] = idx[k]; rs[k] = s[idx[k]]; mx = Math.max(mx, s[idx[k]] + d[idx[k]]); me[k] = mx; }
          L.rows.push({ s: rs, me: me, ix: ix });
        });
        if (l.bi.length) {
          var bs = new Float64Array(l.bi.length);
          for (i = 0; i < l.bi.length; i++) bs[i] = r.offset_ns + l.bi[i] * r.bin_ns - r.bin_phase_ns;
          L.bins = { s: bs, c: l.bc, v: l.bv };
        }
        if (l.gt.length) {
          var gs = new Float64Array(l.gt.length), ge = new Float64Array(l.gt.length);
          t = r.offset_ns;
          for (i = 0; i < l.gt.length; i++) { t += l.gt[i]; gs[i] = t; ge[i] = t + l.gd[i]; }
          L.gaps = { s: gs, e: ge, c: l.gc };
        }
        L.binH = L.bins ? 5 : 0;
        L.top = y;
        L.h = L.nrows * ROWH + L.binH + 3;
        y += L.h;
        end = Math.max(end, r.offset_ns + l.end_ns);
        lanes.push(L);
        R.lanes.push(L);
      });
      end = Math.max(end, r.offset_ns + r.span_ns);
      R.bottom = y;
      y += 6;
      ranks.push(R);
    });
    return { lanes: lanes, ranks: ranks, end: Math.max(end, 1), height: y, ROWH: ROWH, cats: cats };
  }

  // upperIdx is the first index of a (ascending) whose value is > v.
  function upperIdx(a, v) {
    var lo = 0, hi = a.length;
    while (lo < hi) { var m = (lo + hi) >> 1; if (a[m] > v) hi = m; else lo = m + 1; }
    return lo;
  }

  // lowerIdx is the first index of a (ascending) whose value is ≥ v.
  function lowerIdx(a, v) {
    var lo = 0, hi = a.length;
    while (lo < hi) { var m = (lo + hi) >> 1; if (a[m] >= v) hi = m; else lo = m + 1; }
    return lo;
  }

  function viewTimeline(sec) {
    var S = D.lanes;
    sec.appendChild(h2("Timeline"));
    if (!S || !S.ranks || !S.ranks.length) { sec.appendChild(why((D.why && D.why.lanes) || "No events to draw.")); return; }
    var t0ms = performance.now();
    var M = tlModel(S), LW = 190, AXIS = 22;
    sec.setAttribute("data-decode-ms", (performance.now() - t0ms).toFixed(1));
    var used = {};
    M.lanes.forEach(function (L) { for (var i = 0; i < L.c.length; i++) used[L.c[i]] = true; });
    var items = [];
    S.categories.forEach(function (c, i) { if (used[i]) items.push({ label: c, color: TL_COLORS[c] || "#999" }); });
    S.causes.forEach(function (c, i) { items.push({ label: "idle: " + c, color: TL_CAUSE_SOLID[i] }); });
    items.push({ label: "binned events (coverage)", color: "#5b6475" });
    sec.appendChild(legend(items));
    var gapsBinned = 0;
    M.lanes.forEach(function (L) { gapsBinned += L.gapCount[0] + L.gapCount[1] + L.gapCount[2]; });
    var note = "Drawn one by one: " + S.kept + " of " + S.events + " events. ";
    if (S.binned) {
      var under = [];
      if (S.device_min_ns) under.push("device events shorter than " + fmtNs(S.device_min_ns));
      if (S.host_min_ns) under.push("host events shorter than " + fmtNs(S.host_min_ns));
      note += S.binned + " events were binned rather than kept (" + under.join(", ") + "): each lane draws them as its coverage strip and counts them. ";
    } else note += "None was binned. ";
    if (gapsBinned) note += gapsBinned + " idle gaps shorter than " + fmtNs(S.gap_min_ns) + " are counted by cause, not drawn. ";
    note += "Wheel or W/S zooms, drag or A/D pans, 0 resets; click an event for the flow from its launch.";
    sec.appendChild(el("div", { cls: "sub tl-note", text: note, "data-binned": String(S.binned), "data-kept": String(S.kept), "data-events": String(S.events) }));
    var box = el("div", { cls: "tl-box", tabindex: "0" });
    var spacer = el("div", { cls: "tl-spacer" });
    var cv = el("canvas", { cls: "tl-canvas" });
    var tip = el("div", { cls: "tl-tip" });
    var info = el("div", { cls: "tl-info sub" });
    box.appendChild(cv);
    box.appendChild(spacer);
    sec.appendChild(box);
    sec.appendChild(info);
    sec.appendChild(tip);
    var marks = el("div", { cls: "tl-lanes", hidden: "hidden" });
    var laneEls = M.lanes.map(function (L) {
      var e = el("div", { "data-lane": L.label, "data-kind": L.kind, "data-total": String(L.events) });
      marks.appendChild(e);
      return e;
    });
    sec.appendChild(marks);
    var view = { t0: 0, t1: M.end }, W = 0, H = 0, dpr = window.devicePixelRatio || 1, ctx = cv.getContext("2d");
    var sel = null, pending = false, frames = [];
    function size() {
      W = Math.max(box.clientWidth, 400);
      H = Math.min(M.height, Math.max(200, Math.round(window.innerHeight * 0.7)));
      box.style.height = H + "px";
      cv.width = Math.round(W * dpr); cv.height = Math.round(H * dpr);
      cv.style.width = W + "px"; cv.style.height = H + "px";
      spacer.style.height = Math.max(0, M.height - H) + "px";
    }
    function k() { return (W - LW) / (view.t1 - view.t0); }
    function xOf(t) { return LW + (t - view.t0) * k(); }
    function tOf(x) { return view.t0 + (x - LW) / k(); }
    function draw() {
      pending = false;
      var f0 = performance.now(), sy = box.scrollTop, kk = k(), t0 = view.t0, t1 = view.t1;
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      ctx.clearRect(0, 0, W, H);
      ctx.font = "11px system-ui, sans-serif";
      ctx.textBaseline = "middle";
      // Step bands and rank headers.
      M.ranks.forEach(function (R) {
        var top = R.top - sy, bot = R.bottom - sy;
        if (bot < 0 || top > H) return;
        R.steps.forEach(function (st, i) {
          var a = Math.max(xOf(R.off + st[1]), LW), b = Math.min(xOf(R.off + st[2]), W);
          if (b <= LW || a >= W) return;
          ctx.fillStyle = i % 2 ? "rgba(47,111,214,0.05)" : "rgba(47,111,214,0.10)";
          ctx.fillRect(a, top, b - a, bot - top);
          ctx.fillStyle = "#2f6fd6";
          if (b - a > 50) ctx.fillText("step " + st[0], a + 3, top + 8, b - a - 6);
        });
        ctx.fillStyle = "#1d2330";
        ctx.fillText("rank " + R.rank, 4, top + 8);
      });
      M.lanes.forEach(function (L, li) {
        var top = L.top - sy, drawn = 0, first = Infinity, last = -Infinity;
        if (top + L.h < AXIS || top > H) { laneEls[li].setAttribute("data-visible", "0"); return; }
        ctx.save();
        ctx.beginPath(); ctx.rect(LW, top, W - LW, L.h); ctx.clip();
        var fill = "", runX0 = 0, runX1 = -1, runC = null, runY = 0, runH = 0, rects = 0;
        // Runs of sub-pixel items of one colour are drawn as one rectangle.
        var flush = function () {
          if (runC !== null) {
            if (fill !== runC) { ctx.fillStyle = runC; fill = runC; }
            ctx.fillRect(runX0, runY, runX1 - runX0, runH);
            rects++;
          }
          runC = null;
        };
        if (L.gaps) {
          var g = L.gaps, gi = upperIdx(g.e, t0), gh = L.nrows * M.ROWH;
          runY = top; runH = gh;
          for (; gi < g.s.length && g.s[gi] < t1; gi++) {
            var gc = TL_CAUSE_COLORS[g.c[gi]], gx0 = LW + (g.s[gi] - t0) * kk, gx1 = LW + (g.e[gi] - t0) * kk;
            if (gx1 - gx0 < 1) {
              gx0 = Math.floor(gx0); gx1 = gx0 + 1;
              // The gaps wholly within this pixel but the last are not visited (one is drawn).
              var gEnd = t0 + (gx1 - LW) / kk;
              if (gi + 2 < g.s.length && g.s[gi + 2] < gEnd) gi = lowerIdx(g.s, gEnd) - 2;
            }
            if (gc === runC && gx0 <= runX1) { runX1 = Math.max(runX1, gx1); continue; }
            flush();
            runX0 = gx0; runX1 = gx1; runC = gc;
          }
          flush();
        }
        for (var r = 0; r < L.rows.length; r++) {
          var row = L.rows[r], y = top + r * M.ROWH, i = upperIdx(row.me, t0);
          runY = y; runH = M.ROWH - 1;
          for (; i < row.s.length && row.s[i] <= t1; i++) {
            var e = row.ix[i], s = L.s[e], d = L.d[e];
            if (s + d < t0) continue;
            drawn++;
            if (s < first) first = s;
            if (s + d > last) last = s + d;
            var x0 = LW + (s - t0) * kk, w = d * kk, c = L.col[e];
            if (w < 1) {
              var px = Math.floor(x0);
              if (c === runC && px <= runX1) { if (px + 1 > runX1) runX1 = px + 1; }
              else { flush(); runX0 = px; runX1 = px + 1; runC = c; }
              // A row's events do not overlap: those wholly within this pixel are counted,
              // not visited; the last that starts in it is drawn (it may be wider).
              var tEnd = t0 + (px + 1 - LW) / kk;
              if (px >= LW && i + 2 < row.s.length && row.s[i + 2] < tEnd) {
                var j = lowerIdx(row.s, tEnd);
                drawn += j - 2 - i;
                i = j - 2;
              }
              continue;
            }
            flush();
            if (c !== fill) { ctx.fillStyle = c; fill = c; }
            ctx.fillRect(x0, y, w, M.ROWH - 1);
            rects++;
            if (w > 40) {
              var xl = Math.max(x0, LW) + 2, name = L.rank.names[L.n[e]];
              ctx.fillStyle = "#fff"; fill = "";
              ctx.fillText(name.length * 6 > w ? name.slice(0, Math.max(1, Math.floor((w - 8) / 6))) + "…" : name, xl, y + M.ROWH / 2, Math.max(w - 4, 1));
            }
          }
          flush();
        }
        if (L.bins) {
          var b = L.bins, by = top + L.nrows * M.ROWH, bw = L.binW, bi = upperIdx(b.s, t0 - bw);
          ctx.fillStyle = "#5b6475"; fill = "";
          for (; bi < b.s.length && b.s[bi] <= t1; bi++) {
            drawn += b.c[bi];
            ctx.globalAlpha = Math.min(1, 0.15 + b.v[bi] / bw);
            ctx.fillRect(xOf(b.s[bi]), by + 1, Math.max(bw * kk, 1), L.binH - 1);
          }
          ctx.globalAlpha = 1;
        }
        if (sel && sel.L === L) {
          ctx.strokeStyle = "#000"; ctx.lineWidth = 2;
          ctx.strokeRect(xOf(L.s[sel.i]), top + L.r[sel.i] * M.ROWH, Math.max(L.d[sel.i] * kk, 2), M.ROWH - 1);
        }
        ctx.restore();
        ctx.fillStyle = "#1d2330";
        ctx.fillText(L.label, 10, top + Math.min(L.h, 2 * M.ROWH) / 2, LW - 14);
        ctx.strokeStyle = "#eceff4"; ctx.lineWidth = 1;
        ctx.beginPath(); ctx.moveTo(0, top + L.h - 0.5); ctx.lineTo(W, top + L.h - 0.5); ctx.stroke();
        var le = laneEls[li];
        le.setAttribute("data-visible", "1");
        le.setAttribute("data-events", String(drawn));
        le.setAttribute("data-rects", String(rects));
        le.setAttribute("data-t0", first === Infinity ? "" : String(first));
        le.setAttribute("data-t1", last === -Infinity ? "" : String(last));
      });
      if (sel && sel.L.ll && sel.L.ll[sel.i] >= 0) {
        var LL = sel.L.rank.lanes[sel.L.ll[sel.i]], ks = sel.L.s[sel.i];
        var ax = xOf(ks + sel.L.lt[sel.i]), ay = LL.top - sy + M.ROWH / 2;
        var bx = xOf(ks), by2 = sel.L.top - sy + sel.L.r[sel.i] * M.ROWH + M.ROWH / 2;
        ctx.strokeStyle = "#c2410c"; ctx.fillStyle = "#c2410c"; ctx.lineWidth = 1.5;
        ctx.beginPath(); ctx.moveTo(ax, ay); ctx.bezierCurveTo(ax, (ay + by2) / 2, bx, (ay + by2) / 2, bx, by2); ctx.stroke();
        ctx.beginPath(); ctx.arc(ax, ay, 3, 0, 7); ctx.fill();
      }
      // The axis, over everything.
      ctx.fillStyle = "#f5f7fa"; ctx.fillRect(0, 0, W, AXIS);
      ctx.fillStyle = "#5b6475"; ctx.strokeStyle = "#b8bfcc";
      var span = view.t1 - view.t0, step = Math.pow(10, Math.floor(Math.log10(span / 6 || 1)));
      if (span / step > 12) step *= 5; else if (span / step > 6) step *= 2;
      for (var tt = Math.ceil(view.t0 / step) * step; tt <= view.t1; tt += step) {
        var x = xOf(tt);
        ctx.beginPath(); ctx.moveTo(x, AXIS - 5); ctx.lineTo(x, AXIS); ctx.stroke();
        ctx.fillText(fmtNs(tt), x + 2, 9);
      }
      var ms = performance.now() - f0;
      frames.push(ms);
      if (frames.length > 60) frames.shift();
      sec.setAttribute("data-frame-ms", ms.toFixed(2));
      sec.setAttribute("data-view-t0", String(view.t0));
      sec.setAttribute("data-view-t1", String(view.t1));
      info.textContent = "Window " + fmtNs(view.t0) + " – " + fmtNs(view.t1) + " (" + fmtNs(view.t1 - view.t0) + ")" + (sel ? " · selected: " + sel.L.rank.names[sel.L.n[sel.i]] : "");
    }
    function redraw() { if (!pending) { pending = true; requestAnimationFrame(draw); } }
    function setView(a, b) {
      var span = Math.max(b - a, 1000);
      if (span > M.end * 1.2) span = M.end * 1.2;
      a = Math.max(Math.min(a, M.end - span / 2), -span / 2);
      view.t0 = a; view.t1 = a + span;
    }
    function zoomAt(x, f) {
      var t = tOf(Math.max(x, LW)), a = t - (t - view.t0) * f, b = t + (view.t1 - t) * f;
      setView(a, b); redraw();
    }
    function pan(dx) { var dt = dx / k(); setView(view.t0 + dt, view.t1 + dt); redraw(); }
    // pick is the event (or bin) under (x, y) in the canvas.
    function pick(x, y) {
      y += box.scrollTop;
      if (x < LW) return null;
      var L = null;
      M.lanes.forEach(function (c) { if (y >= c.top && y < c.top + c.h) L = c; });
      if (!L) return null;
      var t = tOf(x), tol = 3 / k(), r = Math.floor((y - L.top) / M.ROWH);
      if (r >= L.nrows) {
        if (!L.bins) return null;
        var b = L.bins, bi = upperIdx(b.s, t) - 1;
        if (bi >= 0 && t < b.s[bi] + L.binW) return { L: L, bin: bi };
        return null;
      }
      var row = L.rows[r];
      if (row) {
        var i = upperIdx(row.s, t + tol) - 1, best = -1, bd = Infinity;
        for (var j = i; j >= 0 && j > i - 64; j--) {
          var e = row.ix[j], s = L.s[e], en = s + L.d[e];
          var dist = t < s ? s - t : t > en ? t - en : 0;
          if (dist <= tol && dist < bd) { best = e; bd = dist; }
          if (row.me[j] < t - tol) break;
        }
        if (best >= 0) return { L: L, i: best };
      }
      if (L.gaps) {
        var g = L.gaps, gi = upperIdx(g.s, t) - 1;
        if (gi >= 0 && t <= g.e[gi]) return { L: L, gap: gi };
      }
      return null;
    }
    function describe(p) {
      var L = p.L, R = L.rank;
      if (p.bin !== undefined) {
        return [L.label, p.L.bins.c[p.bin] + " events binned here (shorter than " + fmtNs(L.kind === "stream" ? S.device_min_ns : S.host_min_ns) + ")",
          "covering " + fmtNs(p.L.bins.v[p.bin]) + " of " + fmtNs(L.binW)];
      }
      if (p.gap !== undefined) {
        var g = L.gaps;
        return ["idle: " + S.causes[g.c[p.gap]], "start " + fmtNs(g.s[p.gap] - R.off) + " · duration " + fmtNs(g.e[p.gap] - g.s[p.gap]), L.label];
      }
      var i = p.i, out = [R.names[L.n[i]], "start " + fmtNs(L.s[i] - R.off) + " (rank's) · duration " + fmtNs(L.d[i]),
        L.label + " · " + M.cats[L.c[i]]];
      if (L.kind === "stream") {
        out.push("launched by: " + (L.op[i] >= 0 ? R.names[L.op[i]] : "(no operator)") +
          (L.ll[i] >= 0 ? " · launch on " + R.lanes[L.ll[i]].label + " at " + fmtNs(L.s[i] + L.lt[i] - R.off) : ""));
      }
      return out;
    }
    function hover(x, y, cx, cy) {
      var p = pick(x, y);
      if (!p) { tip.style.display = "none"; tip.textContent = ""; return null; }
      var lines = describe(p);
      tip.textContent = "";
      lines.forEach(function (s, j) { tip.appendChild(el(j ? "div" : "b", { text: s })); });
      tip.style.display = "block";
      var rc = box.getBoundingClientRect();
      tip.style.left = (window.scrollX + (cx === undefined ? rc.left + x : cx) + 12) + "px";
      tip.style.top = (window.scrollY + (cy === undefined ? rc.top + y : cy) + 12) + "px";
      return lines;
    }
    var drag = null;
    cv.addEventListener("mousedown", function (e) { drag = { x: e.clientX, moved: false }; });
    window.addEventListener("mouseup", function (e) {
      if (drag && !drag.moved) {
        var rc = cv.getBoundingClientRect(), p = pick(e.clientX - rc.left, e.clientY - rc.top);
        sel = p && p.i !== undefined ? p : null;
        redraw();
      }
      drag = null;
    });
    cv.addEventListener("mousemove", function (e) {
      var rc = cv.getBoundingClientRect();
      if (drag) {
        var dx = e.clientX - drag.x;
        if (Math.abs(dx) > 2) drag.moved = true;
        if (drag.moved) { pan(-dx); drag.x = e.clientX; }
        return;
      }
      hover(e.clientX - rc.left, e.clientY - rc.top, e.clientX, e.clientY);
    });
    cv.addEventListener("mouseleave", function () { tip.style.display = "none"; });
    box.addEventListener("wheel", function (e) {
      if (e.shiftKey) return;
      e.preventDefault();
      var rc = cv.getBoundingClientRect();
      if (Math.abs(e.deltaX) > Math.abs(e.deltaY)) pan(e.deltaX);
      else zoomAt(e.clientX - rc.left, Math.pow(1.0015, e.deltaY));
    }, { passive: false });
    box.addEventListener("scroll", redraw);
    box.addEventListener("keydown", function (e) {
      var c = e.key.toLowerCase();
      if (c === "w") zoomAt((LW + W) / 2, 0.8);
      else if (c === "s") zoomAt((LW + W) / 2, 1.25);
      else if (c === "a") pan(-(W - LW) * 0.2);
      else if (c === "d") pan((W - LW) * 0.2);
      else if (c === "0") { view.t0 = 0; view.t1 = M.end; redraw(); }
      else return;
      e.preventDefault();
    });
    window.addEventListener("resize", function () { size(); redraw(); });
    size();
    draw();
    sec.setAttribute("data-first-draw-ms", (performance.now() - t0ms).toFixed(1));
    window.orprofTimeline = {
      zoom: function (a, b) { setView(a, b); draw(); return [view.t0, view.t1]; },
      reset: function () { view.t0 = 0; view.t1 = M.end; draw(); },
      view: function () { return [view.t0, view.t1]; },
      hover: function (x, y) { return hover(x, y); },
      select: function (x, y) { var p = pick(x, y); sel = p && p.i !== undefined ? p : null; draw(); return sel ? describe(sel) : null; },
      pan: function (dx) { pan(dx); draw(); return [view.t0, view.t1]; },
      // at is where event i of lane li (M.lanes order) is drawn: [x, y] in the canvas.
      at: function (li, i) {
        var L = M.lanes[li];
        return [xOf(L.s[i] + L.d[i] / 2), L.top - box.scrollTop + L.r[i] * M.ROWH + M.ROWH / 2];
      },
      scrollTo: function (li) { box.scrollTop = Math.max(0, M.lanes[li].top - AXIS - 4); draw(); },
      frames: function () { return frames.slice(); },
      end: M.end
    };
  }

  VIEWS.push(["timeline", "Timeline", viewTimeline, 15]);
