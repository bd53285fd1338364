// BioGen judging, keyboard first. Keys come from the page's key map (assess/keymap.py via static/js/keys.js) and
// are acted on by action name: each presses the visible, enabled element carrying data-key="<key>", so the
// keyboard and the mouse take the same path. On the item page a label button saves at once as JSON with the
// version last seen (one save in flight at a time; a 409 shows the newer judgment and takes its version). The
// supporting words of a citation are typed or pasted in the evidence field (e focuses it, Enter marks them):
// they are saved with the label and the abstract's frame reloads with them highlighted by the corpus viewer.
// Moving to another item swaps its panel in (static/js/item_nav.js, which waits for the save on its way): each
// panel is bound as it arrives, and a save's answer is shown on the panel it was made on.
// On the adjudication page the buttons submit the decision form.
(function () {
  "use strict";
  if (window.assayBiogen) return;
  window.assayBiogen = true;

  var panel = null;  // the item on screen: {el, state, busy}

  function bind() {
    var el = document.getElementById("item-panel"), stateEl = document.getElementById("biogen-state");
    if (!el || !stateEl || (panel && panel.el === el)) return;
    panel = {el: el, state: JSON.parse(stateEl.textContent), busy: false};
  }

  function csrf() {
    try { return JSON.parse(document.body.getAttribute("hx-headers"))["X-CSRFToken"]; } catch (e) { return ""; }
  }

  function say(p, text, bad) {
    var el = p.el.querySelector("#status");
    if (!el) return;
    el.textContent = text;
    el.className = bad ? "error" : "";
  }

  function pressed(p, label) {
    p.el.querySelectorAll("#labels [data-label]").forEach(function (b) {
      b.setAttribute("aria-pressed", b.getAttribute("data-label") === label ? "true" : "false");
    });
  }

  function showEvidence(p, words) {
    var list = p.el.querySelector("#evidence-list");
    if (!list) return;
    list.textContent = "";
    (words || []).forEach(function (w) {
      var li = document.createElement("li");
      li.textContent = w;
      list.appendChild(li);
    });
  }

  function reframe(p, url) {
    var frame = p.el.querySelector(".biogen-frame");
    if (frame && url) frame.src = url;
  }

  function save(label, evidence) {
    var p = panel, state = p && p.state;
    if (!state || p.busy) return;
    p.busy = true;
    say(p, "Saving…");
    pressed(p, label);
    var request = fetch(state.judge_url, {
      method: "POST", credentials: "same-origin",
      headers: {"Content-Type": "application/json", "X-CSRFToken": csrf()},
      body: JSON.stringify({version: state.version, value: {label: label, evidence: evidence}})
    }).then(function (r) {
      return r.json().then(function (d) { return {status: r.status, data: d}; },
        function () { return {status: r.status, data: {error: "Not saved: the server answered " + r.status + "."}}; });
    }).then(function (res) {
      p.busy = false;
      var d = res.data;
      if (res.status === 200) {
        var counter = p.el.querySelector("#judged-count");
        if (counter && !state.version) counter.textContent = String(+counter.textContent + 1);  // a first judgment
        state.version = d.version;
        state.value = d.value;
        say(p, "Saved: " + d.value.label + " (version " + d.version + ").");
        showEvidence(p, d.value.evidence);
        reframe(p, d.frame_url);
        document.dispatchEvent(new CustomEvent("assay:judgment-saved"));  // the assisted-judging panel (static/js/assist.js)
      } else if (res.status === 409) {
        state.version = d.version;
        state.value = d.value;
        pressed(p, d.value ? d.value.label : null);
        showEvidence(p, d.value ? d.value.evidence : []);
        say(p, d.error, true);
      } else {
        pressed(p, state.value ? state.value.label : null);
        say(p, d.error || "Not saved.", true);
      }
    }, function () {
      p.busy = false;
      say(p, "Not saved: the server could not be reached. Press the key again to retry.", true);
    });
    if (window.assayItemNav) window.assayItemNav.track(request);  // a move to another item waits for it
  }

  function evidenceNow() { return (panel && panel.state.value && panel.state.value.evidence) || []; }

  document.addEventListener("click", function (e) {
    var b = e.target.closest && e.target.closest("#labels [data-label]");
    if (b) save(b.getAttribute("data-label"), evidenceNow());
  });

  // The evidence field of a citation: Escape leaves it, Enter marks the words typed.
  function evidenceKey(e) {
    var field = e.target;
    if (e.key === "Escape") { field.blur(); return; }
    if (e.key !== "Enter") return;
    e.preventDefault();
    var words = field.value.trim();
    if (!words) { field.blur(); return; }
    var label = panel && panel.state.value && panel.state.value.label;
    if (!label) { say(panel, "Choose a label first (1–4), then mark the supporting words.", true); return; }
    field.value = "";
    field.blur();
    save(label, evidenceNow().concat([words]));
  }

  function press(key) {
    var all = document.querySelectorAll("[data-key]");
    for (var i = 0; i < all.length; i++) {
      var el = all[i];
      if (el.getAttribute("data-key") === key && !el.disabled && el.getClientRects().length) {
        if (el.tagName === "INPUT") el.focus();
        else if (window.assayItemNav && window.assayItemNav.isNav(el)) window.assayItemNav.follow(el);
        else el.click();
        return true;
      }
    }
    return false;
  }

  document.addEventListener("keydown", function (e) {
    if (e.target.id === "evidence" && panel && panel.el.contains(e.target)) { evidenceKey(e); return; }
    if (!window.assayKeys || window.assayKeys.typing(e.target)) return;
    var action = window.assayKeys.action(e);
    if (!action || action === "keys") return;
    var key = action === "number" ? window.assayKeys.digit(e) : e.key;
    if (action === "next" || action === "previous") key = window.assayKeys.keyFor(action);
    if (press(key)) e.preventDefault();
  });

  document.addEventListener("htmx:load", bind);
  document.addEventListener("htmx:historyRestore", bind);
  bind();
})();
