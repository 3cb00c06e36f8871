// Replay viewer: steps through a match record card by card. It only ever gets a whole record
// (every rotation of every deal played): a running match's page starts it empty and hands the
// record in with a "record" event once the match is done. Every bot-supplied string goes
// through textContent, never innerHTML.
(function () {
  "use strict";
  let record = JSON.parse(document.getElementById("record").textContent);
  const viewer = document.getElementById("viewer");
  const $ = (sel) => viewer.querySelector(sel);
  const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
  const state = { g: 0, d: 0, k: 0, all: false };

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function card(code, faceUp) {
    if (!faceUp) return el("span", "card back", "🂠");
    const suit = code.slice(-1);
    const red = suit === "H" || suit === "D";
    const node = el("span", "card" + (red ? " red" : ""), code.slice(0, -1).replace("T", "10") + SUITS[suit]);
    node.dataset.card = code;
    return node;
  }

  // The moves of a deal in the order they were made, each with its decision log entry.
  function turns(deal) {
    const out = [];
    for (let i = 0; i < 4; i++) {
      const seat = (deal.dealer + 1 + i) % 4;
      out.push({ kind: "call", seat: seat, move: deal.calls[seat] });
    }
    deal.tricks.forEach((trick, t) =>
      trick.cards.forEach((c, i) => out.push({ kind: "play", seat: (trick.leader + i) % 4, move: c, trick: t }))
    );
    out.forEach((turn, i) => (turn.entry = deal.decisions[i] || {}));
    return out;
  }

  const ready = () => Boolean(record && record.games.length);
  const game = () => record.games[state.g];
  const deal = () => game().deals[state.d];

  function scoresBefore(d) {
    const total = [0, 0, 0, 0];
    game().deals.slice(0, d).forEach((dl) => dl.points.forEach((p, s) => (total[s] += p)));
    return total;
  }

  function renderSeats(dl, done) {
    const base = scoresBefore(state.d);
    const n = turns(dl).length;
    const over = state.k === n;
    viewer.querySelectorAll(".seat").forEach((box) => {
      const seat = Number(box.dataset.seat);
      const called = done.some((t) => t.kind === "call" && t.seat === seat);
      const won = dl.tricks.filter((t, i) => 4 + 4 * (i + 1) <= state.k && t.winner === seat).length;
      const score = base[seat] + (over ? dl.points[seat] : 0);
      box.querySelector(".name").textContent = game().players[seat];
      box.querySelector(".stats").textContent =
        `call ${called ? dl.calls[seat] : "?"} · won ${won} · score ${+score.toFixed(1)}`;
      const played = new Set(done.filter((t) => t.kind === "play" && t.seat === seat).map((t) => t.move));
      const hand = box.querySelector(".hand");
      hand.replaceChildren(...dl.hands[seat].split(" ").filter((c) => !played.has(c)).map((c) => card(c, state.all)));
      box.classList.toggle("to-act", state.k < n && turns(dl)[state.k].seat === seat);
    });
  }

  function renderTrick(dl, done) {
    const trick = $(".trick");
    trick.replaceChildren();
    const plays = done.filter((t) => t.kind === "play");
    if (!plays.length) return;
    const t = plays[plays.length - 1].trick;
    plays.filter((p) => p.trick === t).forEach((p) => {
      const c = card(p.move, true);
      c.classList.add("at" + p.seat);
      if (plays.length === 4 * (t + 1) && dl.tricks[t].winner === p.seat) c.classList.add("winner");
      trick.append(c);
    });
  }

  function describe(turn) {
    const who = game().players[turn.seat];
    const what = turn.kind === "call" ? `calls ${turn.move}` : `plays ${turn.move}`;
    if (turn.entry.auto) return `${who} ${what} (auto-played: the seat is forfeited)`;
    return `${who} ${what} · decision ${turn.entry.id} · ${turn.entry.ms} ms`;
  }

  function renderStep(all) {
    const last = all[state.k - 1];
    $("#step").textContent =
      `Game ${state.g + 1}, deal ${state.d + 1}, step ${state.k}/${all.length}: ` +
      (last ? describe(last) : "dealt, nothing played yet");
    const fault = $("#fault");
    const found = last && last.entry.id !== undefined
      ? record.faults.filter((f) => f.game === state.g && f.decision === last.entry.id) : [];
    fault.hidden = !found.length;
    fault.textContent = found.map((f) => `⚠ ${f.kind}: ${f.reason} (after ${last.entry.ms} ms)`).join(" · ");
    const exp = $("#export");
    exp.hidden = !(last && last.entry.id !== undefined);
    if (!exp.hidden) exp.href = `${viewer.dataset.base}/decisions/${state.g}/${last.entry.id}.json`;
  }

  function render() {
    if (!ready()) {
      $("#step").textContent = "The replay shows here once the match is done.";
      return;
    }
    const dl = deal();
    const all = turns(dl);
    const done = all.slice(0, state.k);
    renderSeats(dl, done);
    renderTrick(dl, done);
    renderStep(all);
    $("#game").value = state.g;
    fillDeals();
    $("#deal").value = state.d;
  }

  function go(g, d, k) {
    state.g = g;
    state.d = d;
    state.k = k;
    render();
  }

  function step(delta) {
    const n = turns(deal()).length;
    const k = state.k + delta;
    if (k > n && state.d + 1 < game().deals.length) return go(state.g, state.d + 1, 0);
    if (k < 0 && state.d > 0) return go(state.g, state.d - 1, turns(game().deals[state.d - 1]).length);
    go(state.g, state.d, Math.max(0, Math.min(n, k)));
  }

  function trickStep(forward) {
    const n = turns(deal()).length;
    const k = state.k;
    if (forward) return go(state.g, state.d, Math.min(n, k < 4 ? 4 : 4 + 4 * (Math.floor((k - 4) / 4) + 1)));
    go(state.g, state.d, k <= 4 ? 0 : 4 + 4 * (Math.ceil((k - 4) / 4) - 1));
  }

  const moves = {
    start: () => go(state.g, state.d, 0),
    end: () => go(state.g, state.d, turns(deal()).length),
    prev: () => step(-1),
    next: () => step(1),
    "prev-trick": () => trickStep(false),
    "next-trick": () => trickStep(true),
  };
  const keys = { ArrowLeft: "prev", ArrowRight: "next", ArrowUp: "prev-trick", ArrowDown: "next-trick", Home: "start", End: "end" };

  function fillDeals() {
    const select = $("#deal");
    if (select.options.length === game().deals.length) return;
    select.replaceChildren(...game().deals.map((_, i) => new Option(`deal ${i + 1}`, i)));
  }

  function faultList() {
    const box = $("#fault-list");
    box.replaceChildren();
    record.faults.filter((f) => f.decision !== null).forEach((f) => {
      const d = record.games[f.game].deals[f.deal];
      const k = turns(d).findIndex((t) => t.entry.id === f.decision) + 1;
      const b = el("button", "fault-jump", `⚠ game ${f.game + 1} deal ${f.deal + 1}: ${f.kind}`);
      b.type = "button";
      b.addEventListener("click", () => go(f.game, f.deal, k));
      box.append(b);
    });
  }

  function load(next) {
    record = next;
    if (!ready()) return render();
    const g = record.games[state.g];
    if (!g || state.d >= g.deals.length) Object.assign(state, { g: 0, d: 0, k: 0 });
    $("#game").replaceChildren(...record.games.map((_, i) => new Option(`game ${i + 1}`, i)));
    faultList();
    render();
  }

  $("#game").addEventListener("change", (e) => go(Number(e.target.value), 0, 0));
  $("#deal").addEventListener("change", (e) => go(state.g, Number(e.target.value), 0));
  $("#all-hands").addEventListener("change", (e) => { state.all = e.target.checked; render(); });
  viewer.querySelectorAll("[data-move]").forEach((b) => b.addEventListener("click", () => ready() && moves[b.dataset.move]()));
  document.addEventListener("keydown", (e) => {
    if (!keys[e.key] || !ready() || e.target.closest("select, input")) return;
    e.preventDefault();
    moves[keys[e.key]]();
  });
  viewer.addEventListener("record", (e) => load(e.detail));
  load(record);
})();
