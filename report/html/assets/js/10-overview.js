  function viewOverview(sec) {
    if (!T) { sec.appendChild(why(D.why.overview)); return; }
    var cards = el("div", { cls: "cards" });
    cards.appendChild(card("Self CPU time total", fmtTime(T.self_cpu_time_total), "self_cpu_time_total"));
    if (DEV) cards.appendChild(card("Self " + DEV + " time total", fmtTime(T.self_device_time_total), "self_device_time_total"));
    cards.appendChild(card("Operators (rows)", String(T.rows.length), "rows"));
    cards.appendChild(card("Ranks", String(S.ranks.length), "ranks"));
    var K = D.kernels;
    if (K && K.unlinked_ns > 0 && K.device_ns > 0) {
      // The CLI warns about it: device time no operator launched is in no operator's row.
      cards.appendChild(card("Device time no operator launched", fmtPct(K.unlinked_ns, K.device_ns) + " (" + fmtTime(K.unlinked_ns / 1000) + ")", "unlinked"));
    }
    sec.appendChild(cards);
    if (K && K.unlinked_ns > 0 && K.device_ns > 0) {
      sec.appendChild(el("div", { cls: "sub", "data-note": "unlinked", text: fmtPct(K.unlinked_ns, K.device_ns) + " of the device time (" + fmtTime(K.unlinked_ns / 1000) + " of " + fmtTime(K.device_ns / 1000) +
        ") reached no operator: the Kernels view counts it, the operators' device columns do not (orprof table warns about it)." }));
    }
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
    var cpu = topRows("self_cpu_time_total", Infinity);
    sec.appendChild(h2("Top operators by self CPU time (user annotations left out)"));
    addCut(sec, cpu, 10, function (rows) {
      return hbars(rows.map(function (r) { return { label: r.key, value: r.self_cpu_time_total, text: fmtTime(r.self_cpu_time_total) + "  " + fmtPct(r.self_cpu_time_total, T.self_cpu_time_total) }; }), { cls: "top-cpu" });
    }, "rows with self CPU time", "the Operators view");
    if (DEV) {
      // Operators and kernels apart: an operator's self device time is its kernels' time, so
      // the two lists count the same time twice; each list's shares are of its own total.
      var devRows = topRows("self_device_time_total", Infinity);
      var ops = devRows.filter(function (r) { return !r.device_type; }), kern = devRows.filter(function (r) { return r.device_type; });
      var sum = function (rows) { return rows.reduce(function (a, r) { return a + r.self_device_time_total; }, 0); };
      var opsTotal = sum(ops), kernTotal = sum(kern);
      sec.appendChild(h2("Top operators by self " + DEV + " time (shares of the operators' " + fmtTime(opsTotal) + ")"));
      if (ops.length) addCut(sec, ops, 10, function (rows) {
        return hbars(rows.map(function (r) { return { label: r.key, value: r.self_device_time_total, text: fmtTime(r.self_device_time_total) + "  " + fmtPct(r.self_device_time_total, opsTotal) }; }), { cls: "top-device", color: PALETTE[1] });
      }, "operators with self " + DEV + " time", "the Operators view");
      else sec.appendChild(why("No operator has self " + DEV + " time" + (kern.length ? ": the device time reached no operator." : ".")));
      if (kern.length) {
        sec.appendChild(h2("Top kernels by " + DEV + " time (shares of the kernels' " + fmtTime(kernTotal) + ")"));
        addCut(sec, kern, 10, function (rows) {
          return hbars(rows.map(function (r) { return { label: r.key, value: r.self_device_time_total, text: fmtTime(r.self_device_time_total) + "  " + fmtPct(r.self_device_time_total, kernTotal) }; }), { cls: "top-kernels", color: PALETTE[2] });
        }, "kernels", "the Kernels view");
      }
    }
  }

  // drawSteps: the plugin's step-time breakdown, per step and on average, for each rank.
  function drawSteps(sec, st) {
    var MAXR = 16; // ranks drawn; the Ranks view and orprof timeline have them all
    st.ranks.slice(0, MAXR).forEach(function (rk) {
      if (st.ranks.length > 1) sec.appendChild(el("h3", { text: "rank " + rk.rank + (rk.trace ? " \u00b7 " + rk.trace : ""), "data-steps-rank": String(rk.rank) }));
      if (!rk.has_device && DEV && T && T.self_device_time_total > 0) {
        // Fallback mode (PyTorch's legacy device events): device time per op, no device
        // timeline, so no step has device time to show; say so rather than draw steps idle.
        sec.appendChild(el("div", { cls: "why", "data-note": "steps-host-only", text: "These steps show host time only: the profile's " + fmtTime(T.self_device_time_total) +
          " of self " + DEV + " time was recorded per operator (legacy device events, as orprof run's default fallback mode records it), with no device timeline to place it in steps. The Operators view has it per operator." }));
      }
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
    var c = cutNote(Math.min(MAXR, st.ranks.length), st.ranks.length, "ranks' step breakdowns", "orprof report --format json (its steps) or orprof timeline");
    if (c) sec.appendChild(c);
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
      if (o.communication_ns > 0) cards.appendChild(card((tl.ranks.length > 1 ? "rank " + o.rank + " " : "") + "communication under computation", fmtPct(o.overlap_ns, o.communication_ns), "overlap-" + o.rank));
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
    addCut(sec, items, 60, function (its) { return hbars(its, { cls: "timeline", fmt: function (ns) { return fmtTime(ns / 1000); } }); }, "bars (windows and steps)", "orprof timeline");
    var idle = (tl.idle || []).filter(function (s) { return s.idle_ns > 0; });
    if (idle.length) {
      sec.appendChild(h2("Idle time by cause, per stream"));
      var IC = [["host_wait_ns", "waiting for the host to launch"], ["kernel_wait_ns", "between back-to-back kernels"], ["other_ns", "other (sync, dependencies)"]];
      var ic = [PALETTE[1], PALETTE[4], "#9aa3b2"];
      sec.appendChild(legend(IC.map(function (x, i) { return { label: x[1], color: ic[i] }; })));
      addCut(sec, idle, 40, function (idle) { return hbars(idle.map(function (s) {
        return { label: (tl.ranks.length > 1 ? "rank " + s.rank + " " : "") + "device " + s.device + " stream " + s.stream, value: s.idle_ns,
          text: fmtTime(s.idle_ns / 1000) + " of " + fmtTime(s.span_ns / 1000),
          parts: IC.map(function (x, i) { return { name: x[1], value: s[x[0]], color: ic[i] }; }) };
      }), { cls: "idle", fmt: function (ns) { return fmtTime(ns / 1000); } }); }, "streams with idle time", "orprof timeline");
    }
  }

  VIEWS.push(["overview", "Overview", viewOverview, 10]);
