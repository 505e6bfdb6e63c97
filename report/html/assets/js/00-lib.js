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
  // textWidth: the width in px of s drawn in the charts' font (svg text: 11px system-ui),
  // measured on a canvas that is never shown.
  var measureCtx = null;
  function textWidth(s, px) {
    if (measureCtx === null) {
      measureCtx = document.createElement("canvas").getContext("2d") || false;
    }
    if (!measureCtx) return String(s).length * (px || 11) * 0.6;
    measureCtx.font = (px || 11) + 'px system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif';
    return measureCtx.measureText(String(s)).width;
  }
  // elideTo: s cut to fit px (an ellipsis at the end); s itself when it fits.
  function elideTo(s, px) {
    s = String(s);
    if (textWidth(s) <= px) return s;
    var lo = 1, hi = s.length;
    while (lo < hi) {
      var mid = (lo + hi + 1) >> 1;
      if (textWidth(s.slice(0, mid) + "\u2026") <= px) lo = mid; else hi = mid - 1;
    }
    return s.slice(0, lo) + "\u2026";
  }
  // cutNote: the line under a list or chart that shows `shown` of `total` rows, saying how
  // many it left out and where they all are; null when nothing was left out.
  function cutNote(shown, total, what, where) {
    if (total <= shown) return null;
    var n = total - shown;
    var e = el("div", { cls: "cut", "data-cut": String(n), text: n + " more " + (what || "rows") + " not shown (" + shown + " of " + total + ")" + (where ? "; see " + where : "") + "." });
    e.style.color = "#5b6472";
    e.style.fontSize = "12px";
    e.style.margin = "2px 0 8px";
    return e;
  }
  // addCut appends to box the chart of the first n items and cutNote's line for the rest.
  function addCut(box, items, n, draw, what, where) {
    box.appendChild(draw(items.slice(0, n)));
    var c = cutNote(Math.min(n, items.length), items.length, what, where);
    if (c) box.appendChild(c);
  }
  // rowKind: what a table row is, telling same-named rows apart: an operator, a kernel (or
  // copy, fill: a device row), or a user annotation, on which device, and whether its device
  // time is PyTorch's legacy per-op device time.
  function rowKind(r) {
    var dev = r.device_type ? (DEV || "device") : "CPU";
    var k = r.is_user_annotation ? "user annotation" : r.device_type ? "kernel" : "op";
    return k + " \u00b7 " + dev + (r.is_legacy ? " \u00b7 legacy" : "");
  }

  // ---- charts (SVG) ----
  // hbars: one horizontal bar per item, or stacked segments when item.parts is set. The label
  // column is as wide as the widest label (up to o.maxLabel px; longer labels are elided, the
  // full label in their <title>) and the value column as wide as the widest value text.
  function hbars(items, o) {
    o = o || {};
    var width = o.width || 900, bar = o.bar || 18, gap = 6;
    var vfmt = o.fmt || fmtTime;
    var texts = items.map(function (it) { return it.text !== undefined ? it.text : vfmt(it.value); });
    var lw = 40, rw = 60;
    items.forEach(function (it, i) {
      lw = Math.max(lw, textWidth(it.label) + 12);
      rw = Math.max(rw, textWidth(texts[i]) + 14);
    });
    lw = Math.min(Math.ceil(lw), o.maxLabel || 380);
    rw = Math.ceil(rw);
    if (width - lw - rw < 200) width = lw + rw + 200;
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
      t.textContent = vfmt(max * g / 4);
      s.appendChild(t);
    }
    items.forEach(function (it, i) {
      var y = i * (bar + gap) + 2;
      var lab = svg("text", { x: lw - 6, y: y + bar - 5, "text-anchor": "end", "data-label": it.label });
      lab.textContent = elideTo(it.label, lw - 10);
      title(lab, it.label);
      s.appendChild(lab);
      var x = lw, parts = it.parts || [{ value: Math.abs(it.value), color: it.color || o.color || PALETTE[0], name: "" }];
      parts.forEach(function (p) {
        var w = max > 0 ? plot * Math.max(p.value, 0) / max : 0;
        var r = svg("rect", { x: x, y: y, width: Math.max(w, 0), height: bar, fill: p.color, "data-v": p.value });
        title(r, it.label + (p.name ? " \u2014 " + p.name : "") + ": " + vfmt(p.value));
        s.appendChild(r);
        x += w;
      });
      var v = svg("text", { x: x + 4, y: y + bar - 5, "class": "lbl", "data-value": "1" });
      v.textContent = texts[i];
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
      var levels = depth(focus), rows = Math.min(levels, 40);
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
      var c = cutNote(rows, levels, "levels", "a node deeper down: click it to zoom in");
      if (c) holder.appendChild(c);
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
    if (o.sort) {
      // The default order: o.sort's column, o.sortDir (-1 descending, the default; 1 ascending).
      cols.forEach(function (c, i) { if (c.key === o.sort) sortCol = i; });
      if (sortCol !== null) {
        dir = o.sortDir || -1;
        hr.children[sortCol].classList.add(dir > 0 ? "asc" : "desc");
        table.setAttribute("data-sorted", o.sort);
      }
    }
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
  // Each view file adds its entry: [id, label, build, order]; the tabs follow order.
  var VIEWS = [];
  var T = D.table, S = T && T.summary, DEV = S && S.device ? S.device.toUpperCase() : "";

  function opCols(memory) {
    var tot = T.self_cpu_time_total, dtot = T.self_device_time_total;
    var c = [
      { key: "key", label: "Name", cls: "name", num: false },
      { key: "kind", label: "Kind", num: false, get: rowKind, tip: "op, kernel (a device row) or user annotation; the device; legacy: PyTorch's per-op device time" },
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
