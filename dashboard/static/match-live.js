// A running match's page: poll the match (a small JSON); when a deal has ended, swap in the
// fresh scores (no card of a deal is shown before all its rotations are played); once the
// match is done, fetch its record and hand it to the replay viewer (a "record" event), which
// takes the scores' place. Stops once the match is no longer running.
(function () {
  "use strict";
  const viewer = document.getElementById("viewer");
  if (!viewer || !viewer.dataset.poll) return;
  const status = document.getElementById("match-status");
  const scores = document.getElementById("deal-scores");
  let deals = Number(viewer.dataset.deals);

  async function swapScores() {
    const reply = await fetch(scores.dataset.url);
    if (reply.ok) scores.innerHTML = await reply.text();
  }

  async function showReplay() {
    const reply = await fetch(viewer.dataset.recordUrl);
    const record = reply.ok ? await reply.json() : null;
    if (!record || record.progress) return swapScores();
    viewer.dispatchEvent(new CustomEvent("record", { detail: record }));
    viewer.hidden = false;
    scores.hidden = true;
  }

  async function poll() {
    const reply = await fetch(viewer.dataset.poll, { headers: { Accept: "application/json" } });
    if (!reply.ok) return true;
    const m = await reply.json();
    const now = m.live ? m.live.deals : deals;
    if (m.match.status === "done") await showReplay();
    else if (now !== deals) await swapScores();
    deals = now;
    status.textContent = m.match.status;
    status.className = `status ${m.match.status}`;
    const running = m.match.status === "running";
    document.getElementById("live-note").hidden = !running;
    return running;
  }

  window.arenaPoll(poll, Number(viewer.dataset.interval || 1500));
})();
