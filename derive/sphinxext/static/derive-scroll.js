/* derive: mark every display formula that is wider than its box (class derive-scrolls), so that derive.css
   shows a "scroll" caption under it; checked again when the window changes size. No framework. */
(function () {
  "use strict";
  var SELECTOR = "div.derive-derivation div.math, div.derive-chain > .derive-rhs";

  function mark() {
    document.querySelectorAll(SELECTOR).forEach(function (box) {
      var inner = box.closest(".derive-rhs");
      if (inner && inner !== box) { return; } // a formula inside a scrolling right side: the side is marked
      box.classList.toggle("derive-scrolls", box.scrollWidth > box.clientWidth + 1);
    });
  }

  function start() {
    var mj = window.MathJax;
    if (mj && mj.startup && mj.startup.promise) {
      mj.startup.promise.then(mark);
    } else {
      mark();
    }
    var timer = null;
    window.addEventListener("resize", function () {
      clearTimeout(timer);
      timer = setTimeout(mark, 150);
    });
  }

  if (document.readyState === "complete") { start(); } else { window.addEventListener("load", start); }
})();
