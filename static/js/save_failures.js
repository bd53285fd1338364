// Every htmx request that fails says so where it was made. Refused saves (400/403/409/423) come back as partials
// that explain themselves (assess.js swaps them in); anything else — a server error, a proxy's page, no answer at
// all — would otherwise be dropped by htmx without a word, and the assessor would believe the judgment saved.
// The pressed choice stays marked "not saved" and the form keeps its inputs, so pressing it again retries.
(function () {
  "use strict";
  if (window.assaySaveFailures) return;
  window.assaySaveFailures = true;

  var pressed = null;  // the button or input the last request came from (htmx does not tell the error handlers)

  document.addEventListener("htmx:beforeRequest", function (e) {
    var submitter = e.detail.requestConfig && e.detail.requestConfig.triggeringEvent &&
      e.detail.requestConfig.triggeringEvent.submitter;
    pressed = submitter || (document.activeElement !== document.body ? document.activeElement : null);
    var form = e.detail.elt.closest ? (e.detail.elt.closest("form") || e.detail.elt) : null;
    if (form) form.classList.remove("save-failed");
  });

  function reason(e) {
    if (e.type === "htmx:sendError") return "the server could not be reached";
    if (e.type === "htmx:timeout") return "the server did not answer in time";
    var xhr = e.detail.xhr;
    return "the server answered " + xhr.status + (xhr.statusText ? " " + xhr.statusText : "");
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

  function report(e) {
    var elt = e.detail.elt;
    var form = elt && elt.closest ? (elt.closest("form") || elt) : null;
    var write = e.detail.requestConfig ? e.detail.requestConfig.verb !== "get" : true;
    var text = (write ? "Not saved: " : "Not loaded: ") + reason(e) + ". " +
      (write ? "Your choice is kept on screen; press it again to retry." : "Try again.");
    var status = form && form.querySelector ? form.querySelector(".status") : null;
    var target = status || globalBox();
    target.textContent = "";
    var span = document.createElement("span");
    span.className = "error save-error";
    span.setAttribute("role", "alert");
    span.textContent = text;
    target.appendChild(span);
    if (form && form.classList) form.classList.add("save-failed");
    if (write && pressed && form && form.contains && form.contains(pressed)) {
      pressed.classList.add("unsaved");
      pressed.setAttribute("title", "not saved");
    }
  }

  // (a refused save whose partial assess.js swapped in is no error to htmx, so it never reaches this)
  document.addEventListener("htmx:responseError", report);
  document.addEventListener("htmx:sendError", report);
  document.addEventListener("htmx:timeout", report);
  document.addEventListener("htmx:afterRequest", function (e) {
    if (e.detail.successful) {
      var box = document.getElementById("request-failed");
      if (box) box.remove();
    }
  });
})();
