"""Self-check quizzes whose answer keys the build verifies, and the role ``derive-value``.

``quiz`` (directive, MyST)::

    ```{quiz}
    :answer: b
    :value: params.attention d_model=512 n_heads=8
    :proves: params.attention multihead.head-dims

    With $d_{\\text{model}} = 512$ and 8 heads, how many weights has attention?

    - 262,144: only $W^O$ counts.
    - 1,048,576, whatever the number of heads.

      (Optional further paragraphs of an item: the feedback for that choice.)

    The paragraphs after the list are the explanation, shown once a choice is clicked.
    ```

The paragraphs before the bullet list are the question, the items are the
choices (lettered a, b, c ... in order; an item may start with its own
``(a)``, which must match its place), whatever follows the list is the
explanation. Without a list the quiz is a short-answer self-check: the
question and a "Show answer" fold holding the explanation.

Options:

``:answer: LETTER``
    the correct choice (required when there are choices).
``:value: SPEC [; SPEC ...]``
    values computed from catalog derivations (see :func:`parse_spec`); each
    one, with or without thousands separators, must occur in the text of the
    answer's choice, or the build fails with the typed warning ``derive.quiz``.
``:proves: NAME [NAME ...]``
    derivations the explanation relies on; each must verify as proved (else
    ``derive.quiz``), and is listed under the explanation with its verdict badge
    and a link to where it is shown.

``{derive-value}`SPEC``` (role) prints the value of ``SPEC`` inline, e.g.
``{derive-value}`params.attention d_model=512``` prints 1,048,576.

A SPEC is ``NAME[SYMBOL] SYM=NUMBER ... [*FACTOR]``: the end expression of
derivation NAME (or the right-hand side of its definition or premise for
SYMBOL), with its definitions and premises applied, at the given sizes, times
FACTOR. Numbers are integers, decimals or fractions (``3/2``); nothing is
evaluated as code. An unknown name or symbol, a size that leaves a free symbol,
or a derivation that does not verify as proved is a ``derive.quiz`` warning.

In HTML, each choice is a ``<button>``; a small script
(``static/derive-quiz.js``, no framework) marks it right or wrong in an
``aria-live`` line. A wrong first choice is disabled and the reader gets a
second try; the explanation, a ``<details>`` element that also works without
the script, opens after a right choice or after the second try.

On a translated site (``language = "ko"``) a quiz is translated like the rest of the page: the question,
the choices, their feedback and the explanation are messages of the page's gettext catalog (a choice's
message is its first paragraph, lead ``(a)`` included), the labels and the script's feedback lines
come from derive's catalog. The key is checked again on the translated text (``ChoiceLetters``):
the values of ``:value:`` must be in the keyed choice in every language.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.transforms import SphinxTransform
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective, SphinxRole

from ..i18n import gettext

logger = logging.getLogger(__name__)

STATIC = Path(__file__).parent / "static"
ASSETS = ("derive-quiz.js", "derive-quiz.css")

_SPEC = re.compile(r"^(?P<name>[A-Za-z0-9_.\-]+)(?:\[(?P<symbol>[A-Za-z_][A-Za-z0-9_]*)\])?$")
_SIZE = re.compile(r"^(?P<sym>[A-Za-z_][A-Za-z0-9_]*)=(?P<num>-?\d+(?:\.\d+)?(?:/\d+)?)$")
_FACTOR = re.compile(r"^\*(?P<num>\d+(?:\.\d+)?(?:/\d+)?)$")
_LEAD = re.compile(r"^\(([a-z])\)\s*")


class QuizError(ValueError):
    """A value spec or quiz key that the build cannot accept (logged as ``derive.quiz``)."""


@dataclass(frozen=True)
class ValueSpec:
    """A parsed value spec: derivation ``name``, optional ``symbol``, ``sizes`` and ``factor``."""

    name: str
    symbol: str | None
    sizes: tuple[tuple[str, Fraction], ...]
    factor: Fraction = Fraction(1)


def parse_spec(text: str) -> ValueSpec:
    """Parse ``NAME[SYMBOL] SYM=NUMBER ... [*FACTOR]``; raises :class:`QuizError` with one line."""
    words = text.split()
    if not words:
        raise QuizError("empty value spec")
    head = _SPEC.match(words[0])
    if head is None:
        raise QuizError(f"value spec {text!r}: {words[0]!r} is not a derivation name (NAME or NAME[SYMBOL])")
    sizes: list[tuple[str, Fraction]] = []
    factor = Fraction(1)
    for word in words[1:]:
        size, mult = _SIZE.match(word), _FACTOR.match(word)
        if size:
            sizes.append((size["sym"], Fraction(size["num"])))
        elif mult:
            factor *= Fraction(mult["num"])
        else:
            raise QuizError(f"value spec {text!r}: {word!r} is neither SYMBOL=NUMBER nor *FACTOR")
    return ValueSpec(head["name"], head["symbol"], tuple(sizes), factor)


def evaluate(spec: ValueSpec, *, seed: int, budget: float) -> Any:
    """The exact value (a SymPy number) of ``spec``, after checking that its derivation is proved.

    Raises :class:`QuizError` for an unknown derivation or symbol, a derivation that is not proved, or
    sizes that leave a free symbol.
    """
    import sympy as sp

    derivation = proved_derivation(spec.name, seed=seed, budget=budget)
    rules: dict[Any, Any] = {}
    for lhs, rhs in derivation.definitions:
        rules[lhs] = rhs
    for prem in derivation.premises:
        if isinstance(prem, sp.Eq) and isinstance(prem.lhs, sp.Symbol):
            rules.setdefault(prem.lhs, prem.rhs)
    if spec.symbol is None:
        expr = derivation.end
    else:
        found = [rhs for lhs, rhs in rules.items() if str(lhs) == spec.symbol]
        if not found:
            known = ", ".join(sorted(str(k) for k in rules)) or "none"
            raise QuizError(f"derivation {spec.name} defines no symbol {spec.symbol!r} (defined: {known})")
        expr = found[0]
    sizes = {name: sp.Rational(v.numerator, v.denominator) for name, v in spec.sizes}
    for _ in range(4):  # definitions may refer to each other (d_k = d_model/n_heads)
        expr = expr.subs(rules) if rules else expr
        expr = expr.subs({s: sizes[s.name] for s in expr.free_symbols if getattr(s, "name", None) in sizes})
    expr = sp.simplify(expr)
    if getattr(expr, "free_symbols", set()):
        left = ", ".join(sorted(str(s) for s in expr.free_symbols))
        raise QuizError(f"value {spec.name}: no size given for {left}")
    return expr * sp.Rational(spec.factor.numerator, spec.factor.denominator)


def proved_derivation(name: str, *, seed: int, budget: float) -> Any:
    """The registered derivation ``name`` if it verifies as proved; :class:`QuizError` otherwise."""
    from .. import registry
    from ..exceptions import UnknownDerivationError
    from .verification import failure_kind, report_for

    registry.load_catalog()
    try:
        derivation = registry.get(name)
    except UnknownDerivationError as exc:
        raise QuizError(str(exc)) from None
    report = report_for(derivation, seed=seed, budget=budget)
    if not report.ok:
        raise QuizError(f"derivation {name} is {failure_kind(report)}; a quiz cannot rest on it")
    return derivation


def format_value(value: Any) -> str:
    """``1048576`` -> ``"1,048,576"``; a non-integer to 6 significant digits (``0.622459``)."""
    if getattr(value, "is_Integer", False) or isinstance(value, int):
        return f"{int(value):,}"
    number = float(value)
    if number.is_integer() and abs(number) < 1e15:
        return f"{int(number):,}"
    return f"{number:.6g}"


def occurs(value: Any, text: str) -> bool:
    """Whether ``value`` is written in ``text`` as a whole number: ``1,048,576`` or ``1048576``, not ``10485760``."""
    return shown_in(format_value(value), text)


def shown_in(shown: str, text: str) -> bool:
    """Whether the formatted value ``shown`` (``"1,048,576"``) is in ``text``, with or without separators."""
    for spelling in {shown, shown.replace(",", "")}:
        if re.search(rf"(?<![\d.,]){re.escape(spelling)}(?![\d]|[.,]\d)", text):
            return True
    return False


# nodes ----------------------------------------------------------------------


class quiz_node(nodes.General, nodes.Element):  # noqa: N801 - docutils naming
    """A whole quiz (``<div class="derive-quiz">``); ``answer`` holds the key letter, "" for short answer."""


class quiz_choices(nodes.General, nodes.Element):  # noqa: N801
    """The list of choices (``<ol>``)."""


class quiz_choice(nodes.General, nodes.Element):  # noqa: N801
    """One choice (``<li>``); ``letter`` and ``correct`` attributes."""


class quiz_button(nodes.paragraph):  # noqa: N801
    """The clickable text of a choice (``<button>``; a paragraph elsewhere)."""


class quiz_feedback(nodes.paragraph):  # noqa: N801
    """The ``aria-live`` line that says right or wrong (empty in the page)."""


class fold(nodes.General, nodes.Element):  # noqa: N801
    """A ``<details>`` block, closed until asked (its first child is a :class:`fold_summary`)."""


class fold_summary(nodes.TextElement):  # noqa: N801
    """The always visible line of a :class:`fold` (``<summary>``)."""


def _visit_quiz(self: Any, node: quiz_node) -> None:
    attrs = {"CLASS": "derive-quiz"}
    if node["answer"]:
        attrs["data-answer"] = node["answer"]
        # the script's feedback lines, in the page's language ({letter}: the choice clicked)
        attrs.update({f"data-say-{key}": text for key, text in node.get("say", {}).items()})
    self.body.append(self.starttag(node, "div", **attrs))


def _visit_choices(self: Any, node: quiz_choices) -> None:
    self.body.append(self.starttag(node, "ol", CLASS="derive-quiz-choices", type="a"))


def _visit_choice(self: Any, node: quiz_choice) -> None:
    self.body.append(self.starttag(node, "li", CLASS="derive-quiz-item", **{"data-choice": node["letter"]}))


def _visit_button(self: Any, node: quiz_button) -> None:
    letter = node.parent["letter"]
    self.body.append(self.starttag(node, "button", CLASS="derive-quiz-choice", type="button",
                                   **{"data-choice": letter, "aria-pressed": "false"}))


def _visit_feedback(self: Any, node: quiz_feedback) -> None:
    self.body.append(self.starttag(node, "p", CLASS="derive-quiz-feedback", role="status",
                                   **{"aria-live": "polite"}))


def _visit_fold(self: Any, node: fold) -> None:
    self.body.append(self.starttag(node, "details", CLASS="derive-fold"))


def _visit_summary(self: Any, node: fold_summary) -> None:
    self.body.append(self.starttag(node, "summary", CLASS="derive-fold-summary"))


def _closer(tag: str) -> Any:
    def depart(self: Any, node: nodes.Element) -> None:
        self.body.append(f"</{tag}>\n")

    return depart


def _skip(self: Any, node: nodes.Element) -> None:
    pass


def _para(self: Any, node: nodes.Element) -> None:
    self.visit_paragraph(node)


def _depart_para(self: Any, node: nodes.Element) -> None:
    self.depart_paragraph(node)


def _visitors(html: tuple, *, paragraph_like: bool = False) -> dict[str, tuple]:
    other = (_para, _depart_para) if paragraph_like else (_skip, _skip)
    return {"html": html, "latex": other, "text": other, "man": other, "texinfo": other}


NODES: tuple[tuple[type, dict[str, tuple]], ...] = (
    (quiz_node, _visitors((_visit_quiz, _closer("div")))),
    (quiz_choices, _visitors((_visit_choices, _closer("ol")))),
    (quiz_choice, _visitors((_visit_choice, _closer("li")))),
    (quiz_button, _visitors((_visit_button, _closer("button")), paragraph_like=True)),
    (quiz_feedback, _visitors((_visit_feedback, _closer("p")), paragraph_like=True)),
    (fold, _visitors((_visit_fold, _closer("details")))),
    (fold_summary, _visitors((_visit_summary, _closer("summary")), paragraph_like=True)),
)


def make_fold(summary: str, body: list[nodes.Node]) -> fold:
    """A closed ``<details>`` with ``summary`` as its visible line and ``body`` inside."""
    box = fold()
    box += fold_summary(summary, summary)
    for child in body:
        box += child
    return box


def verdict_list(names: list[str], docname: str) -> nodes.paragraph:
    """"Proved on this site: NAME ✓ proved, ..." with a ``{ref}``-style link to each derivation."""
    from sphinx.addnodes import pending_xref

    from .content import verdict_badge

    para = nodes.paragraph(classes=["derive-quiz-proves"])
    words = gettext("Proved on this site:") + " "
    para += nodes.strong(words, words)
    for k, name in enumerate(names):
        if k:
            para += nodes.Text("; ")
        ref = pending_xref("", refdomain="std", reftype="ref", reftarget=name.lower(), refexplicit=True,
                           refwarn=False, refdoc=docname, derive_quiz=True)
        ref += nodes.literal(name, name)
        para += ref
        para += nodes.Text(" ")
        para += verdict_badge("proved")
    return para


# directive and role -----------------------------------------------------------


def _warn(directive: Any, message: str) -> None:
    logger.warning("%s", message, location=directive.get_location(), type="derive", subtype="quiz")


class QuizDirective(SphinxDirective):
    """``quiz``: a question, lettered choices, a key checked against derivations, an explanation."""

    has_content = True
    option_spec: ClassVar[dict] = {
        "answer": directives.unchanged_required,
        "value": directives.unchanged_required,
        "proves": directives.unchanged_required,
    }

    def run(self) -> list[nodes.Node]:
        from ..i18n import available, using

        with using(available(self.config.language)):  # the labels in the site's language
            return self._run()

    def _run(self) -> list[nodes.Node]:
        from . import note_module_dependencies

        seed, budget = self.config.derive_seed, self.config.derive_step_budget
        holder = nodes.Element()
        self.state.nested_parse(self.content, self.content_offset, holder)
        children = list(holder.children)
        lists = [k for k, c in enumerate(children) if isinstance(c, nodes.bullet_list)]
        question = children[: lists[0]] if lists else children[:1]
        explanation = children[lists[0] + 1:] if lists else children[1:]
        items = list(children[lists[0]].children) if lists else []
        answer = self.options.get("answer", "").strip().lower()
        box = quiz_node(answer=answer if items else "", classes=["derive-quiz"])
        self.set_source_info(box)
        label = nodes.paragraph(classes=["derive-quiz-label"])
        label += nodes.strong(gettext("Check yourself."), gettext("Check yourself."))
        box += label
        for child in question:
            box += child
        letters = string.ascii_lowercase
        if items:
            if len(items) > len(letters):
                _warn(self, f"quiz: {len(items)} choices; at most {len(letters)}")
                return []
            if answer not in letters[: len(items)]:
                _warn(self, f"quiz: :answer: {answer or '(missing)'} is not one of the choices "
                      f"a to {letters[len(items) - 1]}")
                return []
            choices = quiz_choices()
            for k, item in enumerate(items):
                choices += self.choice(item, letters[k], letters[k] == answer)
            box += choices
            box += quiz_feedback("", "")
        elif answer:
            _warn(self, "quiz: :answer: given but the quiz has no list of choices")
        values: list[tuple[str, str]] = []  # (derivation, value as shown): checked by ChoiceLetters
        for text in filter(None, (s.strip() for s in self.options.get("value", "").split(";"))):
            try:
                spec = parse_spec(text)
                note_module_dependencies(self, self.module_of(spec.name))
                value = evaluate(spec, seed=seed, budget=budget)
            except QuizError as exc:
                _warn(self, f"quiz: {exc}")
                continue
            values.append((spec.name, format_value(value)))
        if items:
            box["values"] = values
            box["say"] = {"right": gettext("Right: ({letter}) is the answer."),
                          "wrong": gettext("Not quite: ({letter}) is not the answer. Try once more."),
                          "last": gettext("Not quite: ({letter}) is not the answer either. "
                                          "The answer is ({answer}).")}
        proved: list[str] = []
        for name in self.options.get("proves", "").split():
            try:
                note_module_dependencies(self, self.module_of(name))
                proved_derivation(name, seed=seed, budget=budget)
            except QuizError as exc:
                _warn(self, f"quiz: {exc}")
                continue
            proved.append(name)
        body = list(explanation)
        if proved:
            body.append(verdict_list(proved, self.env.docname))
        if body:
            summary = gettext("Answer and explanation") if items else gettext("Show answer")
            if items:
                key = gettext("The answer is ({letter}).").format(letter=answer)
                body.insert(0, nodes.paragraph("", key, classes=["derive-quiz-key"]))
            box += make_fold(summary, body)
        return [box]

    def module_of(self, name: str) -> str:
        from .. import registry
        from ..exceptions import UnknownDerivationError

        registry.load_catalog()
        try:
            return registry.entry(name).module
        except UnknownDerivationError:
            return "derive.registry"

    def choice(self, item: nodes.Element, letter: str, correct: bool) -> quiz_choice:
        node = quiz_choice(letter=letter, correct=correct)
        parts = list(item.children)
        first = parts[0] if parts else nodes.paragraph()
        # the choice's words stay a paragraph of the page's source until the Locale transform has translated
        # them (gettext catalogs of the site); ChoiceLetters then puts the letter in front
        button = quiz_button(first.rawsource if isinstance(first, nodes.paragraph) else "")
        button.source, button.line = first.source, first.line
        for child in list(first.children) if isinstance(first, nodes.paragraph) else [first]:
            button += child
        node += button
        if len(parts) > 1:
            why = nodes.container(classes=["derive-quiz-why"])
            for child in parts[1:]:
                why += child
            node += why
        return node


class ChoiceLetters(SphinxTransform):
    """After the Locale transform (the choices in the site's language): each choice starts with its letter
    (a lead ``(a)`` typed in the text, or in its translation, must match it), and the keyed choice's text
    holds every value of ``:value:``, so a translation cannot change the verified answer."""

    default_priority = 21  # Sphinx's Locale transform is 20

    def apply(self, **kwargs: Any) -> None:
        for box in self.document.findall(quiz_node):
            for item in box.findall(quiz_choice):
                for button in item.findall(quiz_button):
                    self.letter(button, item["letter"])
            keyed = [b for item in box.findall(quiz_choice) if item["correct"] for b in item.findall(quiz_button)]
            text = keyed[0].astext() if keyed else ""
            for name, shown in box.get("values", []):
                if not shown_in(shown, text):
                    where = " in its translation" if keyed and keyed[0].get("translated") else ""
                    self.warn(box, f"quiz: the key ({box['answer']}) disagrees with {name}: its value {shown} "
                                   f"is not in the text of choice ({box['answer']}){where}")

    def letter(self, button: quiz_button, letter: str) -> None:
        first = button.children[0] if button.children else None
        if isinstance(first, nodes.Text):
            lead = _LEAD.match(str(first))
            if lead:
                if lead.group(1) != letter:
                    self.warn(button, f"quiz: the item marked ({lead.group(1)}) is choice ({letter})")
                rest = str(first)[lead.end():]
                if rest:
                    button.replace(first, nodes.Text(rest))
                else:
                    button.remove(first)
        button.insert(0, nodes.Text(" "))
        button.insert(0, nodes.strong(f"({letter})", f"({letter})", classes=["derive-quiz-letter"]))

    @staticmethod
    def warn(node: nodes.Node, message: str) -> None:
        logger.warning("%s", message, location=node, type="derive", subtype="quiz")


class ValueRole(SphinxRole):
    """``{derive-value}`SPEC```: the computed value of a derivation at the given sizes."""

    def run(self) -> tuple[list[nodes.Node], list[nodes.system_message]]:
        try:
            spec = parse_spec(self.text)
            value = evaluate(spec, seed=self.config.derive_seed, budget=self.config.derive_step_budget)
        except QuizError as exc:
            logger.warning("derive-value: %s", exc, location=self.get_location(), type="derive", subtype="quiz")
            return [nodes.literal(self.text, self.text)], []
        text = format_value(value)
        return [nodes.inline(text, text, classes=["derive-value"])], []


def _unlinked(app: Any, env: Any, node: Any, contnode: nodes.Node) -> nodes.Node | None:
    """A quiz's link to a derivation shown on no numbered page stays plain text (no dangling warning)."""
    return contnode if node.get("derive_quiz") else None


def _copy_assets(app: Any, exc: Exception | None) -> None:
    if exc is None and app.builder.format == "html":
        from sphinx.util.fileutil import copy_asset_file

        for name in ASSETS:
            copy_asset_file(STATIC / name, Path(app.outdir) / "_static", force=True)


def setup(app: Any) -> None:
    """Register ``quiz``, ``derive-value``, the nodes and the script and stylesheet."""
    for node, visitors in NODES:
        app.add_node(node, **visitors)
    app.add_directive("quiz", QuizDirective)
    app.add_transform(ChoiceLetters)
    app.add_role("derive-value", ValueRole())
    app.add_js_file("derive-quiz.js", loading_method="defer")
    app.add_css_file("derive-quiz.css")
    app.connect("build-finished", _copy_assets)
    app.connect("missing-reference", _unlinked)
