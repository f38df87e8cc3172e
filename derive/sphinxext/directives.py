"""The ``derivation`` and ``derivations`` directives.

``derivation NAME`` verifies the registered derivation NAME while the page is
read and renders it; ``derivations PATTERN [PATTERN ...]`` does so for every
registered name matching the glob patterns (``attention.*``), in name order,
so a chapter picks up derivations as the catalog grows.

Options (both directives):

``:label: TEXT``
    the cross-reference label (``derivation`` only); by default the
    derivation's own name is its label, so ``{numref}`softmax.shift-invariance```
    prints "Derivation 2.1" and ``{ref}`` prints its title.
``:nonumber:``
    no number, no label, unnumbered step equations: for a second showing of a
    derivation whose home is another page.
``:claim-only:``
    only the title, name, verdict and claim (implies ``:nonumber:``); the
    derivation is still verified.
``:no-checks:``
    leave out the table of numeric cross-checks.
``:exclude: PATTERN ...``
    (``derivations`` only) names to leave out.
``:empty: TEXT``
    (``derivations`` only) what to show when nothing matches (by default a note
    saying that nothing is registered under the patterns yet).
"""

from __future__ import annotations

import fnmatch
from typing import ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import make_id

from . import content
from .nodes import derivation_node, derivation_title, derivation_unnumbered

logger = logging.getLogger(__name__)

_OPTIONS: dict = {
    "nonumber": directives.flag,
    "claim-only": directives.flag,
    "no-checks": directives.flag,
}


def matching(patterns: list[str], exclude: list[str] | None = None) -> list[str]:
    """Registered names matching any of the glob ``patterns`` and none of ``exclude``, sorted."""
    from .. import registry

    registry.load_catalog()
    out = []
    for name in registry.names():
        if any(fnmatch.fnmatchcase(name, p) for p in patterns) and not any(
            fnmatch.fnmatchcase(name, x) for x in exclude or []
        ):
            out.append(name)
    return out


class _DerivationBase(SphinxDirective):
    """What both directives share: verify, build the nodes, number and label them."""

    def lookup(self) -> str | None:
        """The registered name given as the argument, or ``None`` after a ``derive.unknown`` warning."""
        from .. import registry
        from ..exceptions import UnknownDerivationError

        registry.load_catalog()
        name = self.arguments[0].strip()
        try:
            registry.entry(name)
        except UnknownDerivationError as exc:
            logger.warning("%s", exc, location=self.get_location(), type="derive", subtype="unknown")
            return None
        return name

    def render(self, name: str, label: str | None) -> list[nodes.Node]:
        from .. import registry
        from . import note_module_dependencies
        from .verification import failure_kind, failure_message, report_for

        note_module_dependencies(self, registry.entry(name).module, "derive.registry")
        derivation = registry.get(name)
        report = report_for(derivation, seed=self.config.derive_seed, budget=self.config.derive_step_budget)
        if not report.ok:
            message = failure_message(derivation, report)
            logger.error("%s", message, location=self.get_location(), type="derive",
                         subtype=failure_kind(report))
            self.env.derive_failures.setdefault(self.env.docname, set()).add(name)
            return [nodes.error("", nodes.literal_block(message, message, language="text"))]
        vacuous = [s.index for s in report.steps if s.vacuous]
        if vacuous:  # proves nothing: flagged (an error with -W)
            logger.warning("derivation %s: step %s repeats the previous expression (a vacuous step)", name,
                           ", ".join(map(str, vacuous)), location=self.get_location(), type="derive",
                           subtype="vacuous")
        from ..i18n import available, using

        with using(available(self.config.language)):  # the site's language; English when derive lacks it
            return self._box(name, label, derivation, report)

    def _box(self, name: str, label: str | None, derivation: object, report: object) -> list[nodes.Node]:
        from ..i18n import gettext, localize

        derivation = localize(derivation)  # verified as written; its words in the site's language
        claim_only = "claim-only" in self.options
        numbered = not claim_only and "nonumber" not in self.options
        kind = derivation_node if numbered else derivation_unnumbered
        box = kind(classes=["derive-derivation"], numbered=numbered, derivation=name)
        self.set_source_info(box)
        box += derivation_title(derivation.title, "", *content.inline(derivation.title))
        if numbered:
            label = label or name
            box["names"].append(label)
            box["ids"].append(make_id(self.env, self.state.document, "derivation", label))
            self.state.document.note_explicit_target(box)
        layout = content.chain_tex(derivation)
        box += content.header(derivation, report, claim_only=claim_only, layout=layout)
        if not claim_only:
            box += nodes.paragraph("", "", nodes.strong(gettext("Derivation."), gettext("Derivation.")),
                                   classes=["derive-steps-label"])
            box += content.chain(derivation, report, self.cite, layout,
                                 lambda k: self.anchor(f"{label}-{k}", box["ids"][0], k) if numbered else [])
            box += content.footer(derivation, report, self.cite, show_checks="no-checks" not in self.options)
        self.env.derive_pages.setdefault(self.env.docname, set()).add(name)
        return [box]

    def anchor(self, label: str, box_id: str, k: int) -> list[nodes.Node]:
        """The target of step ``k``; ``{eq}`label``` links to it as "step k of Derivation N.M" (see ``_step_ref``)."""
        target = nodes.target("", "", ids=[nodes.make_id(f"equation-{label}")])
        self.set_source_info(target)
        self.state.document.note_explicit_target(target)
        from . import _steps

        _steps(self.env)[label] = (self.env.docname, box_id, k, target["ids"][0])
        return [target]

    def cite(self, citation: object) -> list[nodes.Node]:
        """Nodes citing ``citation`` through sphinxcontrib-bibtex (``{cite:p}`` plus the place in the work)."""
        role = self.env.get_domain("cite").role("p")
        if role is None:  # pragma: no cover - sphinxcontrib.bibtex is set up by derive's setup()
            return [nodes.Text(str(citation))]
        key, where = citation.key, citation.where  # type: ignore[attr-defined]
        refs, _messages = role("cite:p", f":cite:p:`{key}`", key, self.lineno, self.state.inliner)
        out = list(refs)
        if where:
            out.append(nodes.Text(f", {where}"))
        return out


class DerivationDirective(_DerivationBase):
    """``derivation NAME``: verify and render one registered derivation."""

    required_arguments = 1
    option_spec: ClassVar[dict] = {**_OPTIONS, "label": directives.unchanged_required}

    def run(self) -> list[nodes.Node]:
        name = self.lookup()
        return [] if name is None else self.render(name, self.options.get("label"))


class DerivationsDirective(_DerivationBase):
    """``derivations PATTERN ...``: every registered derivation whose name matches, in name order."""

    required_arguments = 1
    optional_arguments = 20
    option_spec: ClassVar[dict] = {**_OPTIONS, "exclude": directives.unchanged, "empty": directives.unchanged}

    def run(self) -> list[nodes.Node]:
        patterns = self.arguments
        exclude = self.options.get("exclude", "").split()
        names = matching(patterns, exclude)
        if not names:
            # the catalog grows in parallel: a pattern with no match yet is shown, not fatal
            logger.info("derive: no derivation matches %s", " ".join(patterns), location=self.get_location())
            text = self.options.get("empty") or f"No derivation is registered under {' '.join(patterns)} yet."
            return [nodes.note("", nodes.paragraph(text, text))]
        out: list[nodes.Node] = []
        for name in names:
            out += self.render(name, None)
        return out
