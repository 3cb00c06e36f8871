// A pending or running match's page follows it without a reload: poll the match (a small
// JSON); while it runs, swap in the fresh scores when a deal has ended (no card of a deal is
// shown before all its rotations are played); once it has ended, swap in the final table
// (points, faults) and, when it is done, fetch its record and hand it to the replay viewer
// (a "record" event), which takes the scores' place. Stops once the viewer has the record,
// or once the match failed.
(function () {
  "use strict";
  const viewer = document.getElementById("viewer");
  if (!viewer || !viewer.dataset.poll) return;
  const status = document.getElementById("match-status");
  const scores = document.getElementById("deal-scores");
  const table = document.getElementById("match-table");
  const note = document.getElementById("live-note");
  const playing = ["pending", "running"];
  let deals = Number(viewer.dataset.deals);

  async function swap(box) {
    const reply = await fetch(box.dataset.url);
    if (reply.ok) box.innerHTML = await reply.text();
  }

  // True once the viewer has the whole record; false while it is not to be had yet.
  async function showReplay() {
    const reply = await fetch(viewer.dataset.recordUrl);
    const record = reply.ok ? await reply.json() : null;
    if (!record || record.progress) {
      await swap(scores);
      return false;
    }
    viewer.dispatchEvent(new CustomEvent("record", { detail: record }));
    viewer.hidden = false;
    scores.hidden = true;
    return true;
  }

  async function poll() {
    const reply = await fetch(viewer.dataset.poll, { headers: { Accept: "application/json" } });
    if (!reply.ok) return true;
    const m = await reply.json();
    const now = m.match.status;
    const dealt = m.live ? m.live.deals : deals;
    const ended = !playing.includes(now);
    if (ended) await swap(table);
    else if (dealt !== deals) await swap(scores);
    deals = dealt;
    status.textContent = now;
    status.className = `status ${now}`;
    note.hidden = ended;
    note.querySelectorAll("[data-when]").forEach((part) => {
      part.hidden = part.dataset.when !== now;
    });
    if (now === "done") return !(await showReplay());
    return !ended;
  }

  window.arenaPoll(poll, Number(viewer.dataset.interval || 1500));
})();
