// The save protocol of the judging pages, in one place: QA's htmx forms and BOLT's JSON saves both follow it
// (docs/save-protocol.md says the same for the server side). Loaded by base.html on every page, before any page
// script (assess.js and bolt.js use window.assaySaves); it also reports the failed htmx requests of other pages.
//
// A subject is what one save changes (one judgment), named by the URL the save posts to (the URL names qa:judge,
// qa:match, qa:vote, qa:adjudicate; bolt:judge, bolt:view_answer).
//
// What the server does (assess/judging.py; the QA views answer with partials, the BOLT views with JSON):
// - every save carries the version of the judgment the page last saw (0: none yet); a save against an older
//   version is refused with 409, and the answer carries the newer value and its version;
// - other refusals say why: 400 (bad input), 403 (not yours), 423 (the question is closed);
// - a save that is kept answers 200 with the stored value and its new version.
//   htmx: the partial of the form again, showing the stored (or, on 409, the newer) value, with the version in its
//   hidden `version` input and the message in its status line. JSON: {ok, version, value}; a 409 {error, version,
//   value}; any other refusal {error}.
//
// What the page does:
// 1. It sends the version it last saw with each save: the form's hidden input (htmx), body.version filled in by
//    the subject's saver (JSON).
// 2. At most one save per subject is in flight. A change made meanwhile waits and goes out once the answer is in,
//    against the version that answer brought: JSON bodies queue in the subject's saver (a whole value replaces the
//    ones not sent yet); an htmx form's change is applied again to the form the answer swaps in (its choices copied
//    over, the same button pressed), so it carries the new version.
// 3. A refusal (400/403/409/423) is shown where the save was made: htmx swaps the refusing partial in (htmx would
//    drop a 4xx), JSON savers hand it to the page; on 409 the newer value is shown and its version is the one the
//    next save is made against. What waited is dropped: it was meant to follow the refused save.
// 4. Anything else is a failure: a server error, a proxy's page (no partial, no JSON), no answer, a time-out. The
//    save's status line says "Not saved: <why>. Your choice is kept on screen; press it again to retry.", the
//    pressed control is marked unsaved (.unsaved) and what waited is dropped. A failed htmx request that only
//    loads something says "Not loaded: <why>. Try again." instead.
//
// htmx's part: saves are the writes (not GET) of elements inside [data-save] (the QA templates mark their judging
// forms and panels); a versioned save is such a form with a `version` input. htmx wires content it swaps in only
// after its settle delay, so a key that clicks into it, or a form submitted, before then would go natively (a full
// page load): wire(el) has htmx process it first, and a save form submitted unwired is resubmitted through htmx.
// Whether htmx wired an element is learnt from its public htmx:afterProcessNode event.
(function () {
  "use strict";
  if (window.assaySaves) return;

  // --- wiring -----------------------------------------------------------------------------------------------
  var processed = typeof WeakSet === "function" ? new WeakSet() : null;

  document.addEventListener("htmx:afterProcessNode", function (e) {
    if (processed && e.target && e.target.nodeType === 1) processed.add(e.target);
  });

  function wired(el) {
    return !!(processed && el && processed.has(el));
  }

  // Have htmx wire `root` now (htmx.process is idempotent: it does nothing to an element it wired as it is).
  function process(root) {
    window.htmx.process(root);
    if (processed) processed.add(root);  // wired now, even had its event gone unseen
  }

  // Have htmx wire the element that makes el's request.
  function wire(el) {
    var root = el && el.closest ? el.closest("[hx-get],[hx-post]") : null;
    if (root && window.htmx && !wired(root)) process(root);
  }

  // A save form submitted (a click, Enter) before htmx wired it: wired now, then submitted again through htmx —
  // with the same button, clicked, so htmx sends its name and value. This submit goes no further (htmx's listener,
  // added just now, would take it without the button: htmx learns the button from the click) and the new one is
  // made once it is over (a form ignores a submission asked for while it fires its submit event).
  document.addEventListener("submit", function (e) {
    var form = e.target;
    if (!window.htmx || !form.hasAttribute || !form.hasAttribute("hx-post") || !form.closest("[data-save]")) return;
    if (wired(form)) return;
    e.preventDefault();
    e.stopPropagation();
    process(form);
    var submitter = e.submitter && form.contains(e.submitter) ? e.submitter : null;
    setTimeout(function () {
      if (!form.isConnected) return;
      if (submitter) submitter.click(); else form.requestSubmit();
    }, 0);
  }, true);

  // A change on a save form that saves on change (a match row's boxes), made before htmx wired it: wired now, in
  // the capture phase, so htmx's listener is on the form before this very event reaches it.
  document.addEventListener("change", function (e) {
    var form = e.target && e.target.closest ? e.target.closest("form[hx-post]") : null;
    if (!window.htmx || !form || !form.closest("[data-save]") || wired(form)) return;
    if (/\bchange\b/.test(form.getAttribute("hx-trigger") || "")) process(form);
  }, true);

  // --- outcomes -----------------------------------------------------------------------------------------------
  var REFUSED = {400: true, 403: true, 409: true, 423: true};
  var UNREACHABLE = "the server could not be reached";
  var TOO_SLOW = "the server did not answer in time";

  function answered(status, statusText) {
    return "the server answered " + status + (statusText ? " " + statusText : "");
  }

  function failureText(why, write) {
    return write === false ? "Not loaded: " + why + ". Try again."
      : "Not saved: " + why + ". Your choice is kept on screen; press it again to retry.";
  }

  // Say a failure in a status line (an element), marking the pressed control, if any, as not saved.
  function report(status, text, pressed) {
    if (!status) return;
    status.textContent = "";
    var span = document.createElement("span");
    span.className = "error save-error";
    span.setAttribute("role", "alert");
    span.textContent = text;
    status.appendChild(span);
    if (pressed && pressed.classList) {
      pressed.classList.add("unsaved");
      pressed.setAttribute("title", "not saved");
    }
  }

  // --- JSON saves ---------------------------------------------------------------------------------------------
  function csrf() {
    try { return JSON.parse(document.body.getAttribute("hx-headers"))["X-CSRFToken"]; } catch (e) { return ""; }
  }

  function timeoutMs() {
    return (window.htmx && window.htmx.config && window.htmx.config.timeout) || 20000;
  }

  // POST a JSON body; resolves (never rejects) to {status, data} for an answer in JSON that the protocol knows
  // (2xx, or a refusal), else to {status, failure: why}.
  function postJSON(url, body) {
    var controller = typeof AbortController === "function" ? new AbortController() : null;
    var timedOut = false;
    var timer = controller ? setTimeout(function () { timedOut = true; controller.abort(); }, timeoutMs()) : null;
    return fetch(url, {method: "POST", credentials: "same-origin", signal: controller ? controller.signal : undefined,
                       headers: {"Content-Type": "application/json", "X-CSRFToken": csrf()},
                       body: JSON.stringify(body)})
      .then(function (r) {
        var known = (r.status >= 200 && r.status < 300) || REFUSED[r.status];
        return r.json().then(function (d) {
          if (known && d && typeof d === "object") return {status: r.status, data: d};
          return {status: r.status, failure: answered(r.status, r.statusText)};
        }, function () {  // a server error or a proxy's page is no JSON: never "saved"
          return {status: r.status, failure: answered(r.status, r.statusText)};
        });
      }, function () {
        return {status: 0, failure: timedOut ? TOO_SLOW : UNREACHABLE};
      })
      .then(function (outcome) {
        if (timer) clearTimeout(timer);
        return outcome;
      });
  }

  // The saver of one subject: bodies go out one at a time, each with the version the previous answer brought.
  // handlers: saved(data, more) — kept (more: another change is queued); refused({status, data}) — data.error, and
  // on 409 data.value and data.version, the newer judgment; failed(text) — the failure, worded for the status line.
  function Saver(url, version) {
    this.url = url;
    this.version = version;
    this.handlers = null;
    this.queue = [];
    this.inflight = false;
    this.waiters = [];
  }

  // replace: the body is a whole value and supersedes any not sent yet; otherwise bodies go out in order.
  Saver.prototype.push = function (body, replace) {
    if (replace) this.queue = [body]; else this.queue.push(body);
    this.pump();
  };

  Saver.prototype.busy = function () { return this.inflight || this.queue.length > 0; };

  // Resolves once nothing is in flight or queued (moving on waits for it).
  Saver.prototype.idle = function () {
    var self = this;
    return self.busy() ? new Promise(function (resolve) { self.waiters.push(resolve); }) : Promise.resolve();
  };

  Saver.prototype.pump = function () {
    var self = this;
    if (self.inflight) return;
    if (!self.queue.length) {
      var waiting = self.waiters;
      self.waiters = [];
      waiting.forEach(function (resolve) { resolve(); });
      return;
    }
    var body = self.queue.shift();
    body.version = self.version;
    self.inflight = true;
    postJSON(self.url, body).then(function (r) {
      var h = self.handlers;
      if (r.failure) {
        self.queue = [];
        h.failed(failureText(r.failure));
      } else if (r.status >= 200 && r.status < 300) {
        self.version = r.data.version;
        h.saved(r.data, self.queue.length > 0);
      } else {  // refused: what was queued assumed the refused save, so it goes too
        if (r.status === 409 && typeof r.data.version === "number") self.version = r.data.version;
        self.queue = [];
        h.refused(r);
      }
    }).catch(function (e) {
      if (window.console) console.error(e);
    }).then(function () {
      self.inflight = false;
      self.pump();
    });
  };

  var savers = {};  // subject URL -> its saver: one save in flight per subject, whichever panel shows it

  // The saver of `url`, for a page that shows `version`, answering to `handlers` (the page showing it now).
  function saver(url, version, handlers) {
    var s = savers[url];
    if (!s) s = savers[url] = new Saver(url, version);
    else if (typeof version === "number" && version > s.version) s.version = version;  // versions only grow
    s.handlers = handlers;
    return s;
  }

  // --- htmx saves ---------------------------------------------------------------------------------------------
  function isWrite(config) { return !config || String(config.verb).toLowerCase() !== "get"; }

  function inSave(elt) { return !!(elt && elt.closest && elt.closest("[data-save]")); }

  function versionedForm(elt) {
    return !!(elt && elt.tagName === "FORM" && elt.hasAttribute("hx-post") && inSave(elt) &&
              elt.querySelector("input[name=version]"));
  }

  // (3) A refused save answers with a partial that says why (and on 409 shows the newer value): swapped in.
  document.addEventListener("htmx:beforeSwap", function (e) {
    if (REFUSED[e.detail.xhr.status] && isWrite(e.detail.requestConfig) && inSave(e.detail.elt)) {
      e.detail.shouldSwap = true;
      e.detail.isError = false;
    }
  });

  // (2) One save per subject in flight; a change made meanwhile is applied again to the form that comes back.
  var inFlight = {};  // subject -> true from the request until its answer is in
  var waiting = {};   // subject -> {form, event}: the latest change made meanwhile (a save sends the whole form)

  document.addEventListener("htmx:confirm", function (e) {
    var form = e.detail.elt;
    if (!versionedForm(form)) return;
    var subject = form.getAttribute("hx-post");
    if (!inFlight[subject]) return;
    e.preventDefault();
    waiting[subject] = {form: form, event: e.detail.triggeringEvent || null};
  });

  document.addEventListener("htmx:beforeRequest", function (e) {
    var form = e.detail.elt, xhr = e.detail.xhr;
    if (!versionedForm(form) || !xhr) return;
    var subject = form.getAttribute("hx-post");
    inFlight[subject] = true;
    xhr.addEventListener("loadend", function () {  // after htmx handled the answer (and swapped it in)
      delete inFlight[subject];
      var change = waiting[subject];
      delete waiting[subject];
      if (!change || xhr.status < 200 || xhr.status >= 300) return;  // refused or failed: what waited goes too
      var next = formOf(subject);
      if (next && next !== change.form) applyAgain(change, next);
    });
  });

  function formOf(subject) {
    var forms = document.querySelectorAll("form[hx-post]");
    for (var i = 0; i < forms.length; i++) {
      if (forms[i].getAttribute("hx-post") === subject && versionedForm(forms[i])) return forms[i];
    }
    return null;
  }

  function counterpart(form, el) {
    var all = form.querySelectorAll(el.tagName);
    for (var i = 0; i < all.length; i++) {
      if (all[i].name === el.name && all[i].value === el.value && all[i].type === el.type) return all[i];
    }
    return null;
  }

  // The choices made on the old form (not its hidden inputs: those are the server's, the version among them).
  function copyChoices(from, to) {
    Array.prototype.forEach.call(from.elements, function (el) {
      if (!el.name || el.type === "hidden" || el.type === "submit" || el.type === "button" || el.tagName === "BUTTON") return;
      if (el.type === "checkbox" || el.type === "radio") {
        var box = counterpart(to, el);
        if (box) box.checked = el.checked;
        return;
      }
      var same = Array.prototype.filter.call(to.elements, function (o) { return o.name === el.name; })[0];
      if (same && same.type !== "hidden") same.value = el.value;
    });
  }

  function applyAgain(change, form) {
    wire(form);  // swapped in just now: htmx wires it only after its settle delay
    copyChoices(change.form, form);
    var ev = change.event;
    if (ev && ev.type === "submit") {
      if (!ev.submitter) { form.requestSubmit(); return; }
      var button = counterpart(form, ev.submitter);
      if (button && !button.disabled) button.click();  // a click: htmx sends the button's name and value
    } else {
      var target = (ev && ev.target && ev.target.tagName && counterpart(form, ev.target)) || form;
      target.dispatchEvent(new Event(ev ? ev.type : "change", {bubbles: true}));
    }
  }

  // (4) Every htmx request that fails says so where it was made: without this htmx would drop a server error, a
  // proxy's page or a missing answer without a word, and the assessor would believe the judgment saved. The
  // pressed choice stays marked "not saved" and the form keeps its inputs, so pressing it again retries.
  var pressed = null;  // the button or input the last request came from (htmx does not tell the error handlers)

  document.addEventListener("htmx:beforeRequest", function (e) {
    var cfg = e.detail.requestConfig;
    var submitter = cfg && cfg.triggeringEvent && cfg.triggeringEvent.submitter;
    pressed = submitter || (document.activeElement !== document.body ? document.activeElement : null);
    var form = e.detail.elt.closest ? (e.detail.elt.closest("form") || e.detail.elt) : null;
    if (form) form.classList.remove("save-failed");
  });

  function reason(e) {
    if (e.type === "htmx:sendError") return UNREACHABLE;
    if (e.type === "htmx:timeout") return TOO_SLOW;
    var xhr = e.detail.xhr;
    return answered(xhr.status, xhr.statusText);
  }

  function globalBox() {
    var box = document.getElementById("request-failed");
    if (!box) {
      box = document.createElement("p");
      box.id = "request-failed";
      box.className = "messages error";
      box.setAttribute("role", "alert");
      var main = document.getElementById("main") || document.body;
      main.parentNode.insertBefore(box, main);
    }
    return box;
  }

  function reportFailed(e) {
    var elt = e.detail.elt;
    var form = elt && elt.closest ? (elt.closest("form") || elt) : null;
    var write = isWrite(e.detail.requestConfig);
    var status = form && form.querySelector ? form.querySelector(".status") : null;
    var mark = write && pressed && form && form.contains && form.contains(pressed) ? pressed : null;
    report(status || globalBox(), failureText(reason(e), write), mark);
    if (form && form.classList) form.classList.add("save-failed");
  }

  // (a refused save swapped in above is no error to htmx, so it never reaches these)
  document.addEventListener("htmx:responseError", reportFailed);
  document.addEventListener("htmx:sendError", reportFailed);
  document.addEventListener("htmx:timeout", reportFailed);
  document.addEventListener("htmx:afterRequest", function (e) {
    if (e.detail.successful) {
      var box = document.getElementById("request-failed");
      if (box) box.remove();
    }
  });

  window.assaySaves = {
    wired: wired, wire: wire,
    failureText: failureText, report: report,
    postJSON: postJSON, saver: saver,
    busy: function (form) { return versionedForm(form) && !!inFlight[form.getAttribute("hx-post")]; }
  };
})();
