// BOLT adjudication, keyboard first: a key the page's key map declares (assess/keymap.py via static/js/keys.js)
// "presses" the visible, enabled element carrying data-key="<key>" (a radio, the checkbox, a submit button or a
// link), so the keys and the mouse do exactly the same thing. The decision itself is a plain form post; nothing
// here talks to the server.
(function () {
  "use strict";

  function typing(el) {
    return el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName) &&
      el.type !== "checkbox" && el.type !== "radio");
  }

  document.addEventListener("keydown", function (ev) {
    if (!window.assayKeys || !window.assayKeys.action(ev) || typing(document.activeElement)) return;
    var all = document.querySelectorAll("[data-key]");
    for (var i = 0; i < all.length; i++) {
      var el = all[i];
      if (el.getAttribute("data-key") === ev.key && !el.disabled && el.getClientRects().length) {
        ev.preventDefault();
        el.click();
        return;
      }
    }
  });
})();
