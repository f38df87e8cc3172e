"""Numeric evidence: the public names of derive's cross-checks, in one place.

* :mod:`derive.crosscheck`  the base class, :class:`IdentityCheck` (the kernel's
  mpmath witness at random and special points) and :class:`FunctionCheck`;
* :mod:`derive.montecarlo`  :class:`MonteCarloCheck` (false rejection 1e-6, power, chunks);
* :mod:`derive.printed`     :func:`round_like` and :class:`ValueCheck` (exact value vs printed figure);
* :mod:`derive.kernel.witness` and :mod:`derive.kernel.points`: how steps are
  evaluated and where (part of the proof kernel).

Every random draw is seeded; the seed is in every result.
"""

from __future__ import annotations

from .crosscheck import CrossCheck, FunctionCheck, IdentityCheck
from .montecarlo import MC_CHUNK_BYTES, MC_FALSE_REJECTION, MC_PROBE, MonteCarloCheck
from .printed import ValueCheck, round_like
from .settings import DEFAULT_SEED as _DEFAULT_SEED
from .settings import derived_seed

#: Base seed of every random draw (its home is :mod:`derive.settings`); change it with
#: ``derive check --seed`` or ``pytest --derive-seed``.
DEFAULT_SEED = _DEFAULT_SEED

__all__ = ["CrossCheck", "IdentityCheck", "FunctionCheck", "MonteCarloCheck", "ValueCheck", "round_like",
           "derived_seed", "DEFAULT_SEED", "MC_CHUNK_BYTES", "MC_FALSE_REJECTION", "MC_PROBE"]
