"""Hardened inputs: every command and public function that takes user input.

Bad input gets one line on stderr, exit status 2, no traceback, and nothing
half-written; text from files or the command line is data, never code.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from derive.cli import main

PACKAGE = Path(__file__).resolve().parents[1] / "derive"


@pytest.fixture(autouse=True)
def _registry_restored():
    """User modules loaded here (on purpose: clashing, failing, half-written) leave the registry as it was."""
    from derive import registry

    registry.load_catalog()
    saved = dict(registry._ENTRIES)
    yield
    registry._ENTRIES.clear()
    registry._ENTRIES.update(saved)


def run(argv, capsys):
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse usage errors
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(code, err, *fragments):
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith(("derive: error: ", "derive ")), err
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in err, err


@pytest.fixture
def files(tmp_path):
    (tmp_path / "binary.py").write_bytes(b"\x00\x01\x02\xff\xfe")
    (tmp_path / "latin1.py").write_bytes(b'x = "caf\xe9"\n')
    (tmp_path / "empty.py").write_text("")
    (tmp_path / "nothing.py").write_text("x = 1\n")
    (tmp_path / "adir.py").mkdir()
    (tmp_path / "data.txt").write_text("hello\n")
    (tmp_path / "clash.py").write_text(
        "import sympy as sp\nfrom derive import Derivation, Step\nx = sp.Symbol('x')\n"
        "d = Derivation(name='softmax.shift-invariance', title='t', start=x, steps=(Step(x, 'same'),))\n")
    (tmp_path / "untitled.py").write_text(
        "import sympy as sp\nfrom derive import Derivation, Step\nx = sp.Symbol('x')\n"
        "d = Derivation(name='mine.untitled', title=None, start=x, steps=(Step(x, 'same'),))\n")
    # one name, two derivations (the true one first): neither may silently win
    (tmp_path / "dup.py").write_text(
        "import sympy as sp\nfrom derive import Derivation, Step\nx = sp.Symbol('x')\n"
        "good = Derivation(name='mine.twice', title='t', start=x + x, steps=(Step(2 * x, 'add'),))\n"
        "bad = Derivation(name='mine.twice', title='t', start=x + x, steps=(Step(3 * x, 'wrong'),))\n")
    (tmp_path / "dupreg.py").write_text(
        "import sympy as sp\nfrom derive import Derivation, Step, register\nx = sp.Symbol('x')\n"
        "@register('mine.twice-registered', title='t')\ndef good():\n"
        "    return Derivation(name='mine.twice-registered', title='t', start=x + x, steps=(Step(2 * x, 'add'),))\n"
        "@register('mine.twice-registered', title='t')\ndef bad():\n"
        "    return Derivation(name='mine.twice-registered', title='t', start=x + x, steps=(Step(3 * x, 'no'),))\n")
    (tmp_path / "syntax.py").write_text("def f(:\n    pass\n")
    (tmp_path / "raises.py").write_text("raise ValueError('first line\\nsecond line')\n")
    (tmp_path / "exits.py").write_text("import sys\nsys.exit(3)\n")
    (tmp_path / "deep.py").write_text("x = " + "+".join(["1"] * 300_000) + "\n")  # the compiler's recursion limit
    (tmp_path / "huge.py").write_bytes(b"x = 1\n" * 400_000)  # 2.4 MB: refused before compiling
    os.mkfifo(tmp_path / "fifo.py")  # reading it would block for ever
    (tmp_path / "zero.py").symlink_to("/dev/zero")  # reading it would never end
    return tmp_path


MODULE_CASES = [
    ("missing.py", "no such file"),
    ("binary.py", "null bytes"),
    ("latin1.py", "failed to import: SyntaxError"),
    ("empty.py", "defines no derivation"),
    ("nothing.py", "defines no derivation"),
    ("adir.py", "is a directory"),
    ("data.txt", "not a .py file"),
    ("clash.py", "defines 'softmax.shift-invariance', a name already registered by derive.transformer.softmax"),
    ("", "expected a .py file or a module name"),
    (".relative", "neither a .py file nor a module name"),
    ("os", "defines no derivation"),
    ("no_such_module_xyz", "failed to import: ModuleNotFoundError"),
    ("dup.py", "dup.py: defines two derivations named 'mine.twice'"),
    ("dupreg.py", "dupreg.py: derivation 'mine.twice-registered' is registered twice in the module"),
    ("syntax.py", "syntax.py: failed to import: SyntaxError: invalid syntax (syntax.py, line 1)"),
    ("untitled.py", "untitled.py: mine.untitled: title must be non-empty text, got NoneType"),
    ("raises.py", "raises.py: failed to import: ValueError: first line second line"),  # one line
    ("exits.py", "exits.py: failed to import: it called sys.exit(3)"),
    ("deep.py", "deep.py: failed to import: RecursionError"),
    ("huge.py", "huge.py: 2,400,000 bytes, larger than 2,000,000; too large for a module of derivations"),
    ("fifo.py", "fifo.py: not a regular file (a device, pipe or socket)"),
    ("zero.py", "zero.py: not a regular file (a device, pipe or socket)"),
]


@pytest.mark.parametrize("command", [["list"], ["show", "softmax.max-trick"], ["check", "softmax.max-trick"],
                                     ["export", "softmax.max-trick", "-f", "latex"]],
                         ids=["list", "show", "check", "export"])
@pytest.mark.parametrize("spec, message", MODULE_CASES, ids=[c[0] or "empty-text" for c in MODULE_CASES])
def test_bad_module_for_every_command(command, spec, message, files, capsys, monkeypatch):
    monkeypatch.chdir(files)
    code, out, err = run([*command, "--module", spec], capsys)
    assert_one_line_error(code, err, message)
    assert out == ""


@pytest.mark.parametrize(
    "name, command, body, message",
    [
        ("mine.raises-check", ["check"], "1 / 0", "mine.raises-check: building it failed: ZeroDivisionError"),
        ("mine.raises-show", ["show", "mine.raises-show"], "1 / 0", "mine.raises-show: building it failed"),
        ("mine.none", ["check"], "None", "builder for 'mine.none' returned NoneType, not a Derivation"),
        ("mine.summary", ["show", "mine.summary"],
         "Derivation(name='mine.summary', title='t', summary=3, start=S(1), steps=(Step(S(1), 'same'),))",
         "mine.summary: summary must be text, got int"),
    ],
    ids=["check-raises", "show-raises", "returns-none", "summary-not-text"],
)
def test_a_builder_that_fails_is_one_line(name, command, body, message, tmp_path, capsys):
    module = tmp_path / "builder.py"
    module.write_text("from sympy import S\nfrom derive import Derivation, Step, register\n"
                      f"@register({name!r}, title='t')\ndef b():\n    return {body}\n")
    code, out, err = run([*command, "--module", str(module)], capsys)
    assert_one_line_error(code, err, message)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["show", "softmax.shift-invariant"], "did you mean 'softmax.shift-invariance'"),
        (["show", ""], "unknown derivation ''"),
        (["check", "softmax.max-trick", "nope.nope"], "unknown derivation 'nope.nope'"),
        (["check", "--seed", "-1", "softmax.max-trick"], "seed must be a non-negative integer, got -1"),
        (["check", "--seed=-1"], "seed must be a non-negative integer, got -1"),
        (["check", "--seed=-1", "--no-cache", "softmax.max-trick"], "seed must be a non-negative integer"),
        (["check", "--seed", "0x10"], "invalid int value: '0x10'"),
        (["check", "--seed", "1e3"], "invalid int value: '1e3'"),
        (["check", "--seed", "9" * 5000], "invalid int value"),
        (["check", "--seed", "1.5"], "invalid int value"),
        (["check", "--seed", "ten"], "invalid int value"),
        (["check", "--budget", "0"], "--budget must be between 0 and 3600"),
        (["check", "--budget", "-2"], "--budget must be between 0 and 3600"),
        (["check", "--budget", "nan"], "--budget must be between 0 and 3600"),
        (["check", "--budget", "inf"], "--budget must be between 0 and 3600"),
        (["check", "--budget", "1e18"], "--budget must be between 0 and 3600"),
        (["check", "--rtol", "nan", "softmax.max-trick"], "rtol must be a finite number >= 0, got nan"),
        (["check", "--atol=-1", "softmax.max-trick"], "atol must be a finite number >= 0, got -1.0"),
        (["check", "--atol", "x"], "invalid float value"),
        (["show", "softmax.max-trick", "--format", "pdf"], "invalid choice: 'pdf'"),
        (["list", "--no-such-option"], "unrecognized arguments"),
        (["nosuchcommand"], "invalid choice"),
    ],
)
def test_bad_arguments(argv, message, capsys):
    code, out, err = run(argv, capsys)
    assert code == 2 and message in err and "Traceback" not in err, err
    assert out == ""


def test_huge_seed_is_exact_and_reported(capsys):
    import json

    seed = 10**18
    code, out, _ = run(["check", "--json", "--seed", str(seed), "softmax.max-trick"], capsys)
    data = json.loads(out)
    assert code == 0 and data["seed"] == seed and data["reports"][0]["seed"] == seed


@pytest.mark.parametrize("argv", [["list"], ["show", "softmax.max-trick"], ["check", "--json", "softmax.max-trick"]],
                         ids=["list", "show", "check"])
def test_write_failure_is_one_line_exit_2(argv):
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "derive", *argv], stdout=full, stderr=subprocess.PIPE, text=True)
    assert proc.returncode == 2
    assert proc.stderr == "derive: error: cannot write output: No space left on device\n"


# -- code injection: text is data -------------------------------------------------------------------

PAYLOAD = "__import__('os').system('touch {canary}')"


@pytest.mark.parametrize(
    "argv",
    [
        ["check", "{payload}"],
        ["show", "{payload}"],
        ["list", "--module", "{payload}"],
        ["check", "--seed", "{payload}"],
        ["check", "--budget", "{payload}"],
        ["show", "softmax.max-trick", "--format", "{payload}"],
        ["export", "{payload}", "-f", "latex"],
        ["export", "softmax.max-trick", "-f", "{payload}"],
        ["export", "softmax.max-trick", "-f", "latex", "-o", "{payload}"],
        ["export", "softmax.max-trick", "-f", "latex", "--params", "{payload}"],
        ["params", "--preset", "{payload}"],
        ["params", "--config", "{payload}"],
    ],
    ids=["check-name", "show-name", "module", "seed", "budget", "format", "export-name", "export-format",
         "export-output", "export-params", "params-preset", "params-config"],
)
def test_command_line_payload_is_rejected_as_data(argv, tmp_path, capsys):
    canary = tmp_path / "pwned"
    payload = PAYLOAD.format(canary=canary)
    code, _, err = run([a.replace("{payload}", payload) for a in argv], capsys)
    assert code == 2 and "Traceback" not in err
    assert not canary.exists()


def test_payload_in_public_functions_is_rejected_as_data(tmp_path):
    import sympy as sp

    from derive import Derivation, Step, registry
    from derive.exceptions import DeriveError
    from derive.numeric import ValueCheck, round_like
    from derive.settings import Settings

    canary = tmp_path / "pwned"
    payload = PAYLOAD.format(canary=canary)
    x = sp.Symbol("x")
    attempts = [
        lambda: Step(payload, "why"),
        lambda: Derivation(name="a.b", title="t", start=payload, steps=(Step(x, "why"),)),
        lambda: registry.get(payload),
        lambda: registry.load_module(payload),
        lambda: round_like(payload, "0.5"),
        lambda: round_like(sp.Rational(1, 2), payload),
        lambda: Settings(seed=payload),
        lambda: Settings(rtol=payload),
        lambda: ValueCheck("v", sp.Rational(1, 2), payload).run(0),
    ]
    for attempt in attempts:
        with pytest.raises(DeriveError):
            attempt()
    # inside a derivation, the check with the bad figure is a failed check
    from derive import check

    d = Derivation(name="a.b", title="t", start=x, steps=(Step(x, "same"),), auto_identity_check=False,
                   checks=(ValueCheck("v", sp.Rational(1, 2), payload),))
    report = check(d)
    assert not report.ok and "InputError" in report.checks[0].message
    assert not canary.exists()


def test_public_functions_reject_wrong_types():
    import sympy as sp

    from derive import Derivation, Step, check, registry
    from derive.exceptions import DeriveError
    from derive.testing import assert_proved

    x = sp.Symbol("x")
    for bad in ([x, 1], {"x": 1}, None, True):
        with pytest.raises(DeriveError, match="must be a sympy expression"):
            Step(bad, "why")
        with pytest.raises(DeriveError, match="must be a sympy expression"):
            Derivation(name="a.b", title="t", start=bad, steps=(Step(x, "why"),))
    for bad in ("softmax.max-trick", None, 3):
        with pytest.raises(DeriveError, match="expected a Derivation"):
            check(bad)

    for bad in (None, 3, b"softmax.max-trick"):
        with pytest.raises(DeriveError):
            registry.get(bad)
        with pytest.raises(DeriveError):
            assert_proved(bad)


# -- the package never evaluates text -----------------------------------------------------------------

#: calls that evaluate or parse code/expressions from text
DANGEROUS = {"eval", "exec", "compile", "sympify", "parse_expr", "parse_latex", "nsimplify", "S", "__import__",
             "lambdastr"}

#: (file, enclosing function, call) -> why it is safe. Keep in sync: stale entries fail the test too.
#: (``sympify(..., strict=True)`` needs no entry: it converts numbers and sympy objects and raises on text.)
ALLOWED = {
    ("derive/transformer/parameters.py", "_at", "sympify"):
        "expr is a count built in code (sympy expression or int) by the params.* builders, never text",
}


def _dangerous_calls(path: Path, root: Path = PACKAGE.parent) -> list[tuple[str, str, str, int]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []

    def visit(node: ast.AST, func: str) -> None:
        for child in ast.iter_child_nodes(node):
            name = func
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = child.name
            if isinstance(child, ast.Call):
                callee = child.func
                called = callee.id if isinstance(callee, ast.Name) else (
                    callee.attr if isinstance(callee, ast.Attribute) else "")
                is_regex = (isinstance(callee, ast.Attribute) and isinstance(callee.value, ast.Name)
                            and callee.value.id == "re")
                strict = called == "sympify" and any(
                    kw.arg == "strict" and isinstance(kw.value, ast.Constant) and kw.value.value is True
                    for kw in child.keywords)
                if called in DANGEROUS and not is_regex and not strict:
                    rel = path.relative_to(root).as_posix()
                    found.append((rel, name, called, child.lineno))
            visit(child, name)

    visit(tree, "<module>")
    return found


def test_no_eval_exec_sympify_or_parse_of_text_anywhere_in_the_package():
    calls = [c for path in sorted(PACKAGE.rglob("*.py")) for c in _dangerous_calls(path)]
    unexplained = [c for c in calls if c[:3] not in ALLOWED]
    assert not unexplained, "calls that could evaluate text (justify them in ALLOWED or remove them): " + ", ".join(
        f"{f}:{line} {call}() in {func}" for f, func, call, line in unexplained)
    present = {key for key in ALLOWED if (PACKAGE.parent / key[0]).exists()}  # modules may land later
    stale = present - {c[:3] for c in calls}
    assert not stale, f"ALLOWED entries with no such call any more: {stale}"


def test_the_scanner_finds_what_it_should(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("import re, sympy\ndef f(t):\n    re.compile(t)\n    sympy.sympify(t, strict=True)\n"
                     "    return sympy.sympify(t) + eval(t)\n"
                     "S = sympy.S\nS('x')\n")
    calls = [(func, call) for _, func, call, _ in _dangerous_calls(probe, tmp_path)]
    assert calls == [("f", "sympify"), ("f", "eval"), ("<module>", "S")]


# -- derive params (the parameter counter) ---------------------------------------------------------

LLAMA = ('{"model_type": "llama", "hidden_size": %s, "num_attention_heads": 32, "num_hidden_layers": %s, '
         '"intermediate_size": 11008, "vocab_size": 32000}')
CONFIGS = {
    "truncated.json": ('{"model_type": "gpt2", "n_embd":', "malformed JSON"),
    "binary.json": (b"\x00\xff\x00\xfe", "cannot read"),
    "empty.json": ("", "malformed JSON"),
    "array.json": ("[]", "must hold a JSON object"),
    "nan.json": (LLAMA % ("NaN", 2), "malformed JSON"),
    "float.json": (LLAMA % ("4096.5", 2), "hidden_size must be a positive integer"),
    "bool.json": (LLAMA % ("true", 2), "hidden_size must be a positive integer"),
    "huge-float.json": (LLAMA % ("1e400", 2), "hidden_size must be a positive integer"),
    "negative.json": (LLAMA % ("-4096", 2), "hidden_size must be a positive integer"),
    "zero-layers.json": (LLAMA % ("4096", 0), "num_hidden_layers must be a positive integer"),
    "payload.json": (LLAMA % ('"__import__(\'os\').system(\'touch pwned\')"', 2), "must be a positive integer"),
    "nested.json": ("[" * 100_000 + "]" * 100_000, "malformed JSON: nested too deeply"),  # 200 kB
    "nested-value.json": (LLAMA % ("[" * 5000 + "]" * 5000, 2), "malformed JSON: nested too deeply"),
    "shallow-value.json": (LLAMA % ("[" * 500 + "]" * 500, 2), "hidden_size must be a positive integer, got [[[["),
    "huge-int.json": (LLAMA % ("9" * 5000, 2), "malformed JSON: a number of more than 4300 digits"),
    "4000-digits.json": (LLAMA % ("9" * 4000, 2), "hidden_size must be below 10^100, got about 10^3999"),
    "101-digits.json": (LLAMA % ("1" + "0" * 100, 2), "hidden_size must be below 10^100, got about 10^100"),
    "huge-layers.json": (LLAMA % ("4096", "1e30"), "num_hidden_layers must be a positive integer"),
    "big.json": ('{"model_type": "llama", "pad": "' + "x" * 1_000_001 + '"}', "larger than 1,000,000 bytes"),
}


@pytest.mark.parametrize("name", [*CONFIGS, "missing.json", "adir.json"])
def test_params_bad_config(name, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    content, message = CONFIGS.get(name, (None, "no such file" if name == "missing.json" else "is a directory"))
    if isinstance(content, bytes):
        (tmp_path / name).write_bytes(content)
    elif content is not None:
        (tmp_path / name).write_text(content)
    elif name == "adir.json":
        (tmp_path / name).mkdir()
    code, out, err = run(["params", "--config", name], capsys)
    if name == "nested-value.json" and "nested too deeply" not in err:
        # with the room for deep expressions (derive.recursion) the value parses, and is refused as a value
        message = "hidden_size must be a positive integer"
    assert_one_line_error(code, err, f"{name}: ", message)
    assert out == "" and not (tmp_path / "pwned").exists()


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_params_config_that_is_not_a_file_is_refused_without_reading(kind, tmp_path, capsys):
    path = tmp_path / "config.json"
    if kind == "fifo":
        os.mkfifo(path)  # opening it for reading would block until a writer comes
    else:
        path.symlink_to("/dev/zero")  # reading it would never end
    code, out, err = run(["params", "--config", str(path)], capsys)
    assert_one_line_error(code, err, f"{path}: not a regular file (a device, pipe or socket)")
    assert out == ""


def test_deeply_nested_config_in_a_fresh_process_is_one_line():
    """The 200 kB ``[[[...]]]`` of issue 11, through the installed command (no traceback, exit 2)."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "config.json"
        config.write_text("[" * 100_000 + "]" * 100_000)
        proc = subprocess.run([sys.executable, "-m", "derive", "params", "--config", str(config)],
                              capture_output=True, text=True, timeout=60)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == f"derive: error: {config}: malformed JSON: nested too deeply for a config.json\n"


SIZES = ["--d-model", "512", "--n-heads", "8", "--d-ff", "2048"]


@pytest.mark.parametrize(
    "argv, message",
    [
        ([*SIZES, "--n-layers", "0"], "must be a positive integer, got '0'"),
        ([*SIZES, "--n-layers", "-3"], "must be a positive integer"),
        ([*SIZES, "--n-layers", "1.5"], "must be a positive integer, got '1.5'"),
        ([*SIZES, "--n-layers", "1e3"], "must be a positive integer, got '1e3'"),
        ([*SIZES, "--n-layers", "1e30"], "must be a positive integer, got '1e30'"),
        ([*SIZES, "--n-layers", "-1"], "must be a positive integer, got '-1'"),
        ([*SIZES, "--n-layers", "inf"], "must be a positive integer, got 'inf'"),
        (["--d-model", "0", "--n-heads", "8", "--d-ff", "2048", "--n-layers", "2"], "must be a positive integer"),
        ([*SIZES, "--n-layers", "2", "--vocab-size", "0"], "must be a positive integer, got '0'"),
        ([*SIZES, "--n-layers", "2", "--n-kv-heads", "3"], "n_kv_heads = 3 does not divide n_heads = 8"),
        ([*SIZES, "--n-layers", "9" * 200], "argument --n-layers: must be below 10^100, got a number of 200 digits"),
        ([*SIZES, "--n-layers", PAYLOAD.format(canary="pwned")], "must be a positive integer"),
        (["--d-model", "7", "--n-heads", "2", "--d-ff", "8", "--n-layers", "1"], "does not divide"),
        (["--n-layers", "2"], "give --d-model"),
        (["--preset", "nope"], "unknown preset 'nope'"),
        (["--preset", PAYLOAD.format(canary="pwned")], "unknown preset"),
    ],
)
def test_params_bad_sizes(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(["params", *argv], capsys)
    assert code == 2 and message in err and "Traceback" not in err, err
    assert err.count("\n") == 1 and out == "" and not (tmp_path / "pwned").exists()


def test_params_largest_sizes_are_exact_and_printable(capsys):
    import json

    big = "9" * 100  # the largest size accepted: 10^100 - 1
    code, out, err = run(["params", "--d-model", big, "--n-heads", "1", "--d-ff", big, "--n-layers", big,
                          "--vocab-size", big, "--json"], capsys)
    assert code == 0, err
    total = json.loads(out)["total"]
    assert type(total) is int and 10**299 < total < 10**302


def test_params_10_to_the_18_layers_is_exact(capsys):
    import json

    totals = {}
    for layers in (1, 2, 10**18):
        code, out, _ = run(["params", *SIZES, "--n-layers", str(layers), "--vocab-size", "32000", "--json"], capsys)
        assert code == 0
        totals[layers] = json.loads(out)["total"]
        assert type(totals[layers]) is int  # JSON integer, never a float
    per_layer = totals[2] - totals[1]
    assert per_layer == 4 * 512**2 + (2 * 2048 * 512 + 2048 + 512) + 4 * 512 == 3_150_336  # attention, FFN, norms
    assert totals[10**18] == totals[1] + (10**18 - 1) * per_layer


def test_params_write_failure_is_one_line_exit_2():
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "derive", "params", "--preset", "gpt2", "--json"],
                              stdout=full, stderr=subprocess.PIPE, text=True)
    assert proc.returncode == 2 and proc.stderr == "derive: error: cannot write output: No space left on device\n"


def test_load_module_accepts_a_path_and_loads_all_or_nothing(tmp_path):
    from derive import registry
    from derive.exceptions import ModuleLoadError

    good = tmp_path / "good_mod.py"
    good.write_text("import sympy as sp\nfrom derive import Derivation, Step\nx = sp.Symbol('x')\n"
                    "d = Derivation(name='pathmod.ok', title='t', start=x, steps=(Step(x, 'same'),))\n")
    assert registry.load_module(good) == ["pathmod.ok"]
    half = tmp_path / "half_mod.py"  # registers one derivation, then fails
    half.write_text("import sympy as sp\nfrom derive import Derivation, Step, register\nx = sp.Symbol('x')\n"
                    "@register('pathmod.half', title='t')\ndef b():\n    return None\n"
                    "raise RuntimeError('late failure')\n")
    before = registry.names()
    with pytest.raises(ModuleLoadError, match="late failure"):
        registry.load_module(half)
    assert registry.names() == before  # nothing half-registered


# -- derive export (slides and documents) ----------------------------------------------------------

EXPORT = ["export", "softmax.max-trick"]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["export", "nope.nope", "-f", "latex"], "unknown derivation 'nope.nope'"),
        (["export", "-f", "latex"], "name at least one derivation"),
        ([*EXPORT, "-f", "docx"], "invalid choice: 'docx'"),
        ([*EXPORT], "the following arguments are required: --format/-f"),
        ([*EXPORT, "-f", "png"], "needs -o"),
        ([*EXPORT, "-f", "latex", "--step", "0"], "has steps 1..3, not 0"),
        ([*EXPORT, "-f", "latex", "--step", "99"], "has steps 1..3, not 99"),
        ([*EXPORT, "-f", "latex", "--step", "x"], "invalid int value: 'x'"),
        ([*EXPORT, "-f", "latex", "--params", "nope"], "unknown preset 'nope'"),
        (["export", "--all", "softmax.max-trick", "-f", "latex"],
         "give derivation names, --all or --chapter, one of them"),
        ([*EXPORT, "-f", "latex", "--module", "missing.py"], "missing.py: no such file"),
        ([*EXPORT, "-f", "latex", "-o", "missing-dir/x.tex"], "missing-dir does not exist"),
        ([*EXPORT, "-f", "latex", "-o", ""], "-o/--output is empty"),
        ([*EXPORT, "-f", "png", "-o", "newdir/"], "newdir/: no such directory"),  # never a file named newdir
        ([*EXPORT, "-f", "latex", "-o", "a" * 300 + ".tex"], "File name too long"),
        ([*EXPORT, "-f", "latex", "-o", "/proc/derive-test.tex"], "/proc/derive-test.tex: cannot write"),
        ([*EXPORT, "-f", "latex", "-o", "/dev/null", "--force"], "/dev/null: not a regular file"),
        (["export", PAYLOAD.format(canary="pwned"), "-f", "latex"], "unknown derivation"),
    ],
)
def test_export_bad_input(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(argv, capsys)
    assert code == 2 and message in err and "Traceback" not in err, err
    assert err.count("\n") == 1 and out == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # nothing written, not even a temporary file


def test_export_never_overwrites_without_force_and_never_half_writes(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    target = tmp_path / "deck.tex"
    target.write_text("my notes\n")
    code, _, err = run([*EXPORT, "-f", "latex", "-o", "deck.tex"], capsys)
    assert code == 2 and "already exists; use --force" in err
    assert target.read_text() == "my notes\n"
    code, out, _ = run([*EXPORT, "-f", "latex", "-o", "deck.tex", "--force"], capsys)
    assert code == 0 and "\\begin{align*}" in target.read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["deck.tex"]  # no temporary file left


def test_export_write_failure_on_stdout_is_one_line_exit_2():
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "derive", *EXPORT, "-f", "latex"], stdout=full,
                              stderr=subprocess.PIPE, text=True)
    assert proc.returncode == 2 and proc.stderr == "derive: error: cannot write output: No space left on device\n"
