  function viewKernels(sec) {
    var K = D.kernels;
    if (!K || !K.doc || !K.doc.kernels || !K.doc.kernels.length) { sec.appendChild(why(D.why.kernels || "This trace has no device work.")); return; }
    var doc = K.doc;
    var cards = el("div", { cls: "cards" });
    cards.appendChild(card("Device time", fmtTime(doc.device_us), "kernels-device"));
    cards.appendChild(card("Kernels, copies, fills", String(doc.kernels.length + (K.left_out || 0)), "kernels-rows"));
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
      { id: "kernels", sort: "total_us", text: function (r) { return r.key + " " + r.category + " " + r.op; } });
    var c = cutNote(doc.kernels.length, doc.kernels.length + (K.left_out || 0), "kernels (those with the least total time; the category chart counts them)", "orprof kernels");
    if (c) sec.appendChild(c);
  }

  VIEWS.push(["kernels", "Kernels", viewKernels, 30]);
