// Document frames get their src only once the page around them is styled (see templates/corpus/_frame.html):
// a frame that loads first scrolls to #mark-1 in a default 300x150 viewport, and the reflow to its real size
// can then clamp that scroll to the end of the document. This script runs deferred, after the stylesheets.
// Frames sent inside <template data-frame-later> are put in at DOMContentLoaded, once the page's deferred
// scripts have bound its keys: creating a frame while parsing made the parser yield and slowed every new page.
(function () {
  function arm(root) {
    var frames = Array.prototype.slice.call(root.querySelectorAll("iframe[data-frame-src]"));
    if (root.matches && root.matches("iframe[data-frame-src]")) frames.push(root);
    frames.forEach(function (frame) {
      if (!frame.getAttribute("src")) frame.setAttribute("src", frame.getAttribute("data-frame-src"));
    });
  }
  function unfold(root) {
    Array.prototype.forEach.call(root.querySelectorAll("template[data-frame-later]"), function (template) {
      var content = document.importNode(template.content, true);
      arm(content);
      template.replaceWith(content);
    });
  }
  arm(document);
  // Deferred, this runs before DOMContentLoaded (readyState already "interactive"); load is the fallback for a
  // script run later than that.
  document.addEventListener("DOMContentLoaded", function () { unfold(document); });
  window.addEventListener("load", function () { unfold(document); });
  document.addEventListener("htmx:load", function (event) { unfold(event.target); arm(event.target); });
})();
