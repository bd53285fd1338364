// BOLT judging, keyboard first. Keys come from the page's key map (assess/keymap.py via static/js/keys.js) and
// are acted on by action name; most press the visible, enabled element carrying data-key="<key>" (rendered from
// the same map), so the keyboard and the mouse take the same path.
// - Citation page: moving (j/k/u, or the links) swaps the citation panel in with htmx and pushes its URL. Each
//   panel keeps its judgment in `value` and saves it as JSON after every change. Saves go out one at a time, each
//   with the version the previous one returned, so a key pressed while a save is in flight never trips the
//   optimistic check against our own save; moving on waits for them, and keys pressed while the next panel is
//   on its way are replayed on it (static/js/item_nav.js, as on BioGen's and TREC RAG's pages). Relspans are
//   [start, length] in the passage, taken from the text selection.
// - Grouping view: a cursor over the yes/no questions (j/k or the arrows); y/n answer the current one, which is
//   saved at once (one field, with the version) and the cursor moves on.
// - Find page: a selection inside one post becomes raw offsets through the data-o (raw offset) and data-l (raw
//   length) of the segments the server rendered.
(function () {
  "use strict";
  if (window.assayBolt) return;  // loaded once per page even if htmx swaps in markup that names it again
  window.assayBolt = true;

  function csrf() {
    try { return JSON.parse(document.body.getAttribute("hx-headers"))["X-CSRFToken"]; } catch (e) { return ""; }
  }

  function sayIn(root, text, bad) {
    var el = root && root.querySelector("#status");
    if (!el) return;
    el.textContent = text;
    el.className = bad ? "error" : "";
  }

  var NO_ANSWER = "Not saved: the server could not be reached. Your choice is kept on screen; press it again to retry.";

  function post(url, body) {
    return fetch(url, {method: "POST", credentials: "same-origin",
                       headers: {"Content-Type": "application/json", "X-CSRFToken": csrf()},
                       body: JSON.stringify(body)})
      .then(function (r) {
        // a server error or a proxy's page is no JSON: still a refusal that must be shown, never "saved"
        return r.json().then(function (d) { return {status: r.status, data: d}; }, function () {
          return {status: r.status, data: {error: "Not saved: the server answered " + r.status +
                                          ". Your choice is kept on screen; press it again to retry."}};
        });
      });
  }

  function typing(el) {
    return el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName) && el.type !== "checkbox" && el.type !== "radio");
  }

  // htmx wires swapped-in content after its settle delay; a key must not click an unwired link (that would be
  // a full page load), so wire it first (htmx.process leaves an element it already wired as it is).
  function wire(el) {
    var root = el.closest("[hx-get],[hx-post]");
    if (root && window.htmx) window.htmx.process(root);
  }

  function pressKey(key) {
    var all = document.querySelectorAll("[data-key]");
    for (var i = 0; i < all.length; i++) {
      if (all[i].getAttribute("data-key") === key && !all[i].disabled && all[i].getClientRects().length) {
        wire(all[i]);
        all[i].click();
        return true;
      }
    }
    return false;
  }

  // --- saves, one at a time ------------------------------------------------------------------------------------
  function Saver(url, version, handlers) {
    this.url = url;
    this.version = version;
    this.handlers = handlers;
    this.queue = [];
    this.inflight = false;
  }

  // replace: the body supersedes any save not yet sent (a whole value); otherwise bodies go out in order.
  Saver.prototype.push = function (body, replace) {
    if (replace) this.queue = [body]; else this.queue.push(body);
    this.pump();
  };

  Saver.prototype.pump = function () {
    var self = this;
    if (self.inflight || !self.queue.length) return;
    var body = self.queue.shift();
    body.version = self.version;
    self.inflight = true;
    var request = post(self.url, body).then(function (r) {
      if (r.status === 200) {
        self.version = r.data.version;
        self.handlers.saved(r.data, self.queue.length > 0);
        document.dispatchEvent(new CustomEvent("assay:judgment-saved"));  // the assisted-judging panel (static/js/assist.js)
      } else {  // refused: what was queued assumed the refused save, so it goes too
        if (r.status === 409) self.version = r.data.version;
        self.queue = [];
        self.handlers.refused(r);
      }
    }, function () {
      self.queue = [];
      self.handlers.failed();
    }).then(function () {
      self.inflight = false;
      self.pump();  // the next body goes out before this request counts as answered: a move waits for it too
    });
    if (window.assayItemNav) window.assayItemNav.track(request);  // a move to another citation waits for it
  };

  // --- the citation page ---------------------------------------------------------------------------------------
  var citation = null;    // the panel on the page

  function Citation(panel) {
    var self = this;
    self.panel = panel;
    self.state = JSON.parse(panel.querySelector("script[type='application/json']").textContent);
    self.value = self.state.value || {rel: null, trans: "na", chksrc: false, relspans: []};
    self.judged = !!self.state.value;
    self.saver = new Saver(self.state.judge_url, self.state.version, {
      saved: function (data, more) {
        if (!more) self.value = data.value;  // a newer change is queued: keep showing it
        if (!self.judged) {
          self.judged = true;
          var count = self.el("#judged-count");
          if (count) count.textContent = String(+count.getAttribute("data-judged") + 1);
        }
        self.say(more ? "Saving…" : "Saved (version " + data.version + ").");
        self.render();
      },
      refused: function (r) {
        if (r.status === 409 && r.data.value) self.value = r.data.value;
        self.say(r.data.error || "Not saved.", true);
        self.render();
      },
      failed: function () { self.say(NO_ANSWER, true); }
    });
    self.render();
  }

  Citation.prototype.el = function (sel) { return this.panel.querySelector(sel); };
  Citation.prototype.say = function (text, bad) { sayIn(this.panel, text, bad); };

  Citation.prototype.merged = function () {
    var spans = (this.value.relspans || []).map(function (s) { return [s[0], s[0] + s[1]]; })
      .sort(function (a, b) { return a[0] - b[0]; });
    var out = [];
    spans.forEach(function (s) {
      if (out.length && s[0] <= out[out.length - 1][1]) out[out.length - 1][1] = Math.max(out[out.length - 1][1], s[1]);
      else out.push([s[0], s[1]]);
    });
    return out;
  };

  // The passage is rebuilt only when its marks change: rebuilding it drops the text selection, and selecting a
  // part, then pressing y (or m, a translation grade …) before r must leave the selection there for r.
  Citation.prototype.renderPassage = function () {
    var self = this, text = self.state.passage, pos = 0, merged = self.merged(), shown = JSON.stringify(merged);
    var passage = self.el("#passage");
    if (passage.getAttribute("data-marks") === shown) return;
    passage.setAttribute("data-marks", shown);
    passage.textContent = "";
    merged.forEach(function (s) {
      if (s[0] > pos) passage.appendChild(document.createTextNode(text.slice(pos, s[0])));
      var mark = document.createElement("mark");
      mark.className = "relspan";
      mark.textContent = text.slice(s[0], s[1]);
      passage.appendChild(mark);
      pos = s[1];
    });
    if (pos < text.length) passage.appendChild(document.createTextNode(text.slice(pos)));
  };

  Citation.prototype.render = function () {
    var self = this, value = self.value, text = self.state.passage;
    self.renderPassage();
    self.panel.querySelectorAll("[data-rel]").forEach(function (b) {
      b.setAttribute("aria-pressed", String(b.getAttribute("data-rel") === value.rel));
    });
    var relevant = value.rel === "yes" || value.rel === "maybe";
    self.panel.querySelectorAll("[data-trans]").forEach(function (b) {
      b.setAttribute("aria-pressed", String(b.getAttribute("data-trans") === value.trans));
      b.disabled = !relevant;
    });
    self.el("#chksrc").checked = !!value.chksrc;
    self.el("#add-relspan").disabled = !relevant;
    var list = self.el("#relspans");
    list.textContent = "";
    (value.relspans || []).forEach(function (s, i) {
      var li = document.createElement("li");
      li.setAttribute("data-relspan", String(i));
      li.appendChild(document.createTextNode("“" + text.substr(s[0], s[1]) + "” "));
      var rm = document.createElement("button");
      rm.type = "button";
      rm.textContent = "×";
      rm.title = "remove this relspan";
      rm.setAttribute("aria-label", "remove relspan " + (i + 1));
      li.appendChild(rm);
      list.appendChild(li);
    });
  };

  Citation.prototype.save = function () {
    this.render();
    if (!this.value.rel) { this.say("Choose yes, maybe or no first."); return; }
    this.say("Saving…");
    this.saver.push({value: JSON.parse(JSON.stringify(this.value))}, true);
  };

  Citation.prototype.setRel = function (rel) {
    this.value.rel = rel;
    if (rel === "no") { this.value.relspans = []; this.value.trans = "na"; }
    this.save();
  };

  Citation.prototype.selectionSpan = function () {
    var passage = this.el("#passage"), sel = window.getSelection();
    if (!sel.rangeCount || sel.isCollapsed) return null;
    var range = sel.getRangeAt(0);
    if (!passage.contains(range.startContainer) || !passage.contains(range.endContainer)) return null;
    var before = document.createRange();
    before.selectNodeContents(passage);
    before.setEnd(range.startContainer, range.startOffset);
    var start = before.toString().length, length = range.toString().length;
    return length > 0 ? [start, length] : null;
  };

  Citation.prototype.addRelspan = function () {
    var span = this.selectionSpan();
    if (!span) { this.say("Select some text of the passage first.", true); return; }
    this.value.relspans = (this.value.relspans || []).concat([span]);
    window.getSelection().removeAllRanges();
    this.save();
  };

  Citation.prototype.removeAt = function (i) {
    this.value.relspans.splice(i, 1);
    this.save();
  };

  Citation.prototype.removeLast = function () {
    if (!this.value.relspans || !this.value.relspans.length) return false;
    this.removeAt(this.value.relspans.length - 1);
    return true;
  };

  function citationKey(k) {
    if (k.action === "remove-relspan") return citation.removeLast();
    return pressKey(k.key);
  }

  function initCitation() {
    var panel = document.getElementById("citation-panel");
    if (!panel || (citation && citation.panel === panel)) return;
    citation = new Citation(panel);
  }

  function inPanel(el) { return citation && el && citation.panel.contains(el); }

  document.addEventListener("click", function (e) {
    var t = e.target.nodeType === 1 ? e.target : e.target.parentElement;
    if (!inPanel(t)) return;
    var rel = t.closest("[data-rel]"), trans = t.closest("[data-trans]"), rm = t.closest("[data-relspan] button");
    if (rel) citation.setRel(rel.getAttribute("data-rel"));
    else if (trans) { citation.value.trans = trans.getAttribute("data-trans"); citation.save(); }
    else if (t.closest("#add-relspan")) citation.addRelspan();
    else if (rm) citation.removeAt(+rm.parentNode.getAttribute("data-relspan"));
  });

  document.addEventListener("change", function (e) {
    if (e.target.id === "chksrc" && inPanel(e.target)) {
      citation.value.chksrc = e.target.checked;
      citation.save();
    }
  });

  document.addEventListener("htmx:load", initCitation);
  document.addEventListener("htmx:historyRestore", initCitation);

  // --- the grouping view ---------------------------------------------------------------------------------------
  var view = null;

  function ViewJudge(form, state) {
    var self = this;
    self.form = form;
    self.rows = Array.prototype.slice.call(form.querySelectorAll("[data-q]"));
    self.versionInput = form.querySelector("input[name=version]");
    self.saver = new Saver(state.answer_url, state.version, {
      saved: function (data, more) {
        self.versionInput.value = data.version;
        if (!more) self.show(data.value);
        self.say(more ? "Saving…" : "Saved (version " + data.version + ").");
      },
      refused: function (r) {
        if (r.status === 409) {
          self.versionInput.value = r.data.version;
          self.show(r.data.value || {});
        }
        self.say(r.data.error || "Not saved.", true);
      },
      failed: function () { self.say(NO_ANSWER, true); }
    });
    form.classList.add("live");  // answers save themselves: the whole-form button is for pages without script
    var first = self.rows.findIndex(function (row) { return self.answerOf(row) === null; });
    self.moveTo(first < 0 ? 0 : first, true);
  }

  ViewJudge.prototype.say = function (text, bad) { sayIn(this.form, text, bad); };

  ViewJudge.prototype.answerOf = function (row) {
    var checked = row.querySelector("input[type=radio]:checked");
    return checked ? checked.value : null;
  };

  ViewJudge.prototype.setAnswer = function (row, answer) {
    row.querySelectorAll("input[type=radio]").forEach(function (r) { r.checked = r.value === answer; });
  };

  ViewJudge.prototype.progress = function () {
    var self = this;
    var done = self.rows.filter(function (row) { return self.answerOf(row) !== null; }).length;
    var el = document.getElementById("answered");
    if (el) el.textContent = String(done);
  };

  // Every row from a stored value (after a save, or the newer value a refused save brought back).
  ViewJudge.prototype.show = function (value) {
    var self = this;
    self.rows.forEach(function (row) {
      var d = row.dataset, flag;
      if (!d.group) flag = value[d.name];
      else {
        var g = (value.groups || {})[d.group] || {};
        flag = d.member ? (g.members || {})[d.member] : g[d.name];
      }
      self.setAnswer(row, flag === true ? "yes" : flag === false ? "no" : null);
    });
    self.progress();
  };

  ViewJudge.prototype.moveTo = function (i, quiet) {
    if (!this.rows.length) return;
    this.cursor = Math.max(0, Math.min(this.rows.length - 1, i));
    var current = this.rows[this.cursor];
    this.rows.forEach(function (row) {
      row.classList.toggle("current", row === current);
      row.setAttribute("aria-current", row === current ? "true" : "false");
    });
    if (!quiet) current.scrollIntoView({block: "nearest"});
  };

  ViewJudge.prototype.answer = function (row, answer) {
    this.setAnswer(row, answer);
    this.progress();
    this.say("Saving…");
    this.saver.push({group: row.dataset.group, name: row.dataset.name, member: row.dataset.member, answer: answer});
  };

  ViewJudge.prototype.nextUnanswered = function () {
    var n = this.rows.length;
    for (var step = 1; step <= n; step++) {
      var i = (this.cursor + step) % n;
      if (this.answerOf(this.rows[i]) === null) { this.moveTo(i); return; }
    }
    this.say("Every question of this view is answered.");
  };

  ViewJudge.prototype.key = function (action) {
    if (!this.rows.length) return false;
    if (action === "next") this.moveTo(this.cursor + 1);
    else if (action === "previous") this.moveTo(this.cursor - 1);
    else if (action === "yes" || action === "no") {
      this.answer(this.rows[this.cursor], action);
      this.moveTo(this.cursor + 1);
    } else if (action === "unjudged") this.nextUnanswered();
    else return false;
    return true;
  };

  document.addEventListener("change", function (e) {
    var row = view && e.target.type === "radio" && e.target.closest("[data-q]");
    if (!row || !view.form.contains(row)) return;
    view.moveTo(view.rows.indexOf(row), true);
    view.answer(row, e.target.value);
  });

  document.addEventListener("click", function (e) {
    var row = view && e.target.closest && e.target.closest("[data-q]");
    if (row && view.form.contains(row)) view.moveTo(view.rows.indexOf(row), true);
  });

  // --- keys ----------------------------------------------------------------------------------------------------
  document.addEventListener("keydown", function (ev) {
    var action = window.assayKeys && window.assayKeys.action(ev);
    if (!action || typing(document.activeElement)) return;  // only what the page's key map declares
    var k = {action: action, key: ev.key}, handled = false;
    if (view) handled = view.key(action);
    else if (citation) handled = citationKey(k);
    else handled = pressKey(ev.key);
    if (handled) ev.preventDefault();
  });

  // --- the find page -------------------------------------------------------------------------------------------

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


  // The find page's button, and the one under a thread opened from the search panel (assess/search_panel.py):
  // the thread, status line and found list are looked up around the button pressed, when it is pressed.
  document.addEventListener("click", function (e) {
    var btn = e.target.closest && e.target.closest("#add-found, [data-add-found]");
    if (!btn) return;
    var scope = btn.closest("[data-found-scope]") || document;
    var threadEl = scope.querySelector("[data-thread]");
    var statusEl = scope.querySelector("[data-found-status]") || scope.querySelector("#status");
    function tell(text, bad) {
      if (!statusEl) return;
      statusEl.textContent = text;
      statusEl.className = bad ? "error" : "";
    }
    if (!threadEl) { tell("Open a thread first.", true); return; }
    var sel = window.getSelection();
    if (!sel.rangeCount || sel.isCollapsed) { tell("Select a span in a post first.", true); return; }
    var range = sel.getRangeAt(0);
    var startPost = segmentOf(range.startContainer), endPost = segmentOf(range.endContainer);
    var postEl = startPost && startPost.closest("[data-post]");
    if (!postEl || !threadEl.contains(postEl) || !endPost || endPost.closest("[data-post]") !== postEl) {
      tell("The selection must lie inside one post.", true);
      return;
    }
    var start = rawPoint(range.startContainer, range.startOffset, false);
    var end = rawPoint(range.endContainer, range.endOffset, true);
    if (start === null || end === null || end <= start) { tell("Could not place that selection.", true); return; }
    post(threadEl.dataset.addUrl, {thread: threadEl.dataset.thread, post: postEl.dataset.post, offset: start,
                                   length: end - start, passage: range.toString()}).then(function (r) {
      if (r.status === 200) {
        tell("Added citation " + r.data.pool_id + ".");
        var list = document.getElementById("found");
        if (list) {
          var li = document.createElement("li");
          var a = document.createElement("a");
          a.href = r.data.url;
          a.textContent = r.data.pool_id;
          li.appendChild(a);
          li.appendChild(document.createTextNode(" " + r.data.passage));
          if (list.children.length === 1 && !list.querySelector("a")) list.textContent = "";
          list.appendChild(li);
        }
        sel.removeAllRanges();
      } else {
        tell(r.data.error || "Not added.", true);
      }
    });
  });

  // --- start ---------------------------------------------------------------------------------------------------
  initCitation();
  var viewForm = document.getElementById("view-form"), viewState = document.getElementById("view-state");
  if (viewForm && viewState) view = new ViewJudge(viewForm, JSON.parse(viewState.textContent));
})();
