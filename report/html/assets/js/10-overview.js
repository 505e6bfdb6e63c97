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

  VIEWS.push(["overview", "Overview", viewOverview, 10]);
