"""Progress of ``derive check``: a line per finished derivation, coloured on a terminal, plain through a pipe."""

from __future__ import annotations

import io
import json
import os
import pty
import re
import subprocess
import sys

import pytest

NAMES = ["softmax.shift-invariance", "softmax.max-trick"]
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
LINE = re.compile(r"^\[(\d)/2\] passed +(\S+) \((cached|\d+\.\d\d s)\)$", re.M)


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "TERM")}
    env.update({"TERM": "xterm-256color", "COLUMNS": "100"}, **extra)
    return env


def _on_a_pty(argv: list[str], env: dict[str, str]) -> tuple[int, str]:
    """Run ``argv`` with stdout and stderr on a pseudo-terminal; (exit code, everything it wrote)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=slave, stderr=slave, env=env, close_fds=True)
    os.close(slave)
    chunks = []
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(master)
    return proc.wait(timeout=600), b"".join(chunks).decode("utf-8", "replace")


def test_through_a_pipe_one_plain_line_per_derivation(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "derive", "check", *NAMES], capture_output=True, text=True,
                          env=_env(DERIVE_CACHE_DIR=str(tmp_path)), timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert not ANSI.search(proc.stdout)
    lines = LINE.findall(proc.stdout)
    assert [n for n, _, _ in lines] == ["1", "2"]
    assert sorted(name for _, name, _ in lines) == sorted(NAMES)
    assert all(t.endswith(" s") for _, _, t in lines)  # verified, not from the cache
    # the lines come before the table and the summary
    assert proc.stdout.index("[2/2]") < proc.stdout.index("derivation  ") < proc.stdout.index("2 derivations: 2 passed")
    # a second run is served from the cache, and says so on each line
    again = subprocess.run([sys.executable, "-m", "derive", "check", *NAMES], capture_output=True, text=True,
                           env=_env(DERIVE_CACHE_DIR=str(tmp_path)), timeout=600)
    assert [t for _, _, t in LINE.findall(again.stdout)] == ["cached", "cached"]


def test_on_a_terminal_the_verdicts_are_coloured(tmp_path):
    code, out = _on_a_pty([sys.executable, "-m", "derive", "check", *NAMES], _env(DERIVE_CACHE_DIR=str(tmp_path)))
    assert code == 0, out
    assert "\x1b[" in out  # colour (and the live bar's cursor codes)
    plain = ANSI.sub("", out).replace("\r", "")
    for name in NAMES:
        assert re.search(rf"\[\d/2\] passed +{re.escape(name)} \(\d+\.\d\d s\)", plain), plain
    assert "2 derivations: 2 passed, 0 failed" in plain
    # green for passed; nothing red (the bar included) when nothing failed
    assert re.search(r"\x1b\[[0-9;]*32m[^\x1b]*passed", out), out
    assert not re.search(r"\x1b\[(?:[0-9;]*;)?(?:31|91|38;5;(?:1|9|197))m", out), out


def test_no_color_on_a_terminal_gives_plain_lines(tmp_path):
    code, out = _on_a_pty([sys.executable, "-m", "derive", "check", *NAMES],
                          _env(DERIVE_CACHE_DIR=str(tmp_path), NO_COLOR="1"))
    assert code == 0, out
    assert not ANSI.search(out), out
    assert len(LINE.findall(out.replace("\r", ""))) == 2


def test_json_output_is_only_the_document(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "derive", "check", "--json", *NAMES], capture_output=True,
                          text=True, env=_env(DERIVE_CACHE_DIR=str(tmp_path)), timeout=600)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert [r["name"] for r in data["reports"]] == NAMES and data["ok"] is True


def test_verdict_words_and_plain_lines():
    import sympy as sp

    from derive import Derivation, Step
    from derive.cli.progress import Progress, verdict_word
    from derive.verify import verify

    x = sp.Symbol("x", real=True)
    good = verify(Derivation("t.good", "good", start=(x + 1) ** 2, steps=(Step(x**2 + 2 * x + 1, "expand"),)))
    bad = verify(Derivation("t.bad", "bad", start=(x + 1) ** 2, steps=(Step(x**2 + 1, "forgot 2x"),)))
    assert (verdict_word(good), verdict_word(bad)) == ("passed", "refuted")
    out = io.StringIO()
    with Progress(2, stream=out) as progress:
        progress.done(good)
        progress.done(bad, cached=False)
    lines = out.getvalue().splitlines()
    assert re.fullmatch(r"\[1/2\] passed +t\.good \(\d+\.\d\d s\)", lines[0])
    assert re.fullmatch(r"\[2/2\] refuted +t\.bad \(\d+\.\d\d s\)", lines[1])


@pytest.mark.parametrize("value, colour", [("", True), ("1", False)])
def test_no_color_is_honoured_when_set_and_non_empty(monkeypatch, value, colour):
    from derive.cli.progress import wants_colour

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setenv("NO_COLOR", value)
    assert wants_colour(Tty()) is colour
    assert wants_colour(io.StringIO()) is False
