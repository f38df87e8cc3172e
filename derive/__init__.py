"""derive: the mathematics of the Transformer, derived with sympy and checked step by step.

The public API is re-exported lazily so that ``import derive`` (and
``derive --help``) does not import sympy.
"""

from __future__ import annotations

import time as _time
from typing import Any

__version__ = "0.1.0"

#: When this process imported derive (``time.time()``): the verification cache does not trust a user
#: file modified later to be the code in memory (:mod:`derive.dependencies`).
IMPORTED_AT: float = _time.time()

_EXPORTS = {
    "Derivation": "derive.core",
    "Step": "derive.core",
    "Assumption": "derive.core",
    "Citation": "derive.core",
    "Substitute": "derive.rules",
    "Evaluate": "derive.rules",
    "Transform": "derive.rules",
    "Rule": "derive.rules",
    "check": "derive.verify",
    "verify_step": "derive.verify",
    "prove_relation": "derive.verify",
    "Verdict": "derive.report",
    "Report": "derive.report",
    "IdentityCheck": "derive.numeric",
    "MonteCarloCheck": "derive.numeric",
    "ValueCheck": "derive.numeric",
    "FunctionCheck": "derive.numeric",
    "register": "derive.registry",
    "get": "derive.registry",
    "DeriveError": "derive.exceptions",
}

__all__ = ["__version__", "setup", *_EXPORTS]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'derive' has no attribute {name!r}")
    import importlib

    # ``check`` is the public name of :func:`derive.verify.verify` (the module
    # ``derive.verify`` itself shadows a package attribute called ``verify``)
    return getattr(importlib.import_module(module), "verify" if name == "check" else name)


def setup(app: Any) -> dict[str, Any]:
    """Sphinx entry point, so that ``extensions = ["derive"]`` works."""
    from .sphinxext import setup as _setup

    return _setup(app)


# Jupyter display of a Derivation (``_repr_latex_`` ...) is attached from the render side, so that
# derive.core imports no renderer; this import is cheap (no sympy).
from .render import jupyter as _jupyter  # noqa: E402, F401
