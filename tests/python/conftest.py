"""Shared fixtures. The tests use the installed interlace package when there
is one (`make test` installs it first) and fall back to the source tree's pure
Python package, so launcher tests also run without a build."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

try:
    import interlace  # noqa: F401
    SOURCE_PYTHONPATH = None
except ImportError:
    SOURCE_PYTHONPATH = str(REPO / "python")
    sys.path.insert(0, SOURCE_PYTHONPATH)


def launcher_env(**extra) -> dict:
    env = dict(os.environ)
    # A test run started under `interlace run` must not leak its job into ours.
    for k in [k for k in env if k.startswith("INTERLACE_")]:
        del env[k]
    if SOURCE_PYTHONPATH:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [SOURCE_PYTHONPATH,
                                                          env.get("PYTHONPATH")]))
    env.update(extra)
    return env


def run_interlace(*args, timeout=60, env=None, cwd=None) -> subprocess.CompletedProcess:
    """Runs `interlace ARGS` as a user would (python -m keeps it independent of PATH)."""
    return subprocess.run([sys.executable, "-m", "interlace", *map(str, args)],
                          capture_output=True, text=True, timeout=timeout,
                          env=env or launcher_env(), cwd=cwd)


@pytest.fixture
def interlace_cli():
    return run_interlace


def installed_script(name: str) -> str | None:
    """A console script of the environment running the tests (not whatever is on PATH)."""
    cand = Path(sysconfig.get_path("scripts")) / name
    if cand.exists():
        return str(cand)
    return shutil.which(name)


def have_netns() -> bool:
    if os.geteuid() != 0 or shutil.which("ip") is None:
        return False
    probe = f"il-probe-{os.getpid()}"
    ok = subprocess.run(["ip", "netns", "add", probe], capture_output=True).returncode == 0
    if ok:
        subprocess.run(["ip", "netns", "delete", probe], capture_output=True)
    return ok


needs_netns = pytest.mark.skipif(not have_netns(),
                                 reason="needs root and `ip netns` (iproute2)")
