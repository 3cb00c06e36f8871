// cpp-starter: a Callbreak bot in C++ built only from bot.proto (see docs/protocol.md).
//
// It serves the callbreak.v1.Bot service on the address the platform gives it
// (last command-line argument, or CALLBREAK_ADDRESS), calls a rough estimate of
// its sure tricks, and plays its lowest legal card unless it is last to play and
// can win the trick cheaply. It keeps no state between decisions.
// The strategy lives in choose_call and choose_card: edit those.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "bot.grpc.pb.h"

namespace v1 = callbreak::v1;

static const char* NAME = "cpp-starter";
static const char* VERSION = "1.0.0";
static const std::string RANKS = "23456789TJQKA";

static int rank(const std::string& card) { return static_cast<int>(RANKS.find(card[0])); }
static char suit(const std::string& card) { return card[1]; }

// Does `card` beat `best`, the card heading a trick (so of the led suit or a spade)?
static bool beats(const std::string& card, const std::string& best) {
  if (suit(card) == suit(best)) return rank(card) > rank(best);
  return suit(card) == 'S';
}

// Aces, kings, and every spade beyond the third, clamped to the legal range.
static uint32_t choose_call(const v1::DecisionRequest& req) {
  int high = 0, spades = 0;
  for (const std::string& c : req.observation().hand()) {
    if (c[0] == 'A' || c[0] == 'K') ++high;
    if (suit(c) == 'S') ++spades;
  }
  int call = high + std::max(0, spades - 3);
  call = std::max<int>(static_cast<int>(req.min_call()), call);
  call = std::min<int>(static_cast<int>(req.max_call()), call);
  return static_cast<uint32_t>(call);
}

// Lowest first; among equal ranks a side suit before a spade (spades are trumps).
static bool cheaper(const std::string& a, const std::string& b) {
  if (rank(a) != rank(b)) return rank(a) < rank(b);
  return (suit(a) == 'S') < (suit(b) == 'S');
}

static std::string choose_card(const v1::DecisionRequest& req) {
  std::vector<std::string> legal(req.legal_cards().begin(), req.legal_cards().end());
  std::stable_sort(legal.begin(), legal.end(), cheaper);
  const auto& played = req.observation().current().cards();
  if (played.size() == 3) {
    std::string best = played[0];
    for (const std::string& c : played)
      if (beats(c, best)) best = c;
    for (const std::string& c : legal)
      if (beats(c, best)) return c;  // the cheapest winner
  }
  return legal.front();  // legal_cards is never empty for PLAY
}

static v1::BotMessage reply(const v1::DecisionRequest& req) {
  v1::BotMessage msg;
  v1::DecisionReply* answer = msg.mutable_decision();
  answer->set_id(req.id());  // echo the id unchanged
  if (req.kind() == v1::CALL) {
    answer->set_call(choose_call(req));
  } else if (req.kind() == v1::PLAY && req.legal_cards_size() > 0) {
    answer->set_card(choose_card(req));
  } else {
    answer->mutable_error()->set_type("UnknownDecision");
    answer->mutable_error()->set_message("cannot answer this kind of decision");
  }
  return msg;
}

// Set when the one Play stream of this process has ended; main() then exits.
static std::mutex done_mutex;
static std::condition_variable done_cv;
static bool done = false;

class BotService final : public v1::Bot::Service {
  grpc::Status Play(grpc::ServerContext*,
                    grpc::ServerReaderWriter<v1::BotMessage, v1::RefereeMessage>* stream) override {
    v1::RefereeMessage in;
    // Read() returns false when the referee half-closes the stream (or it breaks).
    while (stream->Read(&in)) {
      if (in.has_hello()) {
        v1::BotMessage out;
        out.mutable_hello()->set_protocol("callbreak.v1");
        out.mutable_hello()->set_name(NAME);
        out.mutable_hello()->set_version(VERSION);
        if (!stream->Write(out)) break;
      } else if (in.has_decision()) {
        if (!stream->Write(reply(in.decision()))) break;
      }  // Events need no reply; this bot ignores them.
    }
    std::cerr << NAME << ": stream ended, exiting" << std::endl;
    {
      std::lock_guard<std::mutex> lock(done_mutex);
      done = true;
    }
    done_cv.notify_all();
    return grpc::Status::OK;  // finishes our side of the stream
  }
};

int main(int argc, char** argv) {
  std::string address;
  if (argc > 1) {
    address = argv[argc - 1];
  } else if (const char* env = std::getenv("CALLBREAK_ADDRESS")) {
    address = env;
  }
  if (address.empty()) {
    std::cerr << "usage: ./bot ADDRESS (or set CALLBREAK_ADDRESS), e.g. unix:/tmp/bot.sock\n";
    return 2;
  }

  BotService service;
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(address, grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server) {
    std::cerr << NAME << ": cannot serve on " << address << "\n";
    return 1;
  }
  std::cerr << NAME << ": serving on " << address << std::endl;

  // The platform starts a fresh process per game: exit after the one stream ends.
  {
    std::unique_lock<std::mutex> lock(done_mutex);
    done_cv.wait(lock, [] { return done; });
  }
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
  return 0;
}
