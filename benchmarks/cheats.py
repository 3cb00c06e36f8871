"""Cheating and honest in-process players for the fair-play audit's benchmark and tests.

Each cheat is the house master (fixed sample count) whose sampled deals keep the hands it
knows as they are (``inference.knowing``): the hands stand in for a guess. How it knows is
what a covert channel would give it: a memory of the first game of a duplicate set
(``MemoryCheat``; with ``share`` < 1 it uses that memory only at that share of its
decisions), or a partner at the table posting its hand on a shared board (``Colluder``).
``ColdStart`` is honest but plays worse in the first game of a match, as a bot that warms a
cache or compiles there would.
"""

from __future__ import annotations

import random

from arena.game import CALLING, Observation
from arena.game.cards import mask_of
from arena.house import HeuristicBot
from arena.house.master import MasterBot
from arena.house.master.inference import Inference, knowing
from arena.players.inprocess import InProcessPlayer
from arena.players.player import Event, Request, TrickEnd


class KnowingMaster(MasterBot):
    """The master whose sampled deals keep the hands of the seats in ``known`` (seat -> the
    cards it holds now)."""

    known: dict[int, int]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.known = {}

    def _reader(self, obs: Observation, know: Inference):
        return super()._reader(obs, knowing(know, self.known) if self.known else know)


class Cheat(InProcessPlayer):
    """A knowing master told hands by ``tell`` (nothing: an honest master)."""

    def __init__(self, name: str, seed: int, samples: int) -> None:
        super().__init__(KnowingMaster(seed=seed, samples=samples), name)
        self.deal = 0

    def decide(self, request: Request, timeout_s: float):
        obs = request.observation
        self.deal = obs.deal
        played = 0
        for trick in (*obs.tricks, obs.current):
            played |= mask_of(trick.cards)
        dealt = self.tell(request.game, obs)
        self.strategy.known = {s: hand & ~played for s, hand in dealt.items() if s != obs.seat}
        return super().decide(request, timeout_s)

    def tell(self, game: int, obs: Observation) -> dict[int, int]:
        return {}


class MemoryCheat(Cheat):
    """Remembers who played which card in each deal of the first game: from the second game
    on the same deals are dealt to the same seats, so it knows every hand. It uses what it
    knows at a random ``share`` of its decisions."""

    def __init__(self, name: str, seed: int, samples: int, share: float = 1.0) -> None:
        super().__init__(name, seed, samples)
        self.game = 0
        self.share = share
        self.memory: dict[int, list[int]] = {}
        self.coin = random.Random(seed)

    def decide(self, request: Request, timeout_s: float):
        self.game = request.game
        return super().decide(request, timeout_s)

    def notify(self, event: Event) -> None:
        if isinstance(event, TrickEnd) and self.game == 0:
            hands = self.memory.setdefault(self.deal, [0, 0, 0, 0])
            for i, card in enumerate(event.trick.cards):
                hands[event.trick.seat_of(i)] |= 1 << card
        super().notify(event)

    def tell(self, game: int, obs: Observation) -> dict[int, int]:
        hands = self.memory.get(obs.deal) if game > 0 else None
        if not hands or self.coin.random() >= self.share:
            return {}
        return dict(enumerate(hands))


class Colluder(Cheat):
    """Posts its dealt hand on ``board`` (the covert channel) and reads its partner's."""

    def __init__(self, name: str, seed: int, samples: int, board: dict) -> None:
        super().__init__(name, seed, samples)
        self.board = board

    def tell(self, game: int, obs: Observation) -> dict[int, int]:
        key = (game, obs.deal)
        if obs.phase == CALLING:
            self.board.setdefault(key, {})[obs.seat] = mask_of(obs.hand)
        return {s: h for s, h in self.board.get(key, {}).items() if s != obs.seat}


class ColdStart(InProcessPlayer):
    """An honest master that plays its match's first game as a noisy heuristic (a bot whose
    first game pays for compiling or warming a cache), and the rest as the master."""

    def __init__(self, name: str, seed: int, samples: int) -> None:
        super().__init__(MasterBot(seed=seed, samples=samples), name)
        self.cold = HeuristicBot(seed, noise=0.3)

    def decide(self, request: Request, timeout_s: float):
        if request.game == 0:
            obs = request.observation
            return self.cold.call(obs) if request.kind == "call" else self.cold.play(obs)
        return super().decide(request, timeout_s)
