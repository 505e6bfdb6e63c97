// orprof report: draws the summaries embedded in this file (the JSON in #orprof-data) as
// tables and SVG charts. It computes no figure of its own: every number shown is a field of
// those summaries, or a share of two of them.
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("orprof-data").textContent);
  var SVGNS = "http://www.w3.org/2000/svg";
  var PALETTE = ["#2f6fd6", "#e8833a", "#3aa374", "#c94f7c", "#8a63d2", "#c9a227", "#4fb3c9", "#7a8699", "#b5533c", "#5c9e31"];

  // ---- formatting (the table's own formats: PyTorch's units) ----
  function fmtTime(us) {
    if (us === null || us === undefined || isNaN(us)) return "";
    if (us >= 1e6) return (us / 1e6).toFixed(3) + "s";
    if (us >= 1e3) return (us / 1e3).toFixed(3) + "ms";
    return us.toFixed(3) + "us";
  }
  function fmtSigned(us) { return us > 0 ? "+" + fmtTime(us) : us < 0 ? "-" + fmtTime(-us) : fmtTime(0); }
  function fmtMem(n) {
    var a = Math.abs(n), K = 1024, M = K * K, G = M * K;
    if (a >= G) return (n / G).toFixed(2) + " GB";
    if (a >= M) return (n / M).toFixed(2) + " MB";
    if (a >= K) return (n / K).toFixed(2) + " KB";
    return String(n) + " B";
  }
  function fmtPct(part, total) { return total ? (part * 100 / total).toFixed(2) + "%" : ""; }
  function fmtInt(n) { return String(n); }

  // ---- DOM helpers ----
  function el(tag, attrs, kids) {
    var e = document.createElement(tag);
    for (var k in attrs || {}) {
      if (k === "text") e.textContent = attrs[k];
      else if (k === "cls") e.className = attrs[k];
      else e.setAttribute(k, attrs[k]);
    }
    (kids || []).forEach(function (c) { if (c) e.appendChild(c); });
    return e;
  }
  function svg(tag, attrs) {
    var e = document.createElementNS(SVGNS, tag);
    for (var k in attrs || {}) e.setAttribute(k, attrs[k]);
    return e;
  }
  function title(node, text) { var t = svg("title"); t.textContent = text; node.appendChild(t); return node; }
  function why(msg) { return el("div", { cls: "why", text: msg, "data-why": "1" }); }
  function h2(text) { return el("h2", { text: text }); }
  function card(k, v, id) {
    return el("div", { cls: "card" }, [el("div", { cls: "k", text: k }), el("div", { cls: "v", text: v, "data-card": id || k })]);
  }
  function legend(items) {
    return el("div", { cls: "legend" }, items.map(function (it) {
      var i = el("i"); i.style.background = it.color;
      return el("span", {}, [i, document.createTextNode(it.label)]);
    }));
  }

  // ---- charts (SVG) ----
  // hbars: one horizontal bar per item, or stacked segments when item.parts is set.
  function hbars(items, o) {
    o = o || {};
    var width = o.width || 900, bar = o.bar || 18, gap = 6, lw = o.labelWidth || 280, rw = 150;
    var h = items.length * (bar + gap) + 24;
    var s = svg("svg", { width: width, height: h, viewBox: "0 0 " + width + " " + h, role: "img", "class": o.cls || "hbars" });
    var max = 0;
    items.forEach(function (it) {
      var v = it.parts ? it.parts.reduce(function (a, p) { return a + Math.max(p.value, 0); }, 0) : Math.abs(it.value);
      max = Math.max(max, v);
    });
    var plot = width - lw - rw;
    for (var g = 0; g <= 4; g++) {
      var x = lw + plot * g / 4;
      s.appendChild(svg("line", { x1: x, x2: x, y1: 0, y2: h - 20, "class": "grid" }));
      var t = svg("text", { x: x, y: h - 6, "text-anchor": "middle", "class": "lbl" });
      t.textContent = (o.fmt || fmtTime)(max * g / 4);
      s.appendChild(t);
    }
    items.forEach(function (it, i) {
      var y = i * (bar + gap) + 2;
      var lab = svg("text", { x: lw - 6, y: y + bar - 5, "text-anchor": "end" });
      lab.textContent = it.label.length > 44 ? it.label.slice(0, 43) + "\u2026" : it.label;
      title(lab, it.label);
      s.appendChild(lab);
      var x = lw, parts = it.parts || [{ value: Math.abs(it.value), color: it.color || o.color || PALETTE[0], name: "" }];
      parts.forEach(function (p) {
        var w = max > 0 ? plot * Math.max(p.value, 0) / max : 0;
        var r = svg("rect", { x: x, y: y, width: Math.max(w, 0), height: bar, fill: p.color, "data-v": p.value });
        title(r, it.label + (p.name ? " \u2014 " + p.name : "") + ": " + (o.fmt || fmtTime)(p.value));
        s.appendChild(r);
        x += w;
      });
      var v = svg("text", { x: x + 4, y: y + bar - 5, "class": "lbl" });
      v.textContent = it.text !== undefined ? it.text : (o.fmt || fmtTime)(it.value);
      s.appendChild(v);
    });
    return s;
  }

  // curve: step lines of series [{name, color, points: [[x, y], ...]}] over a shared x axis.
  function curve(series, o) {
    var width = o.width || 900, height = o.height || 260, l = 70, r = 40, t = 10, b = 26;
    var s = svg("svg", { width: width, height: height, viewBox: "0 0 " + width + " " + height, role: "img", "class": "curve" });
    var x0 = Infinity, x1 = -Infinity, y1 = 0;
    series.forEach(function (se) {
      se.points.forEach(function (p) { x0 = Math.min(x0, p[0]); x1 = Math.max(x1, p[0]); y1 = Math.max(y1, p[1]); });
    });
    if (!(x1 > x0)) { x1 = x0 + 1; }
    if (!(y1 > 0)) y1 = 1;
    var X = function (v) { return l + (width - l - r) * (v - x0) / (x1 - x0); };
    var Y = function (v) { return height - b - (height - t - b) * v / y1; };
    for (var g = 0; g <= 4; g++) {
      var yv = y1 * g / 4;
      s.appendChild(svg("line", { x1: l, x2: width - r, y1: Y(yv), y2: Y(yv), "class": "grid" }));
      var ty = svg("text", { x: l - 4, y: Y(yv) + 4, "text-anchor": "end", "class": "lbl" });
      ty.textContent = o.fmtY(yv);
      s.appendChild(ty);
      var xv = x0 + (x1 - x0) * g / 4;
      var tx = svg("text", { x: X(xv), y: height - 8, "text-anchor": "middle", "class": "lbl" });
      tx.textContent = o.fmtX(xv);
      s.appendChild(tx);
    }
    s.appendChild(svg("line", { x1: l, x2: l, y1: t, y2: height - b, "class": "axis" }));
    series.forEach(function (se) {
      var d = "", prev = null;
      se.points.forEach(function (p, i) {
        if (i === 0) d += "M" + X(p[0]).toFixed(1) + "," + Y(p[1]).toFixed(1);
        else d += "H" + X(p[0]).toFixed(1) + "V" + Y(p[1]).toFixed(1);
        prev = p;
      });
      if (prev) d += "H" + X(x1).toFixed(1);
      s.appendChild(title(svg("path", { d: d, fill: "none", stroke: se.color, "stroke-width": 1.5 }), se.name));
    });
    return s;
  }

  // icicle: the op call tree, root on top, each node as wide as its share of the chosen time.
  function icicle(box, tree, metric) {
    var width = 1100, row = 20, focus = tree.root, path = [tree.root];
    var crumb = el("div", { cls: "crumb" });
    var holder = el("div");
    box.appendChild(crumb);
    box.appendChild(holder);
    function val(n) { return metric() === "device" ? n.device_ns : n.cpu_ns; }
    function depth(n) { var d = 0; (n.children || []).forEach(function (c) { d = Math.max(d, depth(c)); }); return d + 1; }
    function draw() {
      width = Math.max(box.clientWidth || 0, 600);
      holder.textContent = "";
      crumb.textContent = "";
      path.forEach(function (n, i) {
        if (i) crumb.appendChild(document.createTextNode(" \u203A "));
        var a = el("a", { text: i === 0 ? "all" : n.name });
        a.onclick = function () { focus = n; path = path.slice(0, i + 1); draw(); };
        crumb.appendChild(a);
      });
      var total = val(focus);
      crumb.appendChild(document.createTextNode("  \u2014 " + fmtTime(total / 1000) + " " + (metric() === "device" ? "device" : "CPU") + " time"));
      if (!(total > 0)) { holder.appendChild(why("No " + (metric() === "device" ? "device" : "CPU") + " time under this node.")); return; }
      var rows = Math.min(depth(focus), 40);
      var s = svg("svg", { width: width, height: rows * row, viewBox: "0 0 " + width + " " + rows * row, "class": "flame", role: "img" });
      var count = 0;
      function place(n, x, d, chain) {
        var w = width * val(n) / total;
        if (w < 0.4 || d >= rows) return;
        var hue = n.kernel ? 145 : (n.name.charCodeAt(0) * 37 + n.name.length * 11) % 40 + 10;
        var g = svg("g", { "data-name": n.name });
        var r = svg("rect", { x: x, y: d * row, width: w, height: row - 1, fill: "hsl(" + hue + ",70%," + (n.kernel ? 62 : 66) + "%)",
          "data-cpu": n.cpu_ns, "data-device": n.device_ns });
        title(r, n.name + (n.kernel ? " (device)" : "") + "\nCPU " + fmtTime(n.cpu_ns / 1000) + " (self " + fmtTime(n.self_cpu_ns / 1000) +
          ")\ndevice " + fmtTime(n.device_ns / 1000) + " (self " + fmtTime(n.self_device_ns / 1000) + ")\ncalls " + n.calls);
        r.onclick = function () { focus = n; path = chain; draw(); };
        g.appendChild(r);
        if (w > 40) {
          var t = svg("text", { x: x + 3, y: d * row + 14 });
          var chars = Math.floor((w - 6) / 6.2);
          t.textContent = n.name.length > chars ? n.name.slice(0, Math.max(chars - 1, 1)) + "\u2026" : n.name;
          g.appendChild(t);
        }
        s.appendChild(g);
        count++;
        var cx = x;
        (n.children || []).forEach(function (c) { place(c, cx, d + 1, chain.concat([c])); cx += width * val(c) / total; });
      }
      var x = 0;
      if (focus === tree.root) (focus.children || []).forEach(function (c) { place(c, x, 0, [tree.root, c]); x += width * val(c) / total; });
      else place(focus, 0, 0, path);
      s.setAttribute("data-nodes", count);
      holder.appendChild(s);
    }
    box.redraw = draw;
    draw();
  }

  // sortable, filterable table over rows of objects; cols: {key, label, fmt, get, cls, num}
  function dataTable(box, rows, cols, o) {
    o = o || {};
    var tools = el("div", { cls: "tools" });
    var filter = el("input", { type: "search", placeholder: o.placeholder || "filter by name (substring)", "data-filter": "1" });
    var count = el("span", { cls: "count", "data-count-of": o.id || "" });
    tools.appendChild(filter);
    tools.appendChild(count);
    box.appendChild(tools);
    var wrap = el("div", { cls: "tbl-wrap" });
    var table = el("table", { "data-table": o.id || "" });
    var thead = el("thead"), tbody = el("tbody");
    var hr = el("tr");
    var sortCol = null, dir = 0;
    cols.forEach(function (c, i) {
      var th = el("th", { text: c.label, "data-col": c.key, cls: c.cls || "" });
      if (c.tip) th.title = c.tip;
      th.onclick = function () {
        if (sortCol === i) dir = -dir; else { sortCol = i; dir = c.num === false ? 1 : -1; }
        hr.querySelectorAll("th").forEach(function (h) { h.classList.remove("asc", "desc"); });
        th.classList.add(dir > 0 ? "asc" : "desc");
        render();
      };
      hr.appendChild(th);
    });
    thead.appendChild(hr);
    table.appendChild(thead);
    table.appendChild(tbody);
    wrap.appendChild(table);
    box.appendChild(wrap);
    function get(r, c) { return c.get ? c.get(r) : r[c.key]; }
    function render() {
      var q = filter.value.toLowerCase();
      var shown = rows.filter(function (r) { return !q || (o.text ? o.text(r) : String(r.key)).toLowerCase().indexOf(q) >= 0; });
      if (sortCol !== null) {
        var c = cols[sortCol];
        shown = shown.map(function (r, i) { return [r, i]; });
        shown.sort(function (a, b) {
          var x = get(a[0], c), y = get(b[0], c);
          var d = typeof x === "string" || typeof y === "string" ? String(x).localeCompare(String(y)) : x - y;
          return d !== 0 ? d * dir : a[1] - b[1];
        });
        shown = shown.map(function (p) { return p[0]; });
      }
      var frag = document.createDocumentFragment();
      shown.forEach(function (r) {
        var tr = el("tr", { "data-key": String(r.key) });
        cols.forEach(function (c) {
          var v = get(r, c);
          var td = el("td", { text: c.fmt ? c.fmt(v, r) : String(v), cls: (c.cls || "") + (c.tone ? " " + c.tone(v, r) : "") });
          if (c.cls === "name") td.title = String(v);
          td.setAttribute("data-col", c.key);
          td.setAttribute("data-v", typeof v === "object" ? JSON.stringify(v) : String(v));
          tr.appendChild(td);
        });
        frag.appendChild(tr);
      });
      tbody.textContent = "";
      tbody.appendChild(frag);
      count.textContent = shown.length + " of " + rows.length + " rows";
      count.setAttribute("data-shown", shown.length);
    }
    filter.oninput = render;
    render();
  }

  // ---- views ----
  var T = D.table, S = T && T.summary, DEV = S && S.device ? S.device.toUpperCase() : "";

  function opCols(memory) {
    var tot = T.self_cpu_time_total, dtot = T.self_device_time_total;
    var c = [
      { key: "key", label: "Name", cls: "name", num: false },
      { key: "self_cpu_time_total", label: "Self CPU", fmt: fmtTime },
      { key: "self_cpu_pct", label: "Self CPU %", get: function (r) { return tot ? r.self_cpu_time_total * 100 / tot : 0; }, fmt: function (v, r) { return fmtPct(r.self_cpu_time_total, tot); } },
      { key: "cpu_time_total", label: "CPU total", fmt: fmtTime },
      { key: "cpu_time", label: "CPU time avg", fmt: fmtTime }
    ];
    if (DEV) {
      c.push({ key: "self_device_time_total", label: "Self " + DEV, fmt: fmtTime });
      c.push({ key: "self_device_pct", label: "Self " + DEV + " %", get: function (r) { return dtot ? r.self_device_time_total * 100 / dtot : 0; }, fmt: function (v, r) { return fmtPct(r.self_device_time_total, dtot); } });
      c.push({ key: "device_time_total", label: DEV + " total", fmt: fmtTime });
      c.push({ key: "device_time", label: DEV + " time avg", fmt: fmtTime });
    }
    if (memory) {
      c.push({ key: "cpu_memory_usage", label: "CPU Mem", fmt: fmtMem });
      c.push({ key: "self_cpu_memory_usage", label: "Self CPU Mem", fmt: fmtMem });
      if (DEV) {
        c.push({ key: "device_memory_usage", label: DEV + " Mem", fmt: fmtMem });
        c.push({ key: "self_device_memory_usage", label: "Self " + DEV + " Mem", fmt: fmtMem });
      }
    }
    c.push({ key: "count", label: "# of Calls", fmt: fmtInt });
    if (S.group_by_input_shape) c.push({ key: "input_shapes", label: "Input Shapes", cls: "name", num: false });
    if (S.group_by_stack_n > 0) c.push({ key: "stack", label: "Source Location", cls: "name", num: false, get: function (r) { return (r.stack || []).join("\n"); } });
    if (S.ranks.length > 1) {
      c.push({ key: "ranks", label: "Ranks", fmt: fmtInt });
    }
    return c;
  }

  function topRows(field, n) {
    // User annotations (ProfilerStep*, record_function ranges) span the operators they hold.
    return T.rows.filter(function (r) { return r[field] > 0 && !r.is_user_annotation; })
      .map(function (r, i) { return [r, i]; })
      .sort(function (a, b) { return b[0][field] - a[0][field] || a[1] - b[1]; })
      .slice(0, n).map(function (p) { return p[0]; });
  }

  function viewOverview(sec) {
    if (!T) { sec.appendChild(why(D.why.overview)); return; }
    var cards = el("div", { cls: "cards" });
    cards.appendChild(card("Self CPU time total", fmtTime(T.self_cpu_time_total), "self_cpu_time_total"));
    if (DEV) cards.appendChild(card("Self " + DEV + " time total", fmtTime(T.self_device_time_total), "self_device_time_total"));
    cards.appendChild(card("Operators (rows)", String(T.rows.length), "rows"));
    cards.appendChild(card("Ranks", String(S.ranks.length), "ranks"));
    sec.appendChild(cards);
    sec.appendChild(h2("Step-time breakdown (the TensorBoard plugin's categories)"));
    if (D.steps && D.steps.ranks.length && D.steps.ranks[0].steps && D.steps.ranks[0].steps.length) drawSteps(sec, D.steps);
    else sec.appendChild(why(D.why.breakdown || "This trace has no host ops to make steps of."));
    var tl = D.timeline;
    sec.appendChild(h2("Device timeline (orprof timeline)"));
    if (tl && tl.breakdown && tl.breakdown.length) drawTimeline(sec, tl);
    else sec.appendChild(why(D.why.timeline || "This trace has no device work: the device timeline is empty."));
    sec.appendChild(h2("Findings"));
    var f = (tl && tl.findings ? tl.findings.map(function (x) { return { id: "timeline-" + x.view, text: (x.rank >= 0 && tl.ranks.length > 1 ? "rank " + x.rank + ": " : "") + x.text }; }) : []).concat(D.findings || []);
    if (f.length) {
      sec.appendChild(el("ul", { cls: "findings" }, f.map(function (x) { return el("li", { text: x.text, "data-finding": x.id || "" }); })));
    } else sec.appendChild(why(D.why.findings));
    var cpu = topRows("self_cpu_time_total", 10);
    sec.appendChild(h2("Top operators by self CPU time (user annotations left out)"));
    sec.appendChild(hbars(cpu.map(function (r) { return { label: r.key, value: r.self_cpu_time_total, text: fmtTime(r.self_cpu_time_total) + "  " + fmtPct(r.self_cpu_time_total, T.self_cpu_time_total) }; }), { cls: "top-cpu" }));
    if (DEV) {
      var dev = topRows("self_device_time_total", 10);
      sec.appendChild(h2("Top by self " + DEV + " time (user annotations left out)"));
      if (dev.length) sec.appendChild(hbars(dev.map(function (r) { return { label: r.key, value: r.self_device_time_total, text: fmtTime(r.self_device_time_total) + "  " + fmtPct(r.self_device_time_total, T.self_device_time_total) }; }), { cls: "top-device", color: PALETTE[1] }));
      else sec.appendChild(why("No row has self " + DEV + " time."));
    }
  }

  // drawSteps: the plugin's step-time breakdown, per step and on average, for each rank.
  function drawSteps(sec, st) {
    st.ranks.forEach(function (rk) {
      var show = st.categories.map(function (c, i) { return i; }).filter(function (i) {
        var name = st.categories[i];
        if (name === "Communication") return rk.has_communication;
        if (name === "Kernel" || name === "Memcpy" || name === "Memset" || name === "Runtime") return rk.has_device;
        return true;
      });
      var colors = {};
      show.forEach(function (i, k) { colors[i] = PALETTE[k % PALETTE.length]; });
      sec.appendChild(legend(show.map(function (i) { return { label: st.categories[i], color: colors[i] }; })));
      var items = rk.steps.map(function (s) {
        return { label: "step " + s.name, value: s.total_ns, text: fmtTime(s.total_ns / 1000),
          parts: show.map(function (i) { return { name: st.categories[i], value: s.ns[i], color: colors[i] }; }) };
      });
      items.push({ label: "average", value: rk.average_total_ns, text: fmtTime(rk.average_total_ns / 1000),
        parts: show.map(function (i) { return { name: st.categories[i], value: rk.average_ns[i], color: colors[i] }; }) });
      sec.appendChild(hbars(items, { cls: "tb-steps", fmt: function (ns) { return fmtTime(ns / 1000); } }));
      var avg = el("table", { "data-table": "steps-average" });
      var hr = el("tr"), vr = el("tr"), pr = el("tr");
      show.forEach(function (i) {
        hr.appendChild(el("th", { text: st.categories[i] }));
        vr.appendChild(el("td", { text: fmtTime(rk.average_ns[i] / 1000), "data-v": String(rk.average_ns[i]) }));
        pr.appendChild(el("td", { text: fmtPct(rk.average_ns[i], rk.average_total_ns) }));
      });
      avg.appendChild(el("thead", {}, [hr]));
      avg.appendChild(el("tbody", {}, [vr, pr]));
      var wrap = el("div", { cls: "tbl-wrap" }, [avg]);
      wrap.style.maxWidth = "70em";
      sec.appendChild(wrap);
    });
  }

  // drawTimeline: each rank's device window split by priority, its steps', and idle by cause.
  function drawTimeline(sec, tl) {
    var EX = [["compute_ns", "computation"], ["communication_ns", "communication"], ["memory_ns", "memory"], ["other_ns", "other work"], ["idle_ns", "idle"]];
    var colors = [PALETTE[0], PALETTE[3], PALETTE[2], PALETTE[5], "#c8ccd4"];
    var cards = el("div", { cls: "cards" });
    tl.breakdown.forEach(function (b) {
      cards.appendChild(card((tl.ranks.length > 1 ? "rank " + b.rank + " " : "") + "device busy", fmtPct(b.busy_ns, b.total_ns) + " of " + fmtTime(b.total_ns / 1000), "busy-" + b.rank));
    });
    (tl.overlap || []).forEach(function (o) {
      if (o.communication_ns > 0) cards.appendChild(card("communication under computation", fmtPct(o.overlap_ns, o.communication_ns), "overlap-" + o.rank));
    });
    sec.appendChild(cards);
    sec.appendChild(legend(EX.map(function (x, i) { return { label: x[1], color: colors[i] }; })));
    var items = [];
    tl.breakdown.forEach(function (b) {
      items.push({ label: (tl.ranks.length > 1 ? "rank " + b.rank + " " : "") + "whole window", value: b.total_ns, text: fmtTime(b.total_ns / 1000),
        parts: EX.map(function (x, i) { return { name: x[1], value: b.exclusive[x[0]], color: colors[i] }; }) });
    });
    (tl.steps || []).forEach(function (rs) {
      (rs.steps || []).forEach(function (st) {
        items.push({ label: (tl.ranks.length > 1 ? "rank " + rs.rank + " " : "") + "step " + st.step, value: st.times.total_ns, text: fmtTime(st.times.total_ns / 1000),
          parts: EX.map(function (x, i) { return { name: x[1], value: st.times.exclusive[x[0]], color: colors[i] }; }) });
      });
    });
    sec.appendChild(hbars(items.slice(0, 60), { cls: "timeline", fmt: function (ns) { return fmtTime(ns / 1000); } }));
    var idle = (tl.idle || []).filter(function (s) { return s.idle_ns > 0; });
    if (idle.length) {
      sec.appendChild(h2("Idle time by cause, per stream"));
      var IC = [["host_wait_ns", "waiting for the host to launch"], ["kernel_wait_ns", "between back-to-back kernels"], ["other_ns", "other (sync, dependencies)"]];
      var ic = [PALETTE[1], PALETTE[4], "#9aa3b2"];
      sec.appendChild(legend(IC.map(function (x, i) { return { label: x[1], color: ic[i] }; })));
      sec.appendChild(hbars(idle.slice(0, 40).map(function (s) {
        return { label: (tl.ranks.length > 1 ? "rank " + s.rank + " " : "") + "device " + s.device + " stream " + s.stream, value: s.idle_ns,
          text: fmtTime(s.idle_ns / 1000) + " of " + fmtTime(s.span_ns / 1000),
          parts: IC.map(function (x, i) { return { name: x[1], value: s[x[0]], color: ic[i] }; }) };
      }), { cls: "idle", fmt: function (ns) { return fmtTime(ns / 1000); } }));
    }
  }

  function viewOperators(sec) {
    if (!T) { sec.appendChild(why(D.why.operators)); return; }
    sec.appendChild(h2("Op tree (icicle)"));
    if (!D.flame) sec.appendChild(why(D.why.flame));
    else {
      var tools = el("div", { cls: "tools" });
      var m = D.flame.root.device_ns > 0 && DEV ? "device" : "cpu";
      ["cpu", "device"].forEach(function (k) {
        var r = el("input", { type: "radio", name: "flame-metric", value: k, "data-metric": k });
        if (k === m) r.checked = true;
        r.onchange = function () { m = k; fb.redraw(); };
        tools.appendChild(el("label", {}, [r, document.createTextNode(k === "cpu" ? " CPU time " : " device time ")]));
      });
      tools.appendChild(el("span", { cls: "count", text: "click a node to zoom in; the path above zooms out; hover for its figures" }));
      sec.appendChild(tools);
      var fb = el("div", { "data-flame": "1" });
      sec.appendChild(fb);
      icicle(fb, D.flame, function () { return m; });
    }
    sec.appendChild(h2("Operators (orprof table)"));
    var box = el("div");
    sec.appendChild(box);
    dataTable(box, T.rows, opCols(S.profile_memory), { id: "ops" });
  }

  // viewKernels: the kernel view's summary (orprof kernels --format json) and its device
  // time by category.
  function viewKernels(sec) {
    var K = D.kernels;
    if (!K || !K.doc || !K.doc.kernels || !K.doc.kernels.length) { sec.appendChild(why(D.why.kernels || "This trace has no device work.")); return; }
    var doc = K.doc;
    var cards = el("div", { cls: "cards" });
    cards.appendChild(card("Device time", fmtTime(doc.device_us), "kernels-device"));
    cards.appendChild(card("Kernels, copies, fills", String(doc.kernels.length), "kernels-rows"));
    sec.appendChild(cards);
    if (K.categories && K.categories.length) {
      sec.appendChild(h2("Device time by category"));
      sec.appendChild(hbars(K.categories.map(function (c, i) {
        return { label: c.name, value: c.total_us, color: PALETTE[i % PALETTE.length], text: fmtTime(c.total_us) + "  " + fmtPct(c.total_us, doc.device_us) };
      }), { cls: "kcats" }));
    }
    sec.appendChild(h2("Kernels (orprof kernels)"));
    var box = el("div");
    sec.appendChild(box);
    var rows = doc.kernels.map(function (k) {
      return { key: k.name, kind: k.kind, category: k.category, calls: k.calls, total_us: k.total_us, percent_of_device: k.percent_of_device,
        mean_us: k.mean_us, median_us: k.median_us, min_us: k.min_us, max_us: k.max_us, std_us: k.std_us, op: k.op || "", ops: k.ops,
        streams: (k.streams || []).map(function (s) { return s.device + ":" + s.stream; }).join(" ") };
    });
    dataTable(box, rows, [{ key: "key", label: "Kernel", cls: "name", num: false }, { key: "kind", label: "Kind", num: false },
      { key: "category", label: "Category", num: false }, { key: "calls", label: "Calls" },
      { key: "total_us", label: "Total", fmt: fmtTime }, { key: "percent_of_device", label: "% of device", fmt: function (v) { return v.toFixed(2) + "%"; } },
      { key: "mean_us", label: "Mean", fmt: fmtTime }, { key: "median_us", label: "Median", fmt: fmtTime },
      { key: "min_us", label: "Min", fmt: fmtTime }, { key: "max_us", label: "Max", fmt: fmtTime }, { key: "std_us", label: "Std", fmt: fmtTime },
      { key: "streams", label: "Streams", num: false }, { key: "op", label: "Launched by", cls: "name", num: false }, { key: "ops", label: "# ops" }],
      { id: "kernels", text: function (r) { return r.key + " " + r.category + " " + r.op; } });
  }

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

  var VIEWS = [["overview", "Overview", viewOverview], ["operators", "Operators", viewOperators], ["kernels", "Kernels", viewKernels],
    ["memory", "Memory", viewMemory], ["ranks", "Ranks", viewRanks], ["diff", "Diff", viewDiff]];
  var nav = document.getElementById("nav"), main = document.getElementById("main");
  var built = {};
  function show(id) {
    VIEWS.forEach(function (v) {
      var sec = document.getElementById("v-" + v[0]);
      var on = v[0] === id;
      sec.classList.toggle("on", on);
      document.getElementById("t-" + v[0]).classList.toggle("on", on);
      if (on && !built[id]) { built[id] = true; v[2](sec); sec.setAttribute("data-ready", "1"); }
    });
  }
  VIEWS.forEach(function (v) {
    var b = el("button", { id: "t-" + v[0], text: v[1], "data-view": v[0] });
    if (D.empty && D.empty[v[0]]) b.classList.add("empty");
    b.onclick = function () { location.hash = v[0]; };
    nav.appendChild(b);
    main.appendChild(el("section", { id: "v-" + v[0] }));
  });
  function fromHash() {
    var id = location.hash.replace("#", "");
    show(VIEWS.some(function (v) { return v[0] === id; }) ? id : (D.start || "overview"));
  }
  window.addEventListener("hashchange", fromHash);
  fromHash();
  document.body.setAttribute("data-render-ms", String(performance.now()));
  document.body.setAttribute("data-rendered", "1");
})();
