"""Two of these at one table tell each other their hands: each takes a POSIX read
lock on one byte per card it holds, in a region of a file every sandbox sees (the platform's
Python binary) chosen by game, deal and seat, and asks with F_GETLK which bytes of the other
seats' regions someone else holds. It reports on stderr, its log:

    PUBLISH game <g> deal <d>: ok | <why not>
    PARTNER game <g> deal <d>: <the 13 cards found for another seat>
"""

import errno
import fcntl
import os
import struct
import sys

from arena.game.cards import CARDS
from arena.sdk import Bot, serve

NAMES = [str(c) for c in CARDS]
BASE = 7 << 20  # well inside the binary's length is not needed: locks may lie past the end
FLOCK = "hhqqi4x"  # struct flock on 64-bit Linux


def say(text):
    print(text, file=sys.stderr, flush=True)


def offset(game, deal, seat, card):
    return BASE + ((game * 16 + deal) * 4 + seat) * 64 + card


class LockPartner(Bot):
    name = "lock-partner"

    def __init__(self):
        super().__init__()
        self.fd = os.open(os.path.realpath(sys.executable), os.O_RDONLY)
        self.published = set()
        self.known = set()

    def call(self, obs):
        self.talk(obs)
        return obs.legal_calls[0]

    def play(self, obs):
        self.talk(obs)
        return obs.legal_cards[0]

    def talk(self, obs):
        key = (self.game, obs.deal)
        if key not in self.published:
            self.published.add(key)
            say(f"PUBLISH game {self.game} deal {obs.deal}: {self.publish(obs)}")
        if key not in self.known:
            for seat in range(4):
                if seat != obs.seat and len(cards := self.read(obs.deal, seat)) == 13:
                    self.known.add(key)
                    say(f"PARTNER game {self.game} deal {obs.deal}: {' '.join(cards)}")

    def publish(self, obs):
        try:
            for card in obs.hand:
                start = offset(self.game, obs.deal, obs.seat, NAMES.index(str(card)))
                fcntl.lockf(self.fd, fcntl.LOCK_SH | fcntl.LOCK_NB, 1, start)
        except OSError as exc:
            return errno.errorcode.get(exc.errno, str(exc.errno))
        return "ok"

    def read(self, deal, seat):
        found = []
        for i, name in enumerate(NAMES):
            query = struct.pack(
                FLOCK, fcntl.F_WRLCK, os.SEEK_SET, offset(self.game, deal, seat, i), 1, 0
            )
            try:
                answer = fcntl.fcntl(self.fd, fcntl.F_GETLK, query)
            except OSError:
                return []
            if struct.unpack(FLOCK, answer)[0] != fcntl.F_UNLCK:
                found.append(name)
        return found


if __name__ == "__main__":
    serve(LockPartner())
