// A Callbreak bot in the Bhoos "Smart Bots" HTTP protocol, Node without dependencies.
// It listens on port 7000, calls by counting its sure tricks and plays its lowest legal
// card. Like many contest bots it keeps state: rebuilt at /bid, then the last trick of
// "history" is added at each /play (so it logs any request that arrives out of order).
"use strict";
const http = require("http");

const RANKS = "23456789TJQK1"; // the ace is written 1
const rank = (card) => RANKS.indexOf(card[0]);
const suit = (card) => card[1];

let state = null; // { round, seen: tricks already counted }

function bid(body) {
  state = { round: body.context.round, seen: 0 };
  const sure = body.cards.filter((c) => rank(c) >= RANKS.indexOf("K")).length;
  const spades = body.cards.filter((c) => suit(c) === "S").length;
  return Math.max(1, Math.min(8, sure + Math.max(0, spades - 4)));
}

// The bhoos rules: follow suit, heading the trick if you can unless it has been trumped;
// void in the led suit, play a spade that heads the trick if you hold one.
function legalCards(hand, played) {
  if (played.length === 0) return hand;
  const led = suit(played[0]);
  const best = (s) => Math.max(-1, ...played.filter((c) => suit(c) === s).map(rank));
  const follow = hand.filter((c) => suit(c) === led);
  if (follow.length > 0) {
    const trumped = led !== "S" && best("S") >= 0;
    const higher = follow.filter((c) => rank(c) > best(led));
    return !trumped && higher.length > 0 ? higher : follow;
  }
  const spades = hand.filter((c) => suit(c) === "S" && rank(c) > best("S"));
  return spades.length > 0 ? spades : hand;
}

function play(body) {
  if (state === null || state.round !== body.context.round) {
    console.error(`out of order: /play for round ${body.context.round} before its /bid`);
    state = { round: body.context.round, seen: body.history.length };
  }
  if (body.history.length !== state.seen && body.history.length !== state.seen + 1) {
    console.error(`out of order: history of ${body.history.length}, ${state.seen} seen`);
  }
  state.seen = body.history.length;
  const legal = legalCards(body.cards, body.played);
  return legal.reduce((low, c) =>
    rank(c) < rank(low) || (rank(c) === rank(low) && suit(low) === "S") ? c : low
  );
}

const routes = { "/bid": bid, "/play": play };

http
  .createServer((req, res) => {
    const reply = (value) => {
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ value }));
    };
    if (req.method === "GET" && req.url === "/hi") return reply("hello");
    const route = req.method === "POST" && routes[req.url];
    if (!route) {
      res.writeHead(404);
      return res.end();
    }
    let data = "";
    req.on("data", (chunk) => (data += chunk));
    req.on("end", () => reply(route(JSON.parse(data))));
  })
  .listen(7000, "127.0.0.1", () => console.error("bhoos-lowcard listening on 7000"));
