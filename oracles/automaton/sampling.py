"""Sampling under a mask (spec section 2.4, on L8.1's sampler).

- ``SamplingParams``: temperature (0 means greedy), top_k, top_p, repetition_penalty.
- ``sample(logits, p, history, rng, prompt=())`` draws one id; ``-inf`` is never drawn.
  It returns ``(token_id, logprob)``, the logprob being the log-softmax of the
  logits after the repetition penalty (before temperature, top-k and top-p).
- ``apply_mask(logits, mask)``: a new float64 array, ``-inf`` outside the mask.
- ``constrained_sample``: ``sample`` on the masked logits, then ``Constraint.advance``,
  so the logprob is the log-softmax over the allowed tokens only.

Greedy takes the largest (allowed) logit, ties to the lowest id. Example (the Rust
port's hand example): pattern ``ab?``, vocabulary ``a b c EOS``, logits
``[0, 1, 5, 2]``: in state 0 only ``a`` is allowed, so greedy takes ``a`` (although
``c`` is larger) with logprob ``ln 1 = 0``; after ``a``, ``b`` and EOS are allowed and
greedy takes EOS with logprob ``2 - ln(e^1 + e^2)``.

Draws use ``rng.random()`` once per non-greedy call: the same generator state gives
the same id. ``rng`` must have a ``random()`` method (a ``numpy.random.Generator``);
``None`` or anything else is a TypeError, also in greedy mode (where it is not used).

Numerical safety, for every finite temperature and every finite logit: weights are
``exp(x / T - max(x / T))``, and when ``x / T`` overflows (a tiny temperature) they
are ``exp((x - max) / T)``; either way the largest allowed logit has weight 1 and
``-inf`` (or any logit whose scaled gap underflows) weight 0: ``-inf`` is never
drawn, and at a tiny temperature the draw is the greedy choice (``[2, 1]`` at
``1e-300`` gives 0). Overflow falls back to greedy: if the weights are not finite
(they cannot be, but the fallback is written down and tested), the draw is the argmax.
A repetition penalty that pushes a finite logit past the float range saturates it at
the largest finite float of its sign (``1e308 / 1e-10`` is ``1.797e308``), so the
penalized row stays finite.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from .errors import InvalidArgument

if TYPE_CHECKING:
    from .constraint import Constraint

__all__ = ["SamplingParams", "sample", "apply_mask", "constrained_sample"]


@dataclasses.dataclass(frozen=True)
class SamplingParams:
    """L8.1's sampling parameters.

    - ``temperature``: 0 means greedy (argmax, ties to the lowest id);
    - ``top_k``: keep the k largest logits, ties to the lowest ids (0 keeps all);
    - ``top_p``: keep the smallest set of most likely tokens whose probability
      reaches top_p (1.0 keeps all);
    - ``repetition_penalty``: logits of tokens in the prompt or the history are
      divided by it when positive, multiplied by it when negative.

    Raises ValueError for temperature < 0, top_k < 0, top_p outside (0, 1],
    repetition_penalty <= 0 (and for NaN anywhere).
    """

    temperature: float = 1.0
    top_k: int = 0
    top_p: float = 1.0
    repetition_penalty: float = 1.0

    def __post_init__(self) -> None:
        for name in ("temperature", "top_p", "repetition_penalty"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
                raise TypeError(f"SamplingParams.{name} must be a number, not {type(value).__name__}")
            try:
                float(value)
            except OverflowError:  # an int past the float range, e.g. 10**400
                raise InvalidArgument(f"SamplingParams.{name} must be finite, got an int of "
                                      f"{len(str(abs(value)))} digits") from None
        if isinstance(self.top_k, bool) or not isinstance(self.top_k, (int, np.integer)):
            raise TypeError(f"SamplingParams.top_k must be an int, not {type(self.top_k).__name__}")
        if not self.temperature >= 0 or math.isinf(self.temperature):
            raise InvalidArgument(f"SamplingParams.temperature must be finite and >= 0, got {self.temperature}")
        if self.top_k < 0:
            raise InvalidArgument(f"SamplingParams.top_k must be >= 0, got {self.top_k}")
        if not 0 < self.top_p <= 1:
            raise InvalidArgument(f"SamplingParams.top_p must be in (0, 1], got {self.top_p}")
        if not self.repetition_penalty > 0 or math.isinf(self.repetition_penalty):
            raise InvalidArgument(f"SamplingParams.repetition_penalty must be finite and > 0, "
                                  f"got {self.repetition_penalty}")


def sample(logits, p: SamplingParams, history: Sequence[int], rng: np.random.Generator,
           prompt: Sequence[int] = ()) -> tuple[int, float]:
    """Draw one token id from ``logits`` (float [V]) under ``p``; ``-inf`` is never drawn.

    Returns ``(token_id, logprob)``. Raises ValueError when every logit is ``-inf``,
    for NaN or ``+inf`` logits, and for a history or prompt id out of range. The
    input is never modified.
    """
    if not isinstance(p, SamplingParams):
        raise TypeError(f"sample: p must be SamplingParams, not {type(p).__name__}")
    if not callable(getattr(rng, "random", None)):
        raise TypeError(f"sample: rng must be a numpy.random.Generator (anything with random()), "
                        f"not {type(rng).__name__}")
    x = _as_logits(logits, "sample")
    x = _penalize(x, p.repetition_penalty, history, prompt)
    top = _check_finite_max(x, "sample")
    if p.temperature == 0:
        token = int(np.argmax(x))  # the first maximum: ties to the lowest id
    else:
        token = _draw(x, p, rng)
    return token, _log_softmax_at(x, token, top)


def apply_mask(logits, mask) -> np.ndarray:
    """A new float64 [V] array: ``logits`` where ``mask`` is True, ``-inf`` elsewhere.

    Never modifies its input. Raises ValueError when the shapes differ or the mask
    allows nothing, TypeError when the mask is not boolean.
    """
    x = np.asarray(logits)
    if x.dtype.kind not in "fiub":
        raise TypeError(f"apply_mask: logits must be numbers, not {x.dtype}")
    m = np.asarray(mask)
    if m.dtype != np.bool_:
        raise TypeError(f"apply_mask: mask must be a bool array, not {m.dtype}")
    if x.ndim != 1 or m.shape != x.shape:
        raise InvalidArgument(f"apply_mask: logits shape {x.shape} and mask shape {m.shape} differ "
                              "(both must be [V])")
    allowed = int(np.count_nonzero(m))
    if allowed == 0:
        raise InvalidArgument("apply_mask: the mask allows no token")
    if allowed * 8 < m.size:  # sparse: the few allowed entries into a new -inf row
        out = np.full(x.shape, -np.inf, dtype=np.float64)
        ids = np.flatnonzero(m)
        out[ids] = x[ids]
        return out
    out = x.astype(np.float64, copy=True)  # dense: a float64 copy (the input is never written)
    out[~m] = -np.inf
    return out


def constrained_sample(logits, c: Constraint, p: SamplingParams, history: Sequence[int],
                       rng: np.random.Generator, prompt: Sequence[int] = ()) -> tuple[int, float]:
    """``sample`` on ``apply_mask(logits, c.mask())``, then ``c.advance(token)``.

    The logprob is the log-softmax over the allowed tokens. Raises ValueError when
    the constraint is done or its mask allows nothing.
    """
    from .constraint import Constraint  # here, not at the top: L8.1's sampler alone is lent to a
    # candidate's sandbox under --ref-deps (harness.sandbox.lending), without the pipeline behind Constraint

    if not isinstance(c, Constraint):
        raise TypeError(f"constrained_sample: c must be a Constraint, not {type(c).__name__}")
    if c.done:
        raise InvalidArgument(f"constrained_sample: the constraint is done (EOS accepted in state {c.state})")
    masked = apply_mask(logits, c.mask())
    token, logprob = sample(masked, p, history, rng, prompt)
    c.advance(token)
    return token, logprob


def _as_logits(logits, where: str) -> np.ndarray:
    raw = np.asarray(logits)
    if raw.dtype.kind not in "fiub":  # complex, object, str: no real logit to draw from
        raise TypeError(f"{where}: logits must be real numbers, not {raw.dtype}")
    x = raw.astype(np.float64, copy=False)
    if x.ndim != 1 or x.size == 0:
        raise InvalidArgument(f"{where}: logits must be a non-empty 1-D array, got shape {x.shape}")
    return x


def _check_finite_max(x: np.ndarray, where: str) -> float:
    top = float(x.max())  # NaN propagates through max
    if math.isnan(top):
        raise InvalidArgument(f"{where}: logits hold NaN")
    if top == math.inf:
        raise InvalidArgument(f"{where}: logits hold +inf")
    if top == -math.inf:
        raise InvalidArgument(f"{where}: every logit is -inf, nothing can be drawn")
    return top


def _penalize(x: np.ndarray, penalty: float, history: Sequence[int], prompt: Sequence[int]) -> np.ndarray:
    """Divide positive logits of seen tokens by ``penalty``, multiply negative ones
    (e.g. penalty 2: 4.0 -> 2.0, -1.0 -> -2.0). Returns a copy when it changes x."""
    seen = _seen_ids(history, prompt, x.size)
    if penalty == 1.0 or seen.size == 0:
        return x
    x = x.copy()
    vals = x[seen]
    with np.errstate(over="ignore", under="ignore"):
        penalized = np.where(vals > 0, vals / penalty, vals * penalty)
    overflowed = np.isinf(penalized) & np.isfinite(vals)  # saturate: a finite logit stays finite
    penalized[overflowed] = np.copysign(np.finfo(np.float64).max, vals[overflowed])
    x[seen] = penalized
    return x


def _seen_ids(history: Sequence[int], prompt: Sequence[int], size: int) -> np.ndarray:
    """The distinct ids of ``prompt`` and ``history``: each an integer (``numpy`` ones
    too; never a float or a bool, which ``int64`` would read as another id: ``0.5``
    as 0) in ``0..size-1``; TypeError or ValueError naming the first that is not."""
    if not (len(prompt) or len(history)):
        return np.zeros(0, np.int64)
    ids = np.asarray([*prompt, *history])
    if ids.dtype.kind not in "iu" or ids.ndim != 1:  # a float, a bool, an int past int64 (object)...
        for value in (*prompt, *history):
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
                raise TypeError(f"sample: history/prompt token id {value!r} is a {type(value).__name__}, "
                                f"expected an int")
            if not 0 <= value < size:
                raise InvalidArgument(f"sample: history/prompt token id {value} out of range 0..{size - 1}")
        ids = ids.astype(np.int64)
    if ids.min() < 0 or ids.max() >= size:
        bad = int(ids[(ids < 0) | (ids >= size)][0])
        raise InvalidArgument(f"sample: history/prompt token id {bad} out of range 0..{size - 1}")
    return np.unique(ids)


def _log_softmax_at(x: np.ndarray, token: int, top: float) -> float:
    """``log_softmax(x)[token]`` over the finite entries (``-inf`` ones contribute 0),
    computed on the gaps to the maximum: ``(x[token] - top) - log(sum(exp(x - top)))``.
    Never ``x[token] - (top + log(...))``: at ``top = 1e16`` adding ``log 2`` is lost to
    rounding (``[1e16, 1e16]`` gave 0.0, not ``-log 2``)."""
    finite = x[x != -np.inf]
    with np.errstate(over="ignore", under="ignore"):  # a gap past the float range: weight 0
        total = float(np.exp(finite - top).sum())  # >= 1: the maximum's own weight
        return float(x[token] - top) - math.log(total)


def _draw(x: np.ndarray, p: SamplingParams, rng: np.random.Generator) -> int:
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        z = x / p.temperature
        if not np.isfinite(z[np.isfinite(x)]).all():
            # a tiny temperature overflowed x / T: the gap form (x - max) / T <= 0 gives
            # the max weight exp(0) = 1, and -inf or an underflowing gap weight 0
            z = (x - x.max()) / p.temperature
    z = _keep_top_k(z, p.top_k)
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):  # a gap past the float range: weight 0
        weights = np.exp(z - z.max())
    if not np.isfinite(weights).all() or weights.max() <= 0:  # overflow: fall back to greedy
        return int(np.argmax(x))
    if p.top_p < 1.0:
        weights = _keep_top_p(weights, p.top_p)
    cumulative = np.cumsum(weights)
    u = rng.random() * cumulative[-1]
    token = int(np.searchsorted(cumulative, u, side="right"))  # first id whose cumsum > u
    if token >= x.size:  # u rounded up to the total: take the last drawable id
        token = int(np.flatnonzero(weights)[-1])
    return token


def _keep_top_k(z: np.ndarray, k: int) -> np.ndarray:
    """``z`` with all but the k largest entries (ties to the lowest ids) set to -inf."""
    if k == 0 or k >= np.count_nonzero(z != -np.inf):
        return z
    order = np.argsort(-z, kind="stable")  # descending, equal values by ascending id
    out = np.full(z.shape, -np.inf)
    out[order[:k]] = z[order[:k]]
    return out


def _keep_top_p(weights: np.ndarray, top_p: float) -> np.ndarray:
    """The smallest set of most likely tokens whose probability reaches ``top_p``
    (ties to the lowest ids); the others get weight 0."""
    probs = weights / weights.sum()
    order = np.argsort(-probs, kind="stable")
    reached = np.cumsum(probs[order]) >= top_p * (1 - 1e-12)  # tolerate rounding
    n_keep = int(np.argmax(reached)) + 1 if reached.any() else order.size
    out = np.zeros_like(weights)
    out[order[:n_keep]] = weights[order[:n_keep]]
    return out
