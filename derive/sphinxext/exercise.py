"""The ``exercise`` directive: a statement to try, and a folded solution that is a verified derivation.

MyST usage::

    ```{exercise} example.exercise-layernorm-constant
    What is the LayerNorm of $x = (2, 2, 2, 2)$?
    +++
    Optional words shown first in the solution, e.g. {derive-value}`params.layer d_model=4096 *32`.
    ```

The content before a line ``+++`` is the statement, always visible; what
follows it (optional) opens the solution. The solution is the catalog
derivation NAME, verified while the page is read and rendered by the
``derivation`` directive's code (title, verdict badge, steps, checks), inside a
``<details>`` fold closed until the reader opens it. A derivation that fails
verification fails the build exactly as under ``derivation``
(``derive.refuted`` ...); an unknown name is ``derive.unknown``.

Options: ``:nonumber:`` (the derivation's numbered home is another page),
``:no-checks:``, ``:label:`` (as for ``derivation``). Exercises are numbered
per page: "Exercise 1", "Exercise 2", ...
"""

from __future__ import annotations

from typing import Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx.util import logging

from ..i18n import gettext
from .directives import _DerivationBase
from .quiz import make_fold

logger = logging.getLogger(__name__)

SEPARATOR = "+++"


class ExerciseDirective(_DerivationBase):
    """``exercise NAME``: statement, then the derivation NAME as a folded, verified solution."""

    required_arguments = 1
    has_content = True
    option_spec: ClassVar[dict] = {
        "nonumber": directives.flag,
        "no-checks": directives.flag,
        "label": directives.unchanged_required,
    }

    def run(self) -> list[nodes.Node]:
        from ..i18n import available, using

        with using(available(self.config.language)):  # the labels in the site's language
            return self._run()

    def _run(self) -> list[nodes.Node]:
        name = self.lookup()
        if name is None:
            return []
        lines = list(self.content)
        cut = next((k for k, line in enumerate(lines) if line.strip() == SEPARATOR), len(lines))
        number = self.env.temp_data.get("derive_exercise", 0) + 1
        self.env.temp_data["derive_exercise"] = number
        box = nodes.container(classes=["derive-exercise"])
        self.set_source_info(box)
        label = nodes.paragraph(classes=["derive-exercise-label"])
        text = gettext("Exercise {number}.").format(number=number)
        label += nodes.strong(text, text)
        box += label
        box += self.parse(self.content[:cut])
        solution = self.parse(self.content[cut + 1:]) if cut < len(lines) else []
        solution += self.render(name, self.options.get("label"))
        box += make_fold(gettext("Solution (try first)"), solution)
        return [box]

    def parse(self, content: StringList) -> list[nodes.Node]:
        holder = nodes.Element()
        self.state.nested_parse(content, self.content_offset, holder)
        return list(holder.children)


def setup(app: Any) -> None:
    """Register the ``exercise`` directive (its fold nodes are registered by :mod:`.quiz`)."""
    app.add_directive("exercise", ExerciseDirective)
