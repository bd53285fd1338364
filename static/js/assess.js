// Keyboard-first judging. A key "presses" the visible, enabled element carrying data-key="<key>", so the keyboard
// and the mouse take exactly the same path (htmx requests declared in the templates). In the nugget workspace,
// j/k move between answer strings and the digits 1–9 toggle that nugget for the current one.
(function () {
  "use strict";

  function typing(el) {
    return el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName));
  }

  function visible(el) {
    return !el.disabled && el.getClientRects().length > 0;
  }

  // htmx wires swapped-in content only after its settle delay; a fast key or Enter must not beat it (the form
  // would then be submitted natively, reloading the page), so wire it now — htmx.process is idempotent.
  function wired(el) {
    var data = el["htmx-internal-data"];
    return !!(data && data.initHash);
  }

  function wire(el) {
    var root = el.closest("[hx-post],[hx-get]");
    if (root && window.htmx && !wired(root)) window.htmx.process(root);
  }

  function pressKey(key) {
    var all = document.querySelectorAll("[data-key]");
    for (var i = 0; i < all.length; i++) {
      if (all[i].getAttribute("data-key") === key && visible(all[i])) {
        wire(all[i]);
        all[i].click();
        return true;
      }
    }
    return false;
  }

  // --- nugget workspace: a current answer string, digits toggle its nugget matches ---
  // The current row is remembered by id, not only by its class: htmx re-renders rows (after each match) and,
  // while settling, puts their attributes back, so the class is re-applied once the swap has settled.
  var currentId = null;

  function rows() {
    return Array.prototype.slice.call(document.querySelectorAll("[data-match-row]"));
  }

  function current() {
    var row = currentId && document.getElementById(currentId);
    return row && row.hasAttribute("data-match-row") ? row : null;
  }

  function mark(row) {
    rows().forEach(function (r) { if (r !== row) r.classList.remove("current"); });
    if (row) row.classList.add("current");
  }

  function setCurrent(row) {
    currentId = row ? row.id : null;
    mark(row);
    if (row) row.scrollIntoView({block: "nearest"});
  }

  function ensureCurrent() {
    if (!document.getElementById("nugget-workspace")) return;
    var row = current() || rows()[0] || null;
    currentId = row ? row.id : null;
    mark(row);
  }

  function moveRow(step) {
    var all = rows();
    if (!all.length) return false;
    var i = all.indexOf(current());
    setCurrent(all[Math.max(0, Math.min(all.length - 1, i < 0 ? 0 : i + step))]);
    return true;
  }

  function toggleNugget(n) {
    var row = current();
    if (!row) return false;
    var box = row.querySelector('input[data-nugget-index="' + n + '"]');
    if (!box) return false;
    wire(box);
    box.checked = !box.checked;
    box.dispatchEvent(new Event("change", {bubbles: true}));
    return true;
  }

  function nuggetFromSelection() {
    var form = document.getElementById("nugget-create");
    var text = String(window.getSelection() || "").trim();
    if (!form || !text) return false;
    form.querySelector("[name=text]").value = text;
    wire(form);
    form.requestSubmit();
    return true;
  }

  document.addEventListener("keydown", function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey || typing(e.target)) return;
    var handled = false;
    if (document.getElementById("nugget-workspace")) {
      if (e.key === "j") handled = moveRow(1);
      else if (e.key === "k") handled = moveRow(-1);
      else if (/^[1-9]$/.test(e.key)) handled = toggleNugget(e.key);
      else if (e.key === "+") handled = nuggetFromSelection();
    }
    if (!handled && e.key.length === 1) handled = pressKey(e.key);
    if (handled) e.preventDefault();
  });

  document.addEventListener("click", function (e) {
    var row = e.target.closest && e.target.closest("[data-match-row]");
    if (row) setCurrent(row);
    var sel = e.target.closest && e.target.closest("[data-nugget-from-selection]");
    if (sel) { e.preventDefault(); nuggetFromSelection(); }
  });

  // Safety net for the mouse and Enter: an htmx form submitted before htmx wired it is wired and resubmitted.
  document.addEventListener("submit", function (e) {
    var form = e.target;
    if (form.hasAttribute && form.hasAttribute("hx-post") && window.htmx && !wired(form)) {
      e.preventDefault();
      window.htmx.process(form);
      form.requestSubmit(e.submitter || undefined);
    }
  }, true);

  // Keep the text selection when the "from selection" button is pressed with the mouse.
  document.addEventListener("mousedown", function (e) {
    if (e.target.closest && e.target.closest("[data-nugget-from-selection]")) e.preventDefault();
  });

  // Refused saves (stale version, closed question, bad input) answer 4xx with a partial that says why and shows
  // the newer value: swap it in instead of dropping it.
  document.addEventListener("htmx:beforeSwap", function (e) {
    var s = e.detail.xhr.status;
    if (s === 400 || s === 403 || s === 409 || s === 423) {
      e.detail.shouldSwap = true;
      e.detail.isError = false;
    }
  });

  document.addEventListener("htmx:afterSettle", ensureCurrent);
  document.addEventListener("DOMContentLoaded", ensureCurrent);
})();
