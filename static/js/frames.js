// Document frames get their src only once the page around them is styled (see templates/corpus/_frame.html):
// a frame that loads first scrolls to #mark-1 in a default 300x150 viewport, and the reflow to its real size
// can then clamp that scroll to the end of the document. This script runs deferred, after the stylesheets.
(function () {
  function arm(root) {
    var frames = Array.prototype.slice.call(root.querySelectorAll("iframe[data-frame-src]"));
    if (root.matches && root.matches("iframe[data-frame-src]")) frames.push(root);
    frames.forEach(function (frame) {
      if (!frame.getAttribute("src")) frame.setAttribute("src", frame.getAttribute("data-frame-src"));
    });
  }
  arm(document);
  document.addEventListener("htmx:load", function (event) { arm(event.target); });
})();
