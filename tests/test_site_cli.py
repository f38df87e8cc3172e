"""``derive site``: every edition of a Sphinx project built at once, where it is printed, a failed build named.

Tiny reStructuredText projects (no derivations, no MyST), so each build takes a second or two; the real site is
built by the README's main job and by the ``built_sites`` fixture of the suite.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from derive.cli import main
from derive.cli.cmd_site import build_commands, translations

pytest.importorskip("sphinx")


def _project(root: Path, body: str = "Hello.", languages: tuple[str, ...] = ("ko",)) -> Path:
    src = root / "src"
    src.mkdir()
    (src / "conf.py").write_text('project = "tiny"\nlocale_dirs = ["locales"]\nhtml_theme = "basic"\n')
    (src / "index.rst").write_text(f"Tiny\n====\n\n{body}\n")
    for code in languages:
        (src / "locales" / code / "LC_MESSAGES").mkdir(parents=True)
    return src


def test_builds_every_language_and_prints_where(tmp_path, capsys):
    src = _project(tmp_path)
    out = tmp_path / "html"
    code = main(["site", str(src), str(out)])
    stdout, stderr = capsys.readouterr()
    assert code == 0, stderr
    english, korean = (out / "index.html").resolve(), (out / "ko" / "index.html").resolve()
    assert english.is_file() and korean.is_file()
    assert 'lang="ko"' in korean.read_text(encoding="utf-8")
    assert 'lang="en"' in english.read_text(encoding="utf-8")
    assert stdout.strip().splitlines()[-1] == f"site: {english} (한국어: {korean})"


def test_a_failed_build_is_named_with_its_warnings_and_exit_1(tmp_path, capsys):
    src = _project(tmp_path, body="See :doc:`nowhere`.")  # -n: an unknown document is a warning; -W: an error
    code = main(["site", str(src), str(tmp_path / "html")])
    stdout, stderr = capsys.readouterr()
    assert code == 1
    assert "site:" not in stdout  # no path of a site that is not built
    assert "nowhere" in stderr  # the build's own warning
    assert "derive site: error: the site build failed (sphinx-build exit 1" in stderr
    assert "derive site: error: the 한국어 build failed (sphinx-build exit 1" in stderr


def test_the_builds_run_at_the_same_time(tmp_path, capsys, monkeypatch):
    """Two jobs: the second build starts while the first still runs; one job: only after the first has ended
    (read from the processes themselves, not from a clock)."""
    src = _project(tmp_path, languages=("ko",))
    procs, running_at_start = [], []
    real = __import__("subprocess").Popen

    def popen(*args, **kwargs):
        running_at_start.append(sum(p.poll() is None for p in procs))
        procs.append(real(*args, **kwargs))
        return procs[-1]

    monkeypatch.setattr("derive.cli.cmd_site.subprocess.Popen", popen)
    assert main(["site", "--jobs", "2", str(src), str(tmp_path / "html")]) == 0
    capsys.readouterr()
    assert running_at_start == [0, 1]  # the second started before the first ended
    procs.clear()
    running_at_start.clear()
    assert main(["site", "--jobs", "1", str(src), str(tmp_path / "html1")]) == 0
    assert running_at_start == [0, 0]  # one at a time: after the first build


def test_languages_and_commands(tmp_path):
    src = _project(tmp_path, languages=("ko", "pt_BR"))
    (src / "locales" / "notes").mkdir()  # no LC_MESSAGES: not a catalog
    assert translations(src, None) == ["ko", "pt_BR"]
    assert translations(src, "") == []
    assert translations(src, "ko, ja") == ["ko", "ja"]
    out = tmp_path / "html"
    builds = build_commands(src, out, ["ko"])
    assert [(code, folder) for code, _, folder in builds] == [("", out), ("ko", out / "ko")]
    assert builds[0][1][1:] == ["-m", "sphinx", "-nW", "--keep-going", "-q", str(src), str(out)]
    assert builds[1][1][1:6] == ["-m", "sphinx", "-nW", "--keep-going", "-q"]
    assert builds[1][1][-4:] == ["-D", "language=ko", str(src), str(out / "ko")]


def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys):
    assert main(["site", str(tmp_path)]) == 2
    assert capsys.readouterr().err.strip() == f"derive: error: {tmp_path}: no conf.py there (give the folder of " \
                                              "the Sphinx project)"
    src = _project(tmp_path)
    assert main(["site", str(src), "--languages", "ko;rm"]) == 2
    assert "is not a language code" in capsys.readouterr().err
    assert main(["site", str(src), "--jobs", "0"]) == 2
    assert "--jobs must be between 1 and 64" in capsys.readouterr().err


def test_only_the_own_language(tmp_path, capsys):
    src = _project(tmp_path)
    out = tmp_path / "html"
    assert main(["site", str(src), str(out), "--languages", ""]) == 0
    assert capsys.readouterr().out.strip() == f"site: {(out / 'index.html').resolve()}"
    assert not (out / "ko").exists()
