"""docs/python.md leads to every Python API and docs/errors.md lists every Python
exception: a module, class or exception added without its documentation fails here."""
from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import pkgutil
import re
from pathlib import Path

import pytest

from conftest import REPO

pytest.importorskip("interlace._core", reason="needs the installed package (make install)")
import interlace  # noqa: E402
from interlace import errors  # noqa: E402

DOCS = REPO / "docs"
PYTHON_MD = (DOCS / "python.md").read_text()
ERRORS_MD = (DOCS / "errors.md").read_text()


def _runs_on_import(name: str) -> bool:
    """A module with a call at its top level (`main()`, `sys.exit(main())`) is a
    program that the package runs, not API: importing it would run it."""
    spec = importlib.util.find_spec(f"interlace.{name}")
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return False
    tree = ast.parse(Path(spec.origin).read_text())
    return any(isinstance(st, ast.Expr) and isinstance(st.value, ast.Call) for st in tree.body)


def _modules(private: bool):
    """interlace's modules, public ones (plus the native core) or all of them."""
    names = sorted(m.name for m in pkgutil.iter_modules(interlace.__path__))
    for name in names:
        if _runs_on_import(name):
            continue
        if name.startswith("_") and not private and name != "_core":
            continue
        yield importlib.import_module(f"interlace.{name}")


def _own_classes(mod):
    for name, obj in vars(mod).items():
        if (inspect.isclass(obj) and not name.startswith("_")
                and getattr(obj, "__module__", "").startswith("interlace")):
            yield name, obj


def _code_spans(text: str) -> set[str]:
    """Names written as code: in `inline spans` and in fenced blocks."""
    fences = re.findall(r"^```.*?^```", text, re.S | re.M)
    inline = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    spans = set()
    for span in re.findall(r"`([^`\n]+)`", inline) + fences:
        spans.update(re.findall(r"[A-Za-z_][\w.]*", span))
    return spans


def _section(text: str, heading: str) -> str:
    start = text.index(f"\n{heading}\n")
    level = heading.split(" ", 1)[0]
    m = re.compile(rf"\n{level} ").search(text, start + len(heading) + 2)
    return text[start:m.start() if m else len(text)]


def test_python_md_names_every_public_module():
    spans = _code_spans(PYTHON_MD)
    missing = [m.__name__ for m in _modules(private=False) if m.__name__ not in spans]
    assert not missing, f"docs/python.md does not mention {missing}"


def test_python_md_names_every_public_class():
    spans = _code_spans(PYTHON_MD)
    words = {w.rsplit(".", 1)[-1] for w in spans}
    missing = sorted({f"{m.__name__}.{n}" for m in [interlace, *_modules(private=False)]
                      for n, _ in _own_classes(m) if n not in words})
    assert not missing, f"docs/python.md does not mention {missing}"


def _links(text: str):
    return re.findall(r"\]\(([^)\s]+)\)", text)


def _anchors(text: str) -> set[str]:
    out = set()
    for h in re.findall(r"^#+ (.+)$", text, re.M):
        slug = re.sub(r"[^\w\- ]", "", h.replace("`", "").lower()).replace(" ", "-")
        out.add(slug)
    return out


def test_python_md_links_resolve_and_reach_every_model_page():
    targets = set()
    for link in _links(PYTHON_MD):
        if "://" in link:
            continue
        page, _, anchor = link.partition("#")
        path = DOCS / page if page else DOCS / "python.md"
        assert path.is_file(), f"docs/python.md links to a missing page {link}"
        if anchor:
            assert anchor in _anchors(path.read_text()), f"docs/python.md: no heading for {link}"
        targets.add(path.name)
    # The detailed pages of the Python APIs documented elsewhere.
    for page in ("collectives.md", "smi.md", "stream.md", "errors.md", "launcher.md"):
        assert page in targets, f"docs/python.md has no link to {page}"


def _exceptions():
    seen = {}
    for mod in [interlace, *_modules(private=True)]:
        for name, obj in vars(mod).items():
            if (inspect.isclass(obj) and issubclass(obj, BaseException) and not name.startswith("_")
                    and obj.__module__.startswith("interlace")):
                seen.setdefault(obj, f"{obj.__module__}.{obj.__qualname__}")
    return seen


def _error_rows() -> dict[str, list[str]]:
    rows = {}
    for line in _section(ERRORS_MD, "## Python").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) == 4 and cells[0].startswith("`"):
            rows[cells[0].strip("`")] = cells
    return rows


def _documented_name(cls, qualname: str) -> str:
    # Classes re-exported by the package are documented as interlace.<Name>.
    return f"interlace.{cls.__name__}" if getattr(interlace, cls.__name__, None) is cls else qualname


def test_errors_md_lists_every_exception_with_its_bases():
    rows = _error_rows()
    assert rows, "docs/errors.md has no exception table under '## Python'"
    found = _exceptions()
    assert errors.Error in found and errors.TimeoutError in found  # the scan itself works
    for cls, qualname in found.items():
        name = _documented_name(cls, qualname)
        assert name in rows, f"docs/errors.md does not list {name}"
        for base in cls.__bases__:
            assert base.__name__ in rows[name][1], f"docs/errors.md: {name} does not name its base {base.__name__}"


def test_errors_md_codes_match_the_classes():
    """Each ErrorCode is listed with the class the runtime raises for it, and a class
    raised from Python without a code carries the one the table gives first."""
    rows = _error_rows()
    for code in interlace.ErrorCode:
        if code in (interlace.ErrorCode.ok, interlace.ErrorCode.would_block):
            continue  # never raised
        exc = errors._from_core(int(code), "x")
        assert exc.code == code
        row = rows[_documented_name(type(exc), "")]
        assert f"`{code.name}`" in row[2], f"docs/errors.md: {type(exc).__name__} row lacks `{code.name}`"
    for cls in (errors.Error, errors.ArgumentError, errors.LostPeerError, errors.TruncationError,
                errors.TimeoutError, errors.FinalizedError):
        row = rows[f"interlace.{cls.__name__}"]
        default = cls("x").code.name
        listed = re.findall(r"`(\w+)`", row[2])
        documented_default = re.search(r"`(\w+)` \(the default\)|\(default `(\w+)`\)", row[2])
        expect = next(g for g in documented_default.groups() if g) if documented_default else listed[0]
        assert default == expect, f"{cls.__name__}('x').code is {default}, docs/errors.md says {expect}"
