// A match's analyses follow their workers without a reload: while one is queued or running,
// poll the match's analyses (a small JSON) and move the progress bars; once one has changed
// its state, swap the section in afresh (its summary, or the reason it failed) and hand a
// finished one's verdicts to the replay viewer (an "analysis" event: analysis.js draws it).
(function () {
  "use strict";
  const box = document.getElementById("analysis-section");
  if (!box) return;
  const waiting = (status) => status === "queued" || status === "running";
  const rows = () => [...box.querySelectorAll("tr[data-analysis]")];
  const row = (id) => box.querySelector(`tr[data-analysis="${id}"]`);

  async function handOver(id) {
    const viewer = document.getElementById("viewer");
    const reply = await fetch(row(id).dataset.result, { headers: { Accept: "application/json" } });
    const a = reply.ok ? await reply.json() : null;
    if (viewer && a && a.result) viewer.dispatchEvent(new CustomEvent("analysis", { detail: { id: a.id, ...a.result } }));
  }

  function progress(tr, a) {
    const bar = tr.querySelector("progress");
    if (!bar || !a.progress.total) return;
    bar.max = a.progress.total;
    bar.value = a.progress.done;
    tr.querySelector('[data-field="count"]').textContent = `${a.progress.done} / ${a.progress.total} decisions`;
  }

  async function poll() {
    const reply = await fetch(box.dataset.poll, { headers: { Accept: "application/json" } });
    if (!reply.ok) return true;
    const now = await reply.json();
    const changed = now.filter((a) => !row(a.id) || row(a.id).dataset.status !== a.status);
    now.filter((a) => !changed.includes(a)).forEach((a) => progress(row(a.id), a));
    if (changed.length) {
      const page = await fetch(box.dataset.url);
      if (!page.ok) return true;
      box.innerHTML = await page.text();
      await Promise.all(changed.filter((a) => a.status === "done").map((a) => handOver(a.id)));
    }
    return rows().some((tr) => waiting(tr.dataset.status));
  }

  if (rows().some((tr) => waiting(tr.dataset.status))) window.arenaPoll(poll, Number(box.dataset.interval || 1500));
})();
