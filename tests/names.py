"""Check names compared as a reader sees them: a name's math (``$W_i^Q$``) and its plain spelling
(``W_i^Q``) are the same name."""

from __future__ import annotations

import re
import unicodedata


def canon(name: str) -> str:
    """``name`` as Unicode text, with sub/superscripts as plain letters and no ``_ ^ { } ( ) $`` or spaces."""
    from derive.render.textmath import unicode_text

    text = unicodedata.normalize("NFKC", unicode_text(name)).replace("−", "-").replace("·", "*")
    text = re.sub(r"exp\(([^()]*)\)", r"e\1", text).replace("e^", "e")
    return "".join(ch for ch in text if ch not in "_^{}()$\\ *×x")


class Names(dict):
    """A dict keyed by check names that finds a key by its canonical form (see :func:`canon`)."""

    def __init__(self, items: dict) -> None:
        super().__init__({canon(k): v for k, v in items.items()})

    def __getitem__(self, key: str):
        return super().__getitem__(canon(key))

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and super().__contains__(canon(key))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, dict) and dict(self) == {canon(k): v for k, v in other.items()}

    __hash__ = None
