// The bot page: running comparisons show their figures as they come, and the page reloads
// once one has its verdict (which may have moved the ladder seat).
(function () {
  "use strict";
  const table = document.getElementById("comparisons");
  if (!table || !table.querySelector("tr[data-status=running]")) return;
  const signed = (x, digits) => (x === null ? "–" : (x >= 0 ? "+" : "") + x.toFixed(digits));
  const spread = (x, digits) => (x === null ? "" : " ± " + x.toFixed(digits));
  window.arenaPoll(async () => {
    const answer = await fetch(table.dataset.url, { headers: { Accept: "application/json" } });
    if (!answer.ok) return true;
    const panel = await answer.json();
    let running = false;
    for (const c of panel.comparisons) {
      const row = table.querySelector(`tr[data-comparison="${c.id}"]`);
      if (!row || row.dataset.status !== "running") continue;
      if (c.status !== "running") { window.location.reload(); return false; }
      running = true;
      row.querySelector("[data-field=matches]").textContent = c.matches;
      row.querySelector("[data-field=delta]").textContent = signed(c.delta, 2) + spread(c.half_width, 2);
      row.querySelector("[data-field=elo]").textContent = signed(c.elo, 0) + spread(c.elo_half_width, 0);
      const faults = Object.entries(c.faults).map(([ref, n]) => `${ref}: ${n}`).join(", ");
      row.querySelector("[data-field=faults]").textContent = faults || "none";
      row.querySelector("[data-field=verdict]").textContent = `playing: ${c.pairs} of at most ${c.pairs_cap} pairs`;
    }
    return running;
  }, 3000);
})();
