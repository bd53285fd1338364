// BOLT judging, keyboard first. The citation page keeps the judgment in `value` and saves it as JSON after every
// change (with the version last seen, so a second tab cannot overwrite silently); relspans are [start, length]
// in the passage, taken from the text selection. The find page turns a selection inside one post into raw
// offsets using the data-o (raw offset) and data-l (raw length) of the segments the server rendered.
(function () {
  "use strict";

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
    return fetch(url, {method: "POST", credentials: "same-origin",
                       headers: {"Content-Type": "application/json", "X-CSRFToken": csrf()},
                       body: JSON.stringify(body)})
      .then(function (r) { return r.json().then(function (d) { return {status: r.status, data: d}; }); });
  }

  function typing(el) {
    return el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName) && el.type !== "checkbox" && el.type !== "radio");
  }

  function pressKey(key) {
    var all = document.querySelectorAll("[data-key]");
    for (var i = 0; i < all.length; i++) {
      if (all[i].getAttribute("data-key") === key && !all[i].disabled && all[i].getClientRects().length) {
        all[i].click();
        return true;
      }
    }
    return false;
  }

  document.addEventListener("keydown", function (ev) {
    if (ev.ctrlKey || ev.metaKey || ev.altKey || typing(document.activeElement)) return;
    if (ev.key === "x" && removeLast()) { ev.preventDefault(); return; }
    if (pressKey(ev.key)) ev.preventDefault();
  });

  // --- the citation page ---------------------------------------------------------------------------------------
  var stateEl = document.getElementById("bolt-state");
  var state = stateEl ? JSON.parse(stateEl.textContent) : null;
  var value = state && state.value ? state.value : {rel: null, trans: "na", chksrc: false, relspans: []};
  var passageEl = document.getElementById("passage");

  function merged() {
    var spans = (value.relspans || []).map(function (s) { return [s[0], s[0] + s[1]]; })
      .sort(function (a, b) { return a[0] - b[0]; });
    var out = [];
    spans.forEach(function (s) {
      if (out.length && s[0] <= out[out.length - 1][1]) out[out.length - 1][1] = Math.max(out[out.length - 1][1], s[1]);
      else out.push([s[0], s[1]]);
    });
    return out;
  }

  function renderPassage() {
    var text = state.passage, pos = 0;
    passageEl.textContent = "";
    merged().forEach(function (s) {
      if (s[0] > pos) passageEl.appendChild(document.createTextNode(text.slice(pos, s[0])));
      var mark = document.createElement("mark");
      mark.className = "relspan";
      mark.textContent = text.slice(s[0], s[1]);
      passageEl.appendChild(mark);
      pos = s[1];
    });
    if (pos < text.length) passageEl.appendChild(document.createTextNode(text.slice(pos)));
  }

  function render() {
    renderPassage();
    document.querySelectorAll("[data-rel]").forEach(function (b) {
      b.setAttribute("aria-pressed", String(b.getAttribute("data-rel") === value.rel));
    });
    var relevant = value.rel === "yes" || value.rel === "maybe";
    document.querySelectorAll("[data-trans]").forEach(function (b) {
      b.setAttribute("aria-pressed", String(b.getAttribute("data-trans") === value.trans));
      b.disabled = !relevant;
    });
    var box = document.getElementById("chksrc");
    box.checked = !!value.chksrc;
    document.getElementById("add-relspan").disabled = !relevant;
    var list = document.getElementById("relspans");
    list.textContent = "";
    (value.relspans || []).forEach(function (s, i) {
      var li = document.createElement("li");
      li.setAttribute("data-relspan", String(i));
      li.appendChild(document.createTextNode("“" + state.passage.substr(s[0], s[1]) + "” "));
      var rm = document.createElement("button");
      rm.type = "button";
      rm.textContent = "×";
      rm.title = "remove this relspan";
      rm.setAttribute("aria-label", "remove relspan " + (i + 1));
      rm.addEventListener("click", function () { removeAt(i); });
      li.appendChild(rm);
      list.appendChild(li);
    });
  }

  function save() {
    if (!value.rel) { say("Choose yes, maybe or no first."); render(); return; }
    say("Saving…");
    post(state.judge_url, {version: state.version, value: value}).then(function (r) {
      if (r.status === 200) {
        state.version = r.data.version;
        value = r.data.value;
        say("Saved (version " + state.version + ").");
      } else if (r.status === 409) {
        state.version = r.data.version;
        if (r.data.value) value = r.data.value;
        say(r.data.error, true);
      } else {
        say(r.data.error || "Not saved.", true);
      }
      render();
    }).catch(function () { say("Not saved: the server did not answer. Try again.", true); });
  }

  function selectionSpan() {
    var sel = window.getSelection();
    if (!sel.rangeCount || sel.isCollapsed) return null;
    var range = sel.getRangeAt(0);
    if (!passageEl.contains(range.startContainer) || !passageEl.contains(range.endContainer)) return null;
    var before = document.createRange();
    before.selectNodeContents(passageEl);
    before.setEnd(range.startContainer, range.startOffset);
    var start = before.toString().length, length = range.toString().length;
    return length > 0 ? [start, length] : null;
  }

  function removeAt(i) {
    value.relspans.splice(i, 1);
    render();
    save();
  }

  function removeLast() {
    if (!state || !value.relspans || !value.relspans.length) return false;
    removeAt(value.relspans.length - 1);
    return true;
  }

  if (state && passageEl) {
    document.querySelectorAll("[data-rel]").forEach(function (b) {
      b.addEventListener("click", function () {
        value.rel = b.getAttribute("data-rel");
        if (value.rel === "no") { value.relspans = []; value.trans = "na"; }
        render();
        save();
      });
    });
    document.querySelectorAll("[data-trans]").forEach(function (b) {
      b.addEventListener("click", function () { value.trans = b.getAttribute("data-trans"); render(); save(); });
    });
    var box = document.getElementById("chksrc");
    box.addEventListener("change", function () { value.chksrc = box.checked; save(); });
    document.getElementById("add-relspan").addEventListener("click", function () {
      var span = selectionSpan();
      if (!span) { say("Select some text of the passage first.", true); return; }
      value.relspans = (value.relspans || []).concat([span]);
      window.getSelection().removeAllRanges();
      render();
      save();
    });
    render();
  }

  // --- the find page -------------------------------------------------------------------------------------------
  var thread = document.getElementById("thread");
  var addFound = document.getElementById("add-found");

  function segmentOf(node) {
    var el = node.nodeType === 1 ? node : node.parentNode;
    return el && el.closest ? el.closest("[data-o]") : null;
  }

  function rawPoint(container, offset, isEnd) {
    var seg = segmentOf(container);
    if (!seg && container.nodeType === 1) {  // a boundary between segments: use the neighbouring one
      var child = container.childNodes[isEnd ? offset - 1 : offset];
      seg = child ? segmentOf(child) : null;
      if (seg) return isEnd ? +seg.dataset.o + +seg.dataset.l : +seg.dataset.o;
    }
    if (!seg) return null;
    var o = +seg.dataset.o, l = +seg.dataset.l;
    if (seg.className === "seg-text") return o + (container.nodeType === 3 ? offset : (offset ? l : 0));
    if (seg.className === "seg-entity") return offset > 0 ? o + l : o;
    return isEnd ? o : o + l;  // a tag marker: the span starts after it or ends before it
  }

  if (thread && addFound) {
    addFound.addEventListener("click", function () {
      var sel = window.getSelection();
      if (!sel.rangeCount || sel.isCollapsed) { say("Select a span in a post first.", true); return; }
      var range = sel.getRangeAt(0);
      var startPost = segmentOf(range.startContainer), endPost = segmentOf(range.endContainer);
      var postEl = startPost && startPost.closest("[data-post]");
      if (!postEl || !endPost || endPost.closest("[data-post]") !== postEl) {
        say("The selection must lie inside one post.", true);
        return;
      }
      var start = rawPoint(range.startContainer, range.startOffset, false);
      var end = rawPoint(range.endContainer, range.endOffset, true);
      if (start === null || end === null || end <= start) { say("Could not place that selection.", true); return; }
      post(thread.dataset.addUrl, {thread: thread.dataset.thread, post: postEl.dataset.post, offset: start,
                                   length: end - start, passage: range.toString()}).then(function (r) {
        if (r.status === 200) {
          say("Added citation " + r.data.pool_id + ".");
          var li = document.createElement("li");
          var a = document.createElement("a");
          a.href = r.data.url;
          a.textContent = r.data.pool_id;
          li.appendChild(a);
          li.appendChild(document.createTextNode(" " + r.data.passage));
          var list = document.getElementById("found");
          if (list.children.length === 1 && !list.querySelector("a")) list.textContent = "";
          list.appendChild(li);
          sel.removeAllRanges();
        } else {
          say(r.data.error || "Not added.", true);
        }
      });
    });
  }
})();
