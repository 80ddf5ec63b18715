"""Real multi-process runs of the C++ p2p battery through the launcher, on both
fabrics and 1-8 ranks, plus the lost-peer scenario. The programs are built by
CMake into $INTERLACE_BUILD_DIR/tests/multiproc (default: build/)."""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from conftest import REPO, launcher_env, run_interlace

BUILD = Path(os.environ.get("INTERLACE_BUILD_DIR", REPO / "build"))
BIN = BUILD / "tests" / "multiproc"


def program(name: str) -> Path:
    path = BIN / name
    if not path.exists():
        pytest.fail(f"{path} is missing: build the C++ tree first (make build)")
    return path


@pytest.mark.timeout(120)
@pytest.mark.parametrize("fabric", ["shm", "tcp", "udp"])
@pytest.mark.parametrize("n", [1, 2, 3, 4, 8])
def test_p2p_battery(n, fabric):
    r = run_interlace("run", "-n", n, "--fabric", fabric, "--timeout", 90, program("p2p_check"),
                      timeout=110)
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"p2p_check OK on {n} ranks ({fabric})" in r.stdout


@pytest.mark.timeout(120)
@pytest.mark.parametrize("n", [2, 4])
def test_p2p_battery_single_copy(n):
    """Rendezvous through process_vm_readv between real processes."""
    r = run_interlace("run", "-n", n, "--fabric", "shm", "--timeout", 90, program("p2p_check"),
                      timeout=110, env=launcher_env(INTERLACE_SHM_SINGLE_COPY="1"))
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"p2p_check OK on {n} ranks (shm)" in r.stdout


@pytest.mark.timeout(180)
@pytest.mark.parametrize("fabric,single_copy", [("shm", "0"), ("shm", "1"), ("tcp", "0")])
def test_message_over_2_gib(fabric, single_copy):
    r = run_interlace("run", "-n", 2, "--fabric", fabric, "--timeout", 160, program("big_message"),
                      timeout=175, env=launcher_env(INTERLACE_SHM_SINGLE_COPY=single_copy))
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"big_message OK: 2147483672 bytes over {fabric}" in r.stdout


@pytest.mark.timeout(120)
def test_p2p_battery_with_progress_thread():
    r = run_interlace("run", "-n", 4, "--timeout", 90, program("p2p_check"), timeout=110,
                      env=launcher_env(INTERLACE_PROGRESS="thread"))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "p2p_check OK on 4 ranks" in r.stdout


@pytest.mark.timeout(120)
@pytest.mark.parametrize("fabric", ["shm", "tcp"])
def test_lost_peer_is_detected_and_named(fabric):
    r = run_interlace("run", "-n", 3, "--fabric", fabric, "--timeout", 60, program("lost_peer"),
                      timeout=90)
    out = r.stdout + r.stderr
    assert r.returncode != 0, out
    # The launcher names the dead rank and how it died ...
    assert re.search(r"rank 1 .*killed by signal SIGKILL", out), out
    # ... and the survivor got a LostPeerError quickly, after receiving everything sent.
    m = re.search(r"rank 0 caught lost peer after ([0-9.]+) s", out)
    assert m, out
    assert float(m.group(1)) < 5.0


def ucx_built() -> bool:
    """Whether the build under test has the ucx fabric (libucx found, not switched off)."""
    cache = BUILD / "CMakeCache.txt"
    text = cache.read_text() if cache.exists() else ""
    return "UCX_FOUND:INTERNAL=1" in text and "INTERLACE_WITH_UCX:BOOL=OFF" not in text


# UCX's tcp transport reports the closed connection; its shared-memory transports refuse
# UCX's peer error mode, and the fabric watches the peer's pid instead (docs/ucx.md).
@pytest.mark.timeout(120)
@pytest.mark.parametrize("tls", ["tcp", "posix,sysv,self"])
def test_lost_peer_is_detected_and_named_on_ucx(tls):
    if not ucx_built():
        pytest.skip(f"the build in {BUILD} has no ucx fabric (libucx not found or INTERLACE_WITH_UCX=OFF)")
    r = run_interlace("run", "-n", 3, "--fabric", "ucx", "--timeout", 60, program("lost_peer"),
                      timeout=90, env=launcher_env(UCX_TLS=tls))
    out = r.stdout + r.stderr
    assert r.returncode != 0, out
    assert re.search(r"rank 1 .*killed by signal SIGKILL", out), out
    m = re.search(r"rank 0 caught lost peer after ([0-9.]+) s", out)
    assert m, out
    assert float(m.group(1)) < 5.0


@pytest.mark.timeout(120)
def test_lost_peer_is_detected_on_udp_within_its_peer_timeout():
    """udp sees no connection close: a dead peer is found by its silence
    (INTERLACE_UDP_PEER_TIMEOUT, 2 s here), after everything it sent arrived."""
    r = run_interlace("run", "-n", 3, "--fabric", "udp", "--grace", 10, "--timeout", 60,
                      program("lost_peer"), timeout=90,
                      env=launcher_env(INTERLACE_UDP_PEER_TIMEOUT="2"))
    out = r.stdout + r.stderr
    assert r.returncode != 0, out
    assert re.search(r"rank 1 .*killed by signal SIGKILL", out), out
    m = re.search(r"rank 0 caught lost peer after ([0-9.]+) s", out)
    assert m, out
    assert float(m.group(1)) < 8.0


@pytest.mark.timeout(120)
def test_silent_peer_death_is_detected_on_shm():
    """Rank 1 dies before it ever sent a frame: rank 0's receive must still fail."""
    r = run_interlace("run", "-n", 2, "--fabric", "shm", "--grace", 5, "--timeout", 60,
                      program("lost_peer"), "silent", timeout=90)
    out = r.stdout + r.stderr
    m = re.search(r"rank 0 caught lost peer after ([0-9.]+) s", out)
    assert m, out
    assert float(m.group(1)) < 5.0


# -- several hosts: network namespaces as hosts ------------------------------

import subprocess  # noqa: E402

from conftest import needs_netns  # noqa: E402


@pytest.fixture
def bridged_netns():
    """Two namespaces on one bridge with the root namespace (10.252.0.0/24, test-only),
    so ranks in different namespaces reach each other directly (no IP forwarding)."""
    tag = f"{os.getpid() % 10000}"
    br, names = f"ilb{tag}", [f"ilm{tag}a", f"ilm{tag}b"]
    cmds = [["ip", "link", "add", br, "type", "bridge"],
            ["ip", "addr", "add", "10.252.0.1/24", "dev", br],
            ["ip", "link", "set", br, "up"]]
    for i, ns in enumerate(names):
        host_if, ns_if = f"ilv{tag}{i}", f"ilw{tag}{i}"
        cmds += [["ip", "netns", "add", ns],
                 ["ip", "link", "add", host_if, "type", "veth", "peer", "name", ns_if],
                 ["ip", "link", "set", ns_if, "netns", ns],
                 ["ip", "link", "set", host_if, "master", br],
                 ["ip", "link", "set", host_if, "up"],
                 ["ip", "-n", ns, "addr", "add", f"10.252.0.{i + 2}/24", "dev", ns_if],
                 ["ip", "-n", ns, "link", "set", ns_if, "up"],
                 ["ip", "-n", ns, "link", "set", "lo", "up"]]
    try:
        for c in cmds:
            subprocess.run(c, check=True, capture_output=True)
        yield names
    finally:
        for i, ns in enumerate(names):
            subprocess.run(["ip", "link", "delete", f"ilv{tag}{i}"], capture_output=True)
            subprocess.run(["ip", "netns", "delete", ns], capture_output=True)
        subprocess.run(["ip", "link", "delete", br], capture_output=True)


@needs_netns
@pytest.mark.timeout(120)
def test_p2p_battery_across_namespaces(bridged_netns):
    h1, h2 = bridged_netns
    r = run_interlace("run", "--hosts", f"{h1},{h2}", "--rsh", "ip netns exec {host}",
                      "--store-addr", "10.252.0.1", "-n", 4, "--timeout", 90,
                      program("p2p_check"), timeout=110)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "p2p_check OK on 4 ranks (shm+tcp)" in r.stdout  # two tiers: docs/fabrics.md


# -- started by other launchers ----------------------------------------------

import shutil  # noqa: E402

STARTERS = {
    "openmpi": ["mpirun.openmpi", "--allow-run-as-root", "--oversubscribe", "-n", "3"],
    "mpich": ["mpiexec.mpich", "-n", "3"],
}


@pytest.mark.timeout(120)
@pytest.mark.parametrize("starter", sorted(STARTERS))
def test_ranks_discovered_under_mpirun(starter):
    cmd = STARTERS[starter]
    if shutil.which(cmd[0]) is None:
        pytest.skip(f"{cmd[0]} is not installed (make deps installs it)")
    r = subprocess.run([*cmd, str(program("p2p_check"))], capture_output=True, text=True,
                       timeout=100, env=launcher_env())
    assert r.returncode == 0, r.stdout + r.stderr
    assert "p2p_check OK on 3 ranks (shm)" in r.stdout


# -- the tcp fabric alone between two namespaces (tests/netns) ----------------

NETNS = REPO / "tests" / "netns"


@needs_netns
@pytest.mark.timeout(180)
@pytest.mark.parametrize("extra", [[], ["--crash"], ["--qdisc", "tbf rate 200mbit burst 16k limit 16k"]],
                         ids=["plain", "crash", "lossy-qdisc"])
def test_tcp_fabric_between_namespaces(extra):
    binary = BUILD / "tests" / "netns" / "netns_fabric_check"
    if not binary.exists():
        pytest.fail(f"{binary} is missing: build the C++ tree first (make build)")
    try:
        r = subprocess.run([str(NETNS / "run_check.sh"), str(binary), "--frames", "500", *extra],
                           capture_output=True, text=True, timeout=170)
    finally:
        subprocess.run([str(NETNS / "teardown.sh")], capture_output=True)
    assert r.returncode == 0, r.stdout + r.stderr
