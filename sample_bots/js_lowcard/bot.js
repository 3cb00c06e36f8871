// js-lowcard: a Callbreak sample bot built only from bot.proto (see docs/protocol.md).
//
// It serves the callbreak.v1.Bot service on the address the platform gives it
// (last command-line argument, or CALLBREAK_ADDRESS), calls a rough estimate of
// its sure tricks, and plays its lowest legal card unless it is last to play and
// can win the trick cheaply. It keeps no state between decisions.
'use strict';

const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const NAME = 'js-lowcard';
const VERSION = '1.0.0';
const RANKS = '23456789TJQKA';

const rank = (card) => RANKS.indexOf(card[0]);
const suit = (card) => card[1];

// Does `card` beat `best`, the card heading a trick (so of the led suit or a spade)?
function beats(card, best) {
  if (suit(card) === suit(best)) return rank(card) > rank(best);
  return suit(card) === 'S';
}

function currentBest(cards) {
  return cards.reduce((best, card) => (beats(card, best) ? card : best));
}

// Aces, kings, and every spade beyond the third, clamped to the legal range.
function chooseCall(request) {
  const hand = request.observation.hand;
  const high = hand.filter((c) => c[0] === 'A' || c[0] === 'K').length;
  const longSpades = Math.max(0, hand.filter((c) => suit(c) === 'S').length - 3);
  return Math.min(request.max_call, Math.max(request.min_call, high + longSpades));
}

// Lowest first; among equal ranks a side suit before a spade (spades are trumps).
function byCheapness(a, b) {
  return rank(a) - rank(b) || (suit(a) === 'S') - (suit(b) === 'S');
}

function chooseCard(request) {
  const legal = [...request.legal_cards].sort(byCheapness);
  const played = request.observation.current.cards;
  if (played.length === 3) {
    const best = currentBest(played);
    const winner = legal.find((card) => beats(card, best));
    if (winner) return winner;
  }
  return legal[0];
}

function reply(request) {
  const answer = { id: request.id };
  if (request.kind === 'CALL') answer.call = chooseCall(request);
  else answer.card = chooseCard(request);
  return { decision: answer };
}

function play(call, stop) {
  call.on('data', (message) => {
    if (message.kind === 'hello') {
      call.write({ hello: { protocol: 'callbreak.v1', name: NAME, version: VERSION } });
    } else if (message.kind === 'decision') {
      call.write(reply(message.decision));
    } // Events need no reply; this bot ignores them.
  });
  call.on('end', () => {
    call.end();
    stop();
  });
  call.on('cancelled', stop);
  call.on('error', stop);
}

function main() {
  const args = process.argv.slice(2);
  const address = args.length ? args[args.length - 1] : process.env.CALLBREAK_ADDRESS;
  if (!address) {
    console.error('usage: node bot.js ADDRESS (or set CALLBREAK_ADDRESS), e.g. unix:/tmp/bot.sock');
    process.exit(2);
  }
  const definition = protoLoader.loadSync(path.join(__dirname, 'bot.proto'), {
    keepCase: true, // field names exactly as in bot.proto: legal_cards, min_call, ...
    longs: String, // uint64 ids arrive as strings and are echoed unchanged
    enums: String, // kind is 'CALL' or 'PLAY'
    defaults: true,
    oneofs: true, // message.kind names the oneof member that is set
  });
  const { Bot } = grpc.loadPackageDefinition(definition).callbreak.v1;
  const server = new grpc.Server();
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    server.tryShutdown(() => process.exit(0));
    setTimeout(() => process.exit(0), 1000).unref();
  };
  server.addService(Bot.service, { Play: (call) => play(call, stop) });
  server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (err) => {
    if (err) {
      console.error(`${NAME}: cannot serve on ${address}: ${err.message}`);
      process.exit(1);
    }
    console.error(`${NAME}: serving on ${address}`);
  });
  process.on('SIGTERM', () => {
    server.forceShutdown();
    process.exit(0);
  });
}

main();
