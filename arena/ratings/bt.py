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


def _t(m: Array) -> Array:
    return np.swapaxes(m, -1, -2)


def objective(theta: Array, wins: Array, prior: float) -> Array:
    """Penalised log-likelihood (one value per problem in a batch)."""
    ll: Array = np.sum(
        wins * _log_sigmoid(theta[..., :, None] - theta[..., None, :]), axis=(-2, -1)
    )
    penalty: Array = np.sum(_log_sigmoid(theta) + _log_sigmoid(-theta), axis=-1)
    return ll + 0.5 * prior * penalty


def derivatives(theta: Array, wins: Array, prior: float) -> tuple[Array, Array]:
    """Gradient and information (negative Hessian) of :func:`objective`."""
    games = wins + _t(wins)
    p = sigmoid(theta[..., :, None] - theta[..., None, :])
    v = games * p * (1.0 - p)
    s = sigmoid(theta)
    grad = (wins - games * p).sum(axis=-1) + prior * (0.5 - s)
    diagonal = v.sum(axis=-1) + prior * s * (1.0 - s)
    info = np.eye(theta.shape[-1]) * diagonal[..., None, :] - v
    return grad, info


def solve(wins: Array, prior: float, tol: float = 1e-10, max_iter: int = 500) -> Array:
    """Maximise the penalised likelihood by Newton's method with backtracking.

    ``wins`` is one (n, n) matrix or a batch (b, n, n); batching many small
    problems (bootstrap resamples) amortises Python overhead.  It starts at 0,
    where the logistic curvature is largest, so steps tend to undershoot;
    backtracking keeps the ascent monotone regardless.  (A warm start far out
    in a flat tail overshot badly in testing, so there is none.)
    """
    batch = wins.reshape(-1, *wins.shape[-2:])
    theta = np.zeros(batch.shape[:2])
    ridge = 1e-12 * np.eye(batch.shape[-1])  # guards against underflowed curvature
    f = objective(theta, batch, prior)
    for _ in range(max_iter):
        grad, info = derivatives(theta, batch, prior)
        step = np.linalg.solve(info + ridge, grad[..., None])[..., 0]
        t = np.ones(len(batch))
        cand, f_cand = theta + step, objective(theta + step, batch, prior)
        worse = np.ones(len(batch), dtype=bool)
        while True:
            worse &= (f_cand < f - 1e-12 * np.abs(f)) & (t > 1e-9)
            if not worse.any():
                break
            t[worse] *= 0.5
            cand[worse] = theta[worse] + t[worse, None] * step[worse]
            f_cand[worse] = objective(cand[worse], batch[worse], prior)
        theta, f = cand, f_cand
        if np.max(np.abs(t[:, None] * step)) < tol:
            break
    return theta.reshape(wins.shape[:-1])
