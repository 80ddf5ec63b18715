"""`interlace info` says which fabric each peer gets (docs/fabrics.md "Two tiers");
the jobs themselves are tested by tests/netns/two_tier.sh (root, namespaces)."""
from __future__ import annotations

import pytest

from conftest import launcher_env, run_interlace


def info(**env):
    pytest.importorskip("interlace._core")
    return run_interlace("info", env=launcher_env(**env))


def test_auto_is_two_tiers():
    r = info()
    assert r.returncode == 0, r.stdout + r.stderr
    assert ("fabric per peer: shm to ranks on this host, tcp to ranks on other hosts"
            in r.stdout), r.stdout


def test_named_tiers_and_a_single_fabric():
    r = info(INTERLACE_FABRIC="shm+udp")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "fabric per peer: shm to ranks on this host, udp to ranks on other hosts" in r.stdout
    r = info(INTERLACE_FABRIC="tcp")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "fabric per peer: tcp to every peer" in r.stdout


@pytest.mark.parametrize("value,why", [
    ("tcp+shm", "'tcp' is a network fabric"),
    ("shm+nosuch", "'nosuch' is not a registered fabric"),
    ("shm+tcp+udp", "shm+tcp+udp"),
])
def test_bad_tiers_are_named(value, why):
    r = info(INTERLACE_FABRIC=value)
    assert r.returncode == 1, r.stdout
    assert why in r.stdout + r.stderr, r.stdout + r.stderr
