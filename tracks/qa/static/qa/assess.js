// Keyboard-first QA judging. Keys come from the page's key map (assess/keymap.py via static/js/keys.js) and are
// acted on by action name. Most press the visible, enabled element carrying data-key="<key>" (rendered from the
// same map), so the keyboard and the mouse take exactly the same path (htmx requests declared in the templates).
// - Instance judging: digits are labels, ⇧digits answer classes; keys typed while a judgment is out wait for its
//   answer; with "move on after each judgment" the next item is shown once a judgment is complete, and keys typed
//   meanwhile wait for it.
// - Nugget workspace: j/k move over answer strings and digits toggle the current string's nuggets (two digits from
//   10 nuggets on); J/K move over nuggets and v/o vote the current one; t types a nugget (Enter adds it and
//   returns to the keys), + takes the selected words of one answer string.
// - Vote page: j/k move over nuggets, v/o vote.
// - Adjudication queue: j/k/u move over the disagreements, p/s decide the primary's or the second's label, digits
//   the label with that number (the row's own buttons, so a decision is the same request as a click).
(function () {
  "use strict";

  function visible(el) {
    return !el.disabled && el.getClientRects().length > 0;
  }

  // htmx wires swapped-in content only once settled (at once here: base.html sets no settle delay) and the page's
  // own content at DOMContentLoaded; a fast key or Enter must not beat it (the form would then be submitted
  // natively, reloading the page), so wire it now. htmx.process leaves an element it wired as it is unless its
  // attributes changed since, and a form whose request is out has changed (htmx's request class): processed again,
  // htmx would forget that request and send the next submit beside it instead of queueing it behind (two saves of
  // one version, the second refused). Such a form is wired anyway: it sent the request.
  function wire(el) {
    var root = el.closest("[hx-post],[hx-get]");
    if (root && window.htmx && !root.classList.contains(window.htmx.config.requestClass)) window.htmx.process(root);
  }

  function click(el) {
    if (!el || !visible(el)) return false;
    wire(el);
    el.click();
    return true;
  }

  function pressKey(key) {
    var all = document.querySelectorAll("[data-key]");
    for (var i = 0; i < all.length; i++) {
      if (all[i].getAttribute("data-key") === key && visible(all[i])) return click(all[i]);
    }
    return false;
  }

  // --- a cursor over a list whose elements htmx re-renders -------------------------------------------------------
  // The current element is remembered by an attribute value, not only by its class: htmx re-renders rows (after
  // each match) and, while settling, puts their attributes back, so the class is re-applied once a swap settled.
  function Cursor(selector, idAttr) {
    this.selector = selector;
    this.idAttr = idAttr;
    this.id = null;
  }

  Cursor.prototype.all = function () {
    return Array.prototype.slice.call(document.querySelectorAll(this.selector));
  };

  Cursor.prototype.current = function () {
    var self = this;
    return self.id === null ? null : self.all().filter(function (el) {
      return el.getAttribute(self.idAttr) === self.id;
    })[0] || null;
  };

  Cursor.prototype.mark = function (el) {
    this.all().forEach(function (other) { if (other !== el) other.classList.remove("current"); });
    if (el) el.classList.add("current");
  };

  Cursor.prototype.set = function (el, quiet) {
    this.id = el ? el.getAttribute(this.idAttr) : null;
    this.mark(el);
    if (el && !quiet) el.scrollIntoView({block: "nearest"});
    return !!el;
  };

  Cursor.prototype.ensure = function () {
    var el = this.current() || this.all()[0] || null;
    this.id = el ? el.getAttribute(this.idAttr) : null;
    this.mark(el);
  };

  Cursor.prototype.move = function (step) {
    var all = this.all();
    if (!all.length) return false;
    var i = all.indexOf(this.current());
    return this.set(all[Math.max(0, Math.min(all.length - 1, i < 0 ? 0 : i + step))]);
  };

  // The next element after the current one (wrapping) that `open` accepts.
  Cursor.prototype.nextWhere = function (open) {
    var all = this.all(), at = all.indexOf(this.current());
    for (var step = 1; step <= all.length; step++) {
      var el = all[(at + step) % all.length];
      if (open(el)) return this.set(el);
    }
    return false;
  };

  var rows = new Cursor("[data-match-row]", "id");            // answer strings of the nugget workspace
  var disagreements = new Cursor("[data-adjudication-row]", "id");  // the adjudication queue's rows
  var nuggets = new Cursor("li[data-nugget-id]", "data-nugget-id");  // nuggets (workspace and vote page)

  // A row saves itself on change and is swapped for the server's answer (with its new version); a toggle typed
  // while its save is out would be dropped by htmx, so it waits for the row that comes back and applies there.
  var laterToggles = {};  // row id -> nugget numbers

  function toggleNugget(rowId, n) {
    var row = document.getElementById(rowId);
    if (!row) return;
    if (row.classList.contains("htmx-request")) {
      (laterToggles[rowId] = laterToggles[rowId] || []).push(n);
      return;
    }
    var box = row.querySelector('input[data-nugget-index="' + n + '"]');
    if (!box) return;
    wire(box);
    box.checked = !box.checked;
    box.dispatchEvent(new Event("change", {bubbles: true}));
  }

  document.addEventListener("htmx:load", function (e) {
    var id = e.detail.elt && e.detail.elt.id, later = id && laterToggles[id];
    if (!later) return;
    delete laterToggles[id];
    later.forEach(function (n) { toggleNugget(id, n); });
  });

  function vote(which) {
    var li = nuggets.current();
    var button = li && li.querySelector('.vote-btn[value="' + which + '"]');
    if (!click(button)) return false;
    nuggets.move(1);
    return true;
  }

  function unvoted(li) { return !li.querySelector(".vote-btn.current"); }
  function unmatched(row) { return row.getAttribute("data-matched") !== "1"; }

  // The selected words of one answer string: a selection reaching into the row's docid (or anything else around
  // the answer) is cut to the answer's own text; one over several answer strings, or beside them, is refused.
  function selectedAnswerText() {
    var sel = window.getSelection();
    if (!sel || !sel.rangeCount || sel.isCollapsed) return {error: "Select some words of an answer string first."};
    var range = sel.getRangeAt(0), parts = [];
    document.querySelectorAll("[data-answer-words]").forEach(function (words) {
      if (!range.intersectsNode(words)) return;
      var part = document.createRange();
      part.selectNodeContents(words);
      if (range.compareBoundaryPoints(Range.START_TO_START, part) > 0) part.setStart(range.startContainer, range.startOffset);
      if (range.compareBoundaryPoints(Range.END_TO_END, part) < 0) part.setEnd(range.endContainer, range.endOffset);
      var text = part.toString().trim();
      if (text) parts.push(text);
    });
    if (parts.length > 1) return {error: "Select words of one answer string only."};
    if (!parts.length) return {error: "Select some words of an answer string first (not its docid)."};
    return {text: parts[0]};
  }

  function nuggetFromSelection() {
    var form = document.getElementById("nugget-create");
    if (!form) return false;
    var picked = selectedAnswerText(), status = document.getElementById("nugget-selection-status");
    if (status) {
      status.textContent = picked.error || "";
      status.className = picked.error ? "error" : "hint";
    }
    if (picked.error) return true;  // the key did its job: it said why nothing was added
    var text = picked.text;
    form.querySelector("[name=text]").value = text;
    wire(form);
    form.requestSubmit();
    return true;
  }

  function typeNugget() {
    var input = document.getElementById("nugget-text");
    if (!input) return false;
    input.focus();
    return true;
  }

  // --- instance judging: auto-advance ------------------------------------------------------------------------------
  // The preference is the assessor's, kept on the server (assess.preferences): the page renders the checkbox as it
  // is stored, and a change is posted at once, so every browser they judge from starts with it as they left it.
  // When a question's last item is judged, auto-advance goes on to the next question with items left (the panel
  // at the end of a question offers it as [data-advance]); once the whole series is judged it stops there.
  //
  // With auto-advance on, keys typed while the item they are meant for is on its way wait for it. "On its way" is
  // one request, known by its XMLHttpRequest: a judgment sent, then the next item auto-advance asks for once the
  // judgment is complete (or any item asked for, j or u by hand included). The keys are replayed once that very
  // answer is in the page and settled (htmx wired it), on what it brought. Whichever #item-panel or #judge-bar
  // settles next will not do: a key typed within htmx's settle delay after an item arrived sends its judgment,
  // then that item's own settling looked like the next item, and the keys typed next went to the item still being
  // saved (dropped, or a second save of the same version: 409), not to the next one.
  //
  // With auto-advance off, keys typed while a judgment is out wait for its answer too, then act on the bar it
  // brought: htmx would queue a second submit of the form behind the first, but the answer replaces the form
  // (outerHTML) and the queued submit goes with it, so a second label typed quickly was silently lost.
  var toggle = document.getElementById("auto-advance");
  var awaited = null;  // {xhr, save, advance, swapped}: the request whose answer the waiting keys are meant for
  var moving = false;  // auto-advance is pressing "next": its request is awaited whatever the toggle says now
  var waiting = [];    // the keys that wait, replayed in order on the item that arrives

  function autoAdvance() { return !!(toggle && toggle.checked); }

  function csrf() {
    try { return JSON.parse(document.body.getAttribute("hx-headers"))["X-CSRFToken"]; } catch (e) { return ""; }
  }

  // Not saved: the box goes back to the stored setting and says why (a choice the server did not keep would be
  // forgotten by the next page).
  if (toggle) {
    toggle.addEventListener("change", function () {
      var on = toggle.checked, status = document.getElementById("auto-advance-status");
      function tell(text, bad) {
        if (!status) return;
        status.textContent = text;
        status.className = bad ? "error" : "ok";
      }
      tell("saving…");
      fetch(toggle.getAttribute("data-url"), {
        method: "POST", credentials: "same-origin",
        headers: {"Content-Type": "application/x-www-form-urlencoded", "X-CSRFToken": csrf()},
        body: "auto_advance=" + (on ? "1" : "0")
      }).then(function (r) {
        return r.json().then(function (d) { return {ok: r.ok, data: d}; },
                             function () { return {ok: false, data: {error: "the server answered " + r.status}}; });
      }).then(function (res) {
        if (res.ok) { tell("saved"); return; }
        toggle.checked = !on;
        tell("Not saved: " + (res.data.error || "refused"), true);
      }, function () {
        toggle.checked = !on;
        tell("Not saved: the server could not be reached", true);
      });
    });
  }

  function replay() {
    awaited = null;
    var keys = waiting;
    waiting = [];
    for (var i = 0; i < keys.length; i++) {
      // a class number still gathering digits ends before a key of another kind, as it does when typed (keys.js)
      if (keys[i].action !== "class") window.assayKeys.flush();
      if (awaited) { waiting = keys.slice(i); return; }  // a key sent a request: the rest wait for its answer
      act(keys[i]);
    }
  }

  function stopAdvancing() {
    awaited = null;
    waiting = [];  // typed for an item that is not coming
  }

  // An item (or the end of a question) arrived. Brought by auto-advance to the end of a question: on to the next
  // question with items left, when there is one (keys typed meanwhile wait for its item); a question of nuggets
  // is a page of its own, where they would not apply.
  function arrived() {
    var to = awaited.auto && autoAdvance() && document.querySelector("#question-done [data-advance]");
    if (!to) return replay();
    awaited = null;
    if (to.tagName === "A") {
      waiting = [];
      to.click();
      return;
    }
    moving = true;
    try { click(to); } finally { moving = false; }
    if (!awaited) replay();
  }

  function next() {
    awaited = null;
    moving = true;
    var pressed;
    try { pressed = pressKey(window.assayKeys.keyFor("next")); } finally { moving = false; }
    if (!pressed || !awaited) replay();  // no item on its way: the keys go to this one
  }

  // --- nuggets typed after t ---------------------------------------------------------------------------------------
  // Enter adds the nugget and goes back to the keys, so the next keys (another t, J, v …) act instead of typing into
  // the box. The box is left as the request goes (or htmx would give the focus back to the new workspace's box of
  // the same id) and emptied (its text went with the request), so a t pressed before the answer starts a new nugget;
  // what is typed there meanwhile is carried into the workspace the answer brings.
  var sentNugget = "", creatingNugget = false, nuggetLater = false;
  document.addEventListener("htmx:beforeRequest", function (e) {
    var input = document.getElementById("nugget-text");
    if (e.detail.elt.id !== "nugget-create" || !input) return;
    if (document.activeElement === input) input.blur();
    creatingNugget = true;
    var xhr = e.detail.xhr;
    xhr.addEventListener("loadend", function () { setTimeout(function () { nuggetAnswered(xhr); }, 0); });
    sentNugget = input.value;
    input.value = "";
  });

  // Once the answer is in (or none came): a nugget not added (refused, or no answer) comes back into the box, to be
  // corrected or sent again; one whose Enter came while this one was out (htmx would drop it) goes now, from the
  // workspace that came. Heard on the request itself: htmx's afterRequest goes to the form the answer replaced,
  // out of the document by then.
  function nuggetAnswered(xhr) {
    creatingNugget = false;
    var input = document.getElementById("nugget-text"), form = document.getElementById("nugget-create");
    if (!(xhr.status >= 200 && xhr.status < 300) && input && !input.value) input.value = sentNugget;
    if (nuggetLater && form && input && input.value.trim()) {
      wire(form);
      form.requestSubmit();
    }
    nuggetLater = false;
  }

  var typedMeanwhile = null;
  document.addEventListener("htmx:beforeSwap", function (e) {
    var input = document.getElementById("nugget-text");
    typedMeanwhile = e.detail.target.id === "nugget-workspace" && input && input.value ? input.value : null;
  });
  document.addEventListener("htmx:afterSwap", function () {
    var input = document.getElementById("nugget-text");
    if (typedMeanwhile !== null && input && !input.value) input.value = typedMeanwhile;
    typedMeanwhile = null;
  });

  // htmx fires beforeRequest synchronously within the click or submit, so a request a key or next() makes is
  // awaited before the next key is looked at.
  document.addEventListener("htmx:beforeRequest", function (e) {
    var d = e.detail, save = d.elt.id === "judge-bar";
    var item = d.target && d.target.id === "item-panel" && (moving || autoAdvance());
    if (save || item) awaited = {xhr: d.xhr, save: save, advance: save && autoAdvance(), auto: moving, swapped: false};
  });

  document.addEventListener("htmx:afterSwap", function (e) {
    if (awaited && e.detail.xhr === awaited.xhr) awaited.swapped = true;
  });

  // Fired after the swap (settling comes later): an answer that failed or brought nothing into the page will not
  // settle, so nothing is coming for the keys.
  document.addEventListener("htmx:afterRequest", function (e) {
    if (awaited && e.detail.xhr === awaited.xhr && !(e.detail.successful && awaited.swapped)) stopAdvancing();
  });

  // Fired on each element the answer brought (the judge bar and its out-of-band class list), all settled by now.
  document.addEventListener("htmx:afterSettle", function (e) {
    if (!awaited || e.detail.xhr !== awaited.xhr) return;
    if (!awaited.save) return arrived();
    var bar = document.getElementById("judge-bar");
    if (!bar || bar.getAttribute("data-saved") !== "1") stopAdvancing();  // refused: the keys were meant for later
    else if (!awaited.advance || bar.getAttribute("data-complete") !== "1") replay();  // (a correct list answer
    else next();                                                                       // still needs a class)
  });

  // --- keys --------------------------------------------------------------------------------------------------------
  function act(k) {
    var keys = window.assayKeys;
    if (document.getElementById("nugget-workspace")) {
      switch (k.action) {
        case "next": return rows.move(1);
        case "previous": return rows.move(-1);
        case "unjudged": return rows.nextWhere(unmatched);
        case "next-nugget": return nuggets.move(1);
        case "previous-nugget": return nuggets.move(-1);
        case "vital": case "okay": return vote(k.action);
        case "type-nugget": return typeNugget();
        case "nugget-from-selection": return nuggetFromSelection();
        case "yes": return click(document.querySelector("#nugget-proposals li.proposal .accept-proposal"));
        case "no": return click(document.querySelector("#nugget-proposals li.proposal .reject-proposal"));
        case "number":
          var row = rows.current();
          if (!row) return false;
          keys.number("number", k.digit, row.querySelectorAll("input[data-nugget-index]").length,
                      function (n) { toggleNugget(row.id, n); });
          return true;
      }
      return false;
    }
    if (document.getElementById("adjudication")) {
      var row = disagreements.current();
      switch (k.action) {
        case "next": return disagreements.move(1);
        case "previous": return disagreements.move(-1);
        case "unjudged": return disagreements.nextWhere(function (tr) { return !tr.classList.contains("decided"); });
        case "take-primary": case "take-second":
          var label = row && row.getAttribute(k.action === "take-primary" ? "data-primary" : "data-second");
          return click(row && row.querySelector('.label-btn[value="' + label + '"]'));
        case "number":
          if (!row) return false;
          keys.number("number", k.digit, row.querySelectorAll("[data-label-number]").length, function (n) {
            var now = disagreements.current();
            click(now && now.querySelector('[data-label-number="' + n + '"]'));
          });
          return true;
      }
      return false;
    }
    if (document.getElementById("vote-page")) {
      switch (k.action) {
        case "next": return nuggets.move(1);
        case "previous": return nuggets.move(-1);
        case "unjudged": return nuggets.nextWhere(unvoted);
        case "vital": case "okay": return vote(k.action);
      }
      return false;
    }
    if (k.action === "class") {
      var bar = document.getElementById("judge-bar");
      var count = bar ? bar.querySelectorAll("[data-class-number]").length : 0;
      if (!count) return false;
      keys.number("class", k.digit, count, function (n) {
        var bar = document.getElementById("judge-bar");
        click(bar && bar.querySelector('[data-class-number="' + n + '"]'));
      });
      return true;
    }
    return pressKey(k.key);
  }

  document.addEventListener("keydown", function (e) {
    var keys = window.assayKeys;
    if (!keys) return;
    if (keys.typing(e.target)) {
      if (e.target.id !== "nugget-text") return;
      if (e.key === "Escape") e.target.blur();  // back to the keys
      if (e.key === "Enter" && creatingNugget) {  // added once the nugget before it is in
        e.preventDefault();
        nuggetLater = true;
        e.target.blur();
      }
      return;
    }
    var action = keys.action(e);
    if (!action || action === "number-done") return;  // Enter ends a number in keys.js; otherwise it is Enter
    var k = {action: action, key: e.key, digit: keys.digit(e)};
    if (awaited) waiting.push(k);
    else if (!act(k)) return;
    e.preventDefault();
  });

  document.addEventListener("click", function (e) {
    var row = e.target.closest && e.target.closest("[data-match-row]");
    if (row) rows.set(row, true);
    var li = e.target.closest && e.target.closest("li[data-nugget-id]");
    if (li) nuggets.set(li, true);
    var tr = e.target.closest && e.target.closest("[data-adjudication-row]");
    if (tr) disagreements.set(tr, true);
    var sel = e.target.closest && e.target.closest("[data-nugget-from-selection]");
    if (sel) { e.preventDefault(); nuggetFromSelection(); }
  });

  // Safety net for the mouse and Enter: an htmx form submitted before htmx wired it is wired and submitted again.
  // Heard as the event bubbles, after the form's own listeners: htmx cancels the native submission of a form it
  // sends, so one that is not cancelled by then went past htmx. The new submission is made once this one is over
  // (a form ignores one asked for while it fires its submit event), by clicking the same button: htmx learns the
  // pressed button (the label) from the click.
  document.addEventListener("submit", function (e) {
    var form = e.target;
    if (e.defaultPrevented || !form.hasAttribute || !form.hasAttribute("hx-post") || !window.htmx) return;
    e.preventDefault();
    window.htmx.process(form);
    var submitter = e.submitter && form.contains(e.submitter) ? e.submitter : null;
    setTimeout(function () {
      if (!form.isConnected) return;
      if (submitter) submitter.click(); else form.requestSubmit();
    }, 0);
  });

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

  function ensureCursors() {
    if (document.getElementById("adjudication")) disagreements.ensure();
    if (document.getElementById("nugget-workspace")) rows.ensure();
    if (document.getElementById("nugget-workspace") || document.getElementById("vote-page")) nuggets.ensure();
  }

  document.addEventListener("htmx:afterSettle", ensureCursors);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", ensureCursors);
  else ensureCursors();
})();
