"""How a seat plays its cards in the master's playouts (``kernels.playouts``), as plain ints
the strategy can name before the compiled kernels are loaded.

SIGHTED: a small greedy player that sees the sampled deal (wins as cheaply as it surely can
while it wants tricks, else sheds its highest loser); MODEL: the house heuristic
(``opponent``), which sees only what the seat would see.
"""

SIGHTED, MODEL = 0, 1
