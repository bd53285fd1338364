// The assisted-judging panel (templates/assess/_assist_panel.html, assess/assist.py). After each save the panel is
// asked for again, so a *reveal after* suggestion appears only once the server has the assessor's own judgment.
// Accept (its key from the key map, action "accept-suggestion") presses the page's own button for the suggested
// label, so the save goes through the page's save protocol like any other choice.
(function () {
  "use strict";
  if (window.assayAssist) return;
  window.assayAssist = true;

  function panel() { return document.getElementById("assist-panel"); }

  function refresh() {
    var p = panel();
    if (!p || !p.dataset.assistUrl) return;
    fetch(p.dataset.assistUrl, {credentials: "same-origin", headers: {"X-Requested-With": "fetch"}})
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) {
        var now = panel();
        if (html === null || !now || now.dataset.assistUrl !== p.dataset.assistUrl) return;  // moved on meanwhile
        var box = document.createElement("div");
        box.innerHTML = html;
        var fresh = box.querySelector("#assist-panel");
        if (fresh) now.replaceWith(fresh); else now.remove();
      }, function () { /* the panel stays as it was; the next save asks again */ });
  }

  function target(label) {
    var v = window.CSS && CSS.escape ? CSS.escape(label) : label.replace(/"/g, '\\"');
    return document.querySelector('[data-label="' + v + '"], [data-rel="' + v + '"], button[name="label"][value="' + v + '"]');
  }

  function accept() {
    var b = document.querySelector("#assist-panel [data-assist-accept]");
    if (!b) return;
    var t = target(b.getAttribute("data-assist-accept"));
    if (t && !t.disabled) t.click();
  }

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
  document.addEventListener("htmx:afterRequest", function (e) {
    var d = e.detail || {};
    if (d.successful && d.requestConfig && String(d.requestConfig.verb).toLowerCase() === "post") refresh();
  });
})();
