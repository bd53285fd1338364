// The judging pages' search panel (assess/search_panel.py): the page's "search" key (/) presses the toggle button
// like any data-key button, this script opens or closes the panel and focuses the query. Each search carries the
// topic and item the page shows now (data-search-topic / data-search-item, the last element that has them), so
// the log names the item even after the page swapped another one in.
(function () {
  "use strict";
  if (window.assaySearchPanel) return;
  window.assaySearchPanel = true;

  function panel() { return document.getElementById("search-panel"); }

  function toggle(open) {
    var p = panel();
    if (!p) return;
    p.hidden = open === undefined ? !p.hidden : !open;
    document.querySelectorAll("[data-search-toggle][aria-controls]").forEach(function (b) {
      b.setAttribute("aria-expanded", String(!p.hidden));
    });
    if (!p.hidden) document.getElementById("search-q").focus();
    else if (document.activeElement && p.contains(document.activeElement)) document.activeElement.blur();
  }

  document.addEventListener("click", function (e) {
    var t = e.target.closest && e.target.closest("[data-search-toggle]");
    if (t) { e.preventDefault(); toggle(); }
  });

  // Escape in the panel's fields closes it and gives the keys back to the page.
  document.addEventListener("keydown", function (e) {
    var p = panel();
    if (e.key === "Escape" && p && !p.hidden && p.contains(e.target)) { e.preventDefault(); toggle(false); }
  });

  // A refused search or save (400/403/409/423) answers with a partial that says why: show it in the panel.
  document.addEventListener("htmx:beforeSwap", function (e) {
    var p = panel(), xhr = e.detail.xhr;
    if (p && p.contains(e.detail.elt) && [400, 403, 404, 409, 423].indexOf(xhr.status) >= 0) {
      e.detail.shouldSwap = true;
      e.detail.isError = false;
    }
  });

  document.addEventListener("htmx:configRequest", function (e) {
    var form = e.detail.elt;
    if (!form.hasAttribute || !form.hasAttribute("data-search-form")) return;
    var where = document.querySelectorAll("[data-search-topic]");
    var last = where.length ? where[where.length - 1] : null;
    if (last) {
      e.detail.parameters.topic = last.getAttribute("data-search-topic");
      if (last.getAttribute("data-search-item")) e.detail.parameters.item = last.getAttribute("data-search-item");
    }
  });
})();
