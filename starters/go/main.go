// go-starter: a Callbreak bot in Go, built only from bot.proto (see docs/protocol.md).
//
// It serves the callbreak.v1.Bot service on the address the platform gives it
// (last command-line argument, or CALLBREAK_ADDRESS), calls a rough estimate of
// its sure tricks, and plays its lowest legal card unless it is last to play and
// can win the trick cheaply. It keeps no state between decisions.
//
// The strategy is chooseCall and chooseCard below: edit those. Everything else
// is plumbing. The message types (RefereeMessage, DecisionRequest, ...) are
// generated from bot.proto into bot.pb.go, in this same package.
package main

import (
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"time"

	"google.golang.org/grpc"
)

const (
	botName    = "go-starter"
	botVersion = "1.0.0"
	protocol   = "callbreak.v1"
	ranks      = "23456789TJQKA"
)

func rank(card string) int  { return strings.IndexByte(ranks, card[0]) }
func suit(card string) byte { return card[1] }

// beats: does card beat best, the card heading a trick (so of the led suit or a spade)?
func beats(card, best string) bool {
	if suit(card) == suit(best) {
		return rank(card) > rank(best)
	}
	return suit(card) == 'S'
}

// currentBest is the card heading the trick so far (cards is non-empty).
func currentBest(cards []string) string {
	best := cards[0]
	for _, card := range cards[1:] {
		if beats(card, best) {
			best = card
		}
	}
	return best
}

// chooseCall: aces, kings, and every spade beyond the third, clamped to the legal range.
func chooseCall(req *DecisionRequest) uint32 {
	high, spades := 0, 0
	for _, c := range req.GetObservation().GetHand() {
		if c[0] == 'A' || c[0] == 'K' {
			high++
		}
		if suit(c) == 'S' {
			spades++
		}
	}
	longSpades := spades - 3
	if longSpades < 0 {
		longSpades = 0
	}
	call := uint32(high + longSpades)
	if call < req.GetMinCall() {
		call = req.GetMinCall()
	}
	if call > req.GetMaxCall() {
		call = req.GetMaxCall()
	}
	return call
}

// cheaper: lowest first; among equal ranks a side suit before a spade (spades are trumps).
func cheaper(a, b string) bool {
	if rank(a) != rank(b) {
		return rank(a) < rank(b)
	}
	return suit(a) != 'S' && suit(b) == 'S'
}

// chooseCard: the lowest legal card, unless this seat plays last to the trick and
// a legal card beats the current best: then the cheapest such winner.
func chooseCard(req *DecisionRequest) string {
	legal := append([]string(nil), req.GetLegalCards()...)
	sort.SliceStable(legal, func(i, j int) bool { return cheaper(legal[i], legal[j]) })
	played := req.GetObservation().GetCurrent().GetCards()
	if len(played) == 3 {
		best := currentBest(played)
		for _, card := range legal {
			if beats(card, best) {
				return card
			}
		}
	}
	return legal[0]
}

// decide answers one request. A panic in the strategy becomes a DecisionError
// (a fault with a readable reason) instead of killing the process.
func decide(req *DecisionRequest) (reply *DecisionReply) {
	reply = &DecisionReply{Id: req.GetId()}
	defer func() {
		if r := recover(); r != nil {
			log.Printf("decision %d: panic: %v", req.GetId(), r)
			reply.Move = &DecisionReply_Error{Error: &DecisionError{Type: "panic", Message: fmt.Sprint(r)}}
		}
	}()
	if req.GetKind() == DecisionKind_CALL {
		reply.Move = &DecisionReply_Call{Call: chooseCall(req)}
	} else {
		if len(req.GetLegalCards()) == 0 {
			panic("no legal cards in a PLAY request")
		}
		reply.Move = &DecisionReply_Card{Card: chooseCard(req)}
	}
	return reply
}

// server implements BotServer (generated in bot.pb.go).
type server struct {
	done chan struct{} // closed when the game's stream is over
}

// Play serves the one bidirectional stream of a game.
func (s *server) Play(stream Bot_PlayServer) error {
	defer func() {
		select {
		case <-s.done:
		default:
			close(s.done)
		}
	}()
	for {
		msg, err := stream.Recv()
		if err == io.EOF {
			return nil // the referee half-closed the stream: the game is over
		}
		if err != nil {
			log.Printf("stream ended: %v", err)
			return err
		}
		switch kind := msg.GetKind().(type) {
		case *RefereeMessage_Hello:
			log.Printf("hello: match %s, rules %s", kind.Hello.GetMatchId(), kind.Hello.GetRules().GetName())
			err = stream.Send(&BotMessage{Kind: &BotMessage_Hello{Hello: &HelloReply{
				Protocol: protocol, Name: botName, Version: botVersion,
			}}})
		case *RefereeMessage_Decision:
			err = stream.Send(&BotMessage{Kind: &BotMessage_Decision{Decision: decide(kind.Decision)}})
		default:
			// Events (and anything unknown) need no reply; this bot ignores them.
		}
		if err != nil {
			log.Printf("send failed: %v", err)
			return err
		}
	}
}

// listen accepts "unix:/path", "unix:///abs/path" or "host:port".
func listen(address string) (net.Listener, error) {
	if strings.HasPrefix(address, "unix:") {
		path := strings.TrimPrefix(address, "unix:")
		if strings.HasPrefix(path, "//") {
			path = strings.TrimPrefix(path, "//")
		}
		// A stale socket from an earlier local run would make Listen fail.
		if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSocket != 0 {
			os.Remove(path)
		}
		return net.Listen("unix", path)
	}
	return net.Listen("tcp", address)
}

func main() {
	log.SetOutput(os.Stderr)
	log.SetFlags(log.Lmicroseconds)
	log.SetPrefix(botName + ": ")

	address := os.Getenv("CALLBREAK_ADDRESS")
	if len(os.Args) > 1 {
		address = os.Args[len(os.Args)-1]
	}
	if address == "" {
		log.Print("usage: ./bot ADDRESS (or set CALLBREAK_ADDRESS), e.g. unix:/tmp/bot.sock")
		os.Exit(2)
	}
	lis, err := listen(address)
	if err != nil {
		log.Printf("cannot serve on %s: %v", address, err)
		os.Exit(1)
	}

	s := &server{done: make(chan struct{})}
	g := grpc.NewServer()
	RegisterBotServer(g, s)

	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		sig := <-signals
		log.Printf("%v: stopping", sig)
		g.Stop()
		os.Exit(0)
	}()

	// One process per game: when the stream is over, finish it cleanly
	// (GracefulStop lets gRPC send the final status) and exit.
	go func() {
		<-s.done
		log.Print("stream over: exiting")
		stopped := make(chan struct{})
		go func() { g.GracefulStop(); close(stopped) }()
		select {
		case <-stopped:
		case <-time.After(time.Second):
			g.Stop()
		}
		os.Exit(0)
	}()

	log.Printf("serving on %s", address)
	if err := g.Serve(lis); err != nil {
		log.Printf("serve: %v", err)
		os.Exit(1)
	}
	select {} // Serve returns after GracefulStop; the goroutine above exits.
}
