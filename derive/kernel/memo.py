"""Tables that remember a pure function's results per expression (the kernel's per-process memos)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_MISSING = object()


def remembered(table: dict, key: Any, compute: Callable[[Any], Any], limit: int = 8192) -> Any:
    """``compute(key)``, remembered in ``table``: for a pure function of ``key`` only (the same key gives the
    same result in every derivation). At most ``limit`` entries, then forgotten all at once. Raises TypeError
    for an unhashable key (a mutable matrix)."""
    hit = table.get(key, _MISSING)
    if hit is _MISSING:
        hit = compute(key)
        if len(table) > limit:
            table.clear()
        table[key] = hit
    return hit
