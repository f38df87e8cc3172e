"""Every code block of README.md and docs/*.md runs as written, through Sybil's Markdown parsers.

Each page is read as a reader would follow it, in one working directory (a temporary directory) per page:

* ``python`` blocks run in one namespace per page; a block whose first line names a file
  (``# my_derivation.py``, ``# conf.py``) is also saved under that name, as the page asks the reader to;
  a saved ``test_*.py`` file is run with pytest there and must pass;
* ``ini`` blocks are saved under the file their first line names (``pytest.ini``);
* ``bash`` blocks run with ``bash -e`` in the working directory, which holds what the reader has at that
  point: ``.venv`` (the environment running these tests, where derive is installed), the repository's
  ``tests/data`` and the files of earlier blocks. ``PATH`` does not include the environment, so a bare
  ``derive`` after a ``.venv/bin/...`` set-up fails here as it would for the reader.

Blocks that create an environment and install derive into it (``python3 -m venv .venv && .venv/bin/pip
install -e ...``) run only with ``DERIVE_DOCS_INSTALL=1``, in a copy of the checkout (they take minutes
and need the package index); blocks that need a tool this machine lacks (pdflatex, the ``slides`` extra)
are skipped with the reason.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from sybil.document import Document
from sybil.evaluators.python import PythonEvaluator
from sybil.parsers.markdown import CodeBlockParser

ROOT = Path(__file__).resolve().parent.parent
PAGES = ["README.md", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md"))]
#: environment variable that lets the set-up blocks create a venv and install derive (minutes, network)
INSTALL = "DERIVE_DOCS_INSTALL"
#: seconds a bash block may take (the whole-catalog exports are the slowest)
BASH_TIMEOUT = 900


def _named_file(source: str) -> str | None:
    """``my_derivation.py`` from a first line ``# my_derivation.py`` or ``# pytest.ini: ...``."""
    first = source.lstrip().split("\n", 1)[0]
    m = re.match(r"#\s*([\w.-]+\.(?:py|ini|toml|cfg))\b", first)
    return m.group(1) if m else None


class Page:
    """The working directory and namespace of one page, and the evaluators of its blocks."""

    def __init__(self, path: str, workdir: Path) -> None:
        self.path = path
        self.workdir = workdir
        self.python = PythonEvaluator()
        self.ran: list[str] = []
        self.skipped: list[str] = []
        (workdir / ".venv").symlink_to(Path(sys.prefix))
        (workdir / "tests").mkdir()
        (workdir / "tests" / "data").symlink_to(ROOT / "tests" / "data")
        if path == "docs/getting-started.md":
            # the page shows docs/examples/my_derivation.py (a literalinclude) and asks to save it so
            shutil.copy(ROOT / "docs" / "examples" / "my_derivation.py", workdir / "my_derivation.py")

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "VIRTUAL_ENV"))}
        bins = {str(Path(sys.prefix) / "bin"), str(Path(sys.executable).parent)}
        env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "/usr/bin:/bin").split(os.pathsep)
                                      if p not in bins)
        # the test run's verification cache (tests/conftest.py), where the catalog is already verified: the
        # whole-catalog commands (derive check, export --all, sphinx-build) read it instead of proving it again
        env["DERIVE_CACHE_DIR"] = os.environ["DERIVE_CACHE_DIR"]
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        return env

    def run_python(self, example: Any) -> str | None:
        source = example.parsed
        name = _named_file(source)
        if name:
            (self.workdir / name).write_text(source)
        self.ran.append(f"python {name or ''}:{example.line}")
        if name and name.startswith("test_"):
            return self._pytest(name)
        cwd = os.getcwd()
        sys.path.insert(0, str(self.workdir))
        os.chdir(self.workdir)
        try:
            return self.python(example)
        finally:
            os.chdir(cwd)
            sys.path.remove(str(self.workdir))
            for mod in [m for m, v in sys.modules.items()
                        if str(getattr(v, "__file__", "") or "").startswith(str(self.workdir))]:
                del sys.modules[mod]

    def _pytest(self, name: str) -> str | None:
        proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                               name], cwd=self.workdir, env=self.env(), capture_output=True, text=True,
                              timeout=BASH_TIMEOUT)
        if proc.returncode != 0:
            return f"pytest {name} exited {proc.returncode}:\n{proc.stdout[-3000:]}\n{proc.stderr[-2000:]}"
        return None

    def run_ini(self, example: Any) -> str | None:
        name = _named_file(example.parsed)
        if not name:
            return f"line {example.line}: an ini block must name its file on its first line (# pytest.ini)"
        (self.workdir / name).write_text(example.parsed)
        self.ran.append(f"ini {name}:{example.line}")
        return None

    def run_bash(self, example: Any) -> str | None:
        source = example.parsed
        self.ran.append(f"bash:{example.line}")
        if re.search(r"\bpip install\b", source):
            return self._install(source, example.line)
        if "pdflatex" in source and shutil.which("pdflatex") is None:
            return self.skip(example, "needs pdflatex")
        if re.search(r"--format (svg|png|mathml)", source) and not _importable("ziamath"):
            return self.skip(example, "needs the slides extra")
        proc = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", source], cwd=self.workdir, env=self.env(),
                              capture_output=True, text=True, timeout=BASH_TIMEOUT, stdin=subprocess.DEVNULL)
        if proc.returncode != 0:
            return (f"{self.path}:{example.line}: exited {proc.returncode}\n--- stdout\n{proc.stdout[-3000:]}"
                    f"\n--- stderr\n{proc.stderr[-3000:]}")
        return None

    def skip(self, example: Any, why: str) -> None:
        self.skipped.append(f"{self.path}:{example.line}: {why}")

    def _install(self, source: str, line: int) -> str | None:
        """A set-up block: a fresh venv in a copy of the checkout, the block as written."""
        if os.environ.get(INSTALL) != "1":
            self.skipped.append(f"{self.path}:{line}: installs derive into a new venv (run with {INSTALL}=1)")
            return None
        checkout = self.workdir / "checkout"
        if not checkout.exists():
            files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                                   check=True).stdout.split()
            for f in files:
                (checkout / f).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(ROOT / f, checkout / f)
        proc = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", source], cwd=checkout, env=self.env(),
                              capture_output=True, text=True, timeout=3600, stdin=subprocess.DEVNULL)
        if proc.returncode != 0:
            return f"{self.path}:{line}: exited {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
        return None


def _importable(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def parse(path: str, page: Page) -> Document:
    """The page as Sybil reads it: its python, bash and ini blocks, each with the page's evaluator."""
    parsers = [
        CodeBlockParser(language="python", evaluator=page.run_python),
        CodeBlockParser(language="bash", evaluator=page.run_bash),
        CodeBlockParser(language="ini", evaluator=page.run_ini),
    ]
    return Document.parse(str(ROOT / path), *parsers)


@pytest.mark.parametrize("path", PAGES)
def test_every_code_block_runs(path, tmp_path, verified_catalog):
    page = Page(path, tmp_path)
    document = parse(path, page)
    failures = []
    for example in document.examples():  # every block, so one run lists every broken one
        try:
            example.evaluate()
        except Exception as exc:  # noqa: BLE001 - a failing block is reported with the others
            failures.append(f"line {example.line}: {exc}")
    assert not failures, f"{path}: {len(failures)} code block(s) do not run as written:\n" + "\n".join(failures)
    languages = {r.split(":")[0].split()[0] for r in page.ran}
    if path == "README.md":
        # the README has python, ini and bash blocks: every kind ran
        assert languages == {"python", "ini", "bash"}, page.ran
    if page.skipped and len(page.skipped) == len(page.ran):
        pytest.skip("; ".join(page.skipped))
    for why in page.skipped:  # shown in the summary (-ra): what this run could not follow
        print("skipped block:", why)


def test_pages_have_blocks_the_test_sees():
    """Sybil finds the blocks this test is about (a changed fence syntax would silently run nothing)."""
    counts = {}
    for path in ("README.md", "docs/getting-started.md", "docs/api.md"):
        page = Page.__new__(Page)
        page.path, page.ran = path, []
        counts[path] = sum(1 for _ in parse(path, page).examples())
    assert counts["README.md"] >= 9
    assert counts["docs/getting-started.md"] >= 3
    assert counts["docs/api.md"] >= 1  # the worked example of derive.expectation
