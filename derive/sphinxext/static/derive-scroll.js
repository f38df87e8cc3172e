/* derive: mark every display formula (and citation graph) that is wider than its box (class derive-scrolls), so
   that derive.css shows a "scroll" caption under it and starts it at the box's left edge; checked again when
   the window changes size. Every display formula is a div.math (derivations and chapter prose alike), and that
   box is the one that scrolls. No framework. */
(function () {
  "use strict";

  // wider than its box: the formula's drawn width (not rounded, as scrollWidth is) exceeds the box's
  function scrolls(box) {
    var math = box.querySelector("mjx-math, svg"), drawn = math ? math.getBoundingClientRect().width : 0;
    return Math.max(drawn, box.scrollWidth - 1) > box.clientWidth + 0.5;
  }

  function mark() {
    document.querySelectorAll("div.math, div.derive-graph-scroll").forEach(function (box) {
      box.classList.toggle("derive-scrolls", scrolls(box));
    });
  }

  function start() {
    var mj = window.MathJax;
    if (mj && mj.startup && mj.startup.promise) {
      mj.startup.promise.then(mark);
    } else {
      mark();
    }
    // the formulas' widths settle once MathJax's fonts are in: measure again then, and once a little later
    if (document.fonts && document.fonts.ready) { document.fonts.ready.then(mark); }
    setTimeout(mark, 1000);
    var timer = null;
    window.addEventListener("resize", function () {
      clearTimeout(timer);
      timer = setTimeout(mark, 150);
    });
  }

  if (document.readyState === "complete") { start(); } else { window.addEventListener("load", start); }
})();
