"""The derive command: exit codes, tables, bad input (one line, no traceback)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from derive.cli import main

WRONG_MODULE = textwrap.dedent(
    """
    import sympy as sp
    from derive import Derivation, Step

    x, y = sp.symbols("x y", real=True)
    square = Derivation(
        name="mine.square",
        title="A wrong expansion",
        start=(x + y) ** 2,
        steps=(Step(x**2 + y**2, "expand the square (forgetting the cross term)"),),
    )
    """
)

RIGHT_MODULE = WRONG_MODULE.replace("x**2 + y**2", "x**2 + 2*x*y + y**2").replace("mine.square", "mine.ok")


def run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_check_all_passes(capsys, verified_catalog):
    code, out, _ = run(["check"], capsys)
    assert code == 0, out
    assert "softmax.shift-invariance" in out and "positional.rotation" in out
    assert "0 failed" in out


def test_check_json(capsys):
    code, out, _ = run(["check", "softmax.shift-invariance", "--json"], capsys)
    data = json.loads(out)
    assert code == 0 and data["ok"] is True
    (rep,) = data["reports"]
    assert rep["name"] == "softmax.shift-invariance"
    assert all(s["verdict"] == "proved" for s in rep["steps"])
    random_checks = [c for c in rep["checks"] if "rounded" not in c["figures"]]
    assert random_checks and all("seed" in c["figures"] for c in random_checks)
    exact = [c for c in rep["checks"] if "rounded" in c["figures"]]
    assert [c["figures"]["rounded"] for c in exact] == ["0.0900", "0.2447", "0.6652", "709.78"]


def test_check_wrong_user_module_exits_1_with_counterexample(tmp_path, capsys):
    f = tmp_path / "my_wrong.py"
    f.write_text(WRONG_MODULE)
    code, out, _ = run(["check", "--module", str(f)], capsys)
    assert code == 1
    assert "mine.square" in out
    assert "step 1 refuted" in out
    assert "counterexample: at x=" in out
    assert "positional.rotation" not in out  # only the user's derivations


def test_check_right_user_module(tmp_path, capsys):
    f = tmp_path / "mine.py"
    f.write_text(RIGHT_MODULE)
    code, out, _ = run(["check", "--module", str(f)], capsys)
    assert code == 0, out


def test_unknown_name_suggests(capsys):
    code, out, err = run(["check", "softmax.shift-invariant"], capsys)
    assert code == 2 and out == ""
    assert err.startswith("derive: error: unknown derivation 'softmax.shift-invariant'; "
                          "did you mean 'softmax.shift-invariance'")
    assert err.count("\n") == 1


@pytest.mark.parametrize(
    "content, expected",
    [
        ("raise RuntimeError('boom')", r"failed to import: RuntimeError: boom"),
        ("def broken(:\n", r"failed to import: SyntaxError"),
    ],
)
def test_user_module_that_fails_to_import(tmp_path, capsys, content, expected):
    f = tmp_path / "bad.py"
    f.write_text(content)
    code, out, err = run(["check", "--module", str(f)], capsys)
    assert code == 2
    assert err.count("\n") == 1 and "Traceback" not in err
    assert str(f) in err and expected.split(":")[0] in err


@pytest.mark.parametrize(
    "spec, expected",
    [("/nonexistent/x.py", "no such file"), (".", "is a directory"), ("no_such_module_xyz", "failed to import")],
)
def test_bad_module_specs(spec, expected, capsys):
    code, _, err = run(["check", "--module", spec], capsys)
    assert code == 2 and expected in err and "Traceback" not in err


def test_usage_error_exit_2(capsys):
    code = None
    with pytest.raises(SystemExit) as exc:
        main(["check", "--budget"])
    code = exc.value.code
    _, err = capsys.readouterr()
    assert code == 2 and "error" in err


def test_list_and_show(capsys):
    code, out, _ = run(["list"], capsys)
    assert code == 0 and "softmax.shift-invariance" in out
    code, out, _ = run(["list", "--json"], capsys)
    names = [row["name"] for row in json.loads(out)]
    assert names == sorted(names) and "positional.rotation" in names
    code, out, _ = run(["show", "softmax.shift-invariance"], capsys)
    assert code == 0 and "Steps:" in out and "factors out of the sum" in out
    code, out, _ = run(["show", "positional.rotation", "--format", "latex"], capsys)
    assert out.startswith("\\begin{align*}") and "&=" in out


def test_help_does_not_import_sympy():
    code = ("import sys; from derive.cli import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "assert 'sympy' not in sys.modules, 'sympy imported'\n"
            "assert 'numpy' not in sys.modules, 'numpy imported'")
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)


def test_console_script_runs():
    proc = subprocess.run([sys.executable, "-m", "derive", "check", "nosuchname"], capture_output=True, text=True)
    assert proc.returncode == 2 and "unknown derivation 'nosuchname'" in proc.stderr


def _derive_exe():
    from pathlib import Path

    exe = Path(sys.executable).with_name("derive")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "derive"]


def test_module_name_is_found_in_the_current_directory(tmp_path):
    # a console script does not put the current directory on sys.path; --module NAME must still work
    (tmp_path / "my_derivation.py").write_text(RIGHT_MODULE)
    proc = subprocess.run([*_derive_exe(), "check", "--module", "my_derivation"], cwd=tmp_path,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "mine.ok" in proc.stdout


def test_name_clash_between_user_files_names_the_files(tmp_path):
    a, b = tmp_path / "first.py", tmp_path / "second.py"
    a.write_text(RIGHT_MODULE)
    b.write_text(RIGHT_MODULE)
    proc = subprocess.run([*_derive_exe(), "check", "--module", str(a), "--module", str(b)],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert str(a) in proc.stderr and "derive_user_" not in proc.stderr
