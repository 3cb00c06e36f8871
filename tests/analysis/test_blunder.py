"""A planted blunder, played through the real referee, is the worst decision the analysis
finds in its match, and a blunder.

The brief's blunder, wasting the ace of spades while short of the call, is not one a seat
can rely on: the ace of spades wins whatever trick it is played to, so playing it early
changes only what the other cards do; its measured cost ran from 0 to 4.5 points. The
planted one is certain: a seat that has won its call plus one (the most a pagat call may
make), fourth to play, wins a trick it could lose, which fails the call.
"""

from __future__ import annotations

from arena.analysis import analyse
from arena.game import Card, Observation
from arena.game.tricks import add_card, winning_card
from arena.house import HeuristicBot
from arena.players.inprocess import InProcessPlayer
from tests.analysis.matches import SAMPLES, heuristics, play


def wins(obs: Observation, card: Card) -> bool:
    """Whether ``card`` would win the trick, played last to it."""
    summary = (-1, -1, -1)
    for played in (*obs.current.cards, card):
        summary = add_card(played, *summary)
    return winning_card(*summary) == card


class Overshoots(HeuristicBot):
    """The house heuristic, but at its first chance it takes the trick that fails its call:
    at call + 1 tricks, fourth to play, it wins where the heuristic loses (and it holds no
    ace of spades, which would take a trick too many anyway)."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.planted: tuple[int, int] | None = None  # (deal, step) of the blunder

    def play(self, obs: Observation) -> Card:
        move = super().play(obs)
        winners = [c for c in obs.legal_cards if wins(obs, c)]
        if (
            self.planted is None
            and len(obs.current.cards) == 3
            and obs.won[obs.seat] == (obs.calls[obs.seat] or 0) + 1
            and "AS" not in map(str, obs.hand)
            and winners
            and not wins(obs, move)
        ):
            self.planted = (obs.deal, 4 + 4 * len(obs.tricks) + 4)
            return winners[0]
        return move


def test_a_planted_blunder_is_the_worst_decision_of_its_match():
    for seed in range(2000):  # the first one-deal match where the chance comes
        planted = Overshoots(seed)
        players = heuristics(seed)
        players[0] = InProcessPlayer(planted, "overshoots")
        record = play(players, seed)
        if planted.planted is not None:
            break
    assert planted.planted is not None, "the heuristic never reached the planted position"
    verdicts = analyse(record, 0, 2 * SAMPLES).verdicts
    blunder = next(v for v in verdicts if (v.deal, v.step) == planted.planted)
    assert max(verdicts, key=lambda v: v.loss) is blunder
    assert blunder.label == "blunder" and blunder.kind == "play"
    call = record["games"][0]["deals"][planted.planted[0]]["calls"][0]
    chosen = next(o for o in blunder.options if o.move == blunder.chosen)
    assert (chosen.value, chosen.se) == (-call, 0)  # call + 2 tricks: failed, whatever follows
