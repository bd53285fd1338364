// The keys of a judging page, as assess/keymap.py declares them (the JSON in #keymap: {key: action}). The page
// scripts (assess.js, bolt.js, bolt_adjudication.js) ask assayKeys.action(event) and act on the action name, so a
// key the map does not declare for the page does nothing. Here too: `?` opens the key list (Escape closes it),
// and numbers of more than one digit (nugget 12, class 10) are gathered before they are applied.
(function () {
  "use strict";
  if (window.assayKeys) return;

  var source = document.getElementById("keymap");
  var map = source ? JSON.parse(source.textContent) : {};
  var SECOND_DIGIT_MS = 800;  // how long a digit that could start a larger number waits for the next one
  var MODIFIERS = /^(Shift|Control|Alt|AltGraph|Meta|CapsLock|OS)$/;

  function typing(el) {
    return !!el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName) &&
      el.type !== "checkbox" && el.type !== "radio");
  }

  // A digit key that gives no digit (Shift on most layouts) is "Shift+<digit>", whatever symbol it types.
  function name(e) {
    var m = /^Digit([0-9])$/.exec(e.code || "");
    if (m && !/^[0-9]$/.test(e.key)) return "Shift+" + m[1];
    return e.key;
  }

  function action(e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return null;
    return Object.prototype.hasOwnProperty.call(map, name(e)) ? map[name(e)] : null;
  }

  function digit(e) { return name(e).slice(-1); }

  // The first key the page declares for an action (declaration order), e.g. "next" -> "j".
  function keyFor(wanted) {
    for (var k in map) if (map[k] === wanted) return k;
    return null;
  }

  // --- numbers of one or more digits -------------------------------------------------------------------------
  var pending = null;  // {kind, digits, count, apply, timer}

  function flush() {
    if (!pending) return;
    var p = pending;
    pending = null;
    clearTimeout(p.timer);
    var n = +p.digits;
    if (n >= 1 && n <= p.count) p.apply(n);
  }

  // A digit choosing one of `count` numbered things: applied at once when no larger number can start with it,
  // else after the next digit, Enter, any other key, or a short wait. So with 9 nuggets or fewer every digit acts
  // at once, and with 12 "1" waits for a possible "2".
  function number(kind, d, count, apply) {
    if (pending && pending.kind !== kind) flush();
    var digits = (pending ? pending.digits : "") + d;
    if (pending && +digits > count) { flush(); digits = d; }
    if (pending) clearTimeout(pending.timer);
    pending = {kind: kind, digits: digits, count: count, apply: apply};
    if (+digits === 0 || +digits * 10 > count) flush();
    else pending.timer = setTimeout(flush, SECOND_DIGIT_MS);
  }

  // --- the key list dialog -----------------------------------------------------------------------------------
  function dialog() { return document.getElementById("key-help"); }

  function openKeys() {
    var d = dialog();
    if (d && !d.open) d.showModal();
  }

  function closeKeys() {
    var d = dialog();
    if (d && d.open) d.close();
  }

  // Capture on window: runs before every page script's listener on the document.
  window.addEventListener("keydown", function (e) {
    if (MODIFIERS.test(e.key)) return;  // Shift pressed on its way to ⇧1: no key of its own
    var d = dialog();
    if (d && d.open) {
      // the page's keys wait while the list is open; Escape (the dialog's own) and Tab still work in it
      e.stopImmediatePropagation();
      if (e.key === "?") { e.preventDefault(); closeKeys(); }
      return;
    }
    if (typing(e.target)) return;
    if (pending) {
      var a = action(e);
      if (e.key === "Enter") {
        e.preventDefault();
        e.stopImmediatePropagation();
        flush();
        return;
      }
      if (a !== pending.kind) flush();  // any other key ends the number first, so keys act in the order typed
    }
    if (action(e) === "keys") {
      e.preventDefault();
      e.stopImmediatePropagation();
      openKeys();
    }
  }, true);

  document.addEventListener("click", function (e) {
    var t = e.target.closest ? e.target : e.target.parentElement;
    if (t.closest("[data-open-keys]")) openKeys();
    else if (t.closest("[data-close-keys]")) closeKeys();
  });

  window.assayKeys = {action: action, digit: digit, keyFor: keyFor, number: number, flush: flush, typing: typing,
                      open: openKeys, close: closeKeys};
})();
