// Moments in the reader's time zone: every <time datetime="...Z"> (written by the format
// filter `when`, its UTC ISO kept in the title) shows the local date and time, or how long
// ago when it was less than a day ago ("3 min ago"), kept fresh every minute and on the
// fragments live pages swap in.
(function () {
  "use strict";
  const MINUTE = 60 * 1000;
  const local = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

  function shown(at, now) {
    const ago = now - at;
    if (ago < -MINUTE || ago >= 24 * 60 * MINUTE) return local.format(at);
    if (ago < MINUTE) return "just now";
    if (ago < 60 * MINUTE) return `${Math.floor(ago / MINUTE)} min ago`;
    return `${Math.floor(ago / (60 * MINUTE))} h ago`;
  }

  function render() {
    const now = Date.now();
    document.querySelectorAll("time[datetime]").forEach((node) => {
      const at = new Date(node.getAttribute("datetime"));
      if (isNaN(at)) return;
      const text = shown(at, now);
      if (node.textContent !== text) node.textContent = text;
    });
  }

  render();
  setInterval(render, MINUTE);
  new MutationObserver(render).observe(document.body, { childList: true, subtree: true });
})();
