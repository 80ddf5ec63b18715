"""A sender that outpaces its receiver must not grow memory without bound (eager
credit, docs/p2p.md). Real processes through the launcher: rank 0 floods rank 1, which
progresses without receiving for a while, then receives and checks every message. The
resident-memory growth each rank reports must stay far below the flood's size (before
eager credit: 8,000 x 64 KiB held ~505 MiB). Programs: tests/multiproc/p2p_flood.cpp."""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from conftest import REPO, run_interlace

BUILD = Path(os.environ.get("INTERLACE_BUILD_DIR", REPO / "build"))
PROGRAM = BUILD / "tests" / "multiproc" / "p2p_flood"
# Three times what the 8 MiB default credit holds, far below what the floods held
# without it (66-500 MiB).
LIMIT_KIB = 24 * 1024


def flood(fabric: str, size: int, count: int, idle_s: float):
    if not PROGRAM.exists():
        pytest.fail(f"{PROGRAM} is missing: build the C++ tree first (make build)")
    r = run_interlace("run", "-n", 2, "--fabric", fabric, "--timeout", 150, PROGRAM, size, count,
                      idle_s, timeout=170)
    assert r.returncode == 0, r.stdout + r.stderr
    grew = {int(m[0]): int(m[1]) for m in
            re.findall(r"p2p_flood rank (\d) over \w+: .* resident grew (-?\d+) KiB, all messages intact",
                       r.stdout)}
    assert sorted(grew) == [0, 1], r.stdout + r.stderr
    return grew, r.stdout


@pytest.mark.timeout(180)
@pytest.mark.parametrize("fabric", ["shm", "tcp"])
def test_large_eager_flood_is_bounded(fabric):
    grew, out = flood(fabric, 64 * 1024, 8000, 2.0)  # 500 MiB in flight if unbounded
    assert max(grew.values()) < LIMIT_KIB, out


@pytest.mark.timeout(180)
@pytest.mark.parametrize("fabric", ["shm", "tcp"])
def test_small_message_flood_is_bounded(fabric):
    grew, out = flood(fabric, 8, 1_000_000, 4.0)  # ~120 B per message held if unbounded
    assert max(grew.values()) < LIMIT_KIB, out
