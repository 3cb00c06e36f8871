"""Bradley–Terry maximum likelihood on an aggregated pairwise wins matrix.

Everything here works on ``wins[i, j]``: the (possibly weighted, possibly
fractional) number of comparisons bot ``i`` won against bot ``j``; a tie adds
0.5 to both ``wins[i, j]`` and ``wins[j, i]``.  Strengths ``theta`` are natural
log-odds, so ``P(i beats j) = sigmoid(theta[i] - theta[j])``.

The log-likelihood is penalised by ``prior`` virtual comparisons per bot, drawn
(half won, half lost) against a virtual opponent of strength 0.  This keeps the
optimum finite and unique when a bot wins or loses every comparison or when the
comparison graph is disconnected (each component is then anchored near 0), and
makes the negative Hessian positive definite, so plain damped Newton works.
Working on the bots × bots matrix makes one fit cost O(iterations · bots³),
independent of the number of games.
"""

import numpy as np
from numpy.typing import NDArray

Array = NDArray[np.float64]


def sigmoid(x: Array) -> Array:
    """Logistic function; the tanh form never overflows."""
    return 0.5 * (1.0 + np.tanh(0.5 * x))


def _log_sigmoid(x: Array) -> Array:
    return -np.logaddexp(0.0, -x)


def objective(theta: Array, wins: Array, prior: float) -> float:
    """Penalised log-likelihood; used only by the line search."""
    ll = float(np.sum(wins * _log_sigmoid(theta[:, None] - theta[None, :])))
    return ll + 0.5 * prior * float(np.sum(_log_sigmoid(theta) + _log_sigmoid(-theta)))


def derivatives(theta: Array, wins: Array, prior: float) -> tuple[Array, Array]:
    """Gradient and information (negative Hessian) of :func:`objective`."""
    games = wins + wins.T
    p = sigmoid(theta[:, None] - theta[None, :])
    grad = (wins - games * p).sum(axis=1)
    v = games * p * (1.0 - p)
    info = -v
    s = sigmoid(theta)
    info[np.diag_indices_from(info)] += v.sum(axis=1) + prior * s * (1.0 - s)
    grad += prior * (0.5 - s)
    return grad, info


def solve(
    wins: Array,
    prior: float,
    theta0: Array | None = None,
    tol: float = 1e-10,
    max_iter: int = 500,
) -> Array:
    """Maximise the penalised likelihood by Newton's method with backtracking.

    Backtracking keeps the ascent monotone when a perfect record pushes the
    optimum far from the start (the pure Newton step would overshoot there).
    """
    n = wins.shape[0]
    theta = np.zeros(n) if theta0 is None else np.array(theta0, dtype=float)
    f = objective(theta, wins, prior)
    for _ in range(max_iter):
        grad, info = derivatives(theta, wins, prior)
        step = np.linalg.solve(info, grad)
        t = 1.0
        while True:
            cand = theta + t * step
            f_cand = objective(cand, wins, prior)
            if f_cand >= f - 1e-12 * abs(f) or t < 1e-9:
                break
            t *= 0.5
        theta, f = cand, f_cand
        if np.max(np.abs(t * step)) < tol:
            break
    return theta
