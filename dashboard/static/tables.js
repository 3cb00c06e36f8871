// Tables wider than their box (on a phone): a visible hint above each, saying that more
// columns lie to the side, kept right as the window turns and as live pages swap tables in.
(function () {
  "use strict";
  const HINT = "More columns: swipe the table sideways →";

  function mark(box) {
    const wide = box.scrollWidth > box.clientWidth + 1;
    let hint = box.previousElementSibling;
    if (!hint || !hint.classList.contains("scroll-hint")) {
      if (!wide) return;
      hint = document.createElement("p");
      hint.className = "scroll-hint";
      hint.textContent = HINT;
      box.before(hint);
    }
    if (hint.hidden === wide) hint.hidden = !wide;
  }

  const markAll = () => document.querySelectorAll(".scroll").forEach(mark);
  markAll();
  window.addEventListener("resize", markAll);
  new MutationObserver(markAll).observe(document.body, { childList: true, subtree: true });
})();
