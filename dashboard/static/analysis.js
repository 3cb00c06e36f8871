// The master's analysis in the replay viewer (arena.analysis; docs/analysis.md): of one
// analysed entrant, a loss graph over the match (x: its decisions in order across games and
// deals, y: points lost against the master's best option, square-root scale; marks on its
// mistakes and blunders; a click goes to that decision), the options of its decision at the
// current step with their values, marks on its judged cards in the trick list, and n / N to
// its next / previous mistake or blunder. The analyses come in the page (#analyses) or, once
// one finishes while the page is open, in an "analysis" event; replay.js is followed by its
// events on #viewer ("step", "key") and sent to a step by a "go" event. The entrant shown is
// the one kept at the bottom when it is analysed, else the one picked, else the first.
// Every bot-supplied string goes through textContent.
(function () {
  "use strict";
  const viewer = document.getElementById("viewer");
  const panel = document.getElementById("analysis");
  if (!viewer || !panel) return;
  const box = document.getElementById("verdict");
  const select = document.getElementById("analysis-of");
  const SVG = "http://www.w3.org/2000/svg";
  const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
  const LABELS = ["inaccuracy", "mistake", "blunder"];
  const PLURALS = { inaccuracy: "inaccuracies", mistake: "mistakes", blunder: "blunders" };
  const JUMPS = ["mistake", "blunder"]; // what n / N go to
  const GUIDES = [0.5, 1.5, 3]; // the labels' thresholds, points
  // the graph in pixels (as wide as it is shown): the plot from left to right, top to
  // bottom, a decision's column ``width`` wide; the games and deals in a band under it
  const G = { w: 0, h: 172, left: 40, right: 0, top: 18, bottom: 140, width: 0 };
  const analyses = new Map(); // entrant -> its analysis document (with the analysis id)
  const at = { record: null, g: 0, d: 0, k: 0, follow: null }; // the viewer's step
  const shown = { entrant: null, picked: null, follow: null, drawn: null, steps: new Map() };

  const page = document.getElementById("analyses");
  (page ? JSON.parse(page.textContent) : []).forEach((a) => analyses.set(a.entrant, a));

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function svg(tag, attrs) {
    const node = document.createElementNS(SVG, tag);
    Object.entries(attrs).forEach(([name, value]) => node.setAttribute(name, value));
    return node;
  }

  const label = (code) => code.slice(0, -1).replace("T", "10") + SUITS[code.slice(-1)];
  const moveText = (v, move) => (v.kind === "call" ? `call ${move}` : label(move));
  const points = (x) => (x === null || x === undefined ? "–" : x.toFixed(2));
  const verdicts = () => analyses.get(shown.entrant).verdicts;
  const name = (entrant) => at.record.players[entrant];
  // <0, 0, >0: the verdict comes before, at or after the viewer's step
  const versus = (v) => v.game - at.g || v.deal - at.d || v.step - at.k;
  const verdictAt = (g, d, k) => {
    const i = shown.steps.get(`${g}/${d}/${k}`);
    return i === undefined ? null : verdicts()[i];
  };

  // The entrant kept at the bottom when it is analysed (once it changes), else the one picked.
  function pick() {
    if (at.follow !== shown.follow) {
      shown.follow = at.follow;
      if (analyses.has(at.follow)) shown.picked = at.follow;
    }
    if (!analyses.has(shown.picked)) shown.picked = Math.min(...analyses.keys());
    return shown.picked;
  }

  function fillSelect() {
    const keys = [...analyses.keys()].sort((a, b) => a - b);
    if (select.options.length !== keys.length) {
      select.replaceChildren(...keys.map((e) => new Option(`${name(e)} (entrant ${e})`, e)));
    }
    select.value = shown.entrant;
  }

  function summary(a) {
    const s = a.summary;
    const half = (part) => (part.se === null ? "" : ` ± ${points(part.se)}`);
    const counts = LABELS.map((l) => `${s.labels[l]} ${s.labels[l] === 1 ? l : PLURALS[l]}`);
    return `Mean loss ${points(s.overall.mean)}${half(s.overall)} points per decision over ${s.overall.count} decisions with a choice ` +
      `(calls ${points(s.calls.mean)}, cards ${points(s.cards.mean)}); ${counts.join(", ")}; ${a.samples} sampled deals a decision.`;
  }

  function columnTitle(v) {
    const where = `game ${v.game + 1}, deal ${v.deal + 1}, step ${v.step}: ${moveText(v, v.chosen)}`;
    if (!v.options.length) return `${where}, the only legal move`;
    const what = v.label ? `: ${v.label}` : v.auto ? " (the referee's move)" : "";
    return `${where}, lost ${points(v.loss)} ± ${points(v.loss_se)} against ${moveText(v, v.best)}${what}`;
  }

  function drawGraph() {
    const graph = document.getElementById("loss-graph");
    const all = verdicts();
    G.w = Math.max(graph.clientWidth, 240);
    G.right = G.w - 8;
    G.width = (G.right - G.left) / Math.max(all.length, 1);
    const width = G.width;
    const top = Math.max(3, ...all.map((v) => v.loss)); // points at the top of the plot
    const y = (loss) => G.bottom - (G.bottom - G.top) * Math.sqrt(Math.min(loss, top) / top);
    const parts = [];
    [0, ...GUIDES, top].forEach((p, i) => {
      parts.push(svg("line", { class: i ? "guide" : "axis-line", x1: G.left, x2: G.right, y1: y(p), y2: y(p) }));
      const text = svg("text", { x: G.left - 4, y: y(p) + 4, "text-anchor": "end" });
      text.textContent = p === top ? top.toFixed(1) : String(p);
      parts.push(text);
    });
    all.forEach((v, i) => {
      const x = G.left + i * width;
      const before = all[i - 1];
      if (before && (before.game !== v.game || before.deal !== v.deal)) {
        parts.push(svg("line", { class: "deal-line", x1: x, x2: x, y1: G.top, y2: G.bottom + 14 }));
      }
      if (!before || before.game !== v.game || before.deal !== v.deal) {
        const text = svg("text", { x: x + 2, y: G.bottom + 26 });
        text.textContent = !before || before.game !== v.game ? `game ${v.game + 1}` : `d${v.deal + 1}`;
        parts.push(text);
      }
      const col = svg("g", { class: ["col", v.label || "", v.auto ? "auto" : ""].join(" ").trim() });
      col.dataset.i = i;
      const title = svg("title", {});
      title.textContent = columnTitle(v);
      col.append(title, svg("rect", { class: "hit", x: x, y: G.top, width: width, height: G.bottom - G.top }));
      col.append(svg("rect", { class: "loss", x: x + width * 0.15, y: y(v.loss), width: width * 0.7, height: G.bottom - y(v.loss) }));
      if (JUMPS.includes(v.label)) col.append(svg("circle", { class: "marker", cx: x + width / 2, cy: y(v.loss) - 6, r: 5 }));
      parts.push(col);
    });
    parts.push(svg("line", { id: "graph-cursor", x1: 0, x2: 0, y1: G.top, y2: G.bottom, visibility: "hidden" }));
    graph.setAttribute("viewBox", `0 0 ${G.w} ${G.h}`);
    graph.setAttribute("height", G.h);
    graph.replaceChildren(...parts);
  }

  // The cursor at the latest decision up to the viewer's step; that decision's column
  // marked current when the step is its own.
  function placeCursor() {
    const graph = document.getElementById("loss-graph");
    const all = verdicts();
    let last = -1;
    all.forEach((v, i) => versus(v) <= 0 && (last = i));
    const cursor = graph.querySelector("#graph-cursor");
    const x = G.left + (last + 0.5) * G.width;
    cursor.setAttribute("x1", x);
    cursor.setAttribute("x2", x);
    cursor.setAttribute("visibility", last < 0 ? "hidden" : "visible");
    graph.querySelectorAll(".col").forEach((col) => {
      col.classList.toggle("current", Number(col.dataset.i) === last && versus(all[last]) === 0);
    });
  }

  function option(v, o, best) {
    const tr = el("tr");
    tr.classList.toggle("chosen", o.move === v.chosen);
    tr.classList.toggle("best", o.move === v.best);
    const move = el("td");
    if (v.kind === "call") move.textContent = moveText(v, o.move);
    else move.append(el("span", "card" + (/[HD]$/.test(o.move) ? " red" : ""), label(o.move)));
    const marks = [o.move === v.chosen ? "played" : "", o.move === v.best ? "★ best" : ""].filter(Boolean);
    tr.append(move, el("td", "num", points(o.value)), el("td", "num", points(o.se)),
      el("td", "num", o.move === v.best ? "" : `−${points(best - o.value)}`), el("td", "marks", marks.join(" · ")));
    return tr;
  }

  function verdictLine(v) {
    const who = name(shown.entrant);
    const move = moveText(v, v.chosen);
    if (!v.options.length) return [`${who}: ${move}, the only legal move (not judged).`];
    const lost = v.loss > 0 ? `lost ${points(v.loss)} ± ${points(v.loss_se)} points against ${moveText(v, v.best)}` : "the master's choice too";
    if (v.auto) return [`The referee's move for ${who}: ${move}, ${lost} (not the bot's decision: not labelled, not counted).`];
    const line = [`${who}: ${move}, ${lost}.`];
    if (v.label) line.unshift(el("span", "verdict-sign " + v.label, v.label), " ");
    return line;
  }

  function showVerdict() {
    const v = verdictAt(at.g, at.d, at.k);
    box.hidden = false;
    const line = document.getElementById("verdict-line");
    const body = box.querySelector("#options tbody");
    if (!v) {
      line.textContent = `The master's verdict on ${name(shown.entrant)}: no decision of it at this step.`;
      body.replaceChildren();
      box.querySelector("#options").hidden = true;
      return;
    }
    line.replaceChildren(...verdictLine(v));
    const best = (v.options.find((o) => o.move === v.best) || { value: 0 }).value;
    const sorted = [...v.options].sort((a, b) => b.value - a.value);
    body.replaceChildren(...sorted.map((o) => option(v, o, best)));
    box.querySelector("#options").hidden = !v.options.length;
  }

  // The trick list's cards of the shown entrant that got a label (card n of trick t is
  // step 5 + 4t + n).
  function markTricks() {
    viewer.querySelectorAll("#trick-list li").forEach((li, t) =>
      li.querySelectorAll(".card").forEach((card, n) => {
        const v = verdictAt(at.g, at.d, 5 + 4 * t + n);
        const found = v && v.label;
        LABELS.forEach((l) => card.classList.toggle(l, l === found));
        card.classList.toggle("judged", Boolean(found));
        if (found) card.dataset.verdict = `${found}: lost ${points(v.loss)} points`;
        else delete card.dataset.verdict;
      })
    );
  }

  function update() {
    panel.hidden = !analyses.size || !at.record;
    box.hidden = panel.hidden;
    if (panel.hidden) return;
    shown.entrant = pick();
    if (shown.drawn !== analyses.get(shown.entrant)) {
      shown.drawn = analyses.get(shown.entrant);
      shown.steps = new Map(verdicts().map((v, i) => [`${v.game}/${v.deal}/${v.step}`, i]));
      drawGraph();
      document.getElementById("analysis-summary").textContent = summary(shown.drawn);
      document.getElementById("analysis-note").textContent = "";
    }
    fillSelect();
    placeCursor();
    showVerdict();
    markTricks();
  }

  const go = (v) => viewer.dispatchEvent(new CustomEvent("go", { detail: { g: v.game, d: v.deal, k: v.step } }));

  // The next (+1) or previous (-1) mistake or blunder from the viewer's step.
  function jump(direction) {
    const marked = verdicts().filter((v) => JUMPS.includes(v.label));
    const found = direction > 0 ? marked.find((v) => versus(v) > 0) : marked.reverse().find((v) => versus(v) < 0);
    const note = document.getElementById("analysis-note");
    note.textContent = found ? "" : `no ${direction > 0 ? "later" : "earlier"} mistake or blunder of ${name(shown.entrant)}`;
    if (found) go(found);
  }

  viewer.addEventListener("step", (e) => {
    Object.assign(at, e.detail);
    update();
  });
  viewer.addEventListener("key", (e) => {
    if (panel.hidden || (e.detail !== "n" && e.detail !== "N")) return;
    e.preventDefault();
    jump(e.detail === "n" ? 1 : -1);
  });
  viewer.addEventListener("analysis", (e) => {
    const a = e.detail;
    const had = analyses.get(a.entrant);
    if (!had || a.samples >= had.samples) analyses.set(a.entrant, a);
    if (at.record) update();
  });
  select.addEventListener("change", () => {
    shown.picked = Number(select.value);
    update();
  });
  panel.querySelectorAll("[data-jump]").forEach((b) => b.addEventListener("click", () => jump(Number(b.dataset.jump))));
  // drawn again at its new width (its text stays the size it is)
  window.addEventListener("resize", () => {
    const graph = document.getElementById("loss-graph");
    if (panel.hidden || graph.clientWidth === G.w) return;
    drawGraph();
    placeCursor();
  });
  document.getElementById("loss-graph").addEventListener("click", (e) => {
    const col = e.target instanceof Element && e.target.closest(".col");
    if (col) go(verdicts()[Number(col.dataset.i)]);
  });
})();
