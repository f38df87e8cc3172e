"""The pytest plugin: collection of derivations, the fixture and marker, helpers, options, cheap loading.

Runs pytest in fresh projects (pytester, in a subprocess: the plugin is the one
installed through the ``pytest11`` entry point, as a user gets it).
"""

from __future__ import annotations

import functools
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import sympy as sp

from derive import Derivation, Step
from derive.report import Verdict
from derive.settings import using
from derive.testing import DerivationAssertionError, assert_proved, assert_refuted, assert_undecided

WRONG = textwrap.dedent(
    """
    import sympy as sp
    from derive import Derivation, Step

    x, y = sp.symbols("x y", real=True)
    square = Derivation(
        name="mine.square",
        title="A wrong expansion",
        start=(x + y) ** 2,
        steps=(
            Step((x + y) * (x - y + 2 * y), "write the square as a product"),
            Step(x**2 + y**2, "expand the product (forgetting the cross term)"),
        ),
    )
    """
)
RIGHT = WRONG.replace("x**2 + y**2", "x**2 + 2*x*y + y**2").replace("mine.square", "mine.ok")

x, y = sp.symbols("x y", real=True)
t = sp.Symbol("t", positive=True)


def one(start, expr, name="mine.one", **kw):
    return Derivation(name=name, title="t", start=start, steps=(Step(expr, "claimed", **kw),))


def test_loading_the_plugin_imports_neither_sympy_nor_numpy(pytester):
    pytester.makepyfile(
        """
        import sys

        def test_cheap(pytestconfig):
            assert pytestconfig.pluginmanager.has_plugin("derive")
            assert "sympy" not in sys.modules
            assert "numpy" not in sys.modules
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["derive: seed 20170612, atol 1e-12, rtol 1e-09, budget 10 s"])


def _collected(result):
    return [line for line in result.stdout.lines if line.startswith("derive::")]


def test_derive_collects_only_the_users_derivations_by_default(pytester):
    pytester.makefile(".py", mine=RIGHT)
    pytester.makeini("[pytest]\nderive = true\nderive_modules =\n    mine.py\n")
    result = pytester.runpytest_subprocess("--co", "-q", "-p", "no:cacheprovider")
    assert _collected(result) == ["derive::mine.ok"]
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["derive: seed 20170612, *; collecting derivations",
                                 "derive: 1 derivation(s) checked, 1 proved, 0 failed (*)"])


def test_derive_without_modules_collects_nothing_and_says_why(pytester):
    result = pytester.runpytest_subprocess("--derive", "--co", "-p", "no:cacheprovider")
    assert "collected 0 items" in result.stdout.str()
    result.stdout.fnmatch_lines(["derive: *; collecting derivations (none listed in derive_modules; "
                                 "--derive-catalog for the catalog)"])


@pytest.mark.parametrize("how", ["ini", "flag"])
def test_derive_collects_the_catalog_on_request_with_ids_equal_to_names(pytester, how):
    pytester.makefile(".py", mine=RIGHT)
    ini = "derive_catalog = true\nderive = true\n" if how == "ini" else ""
    pytester.makeini(f"[pytest]\n{ini}derive_modules =\n    mine.py\n")
    result = pytester.runpytest_subprocess("--co", "-q", *([] if how == "ini" else ["--derive-catalog"]))
    # the catalog as the command lists it (in a subprocess: pytester restores sys.modules afterwards)
    listed = subprocess.run([sys.executable, "-m", "derive", "list", "--json"], capture_output=True, text=True,
                            check=True).stdout
    expected = sorted([row["name"] for row in json.loads(listed)] + ["mine.ok"])
    assert len(expected) > 60
    assert _collected(result) == [f"derive::{name}" for name in expected]


def test_fresh_project_passes_the_catalog_and_fails_a_wrong_derivation_readably(pytester):
    pytester.makefile(".py", wrong=WRONG)
    pytester.makeini("[pytest]\nderive_modules = wrong.py\n")
    result = pytester.runpytest_subprocess("--derive-catalog", "--derive-seed", "11", "-k",
                                           "softmax.shift-invariance or positional.rotation or mine")
    result.assert_outcomes(passed=2, failed=1)
    out = result.stdout.str()
    result.stdout.fnmatch_lines([
        "derive: seed 11, atol 1e-12, rtol 1e-09, budget 10 s; collecting derivations (with the catalog)",
        "*derivation not proved: mine.square: refuted at step 2 of 2",
        "  step 2 refuted: expand the product (forgetting the cross term)",
        "    previous: (x + y)**2",
        "    claimed:  = x**2 + y**2",
        "    strategy: tried *",
        "    counterexample: at x=*, y=*: previous = *, this step = * (gap *)",
        "    step seed: *",
        "  (base seed 11; rerun with the same seed to reproduce)",
        "derive: 3 derivation(s) checked, 2 proved, 1 failed (seed 11, *)",
        "FAILED derive::mine.square - *",
    ])
    assert "Traceback" not in out and "pytest_plugin.py" not in out and "testing.py" not in out


def test_fixture_and_marker_point_at_the_users_test(pytester):
    pytester.makefile(".py", notes=WRONG + "\n" + RIGHT.split("\n", 4)[4].replace("square", "ok_square"))
    pytester.makepyfile(
        test_notes="""
        import pytest
        from notes import ok_square, square

        def test_right(derive_check):
            report = derive_check(ok_square)
            assert report.ok and report.seed == 5

        @pytest.mark.derive_check(seed=9)
        def test_wrong(derive_check):
            derive_check(square)

        def test_catalog_by_name(derive_check):
            derive_check("softmax.shift-invariance")

        @pytest.mark.derive_check(seed=13)
        def test_helper_sees_marker_settings():
            from derive.testing import assert_proved
            assert assert_proved(ok_square, numeric=False).seed == 13
        """
    )
    result = pytester.runpytest_subprocess("--derive-seed", "5")
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines([
        "*def test_wrong(derive_check):",
        ">       derive_check(square)",
        "E       derive.testing.DerivationAssertionError: derivation not proved: mine.square: refuted at step 2 of 2",
        "E         step 2 refuted: expand the product (forgetting the cross term)",
        "*base seed 9*",
    ])
    assert "__tracebackhide__" not in result.stdout.str()
    assert "def assert_proved" not in result.stdout.str()  # the helper's frames are hidden


def test_helpers_are_registered_for_assertion_rewriting(pytester):
    pytester.makepyfile(
        """
        import sys
        import derive.testing

        def test_rewritten():
            loader = sys.modules["derive.testing"].__loader__
            assert type(loader).__name__ == "AssertionRewritingHook"
        """
    )
    pytester.runpytest_subprocess().assert_outcomes(passed=1)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--derive-seed=-1"], "ERROR: derive: seed must be a non-negative integer, got -1"),
        (["--derive-rtol", "nan"], "ERROR: derive: rtol must be a finite number >= 0, got nan"),
        (["--derive-atol=-1e-3"], "ERROR: derive: atol must be a finite number >= 0, got -0.001"),
        (["--derive-budget", "0"], "ERROR: derive: budget must be between 0 and 3600 seconds, got 0.0"),
    ],
)
def test_bad_options_are_usage_errors(pytester, args, message):
    result = pytester.runpytest_subprocess(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])
    assert "Traceback" not in result.stderr.str()


@pytest.mark.parametrize(
    "modules, message",
    [
        ("__import__('os').system('touch pwned')", "*is neither a .py file nor a module name*"),
        ("missing.py", "*missing.py: no such file*"),
        ("empty.py", "*empty.py: defines no derivation*"),
    ],
)
def test_bad_derive_modules_are_usage_errors_and_never_executed(pytester, modules, message):
    pytester.makefile(".py", empty="")
    pytester.makeini(f"[pytest]\nderive_modules = {modules}\n")
    result = pytester.runpytest_subprocess("--derive")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])
    assert not (pytester.path / "pwned").exists()


# -- the helpers, in process ------------------------------------------------------------------


def test_assert_proved_passes_and_fails_with_the_step():
    assert assert_proved(one((x + y) ** 2, x**2 + 2 * x * y + y**2)).ok
    with pytest.raises(DerivationAssertionError, match=r"(?s)refuted at step 1 of 1.*counterexample: at x=") as exc:
        assert_proved(one((x + y) ** 2, x**2 + y**2))
    assert exc.value.report.steps[0].verdict is Verdict.REFUTED


def test_assert_refuted_and_undecided():
    report = assert_refuted(one(sp.exp(2 * x), sp.exp(x) ** 3), step=1)
    assert report.steps[0].counterexample is not None
    with pytest.raises(DerivationAssertionError, match="to be refuted at any step, but: step 1 proved"):
        assert_refuted(one(sp.exp(2 * x), sp.exp(x) ** 2))
    assert_undecided(one(sp.atan(t) + sp.atan(1 / t), sp.pi / 2), budget=2)
    with pytest.raises(DerivationAssertionError, match=r"(?s)mine.one: undecided at step 1.*no counterexample"):
        assert_proved(one(sp.atan(t) + sp.atan(1 / t), sp.pi / 2), budget=2)


def test_tolerances_reach_the_screen_of_identity_checks_but_never_the_verdict():
    from derive.numeric import IdentityCheck

    check = IdentityCheck(t * (1 + sp.Rational(1, 10**7)), t)
    assert not check.run(1).passed  # off by 1e-7 relative: beyond the default rtol 1e-9
    with using(rtol=1e-6):
        loose = check.run(1)
    assert loose.passed and loose.figures["rtol"] == 1e-6
    assert not check.run(1).passed  # the setting did not leak out of the block
    # a step is judged at 60 digits whatever the screen's tolerance
    with using(rtol=1e-3):
        report = assert_refuted(one(t * (1 + sp.Rational(1, 10**7)), t))
    assert report.seed == 20170612


# -- the README's snippets, pasted as they are -----------------------------------------------------

README = Path(__file__).resolve().parents[1] / "README.md"


def _fenced(text: str, language: str, first_line: str) -> str:
    """The body of the README's first ``language`` code block whose first line starts with ``first_line``."""
    blocks = re.findall(rf"^```{language}\n(.*?)^```$", text, flags=re.M | re.S)
    found = [b for b in blocks if b.startswith(first_line)]
    assert found, f"README.md has no ```{language} block starting with {first_line!r}"
    return found[0]


def test_the_readme_pytest_ini_works_pasted_as_is(tmp_path):
    """The README's ``pytest.ini`` and ``my_derivation.py``, in a fresh project: pytest passes, and collects
    only the user's derivation (not derive's catalog)."""
    readme = README.read_text(encoding="utf-8")
    ini = _fenced(readme, "ini", "# pytest.ini")
    module = _fenced(readme, "python", "# my_derivation.py")
    assert "derive_modules = my_derivation.py" in ini
    (tmp_path / "pytest.ini").write_text(ini)
    (tmp_path / "my_derivation.py").write_text(module)
    env = {**os.environ, "PYTHONPATH": str(README.parent) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    run = functools.partial(subprocess.run, capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)
    listed = run([sys.executable, "-m", "pytest", "--co", "-q", "-p", "no:cacheprovider"])
    assert listed.returncode == 0, listed.stdout + listed.stderr
    assert [line for line in listed.stdout.splitlines() if line.startswith("derive::")] == [
        "derive::mine.square-of-sum"]
    proc = run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rA"])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "invalid truth value" not in proc.stderr
    assert "PASSED derive::mine.square-of-sum" in proc.stdout
    assert re.search(r"^=+ 1 passed in ", proc.stdout, flags=re.M), proc.stdout
    assert "derive: 1 derivation(s) checked, 1 proved, 0 failed" in proc.stdout


def test_the_readme_pyproject_form_works_too(tmp_path):
    readme = README.read_text(encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\nderive = true\nderive_modules = ["my_derivation.py"]\n')
    assert '`derive = true` and `derive_modules = ["my_derivation.py"]`' in " ".join(readme.split())
    (tmp_path / "my_derivation.py").write_text(_fenced(readme, "python", "# my_derivation.py"))
    env = {**os.environ, "PYTHONPATH": str(README.parent) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.run([sys.executable, "-m", "pytest", "--co", "-q", "-p", "no:cacheprovider"],
                          capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert [line for line in proc.stdout.splitlines() if line.startswith("derive::")] == [
        "derive::mine.square-of-sum"]
