// Replay viewer: reads a finished match step by step (the four calls, then the 52 cards of
// each deal), as a chess site lets one read a game: the felt marks who deals, leads, is to
// act, won the trick, faulted or is forfeited; beside it the deal's 13 tricks and the game's
// scoresheet; a slider, autoplay, keys that work whatever was clicked last and go on across
// deals and games, and the step in the URL hash (#g2-d3-s36: game and deal from 1, step)
// so that a decision can be shared. It only ever gets a whole record (every rotation of
// every deal played): a running match's page starts it empty and hands the record in with
// a "record" event once the match is done. Every bot-supplied string goes through
// textContent (or a property), never innerHTML.
// Other scripts (analysis.js) follow it by events on #viewer: it sends "step" once a step is
// drawn (the record and where it is), and "key" (cancelable) for a key it does not use; it
// goes to the step a "go" event names.
(function () {
  "use strict";
  const viewer = document.getElementById("viewer");
  const $ = (sel) => viewer.querySelector(sel);
  const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
  const KEYS = { ArrowLeft: "prev", ArrowRight: "next", ArrowUp: "prev-trick", ArrowDown: "next-trick", Home: "start", End: "end" };
  const state = { g: 0, d: 0, k: 0, follow: null, timer: null };
  const drawn = { tricks: "", sheet: "" }; // which deal's trick list and game's sheet are drawn
  const hashed = { at: 0, timer: null }; // when the hash was last written; the write to come
  let record = null;
  let derived = null; // per deal its turns and first flat step; per entrant its forfeit step

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  const label = (code) => code.slice(0, -1).replace("T", "10") + SUITS[code.slice(-1)];

  function card(code) {
    const red = /[HD]$/.test(code);
    const node = el("span", "card" + (red ? " red" : ""), label(code));
    node.dataset.card = code;
    return node;
  }

  const tenths = (points) => Math.round(points * 10);
  const fmt = (t, signed) => (t < 0 ? "−" : signed && t > 0 ? "+" : "") + Math.abs(t) / 10;

  // The moves of a deal in the order they were made, each with its decision log entry.
  function turnsOf(dl) {
    const out = [];
    for (let i = 0; i < 4; i++) {
      const seat = (dl.dealer + 1 + i) % 4;
      out.push({ kind: "call", seat: seat, move: dl.calls[seat] });
    }
    dl.tricks.forEach((trick, t) =>
      trick.cards.forEach((c, i) => out.push({ kind: "play", seat: (trick.leader + i) % 4, move: c, trick: t }))
    );
    out.forEach((turn, i) => (turn.entry = dl.decisions[i] || {}));
    return out;
  }

  // Steps are numbered across the match too ("flat"), so that a forfeit has a place.
  function derive() {
    let flat = 0;
    const games = record.games.map((game, g) =>
      game.deals.map((dl) => {
        const turns = turnsOf(dl);
        turns.forEach((turn) => (turn.faults = record.faults.filter((f) => f.game === g && turn.entry.id !== undefined && f.decision === turn.entry.id)));
        const info = { turns: turns, start: flat };
        flat += turns.length + 1;
        return info;
      })
    );
    derived = { games: games, forfeitAt: [Infinity, Infinity, Infinity, Infinity] };
    record.faults.filter((f) => f.kind === "forfeit").forEach((f) => {
      const at = f.decision === null ? games[f.game][0].start : games[f.game][f.deal].start + stepOf(f);
      derived.forfeitAt[f.entrant] = Math.min(derived.forfeitAt[f.entrant], at);
    });
  }

  // The step just after a fault's decision (its move shown).
  const stepOf = (f) => derived.games[f.game][f.deal].turns.findIndex((t) => t.entry.id === f.decision) + 1;

  const ready = () => Boolean(record && record.games && record.games.length);
  const game = () => record.games[state.g];
  const deal = () => game().deals[state.d];
  const turns = (g = state.g, d = state.d) => derived.games[g][d].turns;
  const flatNow = () => derived.games[state.g][state.d].start + state.k;
  const bottomSeat = () => (state.follow === null ? 0 : game().seats.indexOf(state.follow));
  const posOf = (seat) => (seat - bottomSeat() + 4) % 4;
  const hash = () => `#g${state.g + 1}-d${state.d + 1}-s${state.k}`;

  function scoresBefore(d) {
    const total = [0, 0, 0, 0];
    game().deals.slice(0, d).forEach((dl) => dl.points.forEach((p, s) => (total[s] += tenths(p))));
    return total;
  }

  // The trick on the table: the last one a card has been played to.
  function trickInView(done) {
    const plays = done.filter((t) => t.kind === "play");
    if (!plays.length) return null;
    const t = plays[plays.length - 1].trick;
    const trick = deal().tricks[t];
    const cards = plays.filter((p) => p.trick === t);
    const complete = cards.length === 4;
    return { t: t, cards: cards, leader: trick.leader, suit: trick.cards[0].slice(-1), complete: complete, winner: trick.winner };
  }

  function seatMarks(seat, all, view) {
    const dl = deal();
    const last = all[state.k - 1];
    const marks = [];
    if (seat === dl.dealer) marks.push(["dealer", "dealer"]);
    if (view && view.leader === seat) marks.push(["lead", `leads ${SUITS[view.suit]}`]);
    if (state.k < all.length && all[state.k].seat === seat) marks.push(["act", "to act"]);
    if (view && view.complete && view.winner === seat) marks.push(["won", "won the trick"]);
    if (last && last.seat === seat && last.entry.fault) marks.push(["fault", `fault: ${last.entry.fault}`]);
    if (derived.forfeitAt[game().seats[seat]] <= flatNow()) marks.push(["out", "forfeited"]);
    return marks;
  }

  function seatStats(seat, all, done) {
    const dl = deal();
    const score = scoresBefore(state.d)[seat];
    if (state.k === all.length) {
      const p = tenths(dl.points[seat]);
      return `called ${dl.calls[seat]}, won ${dl.won[seat]} → ${fmt(p, true)} · ${fmt(score + p)} pts`;
    }
    const called = done.some((t) => t.kind === "call" && t.seat === seat);
    const won = dl.tricks.filter((t, i) => 8 + 4 * i <= state.k && t.winner === seat).length;
    return `call ${called ? dl.calls[seat] : "?"} · won ${won} · ${fmt(score)} pts`;
  }

  function hand(seat, done) {
    const played = new Set(done.filter((t) => t.kind === "play" && t.seat === seat).map((t) => t.move));
    const left = deal().hands[seat].split(" ").filter((c) => !played.has(c));
    if ($("#all-hands").checked) return left.map(card);
    return [el("span", "card back", "🂠"), el("span", "count", `${left.length} card${left.length === 1 ? "" : "s"}`)];
  }

  function renderSeats(all, done, view) {
    viewer.querySelectorAll(".seat").forEach((box) => {
      const seat = (bottomSeat() + Number(box.dataset.pos)) % 4;
      const marks = seatMarks(seat, all, view);
      const has = (kind) => marks.some((m) => m[0] === kind);
      box.dataset.seat = seat;
      box.querySelector(".name").textContent = game().players[seat];
      box.querySelector(".marks").replaceChildren(...marks.map(([kind, text]) => el("span", "mark " + kind, text)));
      box.querySelector(".stats").textContent = seatStats(seat, all, done);
      box.querySelector(".hand").replaceChildren(...hand(seat, done));
      box.classList.toggle("acting", has("act"));
      box.classList.toggle("faulted", has("fault"));
      box.classList.toggle("forfeited", has("out"));
    });
  }

  function renderTrick(view) {
    const box = $(".trick");
    const info = el("span", "info");
    box.replaceChildren(info);
    if (!view) {
      info.textContent = state.k < 4 ? "calling" : "calls made";
      return;
    }
    view.cards.forEach((p, i) => {
      const c = card(p.move);
      c.classList.add("at" + posOf(p.seat));
      c.classList.toggle("lead", i === 0);
      c.classList.toggle("winner", view.complete && p.seat === view.winner);
      c.classList.toggle("referee", Boolean(p.entry.fault || p.entry.auto));
      c.title = `${game().players[p.seat]}: ${label(p.move)}`;
      box.append(c);
    });
    const won = view.complete ? ` · won by ${game().players[view.winner]}` : "";
    info.textContent = `trick ${view.t + 1}/${deal().tricks.length} · led ${SUITS[view.suit]}${won}`;
  }

  function trickRow(trick, t) {
    const button = el("button", "trick-row");
    button.type = "button";
    button.append(el("span", "n", `${t + 1}`));
    trick.cards.forEach((code, i) => {
      const c = card(code);
      c.classList.toggle("winner", (trick.leader + i) % 4 === trick.winner);
      c.title = game().players[(trick.leader + i) % 4];
      button.append(c);
    });
    button.append(el("span", "by", `→ ${game().players[trick.winner]}`));
    button.addEventListener("click", () => go(state.g, state.d, 8 + 4 * t));
    const item = el("li");
    item.append(button);
    return item;
  }

  function renderTricks(view) {
    const list = $("#trick-list");
    const key = `${state.g}/${state.d}`;
    if (drawn.tricks !== key) {
      drawn.tricks = key;
      list.replaceChildren(...deal().tricks.map(trickRow));
    }
    list.querySelectorAll("button").forEach((b, t) => {
      b.classList.toggle("later", state.k <= 4 + 4 * t);
      if (view && view.t === t) b.setAttribute("aria-current", "step");
      else b.removeAttribute("aria-current");
    });
  }

  // Points of each entrant in game g, in tenths: by deal, and the game's total.
  function gamePoints(g) {
    const seats = record.games[g].seats;
    const deals = record.games[g].deals.map((dl) => [0, 1, 2, 3].map((e) => tenths(dl.points[seats.indexOf(e)])));
    const total = [0, 1, 2, 3].map((e) => deals.reduce((sum, row) => sum + row[e], 0));
    return { deals: deals, total: total };
  }

  function sheetRow(head, cells, cls) {
    const tr = el("tr", cls);
    tr.append(head, ...cells);
    return tr;
  }

  function fillSheet(table) {
    const g = game();
    const points = gamePoints(state.g);
    const running = [0, 0, 0, 0];
    const caption = el("caption", "", `Game ${state.g + 1} of ${record.games.length}: call/won, points, running total`);
    const head = sheetRow(el("th", "", "deal"), record.players.map((_, e) => {
      const th = el("th", "num", g.players[g.seats.indexOf(e)]);
      th.title = th.textContent; // the full name of one cut short
      return th;
    }));
    const body = el("tbody");
    g.deals.forEach((dl, d) => {
      const jump = el("button", "deal-jump", `${d + 1}`);
      jump.type = "button";
      jump.setAttribute("aria-label", `deal ${d + 1}`);
      jump.addEventListener("click", () => go(state.g, d, 0));
      const th = el("th");
      th.append(jump);
      body.append(sheetRow(th, points.deals[d].map((p, e) => {
        const seat = g.seats.indexOf(e);
        running[e] += p;
        const td = el("td", "num");
        td.title = `called ${dl.calls[seat]}, won ${dl.won[seat]} → ${fmt(p, true)}`;
        td.append(el("span", "cw", `${dl.calls[seat]}/${dl.won[seat]}`), " ",
          el("span", "pts " + (p < 0 ? "neg-text" : "pos-text"), fmt(p, true)), " ", el("span", "run", fmt(running[e])));
        return td;
      })));
    });
    const match = [0, 1, 2, 3].map((e) => record.games.reduce((sum, _, i) => sum + gamePoints(i).total[e], 0));
    const foot = el("tfoot");
    foot.append(sheetRow(el("th", "", "game"), points.total.map((t) => el("td", "num total", fmt(t))), "game-total"));
    foot.append(sheetRow(el("th", "", "match"), match.map((t) => el("td", "num total", fmt(t))), "match-total"));
    const thead = el("thead");
    thead.append(head);
    table.replaceChildren(caption, thead, body, foot);
  }

  function renderSheet() {
    const table = $("#sheet");
    if (drawn.sheet !== String(state.g)) {
      drawn.sheet = String(state.g);
      fillSheet(table);
    }
    table.querySelectorAll("tbody tr").forEach((tr, d) => tr.classList.toggle("current", d === state.d));
  }

  function scoringNote() {
    const r = record.rules || {};
    if (r.scoring === "bhoos") return "A call is made by winning at least that many tricks: +call, +0.1 per extra trick; else −call.";
    return `A call is made by winning exactly that many tricks or one more: +call (a call of ${r.bonus_call || 8} or more: +${r.bonus_points || 13}); else −call.`;
  }

  function describe(turn) {
    const who = game().players[turn.seat];
    const move = turn.kind === "call" ? `${turn.move}` : label(turn.move);
    const verb = turn.kind === "call" ? "called" : "played";
    const entry = turn.entry;
    let text = `${who} ${turn.kind === "call" ? "calls" : "plays"} ${move}`;
    if (entry.auto) text = `${who} is forfeited: the referee ${verb} ${move} for it`;
    else if (entry.fault) text = `${who} faulted (${entry.fault}): the referee ${verb} ${move} for it`;
    if (turn.faults.some((f) => f.kind === "forfeit")) text += "; the seat is forfeited from here on";
    return entry.id === undefined ? text : `${text} · decision ${entry.id} · ${entry.ms} ms`;
  }

  function renderStep(all) {
    const last = all[state.k - 1];
    const dl = deal();
    const first = game().players[(dl.dealer + 1) % 4];
    const opening = `${game().players[dl.dealer]} deals, ${first} calls first`;
    $("#step").textContent =
      `Game ${state.g + 1}, deal ${state.d + 1}, step ${state.k}/${all.length}: ` +
      (last ? describe(last) : opening) + (state.k === all.length ? " · deal over" : "");
    const fault = $("#fault");
    const found = last ? last.faults : [];
    fault.hidden = !found.length;
    fault.textContent = found.map((f) => `⚠ ${f.kind}: ${f.reason} (after ${last.entry.ms} ms)`).join(" · ");
    const exp = $("#export");
    exp.hidden = !(last && last.entry.id !== undefined);
    if (!exp.hidden) exp.href = `${viewer.dataset.base}/games/${state.g + 1}/decisions/${last.entry.id}.json`;
  }

  function syncControls(all) {
    $("#game").value = state.g;
    const select = $("#deal");
    if (select.options.length !== game().deals.length) {
      select.replaceChildren(...game().deals.map((_, i) => new Option(`deal ${i + 1}`, i)));
    }
    select.value = state.d;
    const slider = $("#slider");
    slider.max = all.length;
    slider.value = state.k;
    slider.setAttribute("aria-valuetext", `step ${state.k} of ${all.length}`);
    $("#permalink").href = hash();
  }

  function render() {
    if (!ready()) {
      $("#step").textContent = "The replay shows here once the match is done.";
      return;
    }
    const all = turns();
    const done = all.slice(0, state.k);
    const view = trickInView(done);
    renderSeats(all, done, view);
    renderTrick(view);
    renderTricks(view);
    renderSheet();
    renderStep(all);
    syncControls(all);
    const at = { record: record, g: state.g, d: state.d, k: state.k, follow: state.follow };
    viewer.dispatchEvent(new CustomEvent("step", { detail: at }));
  }

  function go(g, d, k) {
    Object.assign(state, { g: g, d: d, k: k });
    render();
    writeHash();
  }

  // The hash follows the step, written at most every 100 ms: Chromium ignores a page's
  // history updates beyond 200 in 10 s, which holding → down would reach.
  function writeHash() {
    clearTimeout(hashed.timer);
    const wait = hashed.at + 100 - Date.now();
    if (wait > 0) {
      hashed.timer = setTimeout(writeHash, wait);
      return;
    }
    hashed.at = Date.now();
    history.replaceState(history.state, "", hash());
  }

  // The deal before (-1) or after (+1) the current one, across games; null at either end.
  function neighbour(delta) {
    let g = state.g;
    let d = state.d + delta;
    if (d < 0) {
      g -= 1;
      if (g < 0) return null;
      d = record.games[g].deals.length - 1;
    } else if (d >= game().deals.length) {
      g += 1;
      d = 0;
      if (g >= record.games.length) return null;
    }
    return { g: g, d: d };
  }

  function ahead(k) {
    if (k <= turns().length) return go(state.g, state.d, k);
    const next = neighbour(1);
    if (next) go(next.g, next.d, 0);
  }

  function back(k) {
    if (k >= 0) return go(state.g, state.d, k);
    const prev = neighbour(-1);
    if (prev) go(prev.g, prev.d, turns(prev.g, prev.d).length);
  }

  // Trick boundaries are the multiples of 4: calls made, then each trick complete.
  const moves = {
    start: () => go(state.g, state.d, 0),
    end: () => go(state.g, state.d, turns().length),
    prev: () => back(state.k - 1),
    next: () => ahead(state.k + 1),
    "prev-trick": () => back(Math.ceil(state.k / 4) * 4 - 4),
    "next-trick": () => ahead(Math.floor(state.k / 4) * 4 + 4),
  };

  const atEnd = () => !neighbour(1) && state.k === turns().length;

  function autoplay(on) {
    clearTimeout(state.timer);
    state.timer = null;
    const button = $("#play");
    button.setAttribute("aria-pressed", String(on));
    button.textContent = on ? "❚❚" : "▷";
    if (on) state.timer = setTimeout(tick, Number($("#speed").value));
  }

  function tick() {
    if (!ready() || atEnd()) return autoplay(false);
    moves.next();
    state.timer = setTimeout(tick, Number($("#speed").value));
  }

  function faultList() {
    const box = $("#fault-list");
    box.replaceChildren();
    record.faults.filter((f) => f.decision !== null && f.kind !== "forfeit").forEach((f) => {
      const b = el("button", "fault-jump", `⚠ game ${f.game + 1} deal ${f.deal + 1}: ${f.kind}`);
      b.type = "button";
      b.addEventListener("click", () => go(f.game, f.deal, stepOf(f)));
      box.append(b);
    });
  }

  function fromHash() {
    const m = /^#g(\d+)-d(\d+)-s(\d+)$/.exec(location.hash);
    const g = m ? Number(m[1]) - 1 : -1;
    const d = m ? Number(m[2]) - 1 : -1;
    if (!m || !record.games[g] || !record.games[g].deals[d]) return null;
    return { g: g, d: d, k: Math.min(Number(m[3]), turns(g, d).length) };
  }

  function fillFollow() {
    const select = $("#follow");
    select.replaceChildren(select.options[0], ...record.players.map((name, e) => new Option(name, e)));
    select.value = state.follow === null ? "" : state.follow;
  }

  function load(next) {
    record = next;
    autoplay(false);
    if (!ready()) return render();
    derive();
    Object.assign(drawn, { tricks: "", sheet: "" });
    const at = fromHash();
    if (at) Object.assign(state, at);
    else if (!record.games[state.g] || !game().deals[state.d]) Object.assign(state, { g: 0, d: 0, k: 0 });
    $("#game").replaceChildren(...record.games.map((_, i) => new Option(`game ${i + 1}`, i)));
    fillFollow();
    faultList();
    $("#scoring").textContent = scoringNote();
    render();
    if (at) viewer.scrollIntoView();
  }

  // A key is taken whatever was clicked last; only a text field keeps its own keys, and
  // Space its native meaning on a focused control.
  function typing(target) {
    if (!(target instanceof Element)) return false;
    if (target.closest("textarea, [contenteditable]")) return true;
    return target.matches("input") && !["checkbox", "radio", "range", "button", "submit"].includes(target.type);
  }

  document.addEventListener("keydown", (e) => {
    if (!ready() || viewer.hidden || e.altKey || e.ctrlKey || e.metaKey || typing(e.target)) return;
    if (e.key === " ") {
      if (e.target instanceof Element && e.target.closest("button, select, input, a, summary")) return;
      e.preventDefault();
      return autoplay(state.timer === null);
    }
    if (!KEYS[e.key]) {
      if (!viewer.dispatchEvent(new CustomEvent("key", { detail: e.key, cancelable: true }))) e.preventDefault();
      return;
    }
    e.preventDefault();
    moves[KEYS[e.key]]();
  });

  $("#game").addEventListener("change", (e) => {
    const g = Number(e.target.value);
    const d = Math.min(state.d, record.games[g].deals.length - 1);
    go(g, d, Math.min(state.k, turns(g, d).length)); // the same deal and step, another rotation
  });
  $("#deal").addEventListener("change", (e) => go(state.g, Number(e.target.value), 0));
  $("#follow").addEventListener("change", (e) => {
    state.follow = e.target.value === "" ? null : Number(e.target.value);
    render();
  });
  $("#all-hands").addEventListener("change", () => ready() && render());
  $("#slider").addEventListener("input", (e) => ready() && go(state.g, state.d, Number(e.target.value)));
  $("#play").addEventListener("click", () => ready() && autoplay(state.timer === null));
  viewer.querySelectorAll("[data-move]").forEach((b) => b.addEventListener("click", () => ready() && moves[b.dataset.move]()));
  // Focus leaves a control once used with the mouse, so that Space and the keys reach the page.
  viewer.addEventListener("change", (e) => e.target.matches("select, input") && e.target.blur());
  viewer.addEventListener("click", (e) => {
    const button = e.target instanceof Element && e.target.closest("button");
    if (button && e.detail > 0) button.blur();
  });
  window.addEventListener("hashchange", () => {
    const at = ready() && fromHash();
    if (at) go(at.g, at.d, at.k);
  });
  viewer.addEventListener("record", (e) => load(e.detail));
  viewer.addEventListener("go", (e) => {
    const at = e.detail;
    if (ready() && record.games[at.g] && record.games[at.g].deals[at.d]) go(at.g, at.d, Math.min(at.k, turns(at.g, at.d).length));
  });
  load(JSON.parse(document.getElementById("record").textContent));
})();
