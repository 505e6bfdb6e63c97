  VIEWS.sort(function (a, b) { return a[3] - b[3]; });
  var nav = document.getElementById("nav"), main = document.getElementById("main");
  var built = {};
  function show(id) {
    VIEWS.forEach(function (v) {
      var sec = document.getElementById("v-" + v[0]);
      var on = v[0] === id;
      sec.classList.toggle("on", on);
      document.getElementById("t-" + v[0]).classList.toggle("on", on);
      if (on && !built[id]) {
        built[id] = true;
        if (D.diff && id !== "diff") sec.appendChild(diffSide());
        v[2](sec);
        sec.setAttribute("data-ready", "1");
      }
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
