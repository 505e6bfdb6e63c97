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
    var c = cutNote(T.rows.length, T.rows.length + (T.rows_left_out || 0), "operators (those with the least total time)", "orprof table --row-limit -1");
    if (c) sec.appendChild(c);
    if (D.elided_names > 0) {
      sec.appendChild(el("div", { cls: "sub", "data-note": "elided", text: D.elided_names + " names longer than " + D.name_max + " bytes are shortened in this page (their first bytes, \u2026, their length and a digest) to keep it small; orprof table and orprof kernels print them whole." }));
    }
  }

  // viewKernels: the kernel view's summary (orprof kernels --format json) and its device
  // time by category.
  VIEWS.push(["operators", "Operators", viewOperators, 20]);
