  // The Code view: orprof code's attribution by nn.Module (a collapsible tree of the module
  // paths, exclusive and inclusive) and by source line (a table), forward and backward; then
  // by phase (orprof code --by phase) when the trace has phases.
  function viewCode(sec) {
    var C = D.code;
    sec.appendChild(h2("Time by nn.Module"));
    if (!C) { sec.appendChild(why(D.why.code)); return; }
    var ns = function (v) { return fmtTime(v / 1000); };
    if (C.module) codeTree(sec, C.module, ns); else sec.appendChild(why("No module view: " + C.module_reason));
    sec.appendChild(h2("Time by source line"));
    if (!C.line) sec.appendChild(why("No line view: " + C.line_reason));
    else {
      var box = el("div");
      sec.appendChild(box);
      dataTable(box, C.line.rows.map(codeRow).sort(byTime), codeCols(ns, "Source line"), { id: "code-lines", placeholder: "filter by file or function (substring)" });
      codeWhy(sec, C.line, ns);
    }
    if (C.phase || C.phase_reason) {
      sec.appendChild(h2("Time by phase"));
      if (!C.phase) { sec.appendChild(why(C.phase_reason)); return; }
      sec.appendChild(el("div", { cls: "sub", text: "A phase is the outermost user annotation that holds an op on its thread (ProfilerStep#N aside); backward ops count where they ran." }));
      var pbox = el("div");
      sec.appendChild(pbox);
      dataTable(pbox, C.phase.rows.map(codeRow).sort(byTime), codeCols(ns, "Phase"), { id: "code-phases", placeholder: "filter by phase (substring)" });
      codeWhy(sec, C.phase, ns);
    }
  }

  // byTime orders rows as orprof code's text does: device time, then CPU time, largest first,
  // then by key.
  function byTime(a, b) {
    return b.device_ns - a.device_ns || b.cpu_ns - a.cpu_ns || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
  }

  // codeRow is a summary row with its totals and top kernel.
  function codeRow(r) {
    var top = "", topNs = -1;
    Object.keys(r.kernels || {}).forEach(function (k) { var v = r.kernels[k]; if (v > topNs || v === topNs && k < top) { top = k; topNs = v; } });
    return { key: r.key, calls: r.calls, fwd_cpu_ns: r.fwd_cpu_ns, fwd_device_ns: r.fwd_device_ns, bwd_cpu_ns: r.bwd_cpu_ns,
      bwd_device_ns: r.bwd_device_ns, cpu_ns: r.fwd_cpu_ns + r.bwd_cpu_ns, device_ns: r.fwd_device_ns + r.bwd_device_ns, top: top };
  }

  // codeCols are the columns of a table of rows keyed by label ("Module": with the
  // inclusive columns).
  function codeCols(ns, label) {
    var inclusive = label === "Module";
    var c = [{ key: "key", label: label, cls: "name", num: false }, { key: "calls", label: "Calls" },
      { key: "fwd_cpu_ns", label: "Fwd CPU", fmt: ns }, { key: "fwd_device_ns", label: "Fwd device", fmt: ns },
      { key: "bwd_cpu_ns", label: "Bwd CPU", fmt: ns }, { key: "bwd_device_ns", label: "Bwd device", fmt: ns }];
    if (inclusive) c.push({ key: "incl_cpu_ns", label: "Incl. CPU", fmt: ns }, { key: "incl_device_ns", label: "Incl. device", fmt: ns });
    c.push({ key: "top", label: "Top kernel", cls: "name", num: false });
    return c;
  }

  // codeTree draws the module paths as a tree: a node per path prefix, its own (exclusive)
  // figures where a row has the path, and its subtree's (inclusive) totals; a node's
  // button folds its subtree.
  function codeTree(sec, S, ns) {
    var nodes = {}, roots = [];
    function node(path) {
      if (nodes[path]) return nodes[path];
      var i = path.lastIndexOf("/");
      var n = { key: path, name: i < 0 ? path : path.slice(i + 1), children: [], row: null, incl_cpu_ns: 0, incl_device_ns: 0,
        parent: i < 0 || path.charAt(0) === "(" ? null : node(path.slice(0, i)) };
      nodes[path] = n;
      (n.parent ? n.parent.children : roots).push(n);
      return n;
    }
    S.rows.forEach(function (r) {
      var n = node(r.key);
      n.row = codeRow(r);
      for (var p = n; p; p = p.parent) { p.incl_cpu_ns += n.row.cpu_ns; p.incl_device_ns += n.row.device_ns; }
    });
    var order = function (a, b) { return b.incl_device_ns - a.incl_device_ns || b.incl_cpu_ns - a.incl_cpu_ns || (a.key < b.key ? -1 : 1); };
    var cols = codeCols(ns, "Module");
    var wrap = el("div", { cls: "tbl-wrap" });
    var table = el("table", { "data-table": "code-modules" });
    var hr = el("tr");
    cols.forEach(function (c) { hr.appendChild(el("th", { text: c.label, "data-col": c.key, cls: c.cls || "" })); });
    table.appendChild(el("thead", {}, [hr]));
    var tbody = el("tbody");
    table.appendChild(tbody);
    wrap.appendChild(table);
    function add(n, depth, hidden) {
      var tr = el("tr", { "data-key": n.key, "data-depth": String(depth) });
      if (n.row) tr.setAttribute("data-row", "1");
      if (hidden) tr.style.display = "none";
      var v = n.row || { calls: 0, fwd_cpu_ns: 0, fwd_device_ns: 0, bwd_cpu_ns: 0, bwd_device_ns: 0, top: "" };
      cols.forEach(function (c) {
        var td;
        if (c.key === "key") {
          td = el("td", { cls: "name" });
          td.style.paddingLeft = (4 + 14 * depth) + "px";
          if (n.children.length) {
            var b = el("button", { cls: "fold", text: "▾", "data-fold": n.key, title: "fold or unfold the submodules" });
            b.onclick = function () { fold(n, b); };
            td.appendChild(b);
          }
          td.appendChild(document.createTextNode(" " + n.name));
          td.title = n.key;
        } else {
          var x = c.key === "incl_cpu_ns" || c.key === "incl_device_ns" ? n[c.key] : v[c.key];
          td = el("td", { text: c.fmt ? c.fmt(x) : String(x), cls: c.cls || "" });
        }
        td.setAttribute("data-col", c.key);
        tr.appendChild(td);
      });
      n.tr = tr;
      tbody.appendChild(tr);
      n.children.sort(order).forEach(function (k) { add(k, depth + 1, hidden); });
    }
    function fold(n, b) {
      var open = b.textContent === "▾";
      b.textContent = open ? "▸" : "▾";
      (function walk(m, show) {
        m.children.forEach(function (k) {
          k.tr.style.display = show ? "" : "none";
          var kb = k.tr.querySelector("button.fold");
          walk(k, show && (!kb || kb.textContent === "▾"));
        });
      })(n, !open);
    }
    roots.sort(order).forEach(function (r) { add(r, 0, false); });
    sec.appendChild(el("div", { cls: "sub", text: "Exclusive figures: each op counts for its innermost module; backward ops for the module of the forward op that made them. Incl. adds the submodules'." }));
    sec.appendChild(wrap);
    codeWhy(sec, S, ns);
  }

  // codeWhy says what the none row holds and why, and the device time linked to no op.
  function codeWhy(sec, S, ns) {
    var items = (S.unattributed || []).map(function (u) { return el("li", { text: u.reason + ": " + ns(u.cpu_ns) + " CPU, " + ns(u.device_ns) + " device" }); });
    if (S.unlinked_device_ns > 0) items.push(el("li", { text: "device time linked to no operator by the reader (in no row): " + ns(S.unlinked_device_ns) }));
    if (!items.length) return;
    sec.appendChild(el("div", { cls: "sub", text: "Why unattributed:", "data-why-code": S.by }));
    sec.appendChild(el("ul", { cls: "sub", "data-unattributed": S.by }, items));
  }

  VIEWS.push(["code", "Code", viewCode, 45]);
