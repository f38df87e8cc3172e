"""The verification cache never serves a stale verdict: the key covers the user code a derivation depends on.

Each scenario runs ``derive check --module my.py`` in fresh processes, as a user does, in a project of its
own (``tmp_path``) with a private cache directory; between runs a helper module is edited.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SERVED = "served from the cache"

HELPER_TRUE = """\
def expanded(x, y):
    return x**2 + 2 * x * y + y**2


def agrees(seed):
    return True, {"points": 3}, "the helper agrees"


def rewrite(expr):
    import sympy

    return sympy.expand(expr)
"""
HELPER_FALSE = HELPER_TRUE.replace("x**2 + 2 * x * y + y**2", "x**2 + y**2")

MY = """\
import sympy as sp
from derive import Derivation, Step

import helper

x, y = sp.symbols("x y", real=True)
square = Derivation(
    name="mine.square",
    title="Square of a sum",
    start=(x + y) ** 2,
    steps=(Step(helper.expanded(x, y), "multiply out"),),
)
"""


def check(project: Path, *args: str) -> tuple[int, str]:
    env = {**os.environ, "DERIVE_CACHE_DIR": str(project / "cache"),
           "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.run([sys.executable, "-m", "derive", "check", "--module", "my.py", *args], cwd=project,
                          env=env, capture_output=True, text=True, timeout=300)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, proc.stdout


def write(path: Path, text: str) -> None:
    """Write ``text`` and make sure the file's time stamp moves (some file systems keep whole seconds)."""
    before = path.stat().st_mtime_ns if path.exists() else 0
    path.write_text(textwrap.dedent(text))
    if path.stat().st_mtime_ns <= before:
        os.utime(path, ns=(before + 1_000_000_000, before + 1_000_000_000))


@pytest.fixture
def project(tmp_path):
    write(tmp_path / "helper.py", HELPER_TRUE)
    write(tmp_path / "my.py", MY)
    return tmp_path


def test_editing_an_imported_helper_so_the_step_is_false_is_refuted_not_served(project):
    code, out = check(project)
    assert code == 0 and "mine.square  proved" in out and SERVED not in out
    code, out = check(project)
    assert code == 0 and "(1 unchanged and passing before: served from the cache" in out  # cached
    write(project / "helper.py", HELPER_FALSE)
    code, out = check(project)
    assert code == 1 and SERVED not in out
    assert "step 1 refuted: multiply out" in out and "claimed:  = x**2 + y**2" in out
    # and the reverse: the helper fixed again is proved again (a refuted report is never stored)
    write(project / "helper.py", HELPER_TRUE)
    code, out = check(project)
    assert code == 0 and "mine.square  proved" in out


def test_a_helper_called_only_while_verifying_is_in_the_key(project):
    """The derivation's own objects are unchanged (a lambda calling the helper): only the helper's source
    tells the two runs apart. Before the fix the second run was served the stale pass."""
    write(project / "my.py", MY.replace("from derive import Derivation, Step",
                                        "from derive import Derivation, FunctionCheck, Step").replace(
        '    steps=(Step(helper.expanded(x, y), "multiply out"),),\n',
        '    steps=(Step(helper.expanded(x, y), "multiply out"),),\n'
        '    checks=(FunctionCheck("the helper", lambda seed: helper.agrees(seed)),),\n'))
    assert check(project)[0] == 0
    code, out = check(project)
    assert code == 0 and SERVED in out
    write(project / "helper.py", HELPER_TRUE.replace('return True, {"points": 3}, "the helper agrees"',
                                                     'return False, {"points": 3}, "the helper disagrees"'))
    code, out = check(project)
    assert code == 1 and SERVED not in out
    assert "cross-check failed: the helper: the helper disagrees" in out


def test_a_helper_of_a_helper_is_followed(project):
    write(project / "helper.py", "from inner import expanded  # noqa: F401\n")
    write(project / "inner.py", HELPER_TRUE)
    assert check(project)[0] == 0
    assert SERVED in check(project)[1]
    write(project / "inner.py", HELPER_FALSE)
    code, out = check(project)
    assert code == 1 and SERVED not in out and "step 1 refuted" in out


def test_a_comment_in_a_helper_invalidates_too(project):
    """Source hashes, not behaviour: any edit of the user's code re-verifies (sound, if cautious)."""
    assert check(project)[0] == 0
    write(project / "helper.py", HELPER_TRUE + "# a comment\n")
    code, out = check(project)
    assert code == 0 and SERVED not in out
    assert SERVED in check(project)[1]


def test_a_module_that_imports_dynamically_is_never_cached(project):
    write(project / "my.py", MY.replace("import helper\n", "import importlib\n\nhelper = importlib.import_module("
                                                          "'hel' + 'per')\n"))
    for _ in range(2):
        code, out = check(project)
        assert code == 0 and SERVED not in out
        assert "(1 verified without the cache, their code cannot be pinned down: mine.square: " in out
        assert "my.py loads code dynamically (import_module() at line 6)" in out


def test_the_derive_source_including_the_kernel_is_in_the_key(tmp_path):
    """A copy of the package: adding or editing a file under derive/kernel/ changes the engine hash."""
    import shutil

    copy = tmp_path / "pkg"
    shutil.copytree(ROOT / "derive", copy / "derive", ignore=shutil.ignore_patterns("__pycache__"))
    code = "from derive.cache import environment_fingerprint as e; print(e()['engine'])"

    def engine() -> str:
        return subprocess.run([sys.executable, "-c", code], cwd=copy, capture_output=True, text=True, check=True,
                              env={**os.environ, "PYTHONPATH": str(copy)}).stdout.strip()

    first = engine()
    assert len(first) == 16 and first == engine()
    kernel = copy / "derive" / "kernel"
    kernel.mkdir(exist_ok=True)
    target = kernel / "__init__.py"
    target.write_text((target.read_text() if target.exists() else "") + "\n# trusted code changed\n")
    assert engine() != first


def test_versions_and_settings_are_in_the_key():
    import mpmath
    import numpy
    import sympy

    import derive
    from derive.cache import environment_fingerprint

    env = environment_fingerprint()
    assert env["derive"] == derive.__version__ and env["sympy"] == sympy.__version__
    assert env["numpy"] == numpy.__version__ and env["mpmath"] == mpmath.__version__
    assert env["python"] == sys.version.split()[0] and env["format"] == "3"


# -- derive.dependencies in process ----------------------------------------------------------------


def test_user_files_are_those_outside_the_installation_and_derive(tmp_path):
    import json as stdlib_module

    import sympy

    import derive
    from derive.dependencies import is_user_file

    assert not is_user_file(sympy.__file__) and not is_user_file(stdlib_module.__file__)
    assert not is_user_file(derive.__file__)  # derive's own source is hashed as a whole (engine)
    assert is_user_file(tmp_path / "my.py") and is_user_file(__file__)


def test_user_sources_follow_imports_and_record_absent_ones(tmp_path, monkeypatch):
    from derive.dependencies import user_sources

    (tmp_path / "dep_root_mod.py").write_text(
        "import sympy\nfrom derive import Step\nimport dep_leaf_mod\n"
        "def f():\n    import dep_lazy_mod  # imported only when f runs: followed anyway\n"
        "try:\n    import dep_not_there_mod\nexcept ImportError:\n    pass\n")
    (tmp_path / "dep_leaf_mod.py").write_text("X = 1\n")
    (tmp_path / "dep_lazy_mod.py").write_text("Y = 2\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import dep_root_mod  # noqa: F401

    found = dict(user_sources({"dep_root_mod"}))
    assert sorted(found) == ["dep_lazy_mod", "dep_leaf_mod", "dep_not_there_mod", "dep_root_mod"]
    assert found["dep_not_there_mod"] == "<absent>"  # a module that appears later changes the key
    assert all(len(v) == 32 for k, v in found.items() if k != "dep_not_there_mod")


def test_a_loaded_user_file_changed_since_is_unknown(tmp_path, monkeypatch):
    from derive.dependencies import Unknown, user_sources

    (tmp_path / "dep_changing_mod.py").write_text("X = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import dep_changing_mod  # noqa: F401

    # a module loaded after derive was imported is judged by its modification time
    with pytest.raises(Unknown, match="dep_changing_mod.py changed after this process loaded it"):
        user_sources({"dep_changing_mod"}, loaded_since=0.0)
    assert user_sources({"dep_changing_mod"}, loaded_since=(tmp_path / "dep_changing_mod.py").stat().st_mtime)


def test_a_module_loaded_by_derive_is_compared_by_hash(tmp_path):
    """``registry.load_module`` records the hashes of what it loaded: a file written just before is fine,
    the same file edited afterwards is not trusted."""
    from derive import registry
    from derive.cache import STATS, derivation_key

    module = tmp_path / "fresh_mod.py"
    module.write_text("import sympy as sp\nfrom derive import Derivation, Step\nx = sp.Symbol('x')\n"
                      "d = Derivation(name='fresh.mod', title='t', start=x + x, steps=(Step(2 * x, 'collect'),))\n")
    saved = dict(registry._ENTRIES)
    try:
        (name,) = registry.load_module(module)
        d = registry.get(name)
        assert derivation_key(d, seed=1, budget=1.0) is not None
        module.write_text(module.read_text() + "# edited after loading\n")
        assert derivation_key(d, seed=1, budget=1.0) is None
        assert "fresh_mod.py changed after this process loaded it" in STATS.uncached_reasons["fresh.mod"]
    finally:
        registry._ENTRIES.clear()
        registry._ENTRIES.update(saved)


def test_a_derivation_defined_interactively_with_a_function_is_not_cached():
    """No source file for the function's module (as in a REPL): verified every time."""
    import types

    import sympy as sp

    from derive import Derivation, Step
    from derive.cache import derivation_key
    from derive.numeric import FunctionCheck

    scratch = types.ModuleType("scratch_session")
    exec("def ok(seed):\n    return True, {}, 'fine'\n", scratch.__dict__)  # noqa: S102 - the test's own text
    sys.modules["scratch_session"] = scratch
    try:
        x = sp.Symbol("x")
        d = Derivation(name="scratch.one", title="t", start=x, steps=(Step(x, "same"),),
                       checks=(FunctionCheck("ok", scratch.ok),))
        assert derivation_key(d, seed=1, budget=1.0) is None
        plain = Derivation(name="scratch.two", title="t", start=x, steps=(Step(x, "same"),))
        assert derivation_key(plain, seed=1, budget=1.0) is not None  # sympy objects only: fully hashed
    finally:
        del sys.modules["scratch_session"]


def test_a_package_of_the_users_with_relative_imports_is_followed(project):
    package = project / "mathlib"
    package.mkdir()
    write(package / "__init__.py", "")
    write(package / "algebra.py", "from .expansions import expanded  # noqa: F401\n")
    write(package / "expansions.py", HELPER_TRUE)
    write(project / "helper.py", "from mathlib.algebra import expanded  # noqa: F401\n")
    assert check(project)[0] == 0
    assert SERVED in check(project)[1]
    write(package / "expansions.py", HELPER_FALSE)  # two imports away, one of them relative
    code, out = check(project)
    assert code == 1 and SERVED not in out and "step 1 refuted" in out
