"""OMPIF and distributed tasks (ompif.h, docs/ompif.md) in real multi-process C programs
under `interlace run` on shm and tcp: each tests/ompif/*.c program checks its own results
and prints "OK <name>"; the bad-input programs print the errors they got, which these
tests check for the values they must name."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from conftest import REPO, launcher_env, run_interlace

BUILD = Path(os.environ.get("INTERLACE_BUILD_DIR", REPO / "build"))
FABRICS = ["shm", "tcp"]


def run(name, *launch, args=(), fabric="shm", timeout=120, **env):
    exe = BUILD / "tests" / "ompif" / name
    if not exe.exists():
        pytest.fail(f"{exe} is missing: build the tree first (make build)")
    return run_interlace("run", *launch, exe, *args, timeout=timeout,
                         env=launcher_env(INTERLACE_FABRIC=fabric, **env))


def ok(r, name, count=1):
    out = r.stdout + r.stderr
    assert r.returncode == 0, f"exit {r.returncode}\n{out}"
    assert r.stdout.count(f"OK {name}") == count, out


@pytest.mark.parametrize("fabric", FABRICS)
@pytest.mark.parametrize("ranks", [1, 2, 3, 4, 7])
def test_p2p_bcast_allgather_without_host(ranks, fabric):
    # Every rank a device; 3 MiB ring messages, an early arrival, allgather blocks.
    ok(run("ompif_p2p", "-n", ranks, fabric=fabric), "ompif_p2p", ranks)


@pytest.mark.parametrize("fabric", FABRICS)
def test_bad_input_goes_to_the_handler_naming_values(fabric):
    r = run("ompif_bad", "-n", 2, args=["handler"], fabric=fabric)
    ok(r, "ompif_bad", 2)
    for text in ["tag 300 does not fit", "tag -1", "destination 9 is not a rank",
                 "source -3", "count -2", "datatype 77", "communicator 5", "root 4",
                 "longer than the receive's count 3 OMPIF_INT",
                 "has 16 bytes, but the receive's count 5 OMPIF_INT is 20 bytes"]:
        assert text in r.stdout, text + "\n" + r.stdout


@pytest.mark.parametrize("fabric", FABRICS)
def test_tag_300_with_the_default_handler_exits_the_rank(fabric):
    r = run("ompif_bad", "-n", 2, args=["default"], fabric=fabric)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "OMPIF_Send: invalid_tag: tag 300" in r.stderr, r.stderr


@pytest.mark.parametrize("fabric", FABRICS)
@pytest.mark.parametrize("devices", [1, 2, 3, 4])
def test_distributed_round_trips(devices, fabric):
    ok(run("dist_roundtrip", "--devices", devices, fabric=fabric), "dist_roundtrip")


@pytest.mark.parametrize("fabric", FABRICS)
@pytest.mark.parametrize("devices", [1, 3])
def test_nanos6_host_calls(devices, fabric):
    r = run("dist_nanos6", "--devices", devices, fabric=fabric)
    ok(r, "dist_nanos6")
    for text in ["is not mapped", "device range [252, 252+8) is outside the mapped 256 bytes",
                 f"device {devices} does not exist", "device -1 does not exist",
                 "is already mapped", "on a device: world rank 1 is device 0"]:
        assert text in r.stdout, text + "\n" + r.stdout


@pytest.mark.parametrize("fabric", FABRICS)
def test_bad_distributed_tasks_name_the_values(fabric):
    r = run("dist_bad", "--devices", 2, fabric=fabric)
    ok(r, "dist_bad")
    expect = {
        "scatter": "size 101 bytes does not divide into equal chunks for 2 devices",
        "gather": "size 7 bytes does not divide",
        "negative": "negative length (size 18446744073709551608, as signed -8)",
        "send": "device 5 does not exist",
        "receive": "device -1 does not exist",
        "kind": "kind 42",
        "unknown": "no device function named 'nosuch'",
        "device spawn": "rc=-1 il_dist_spawn('noop'): unsupported: spawn of distributed "
                        "task 'noop' on a device: world rank 1 is device 0",
    }
    for what, text in expect.items():
        line = next((l for l in r.stdout.splitlines() if l.startswith(f"BAD {what}:")), "")
        assert text in line, f"{what}: {line!r}\n{r.stdout}"


@pytest.mark.parametrize("fabric", FABRICS)
@pytest.mark.parametrize("how", ["exit", "abort"])
def test_lost_device_fails_the_host_taskwait(how, fabric):
    # --grace keeps the launcher from stopping the host before it notices by itself.
    r = run("dist_lost", "--grace", 60, "--devices", 2, args=[how], fabric=fabric, timeout=120)
    assert r.returncode != 0, r.stdout + r.stderr  # the device's own failure
    line = next((l for l in r.stdout.splitlines() if l.startswith("LOST ")), "")
    assert "lost_peer" in line and "device 1 (world rank 2)" in line, r.stdout + r.stderr


@pytest.mark.parametrize("argv,text", [
    (["--devices", "0", "x"], "--devices must be at least 1"),
    (["-n", "2", "--devices", "3", "x"], "-n 2 contradicts --devices 3"),
    (["--devices", "1", "x", ":", "-n", "1", "y"], "does not combine"),
])
def test_launcher_devices_flag_bad_input(argv, text):
    r = run_interlace("run", *argv)
    assert r.returncode == 2 and text in r.stderr, r.stderr


def test_launcher_devices_flag_starts_host_plus_devices():
    from interlace import launcher
    assert launcher.parse_args(["--devices", "3", "prog"]).size == 4
    assert launcher.parse_args(["-n", "4", "--devices", "3", "prog"]).size == 4
    assert launcher.parse_args(["-n", "2", "prog"]).size == 2
    assert launcher.parse_args(["prog"]).size == 1


@pytest.mark.parametrize("fabric", FABRICS)
@pytest.mark.parametrize("devices", [1, 2, 3, 4])
def test_listing1_of_the_paper(devices, fabric):
    # Scatter a, gather b, local tasks per block, an OMPIF ring between them.
    ok(run("dist_listing1", "--devices", devices, fabric=fabric), "dist_listing1")


@pytest.mark.parametrize("fabric", FABRICS)
@pytest.mark.parametrize("ranks", [2, 3, 4])
def test_ompif_inside_tasks_with_one_worker(ranks, fabric):
    # The receive task blocks the only worker first; the send task must still run.
    r = run("ompif_tasks", "-n", ranks, fabric=fabric, INTERLACE_TASK_WORKERS="1")
    ok(r, "ompif_tasks", ranks)
    assert r.stdout.count("(1 workers)") == ranks, r.stdout
