"""Korean words in the SVG/PNG export: a free Hangul font found on the machine, and lines drawn with it.

The formulas' font (STIX Two Math, shipped with ziamath) has no Hangul, so a justification in Korean
is drawn with a TrueType/OpenType Hangul font instead: ``DERIVE_HANGUL_FONT`` (a file), else the first
of :data:`CANDIDATES` present, else what fontconfig's ``fc-match`` names for Korean. The free Nanum
fonts (Debian/Ubuntu ``fonts-nanum``, SIL Open Font License) are the first choice. Every glyph is
drawn as a path, so the viewer needs no font.

ziamath 0.13's ``Text`` mis-places the parts of a line that mixes ``$…$`` math with text in a font
of one's own (each text part is appended twice to the list it zips with the sizes), so
:class:`MixedText` lays out the parts itself: text with ziafont, math with ziamath, on one baseline.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..exceptions import MissingDependencyError
from ..i18n import has_hangul

#: free Hangul fonts looked for, in order (Nanum from fonts-nanum, Un fonts from fonts-unfonts-core)
CANDIDATES = (
    "/usr/share/fonts/truetype/nanum/NanumGothic.ttf",
    "/usr/share/fonts/truetype/nanum/NanumBarunGothic.ttf",
    "/usr/share/fonts/truetype/unfonts-core/UnDotum.ttf",
    "/usr/local/share/fonts/NanumGothic.ttf",
    "~/.local/share/fonts/NanumGothic.ttf",
    "~/.fonts/NanumGothic.ttf",
    "/Library/Fonts/NanumGothic.ttf",
    "~/Library/Fonts/NanumGothic.ttf",
)

INSTALL = ("drawing Korean text needs a free Hangul font: install fonts-nanum (Debian/Ubuntu: "
           "apt-get install fonts-nanum) or set DERIVE_HANGUL_FONT to a .ttf/.otf file")


def _draws_hangul(path: str) -> bool:
    """Whether ziafont can read ``path`` and it has a glyph for 가."""
    try:
        import ziafont

        return ziafont.Font(path).glyphindex("가") != 0
    except Exception:  # noqa: BLE001 - a font file ziafont cannot read is simply not a candidate
        return False


@lru_cache(maxsize=4)
def _find(env: str) -> str | None:
    if env:
        return env if Path(env).is_file() and _draws_hangul(env) else None
    for candidate in CANDIDATES:
        path = os.path.expanduser(candidate)
        if Path(path).is_file() and _draws_hangul(path):
            return path
    if shutil.which("fc-match"):
        try:
            found = subprocess.run(["fc-match", "-f", "%{file}", "sans:lang=ko"], capture_output=True,
                                   text=True, timeout=10, check=False).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            found = ""
        if found.lower().endswith((".ttf", ".otf")) and _draws_hangul(found):
            return found
    return None


def hangul_font() -> str:
    """The path of a font with Hangul glyphs (see the module's docstring for the search).

    Raises:
        MissingDependencyError: none found, or ``DERIVE_HANGUL_FONT`` names no usable font.
    """
    env = os.environ.get("DERIVE_HANGUL_FONT", "").strip()
    path = _find(env)
    if path is None:
        raise MissingDependencyError(f"DERIVE_HANGUL_FONT={env}: not a readable font with Hangul glyphs"
                                     if env else INSTALL)
    return path


class MixedText:
    """Lines of words and ``$…$`` math, words in a Hangul font: the subset of ``ziamath.Text`` that
    :func:`derive.render.svg.derivation_svg` uses (``bbox()``; ``drawon`` centred on ``y``)."""

    def __init__(self, text: str, font: str, size: float, color: str = "black", linespacing: float = 1.3) -> None:
        import ziafont
        import ziamath

        face = ziafont.Font(font)
        self.size, self.linespacing = float(size), float(linespacing)
        self.lines: list[list[tuple[Any, float, float, float]]] = []  # (part, width, ascent, descent)
        for line in text.splitlines() or [""]:
            parts = []
            for k, piece in enumerate(re.split(r"(\$[^$]*\$)", line)):
                if not piece:
                    continue
                if k % 2:
                    part = ziamath.Math.fromlatex(piece[1:-1], size=size, color=color, inline=True)
                else:
                    part = ziafont.Text(piece, font=face, size=size, color=color)
                width, height = part.getsize()
                below = -part.getyofst()
                parts.append((part, width, height - below, below))
            self.lines.append(parts)

    def _pitch(self) -> float:
        return self.size * self.linespacing

    def bbox(self) -> tuple[float, float, float, float]:
        """``(xmin, xmax, ymin, ymax)`` with the first line's baseline at y = 0 (y grows downwards)."""
        width = max((sum(p[1] for p in line) for line in self.lines), default=0.0)
        top = max((p[2] for p in self.lines[0]), default=0.0)
        bottom = max((p[3] for p in self.lines[-1]), default=0.0)
        return 0.0, width, -top, (len(self.lines) - 1) * self._pitch() + bottom

    def drawon(self, svg: ET.Element, x: float = 0.0, y: float = 0.0, halign: str = "left",
               valign: str = "center") -> ET.Element:
        """Draw on ``svg`` with the left edge at ``x`` and the middle (``valign="center"``) or the first
        baseline (``"base"``) at ``y``."""
        _, width, y0, y1 = self.bbox()
        x = x - {"right": width, "center": width / 2}.get(halign, 0.0)
        base = y - (y0 + y1) / 2 if valign == "center" else y
        group = ET.SubElement(svg, "g")
        for line in self.lines:
            xloc = x
            for part, w, _up, _down in line:
                part.drawon(group, xloc, base)
                xloc += w
            base += self._pitch()
        return group


def note_drawing(zm: Any, text: str, wrap: int, *, size: float, color: str) -> Any:
    """A justification for the image: ``ziamath.Text`` for Latin text, :class:`MixedText` in a Hangul font
    (wrapped at 3/5 of ``wrap``: a Hangul syllable is about as wide as two Latin letters)."""
    from .svg import wrap_text

    if not has_hangul(text):
        return zm.Text(wrap_text(text, wrap), size=size, color=color, linespacing=1.3)
    return MixedText(wrap_text(text, max(10, wrap * 3 // 5)), hangul_font(), size=size, color=color)
