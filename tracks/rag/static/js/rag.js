// TREC RAG judging, keyboard first. Keys come from the page's key map (assess/keymap.py via static/js/keys.js)
// and are acted on by action name. Pages with rows (#rows .rag-row: the sentences citing one segment, one
// segment's grade, an answer's nuggets, the machine's suggestions) keep one row current: j/k (↓/↑) move it, a
// number presses that button of the current row and moves on. Each judgment has one Saver: its saves go out one
// at a time with the version the previous answer brought (docs/save-protocol.md); a 409 shows the newer value and
// takes its version; a failure says "Not saved" and keeps the choice marked so pressing it again retries. Every
// other key presses the visible element carrying data-key="<key>", so keys and the mouse take the same path.
// Moving to another segment or answer swaps its panel in (static/js/item_nav.js, which waits for the saves on
// their way); its rows are bound as it arrives, and relevance goes on to the next ungraded segment that way too.
(function () {
  "use strict";
  if (window.assayRag) return;
  window.assayRag = true;

  function csrf() {
    try { return JSON.parse(document.body.getAttribute("hx-headers"))["X-CSRFToken"]; } catch (e) { return ""; }
  }

  function say(text, bad) {
    var el = document.getElementById("status");
    if (!el) return;
    el.textContent = text;
    el.className = bad ? "error" : "";
  }

  function post(url, body) {
    return fetch(url, {
      method: "POST", credentials: "same-origin",
      headers: {"Content-Type": "application/json", "X-CSRFToken": csrf()},
      body: JSON.stringify(body)
    }).then(function (r) {
      return r.json().then(function (d) { return {status: r.status, data: d}; },
        function () { return {status: r.status, data: {error: "Not saved: the server answered " + r.status + "."}}; });
    }, function () {
      return {status: 0, data: {error: "Not saved: the server could not be reached. Press the key again to retry."}};
    });
  }

  // One judgment's saves, in order: a value chosen while one is out replaces any not sent yet.
  function Saver(url, version, value, shown) {
    this.url = url; this.version = version; this.value = value; this.shown = shown;
    this.busy = false; this.waiting = null; this.intended = null;
  }
  Saver.prototype.save = function (value) {
    if (this.busy) { this.waiting = value; return; }
    var self = this;
    self.busy = true;
    self.shown(value, "saving…", false);
    var request = post(self.url, {version: self.version, value: value}).then(function (res) {
      self.busy = false;
      var d = res.data;
      if (res.status === 200) {
        var first = !self.version;
        self.version = d.version; self.value = d.value;
        self.shown(d.value, "saved", false, first);
        say("Saved (version " + d.version + ").");
        document.dispatchEvent(new CustomEvent("assay:judgment-saved"));  // the assisted-judging panel (static/js/assist.js)
        if (self.waiting) { var next = self.waiting; self.waiting = null; self.save(next); }
        else { self.intended = null; if (self.after) self.after(); }
      } else if (res.status === 409) {
        self.waiting = null; self.intended = null;
        self.version = d.version; self.value = d.value;
        self.shown(d.value, "changed elsewhere", true);
        say(d.error, true);
      } else {
        self.waiting = null; self.intended = null;
        self.shown(value, "not saved", true);
        say(d.error || "Not saved.", true);
      }
    });
    if (window.assayItemNav) window.assayItemNav.track(request);  // a move to another segment waits for it
  };

  // Another item: through its link of the panel's nav (an htmx swap, static/js/item_nav.js), else a page load.
  function follow(url) {
    var nav = window.assayItemNav, links = document.querySelectorAll("[data-item-nav] a[href]");
    for (var i = 0; i < links.length; i++) {
      if (nav && links[i].getAttribute("href") === url) { nav.follow(links[i]); return; }
    }
    window.location.href = url;
  }

  // The rows on screen; bound again when another segment's or answer's panel is swapped in (bind, at the end).
  var list = null, rows = [], current = 0;

  function focusRow(n) {
    if (!rows.length) return;
    current = Math.min(Math.max(n, 0), rows.length - 1);
    var moved = rows[current].getAttribute("aria-current") !== "true";
    rows.forEach(function (r, i) { r.setAttribute("aria-current", i === current ? "true" : "false"); });
    rows[current].scrollIntoView({block: "nearest"});
    var url = rows[current].getAttribute("data-assist");  // the machine suggestion follows the current row
    if (moved && url) document.dispatchEvent(new CustomEvent("assay:assist-item", {detail: {url: url}}));
  }

  // A *reveal after* suggestion waits for the row's first save: the assessor stays on the row to see it.
  function waiting(row) {
    var p = document.getElementById("assist-panel");
    return !!(p && p.getAttribute("data-assist-state") === "waiting" && p.getAttribute("data-assist-item") === row.getAttribute("data-item"));
  }

  function mark(row, label, note, bad) {
    row.setAttribute("data-label", label || "");
    row.querySelectorAll("[data-label]").forEach(function (b) {
      if (b === row) return;
      b.setAttribute("aria-pressed", b.getAttribute("data-label") === label ? "true" : "false");
    });
    var s = row.querySelector(".row-status");
    if (s) { s.textContent = (label || "") + (note ? " (" + note + ")" : ""); s.className = "row-status" + (bad ? " error" : ""); }
  }

  function bump() {
    var c = document.getElementById("judged-count");
    if (c) c.textContent = String(+c.textContent + 1);
  }

  // --- a judgment per row: support (sentences citing one segment) and relevance; or the answer's (its nuggets) ---
  var answer = null;

  function bindSavers() {
    var answerEl = list && list.parentNode.querySelector("#rag-answer");
    var these = rows;  // this panel's rows: a save's answer is shown on them, whatever is on screen by then
    answer = null;
    if (answerEl) {
      var st = JSON.parse(answerEl.textContent);
      var full = function (value) {
        var held = (value && value.nuggets) || {};
        return these.length > 0 && these.every(function (r) { return held[r.getAttribute("data-nugget")]; });
      };
      var counted = full(st.value);  // the answer counts as assigned once every nugget is
      answer = new Saver(st.judge_url, st.version, st.value, function (value, note, bad) {
        var held = (value && value.nuggets) || {};
        these.forEach(function (r) {
          var mine = held[r.getAttribute("data-nugget")];
          if (mine || r.getAttribute("data-label")) mark(r, mine || "", mine ? note : "", bad);
        });
        if (note === "saved" && !counted && full(value)) { counted = true; bump(); }
      });
    } else {
      these.forEach(function (row) {
        if (!row.getAttribute("data-judge")) return;
        row.saver = new Saver(row.getAttribute("data-judge"), +row.getAttribute("data-version"), null,
          function (value, note, bad, first) {
            mark(row, value && value.label, note, bad);
            if (first === true) bump();
          });
      });
    }
  }

  // Accepting a machine suggestion for the answer (static/js/assist.js) takes its assignment of each nugget on the
  // page, over the ones chosen so far, in one save through the answer's Saver.
  document.addEventListener("assay:assist-accept", function (e) {
    if (!answer) return;
    e.preventDefault();
    var held = (e.detail && e.detail.value && e.detail.value.nuggets) || {};
    var value = {label: "assigned", nuggets: Object.assign({}, (answer.intended || answer.value || {}).nuggets || {})};
    rows.forEach(function (r) { var id = r.getAttribute("data-nugget"); if (held[id]) value.nuggets[id] = held[id]; });
    answer.intended = value;
    answer.save(value);
  });

  function choose(row, button) {
    var label = button.getAttribute("data-label");
    if (answer) {
      // built on the last value chosen (saved, on its way or waiting), so keys typed quickly add up
      var value = {label: "assigned", nuggets: Object.assign({}, (answer.intended || answer.value || {}).nuggets || {})};
      value.nuggets[row.getAttribute("data-nugget")] = label;
      answer.intended = value;
      answer.save(value);
    } else if (row.saver) {
      if (waiting(row)) { row.saver.after = null; row.saver.save({label: label, nuggets: {}}); return; }
      var advance = list.getAttribute("data-advance");
      row.saver.after = advance ? function () { follow(advance); } : null;
      row.saver.save({label: label, nuggets: {}});
    } else {
      return;
    }
    var at = rows.indexOf(row);
    if (at === current && at + 1 < rows.length) focusRow(at + 1);
  }

  document.addEventListener("click", function (e) {
    var b = e.target.closest && e.target.closest(".rag-row .judge-row [data-label]");
    if (b) { var row = b.closest(".rag-row"); focusRow(rows.indexOf(row)); choose(row, b); }
  });

  // --- nuggets and suggestions -----------------------------------------------------------------------------------
  var work = document.getElementById("nugget-work");
  var newImportance = "vital";

  function reloadAt(n) {
    var url = new URL(window.location.href);
    url.searchParams.set("at", String(Math.max(n, 0)));
    window.location.href = url.toString();
  }

  function nuggetCall(url, body, at) {
    say("Saving…");
    post(url, body).then(function (res) {
      if (res.status === 200) reloadAt(at);
      else say(res.data.error || "Not saved.", true);
    });
  }

  function setImportance(value) {
    var row = rows[current];
    if (work && row && row.classList.contains("suggestion") && document.activeElement !== document.getElementById("new-nugget")) {
      row.setAttribute("data-importance", value);
      row.querySelector(".importance").textContent = value;
    } else {
      newImportance = value;
      var el = document.getElementById("new-importance");
      if (el) el.textContent = value;
    }
  }

  function suggestionAct(action) {
    var row = rows[current];
    if (!row || !row.classList.contains("suggestion")) return false;
    var body = {action: action};
    if (action === "accept") {
      body.text = row.querySelector(".suggestion-text").value;
      body.importance = row.getAttribute("data-importance");
    }
    nuggetCall(row.getAttribute("data-url"), body, current);
    return true;
  }

  if (work) {
    document.addEventListener("click", function (e) {
      var t = e.target.closest ? e.target : null;
      if (!t) return;
      var s = t.closest(".suggestion");
      if (s && t.closest("button")) { focusRow(rows.indexOf(s)); suggestionAct(t.closest(".accept") ? "accept" : "reject"); }
      var li = t.closest("#nuggets li");
      if (li && t.closest(".importance-toggle")) {
        nuggetCall(li.getAttribute("data-url"), {action: "importance", importance: t.closest(".importance-toggle").getAttribute("data-to"),
                                                 version: +li.getAttribute("data-version")}, current);
      }
      if (li && t.closest(".edit-nugget")) {
        var text = window.prompt("The nugget's text", li.querySelector(".nugget-text").textContent);
        if (text && text.trim()) nuggetCall(li.getAttribute("data-url"), {action: "edit", text: text}, current);
      }
      var del = t.closest(".delete-nugget");
      if (del && window.confirm("Delete this nugget and its assignments?")) nuggetCall(del.closest("li").getAttribute("data-url"), {action: "delete"}, current);
    });
    var field = document.getElementById("new-nugget");
    if (field) {
      field.addEventListener("keydown", function (e) {
        if (e.key === "Escape") { field.blur(); return; }
        if (e.key !== "Enter") return;
        e.preventDefault();
        if (!field.value.trim()) { field.blur(); return; }
        nuggetCall(work.getAttribute("data-create"), {text: field.value, importance: newImportance}, current);
      });
    }
    document.querySelectorAll(".suggestion-text").forEach(function (input) {
      input.addEventListener("keydown", function (e) {
        if (e.key === "Escape") input.blur();
        if (e.key === "Enter") { e.preventDefault(); focusRow(rows.indexOf(input.closest(".rag-row"))); suggestionAct("accept"); }
      });
    });
  }

  // --- keys -------------------------------------------------------------------------------------------------------
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
    if (!window.assayKeys || window.assayKeys.typing(e.target)) return;
    var action = window.assayKeys.action(e);
    if (!action || action === "keys") return;
    var row = rows[current];
    if (action === "number" && row && !row.classList.contains("suggestion")) {
      var b = row.querySelector('.judge-row [data-n="' + window.assayKeys.digit(e) + '"]');
      if (b) { e.preventDefault(); choose(row, b); }
      return;
    }
    if ((action === "next" || action === "previous") && rows.length > 1) {
      e.preventDefault();
      focusRow(current + (action === "next" ? 1 : -1));
      return;
    }
    if (work && (action === "vital" || action === "okay")) { e.preventDefault(); setImportance(action); return; }
    if (work && (action === "yes" || action === "no")) {
      if (suggestionAct(action === "yes" ? "accept" : "reject")) e.preventDefault();
      return;
    }
    var key = action === "number" ? window.assayKeys.digit(e) : e.key;
    if (action === "next" || action === "previous") key = window.assayKeys.keyFor(action);
    if (press(key)) e.preventDefault();
  });

  // The rows of the page, and again of each panel swapped in (static/js/item_nav.js): on a page of several rows
  // the first one not judged yet is current (a suggestion list keeps the row the page was asked for).
  function bind() {
    var el = document.getElementById("rows");
    if (el === list) return;
    list = el;
    rows = list ? Array.prototype.slice.call(list.querySelectorAll(".rag-row")) : [];
    current = Math.max(0, rows.findIndex(function (r) { return r.getAttribute("aria-current") === "true"; }));
    bindSavers();
    if (rows.length && !list.classList.contains("single")) {
      var open = rows.findIndex(function (r) { return !r.getAttribute("data-label"); });
      focusRow(work ? current : (open >= 0 ? open : 0));
    }
  }

  document.addEventListener("htmx:load", bind);
  document.addEventListener("htmx:historyRestore", bind);
  bind();
})();
