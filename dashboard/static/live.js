// Live progress of a running tournament: poll the JSON API, update the bar and, when a
// result arrives, swap in the fresh standings table and head-to-head matrix; when a rating
// snapshot arrives, the fresh rating chart. Stops once the tournament is done, taking its
// organiser's buttons away (a done tournament has nothing to start or stop).
(function () {
  "use strict";
  const box = document.getElementById("progress");
  if (!box || box.dataset.status === "done") return;
  const field = (name) => box.querySelector(`[data-field="${name}"]`);
  let done = Number(box.querySelector("progress").value);
  let snapshots = Number(box.dataset.snapshots);

  async function swap(id, url) {
    const reply = await fetch(url);
    if (reply.ok) document.getElementById(id).innerHTML = await reply.text();
  }

  async function poll() {
    const reply = await fetch(box.dataset.url, { headers: { Accept: "application/json" } });
    if (!reply.ok) return true;
    const t = await reply.json();
    const bar = box.querySelector("progress");
    bar.max = t.progress.total || 1;
    bar.value = t.progress.done;
    field("count").textContent = `${t.progress.done} / ${t.progress.total}`;
    field("status").textContent = t.state;
    field("status").className = `status ${t.state}`;
    const rest = ["pending", "running", "failed"].filter((k) => t.progress[k]);
    field("detail").textContent = rest.map((k) => `${t.progress[k]} ${k}`).join(" ");
    if (t.progress.done !== done) {
      done = t.progress.done;
      await swap("board", box.dataset.boardUrl);
      await swap("h2h", box.dataset.h2hUrl);
    }
    if (t.snapshots !== snapshots) {
      snapshots = t.snapshots;
      await swap("chart", box.dataset.chartUrl);
    }
    if (t.status !== "done") return true;
    // the organiser's Start/Stop forms, as a reload shows it
    document.querySelectorAll('button[name="action"]').forEach((b) => b.closest("form").remove());
    return false;
  }

  window.arenaPoll(poll, Number(box.dataset.interval || 1500));
})();
