// The assisted-judging panel (templates/assess/_assist_panel.html, assess/assist.py). After each save the panel is
// asked for again, so a *reveal after* suggestion appears only once the server has the assessor's own judgment.
// Accept (its key from the key map, action "accept-suggestion") presses the page's own button for the suggested
// label, so the save goes through the page's save protocol like any other choice.
(function () {
  "use strict";
  if (window.assayAssist) return;
  window.assayAssist = true;

  function panel() { return document.getElementById("assist-panel"); }

  // Pages with several items (TREC RAG's sentences citing one segment) say which item is current
  // ("assay:assist-item", detail.url): the panel follows it, and a reply for an item left meanwhile is dropped.
  var wanted = null, followed = null;

  function load(url) {
    if (!url) return;
    wanted = url;
    fetch(url, {credentials: "same-origin", headers: {"X-Requested-With": "fetch"}})
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) {
        var now = panel();
        // moved on meanwhile: to another row, or (htmx pages) another item's panel swapped in
        if (html === null || wanted !== url || (now && !followed && now.dataset.assistUrl !== url)) return;
        var box = document.createElement("div");
        box.innerHTML = html;
        var fresh = box.querySelector("#assist-panel");
        if (now) { if (fresh) now.replaceWith(fresh); else now.remove(); }
        else if (fresh && document.getElementById("assist-slot")) document.getElementById("assist-slot").appendChild(fresh);
      }, function () { /* the panel stays as it was; the next save asks again */ });
  }

  function refresh() {
    var p = panel();
    load(followed || (p && p.dataset.assistUrl));
  }

  function target(label) {
    var v = window.CSS && CSS.escape ? CSS.escape(label) : label.replace(/"/g, '\\"');
    var p = panel();
    var scope = p && p.dataset.assistItem && document.querySelector('[data-item="' + p.dataset.assistItem + '"]');
    var found = scope && scope.querySelector('button[data-label="' + v + '"], button[data-rel="' + v + '"]');
    return found || document.querySelector('[data-label="' + v + '"], [data-rel="' + v + '"], button[name="label"][value="' + v + '"]');
  }

  function accept() {
    var b = document.querySelector("#assist-panel [data-assist-accept]");
    if (!b) {  // no panel: a page of row forms (QA's nugget matches) accepts the current row's suggestion
      var row = document.querySelector(".current [data-assist-check]");
      if (row) row.click();
      return;
    }
    // a page that takes a whole value (TREC RAG's answer: its nuggets' assignments) cancels this and saves it
    var value = null;
    try { value = JSON.parse(b.getAttribute("data-assist-value") || "null"); } catch (e) { value = null; }
    var asked = new CustomEvent("assay:assist-accept", {cancelable: true, detail: {label: b.getAttribute("data-assist-accept"), value: value}});
    if (!document.dispatchEvent(asked)) return;
    var t = target(b.getAttribute("data-assist-accept"));
    if (t && !t.disabled) t.click();
  }

  // A row form's set-valued suggestion (QA's nugget match): tick exactly its boxes and let the form save as on
  // any change of a box (htmx, the page's own save).
  document.addEventListener("click", function (e) {
    var b = e.target.closest && e.target.closest("[data-assist-check]");
    var form = b && b.closest("form");
    if (!form) return;
    var ids = JSON.parse(b.getAttribute("data-assist-check") || "[]").map(String);
    form.querySelectorAll('input[type="checkbox"][name="nuggets"]').forEach(function (box) { box.checked = ids.indexOf(box.value) >= 0; });
    form.dispatchEvent(new Event("change", {bubbles: true}));
  });
  document.addEventListener("click", function (e) {
    if (e.target.closest && e.target.closest("#assist-panel [data-assist-accept]")) accept();
  });
  document.addEventListener("keydown", function (e) {
    var keys = window.assayKeys;
    if (!keys || keys.typing(document.activeElement)) return;
    if (keys.action(e) === "accept-suggestion") { e.preventDefault(); accept(); }
  });
  // JSON pages (BOLT, BioGen) say so after a kept save; htmx pages (QA) after any successful POST
  document.addEventListener("assay:judgment-saved", refresh);
  document.addEventListener("assay:assist-item", function (e) {
    followed = e.detail && e.detail.url;
    load(followed);
  });
  document.addEventListener("htmx:afterRequest", function (e) {
    var d = e.detail || {};
    if (d.successful && d.requestConfig && String(d.requestConfig.verb).toLowerCase() === "post") refresh();
  });
})();
