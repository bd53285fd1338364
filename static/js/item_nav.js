// Moving to another item of a judging page as an htmx swap (assess/item_nav.py): the links of a [data-item-nav]
// element carry hx-get beside their href, and the element says which panel they replace (hx-target, hx-swap
// outerHTML, hx-push-url). The server answers htmx with the item's panel ([data-item-panel]) only; the page script
// (bolt.js, biogen.js, rag.js) binds each panel as it arrives (htmx:load). This script makes the move safe by keyboard:
// - a move waits for the saves the page has on their way (assayItemNav.track), so "next unjudged" is worked out
//   after them and no answer is shown on a panel it was not meant for;
// - keys of the page's key map pressed while the next panel is on its way are held, then replayed on it;
// - the new panel takes the focus (the link pressed went away with the old one), without scrolling;
// - a move that fails says so in the status line and leaves the item on screen as it was.
(function () {
  "use strict";
  if (window.assayItemNav) return;

  var inflight = [];  // saves not answered yet (their promises)
  var moving = false, held = [], replaying = false;
  var moves = 0, landed = 0;  // moves asked for; the last one whose panel arrived

  function track(promise) {
    inflight.push(promise);
    var drop = function () { var at = inflight.indexOf(promise); if (at >= 0) inflight.splice(at, 1); };
    promise.then(drop, drop);
    return promise;
  }

  // Resolved once no save is on its way, counting the ones an answer sends next (a value queued meanwhile).
  function idle() {
    if (!inflight.length) return Promise.resolve();
    return Promise.all(inflight.map(function (p) { return p.catch(function () {}); })).then(idle);
  }

  function navOf(elt) { return elt && elt.closest ? elt.closest("[data-item-nav]") : null; }

  // Follow an item link: through htmx once it has wired the link (htmx wires a page at DOMContentLoaded, a swapped
  // panel as it settles; process() leaves a wired link as it is), else the plain link, a page load.
  function follow(link) {
    if (window.htmx && navOf(link)) window.htmx.process(link);
    link.click();
  }

  document.addEventListener("htmx:confirm", function (e) {
    if (!navOf(e.detail.elt)) return;
    moving = true;
    moves += 1;
    if (!inflight.length) return;
    e.preventDefault();
    idle().then(function () { e.detail.issueRequest(true); });
  });

  function say(text) {
    var el = document.getElementById("status");
    if (!el) return;
    el.textContent = text;
    el.className = "error";
  }

  document.addEventListener("htmx:afterRequest", function (e) {
    if (!navOf(e.detail.elt)) return;
    if (e.detail.successful) {
      // answered without a panel (not one of ours): keys go back to the page rather than waiting forever
      var move = moves;
      Promise.resolve().then(function () { if (landed < move && moves === move) { moving = false; held = []; } });
      return;
    }
    moving = false;
    held = [];
    say("Could not open that item; try again.");
  });

  // Once htmx has swapped and wired the panel and every htmx:load listener (the page's binding) has run.
  function arrived(panel) {
    moving = false;
    landed = moves;
    var focused = document.activeElement;
    if (!focused || focused === document.body || !focused.isConnected) panel.focus({preventScroll: true});
    var keys = held;
    held = [];
    replaying = true;
    try {
      for (var i = 0; i < keys.length; i++) {
        if (moving) { held = held.concat(keys.slice(i)); break; }  // a replayed key moved on again: wait for it
        (document.activeElement || document.body).dispatchEvent(new KeyboardEvent("keydown", keys[i]));
      }
    } finally {
      replaying = false;
    }
  }

  document.addEventListener("htmx:load", function (e) {
    var elt = e.target;
    var panel = elt.matches && elt.matches("[data-item-panel]") ? elt
      : elt.querySelector && elt.querySelector("[data-item-panel]");
    if (panel) Promise.resolve().then(function () { arrived(panel); });
  });

  // Capture on window: keys meant for the next item wait for it instead of acting on the one leaving.
  window.addEventListener("keydown", function (e) {
    if (!moving || replaying || !window.assayKeys || window.assayKeys.typing(e.target)) return;
    var action = window.assayKeys.action(e);
    if (!action || action === "keys") return;
    e.preventDefault();
    e.stopImmediatePropagation();
    held.push({key: e.key, code: e.code, shiftKey: e.shiftKey, bubbles: true, cancelable: true});
  }, true);

  window.assayItemNav = {track: track, idle: idle, follow: follow, isNav: function (el) { return !!navOf(el); }};
})();
