// synapse-graph inspector: the theme toggle, the as-of slider's label and the graph drawing.
// Served from the package under a Content-Security-Policy that allows no inline script.
(function () {
  "use strict";
  var root = document.documentElement;
  var stored = null;
  try { stored = window.localStorage.getItem("synapse-theme"); } catch (e) { stored = null; }
  if (stored === "light" || stored === "dark") { root.setAttribute("data-theme", stored); }

  function currentTheme() {
    var chosen = root.getAttribute("data-theme");
    if (chosen) { return chosen; }
    return window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  }

  function css(name) {
    return window.getComputedStyle(root).getPropertyValue(name).trim();
  }

  function timeText(seconds) {
    var d = new Date(Number(seconds) * 1000);
    return d.toISOString().replace("T", " ").replace(/:\d\d\.\d{3}Z$/, "").replace(/ 00:00$/, "");
  }

  function validity(edge) {
    var start = edge.valid_at.slice(0, 10);
    return edge.invalid_at ? "[" + start + " → " + edge.invalid_at.slice(0, 10) + ")" : "[" + start + " → now]";
  }

  var graph = null;

  function drawGraph() {
    var box = document.getElementById("cy");
    if (!box || typeof window.cytoscape !== "function") { return; }
    fetch(box.getAttribute("data-src"), { credentials: "same-origin", headers: { "Accept": "application/json" } })
      .then(function (answer) { return answer.json(); })
      .then(function (view) {
        var elements = [];
        view.nodes.forEach(function (n) {
          elements.push({ group: "nodes", data: { id: n.id, label: n.label, centre: n.centre ? 1 : 0 } });
        });
        view.edges.forEach(function (e) {
          elements.push({ group: "edges", data: { id: e.id, source: e.source, target: e.target,
            label: e.predicate + "\n" + validity(e), status: e.status } });
        });
        if (graph) { graph.destroy(); }
        graph = window.cytoscape({
          container: box,
          elements: elements,
          style: [
            { selector: "node", style: { "label": "data(label)", "background-color": css("--accent"),
              "color": css("--fg"), "font-size": 11, "text-valign": "bottom", "text-margin-y": 4,
              "width": 18, "height": 18 } },
            { selector: "node[centre = 1]", style: { "background-color": css("--accent-strong"), "width": 26, "height": 26 } },
            { selector: "edge", style: { "label": "data(label)", "curve-style": "bezier", "target-arrow-shape": "triangle",
              "line-color": css("--muted"), "target-arrow-color": css("--muted"), "width": 1.5, "font-size": 9,
              "color": css("--fg"), "text-wrap": "wrap", "text-background-color": css("--bg"),
              "text-background-opacity": 0.85 } },
            { selector: "edge[status = 'disputed']", style: { "line-style": "dashed" } }
          ],
          layout: { name: "concentric", concentric: function (node) { return node.data("centre") ? 2 : 1; },
            levelWidth: function () { return 1; }, minNodeSpacing: 70, animate: false, padding: 40 },
          maxZoom: 1.6
        });
        window.synapseGraph = graph;
        box.setAttribute("data-drawn", String(view.edges.length));
      })
      .catch(function (problem) { box.setAttribute("data-error", String(problem)); });
  }

  document.addEventListener("DOMContentLoaded", function () {
    var toggle = document.getElementById("theme-toggle");
    if (toggle) {
      toggle.addEventListener("click", function () {
        var next = currentTheme() === "dark" ? "light" : "dark";
        root.setAttribute("data-theme", next);
        try { window.localStorage.setItem("synapse-theme", next); } catch (e) { /* private mode */ }
        drawGraph();
      });
    }
    document.body.addEventListener("input", function (event) {
      if (event.target && event.target.id === "as-of") {
        var shown = document.getElementById("as-of-shown");
        if (shown) { shown.textContent = timeText(event.target.value); }
      }
    });
    drawGraph();
  });
})();
