// Live progress of a running tournament: poll the JSON API, update the bar and, when a
// result arrives, swap in the fresh standings table. Stops once the tournament is done.
(function () {
  "use strict";
  const box = document.getElementById("progress");
  if (!box || box.dataset.status === "done") return;
  const field = (name) => box.querySelector(`[data-field="${name}"]`);
  let done = Number(box.querySelector("progress").value);

  async function poll() {
    const reply = await fetch(box.dataset.url, { headers: { Accept: "application/json" } });
    if (!reply.ok) return true;
    const t = await reply.json();
    const bar = box.querySelector("progress");
    bar.max = t.progress.total || 1;
    bar.value = t.progress.done;
    field("count").textContent = `${t.progress.done} / ${t.progress.total}`;
    field("status").textContent = t.status;
    field("status").className = `status ${t.status}`;
    const rest = ["pending", "running", "failed"].filter((k) => t.progress[k]);
    field("detail").textContent = rest.map((k) => `${t.progress[k]} ${k}`).join(" ");
    if (t.progress.done !== done) {
      done = t.progress.done;
      const board = await fetch(box.dataset.boardUrl);
      if (board.ok) document.getElementById("board").innerHTML = await board.text();
    }
    return t.status !== "done";
  }

  async function loop() {
    let again = true;
    try { again = await poll(); } catch (e) { again = true; }
    if (again) setTimeout(loop, Number(box.dataset.interval || 1500));
  }
  setTimeout(loop, 1500);
})();
