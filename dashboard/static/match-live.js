// A running match's page: poll the match (a small JSON) and, when a deal has ended or the
// match is over, fetch the record shown so far and hand it to the replay viewer (a
// "record" event). Stops once the match is no longer running.
(function () {
  "use strict";
  const viewer = document.getElementById("viewer");
  if (!viewer || !viewer.dataset.poll) return;
  const status = document.getElementById("match-status");
  let deals = Number(viewer.dataset.deals);

  async function poll() {
    const reply = await fetch(viewer.dataset.poll, { headers: { Accept: "application/json" } });
    if (!reply.ok) return true;
    const m = await reply.json();
    const now = m.live ? m.live.deals : deals;
    if (now !== deals || m.match.status === "done") {
      const shown = await fetch(viewer.dataset.recordUrl);
      if (!shown.ok) return true;
      viewer.dispatchEvent(new CustomEvent("record", { detail: await shown.json() }));
      deals = now;
    }
    status.textContent = m.match.status;
    status.className = `status ${m.match.status}`;
    const running = m.match.status === "running";
    document.getElementById("live-note").hidden = !running;
    return running;
  }

  window.arenaPoll(poll, Number(viewer.dataset.interval || 1500));
})();
