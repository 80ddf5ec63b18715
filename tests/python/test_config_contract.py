"""The configuration contract (issue 15): every INTERLACE_* variable the sources read
is documented in docs/configuration.md and shown by `interlace info`; INTERLACE_COLL
and INTERLACE_COLL_SEGMENT are checked there like every other variable."""
from __future__ import annotations

import re

import pytest

from conftest import REPO, launcher_env, run_interlace

# Quoted names only: a variable is read by its name as a string literal; macros,
# include guards and CMake options (INTERLACE_VERSION, INTERLACE_BIND, ...) are not.
_NAME = re.compile(r"""["'](INTERLACE_[A-Z][A-Z0-9_]*)""")
_SOURCES = ("src", "include", "python/src", "python/interlace")


def _names_in_sources() -> set[str]:
    names: set[str] = set()
    for top in _SOURCES:
        for path in (REPO / top).rglob("*"):
            if path.suffix in {".cpp", ".hpp", ".h", ".c", ".py"} and path.is_file():
                names.update(_NAME.findall(path.read_text(errors="replace")))
    return names


def test_the_source_scan_finds_the_variables():
    names = _names_in_sources()
    # Guards the scan itself: a broken pattern must not make the contract vacuous.
    for expected in ("INTERLACE_FABRIC", "INTERLACE_COLL", "INTERLACE_COLL_SEGMENT", "INTERLACE_RANK"):
        assert expected in names
    assert "INTERLACE_VERSION" not in names


def _families(names: set[str]) -> set[str]:
    # A name ending in "_" is a prefix the code completes (INTERLACE_SIM_<PARAM>).
    return {n for n in names if n.endswith("_")}


def test_every_variable_is_documented():
    doc = (REPO / "docs" / "configuration.md").read_text()
    documented = set(re.findall(r"`(INTERLACE_[A-Z0-9_]+)", doc))
    names = _names_in_sources()
    missing = sorted(names - documented - _families(names))
    assert not missing, f"not in docs/configuration.md: {missing}"
    for prefix in _families(names):
        assert f"`{prefix}<" in doc, f"the family {prefix}<...> is not in docs/configuration.md"


def test_every_variable_is_listed_by_info():
    pytest.importorskip("interlace._core")
    r = run_interlace("info")
    assert r.returncode == 0, r.stdout + r.stderr
    listed = set(re.findall(r"^\s+(INTERLACE_[A-Z0-9_]+)=", r.stdout, re.M))
    names = _names_in_sources()
    missing = sorted(names - listed - _families(names))
    for prefix in _families(names):
        assert any(n.startswith(prefix) for n in listed), f"no {prefix}* listed by `interlace info`"
    assert not missing, f"not listed by `interlace info`: {missing}\n{r.stdout}"


@pytest.mark.parametrize("var,value", [
    ("INTERLACE_COLL", "garbage"),            # passed `interlace info` before
    ("INTERLACE_COLL", "allreduce:@nosuch"),  # well-formed, unknown algorithm
    ("INTERLACE_COLL_SEGMENT", "0"),          # these became 1-byte segments
    ("INTERLACE_COLL_SEGMENT", "abc"),
    ("INTERLACE_COLL_SEGMENT", "512"),
    ("INTERLACE_COLL_CHECK", "maybe"),
])
def test_info_rejects_bad_collective_settings(var, value):
    pytest.importorskip("interlace._core")
    r = run_interlace("info", env=launcher_env(**{var: value}))
    assert r.returncode == 1, r.stdout
    assert value in r.stdout + r.stderr


def test_info_shows_collective_settings_parsed():
    pytest.importorskip("interlace._core")
    r = run_interlace("info", env=launcher_env(INTERLACE_COLL_SEGMENT="64k", INTERLACE_COLL="bcast:@binomial"))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "INTERLACE_COLL_SEGMENT=65536" in r.stdout  # strtoull made it 64
    assert "INTERLACE_COLL=bcast:@binomial" in r.stdout


def test_the_secret_default_reads_the_same_everywhere():
    # One description of INTERLACE_SECRET's default: random per job from `interlace run`,
    # `job:<job id>` when unset, empty for a singleton.
    texts = {"docs/configuration.md": (REPO / "docs" / "configuration.md").read_text(),
             "docs/launcher.md": (REPO / "docs" / "launcher.md").read_text()}
    pytest.importorskip("interlace._core")
    from interlace import _core
    texts["interlace info"] = _core.launcher_variables()["INTERLACE_SECRET"]
    for where, text in texts.items():
        for part in ("random per job", "job:<job id>", "singleton"):
            assert part in text, f"{where} does not say {part!r}"
