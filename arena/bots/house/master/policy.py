"""How a seat plays its cards in the master's playouts (``kernels.playouts``), as plain ints
the strategy can name before the compiled kernels are loaded.

SIGHTED: a small greedy player that sees the sampled deal; BLIND: the same player seeing only
which cards are out; MODEL: the house heuristic (``opponent``), which sees what a seat sees.
"""

SIGHTED, BLIND, MODEL = 0, 1, 2
