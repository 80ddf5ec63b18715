"""`interlace run` with programs that need no messaging (sh, python -c):
environment, placement, exit status, failures, timeouts, output, MPMD, bad
input and cleanup."""
from __future__ import annotations

import glob
import os
import re
import subprocess
import sys
import tempfile
import time

import pytest

from conftest import launcher_env, needs_netns, run_interlace

PRINT_ENV = ("import os; e = os.environ; print('R', e['INTERLACE_RANK'], e['INTERLACE_SIZE'], "
             "e['INTERLACE_LOCAL_RANK'], e['INTERLACE_JOB_ID'], e['INTERLACE_STORE'], "
             "e['INTERLACE_HOST'], len(e['INTERLACE_SECRET']), e.get('INTERLACE_FABRIC', '-'))")


def env_lines(stdout: str) -> list[list[str]]:
    return [line.split()[1:] for line in stdout.splitlines() if line.startswith("R ")]


@pytest.mark.parametrize("n", [1, 2, 3, 4, 8])
def test_every_rank_gets_its_environment(n):
    r = run_interlace("run", "-n", n, sys.executable, "-c", PRINT_ENV)
    assert r.returncode == 0, r.stderr
    rows = env_lines(r.stdout)
    assert sorted(int(row[0]) for row in rows) == list(range(n))
    assert {row[1] for row in rows} == {str(n)}
    # One host: local rank equals rank; one job id, store, host and secret for all.
    assert all(row[2] == row[0] for row in rows)
    assert len({row[3] for row in rows}) == 1 and re.fullmatch(r"[0-9a-f]{12}", rows[0][3])
    assert len({row[4] for row in rows}) == 1 and rows[0][4].startswith("file:///")
    assert len({row[5] for row in rows}) == 1
    assert int(rows[0][6]) >= 32
    assert {row[7] for row in rows} == {"-"}  # no --fabric: nothing forced


def test_jobs_get_distinct_ids_and_secrets():
    prog = "import os; print(os.environ['INTERLACE_JOB_ID'], os.environ['INTERLACE_SECRET'])"
    a = run_interlace("run", sys.executable, "-c", prog).stdout.split()
    b = run_interlace("run", sys.executable, "-c", prog).stdout.split()
    assert a[0] != b[0] and a[1] != b[1]


def test_fabric_is_passed_when_given():
    r = run_interlace("run", "-np", 2, "--fabric", "tcp", sys.executable, "-c", PRINT_ENV)
    assert r.returncode == 0, r.stderr
    assert {row[7] for row in env_lines(r.stdout)} == {"tcp"}


def test_store_dir_exists_during_the_job_and_is_removed_after():
    prog = "import os; d = os.environ['INTERLACE_STORE'][len('file://'):]; print(d, os.path.isdir(d))"
    r = run_interlace("run", "-n", 2, sys.executable, "-c", prog)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.split("\n")
    store, existed = lines[0].split()
    assert existed == "True"
    assert not os.path.exists(store)


def test_shm_leftovers_of_the_job_are_removed():
    # A rank that dies leaves its segments behind; the launcher removes them.
    prog = ("import os; open('/dev/shm/il-' + os.environ['INTERLACE_JOB_ID'] + '-ctl-' + "
            "os.environ['INTERLACE_RANK'], 'w').close(); print('J', os.environ['INTERLACE_JOB_ID'])")
    r = run_interlace("run", "-n", 2, sys.executable, "-c", prog)
    assert r.returncode == 0, r.stderr
    job = r.stdout.split()[1]
    assert glob.glob(f"/dev/shm/il-{job}-*") == []


def test_success_is_status_zero_and_output_is_forwarded():
    r = run_interlace("run", "-n", 2, "sh", "-c", "echo out$INTERLACE_RANK; echo err$INTERLACE_RANK >&2")
    assert r.returncode == 0
    assert sorted(r.stdout.split()) == ["out0", "out1"]
    assert sorted(r.stderr.split()) == ["err0", "err1"]


def test_exit_status_of_a_failing_rank_is_propagated_and_named():
    r = run_interlace("run", "-n", 3, "sh", "-c", 'if [ "$INTERLACE_RANK" = 1 ]; then exit 7; fi; sleep 30')
    assert r.returncode == 7
    assert re.search(r"interlace: rank 1 on host \S+ exited with status 7", r.stderr)


def test_rank_killed_by_a_signal_is_named():
    start = time.monotonic()
    r = run_interlace("run", "-n", 2, "sh", "-c", 'if [ "$INTERLACE_RANK" = 0 ]; then kill -9 $$; fi; sleep 30')
    assert r.returncode == 128 + 9
    assert re.search(r"rank 0 on host \S+ was killed by signal SIGKILL", r.stderr)
    assert time.monotonic() - start < 15  # the survivor was stopped, not waited for


def test_survivors_get_a_grace_period_then_are_stopped():
    # Rank 1 exits 0 within the grace period: it is not reported as failed.
    r = run_interlace("run", "--grace", "3", "-n", 2, "sh", "-c",
                      'if [ "$INTERLACE_RANK" = 0 ]; then exit 5; fi; sleep 0.5; echo survivor-done')
    assert r.returncode == 5
    assert "survivor-done" in r.stdout
    assert "rank 1" not in r.stderr


def test_sigterm_ignoring_rank_is_killed():
    prog = "trap '' TERM; if [ \"$INTERLACE_RANK\" = 0 ]; then exit 3; fi; sleep 30"
    start = time.monotonic()
    r = run_interlace("run", "--grace", "0", "-n", 2, "sh", "-c", prog)
    assert r.returncode == 3
    assert time.monotonic() - start < 15


def test_timeout_stops_the_job_with_status_124():
    start = time.monotonic()
    r = run_interlace("run", "--timeout", "1", "-n", 2, "sleep", "30")
    assert r.returncode == 124
    assert re.search(r"rank 0 on host \S+ timed out after 1 s", r.stderr)
    assert time.monotonic() - start < 10


def test_children_of_ranks_are_stopped_too():
    with tempfile.TemporaryDirectory() as d:
        marker = os.path.join(d, "late")
        # The background child would write the marker after the job ended.
        prog = f"(sleep 3; touch {marker}) & sleep 30"
        r = run_interlace("run", "--timeout", "1", "-n", 1, "sh", "-c", prog)
        assert r.returncode == 124
        time.sleep(3.5)
        assert not os.path.exists(marker)


def test_tag_output_prefixes_every_line_with_the_rank():
    r = run_interlace("run", "--tag-output", "-n", 3, "sh", "-c", "echo a; echo b; printf c")
    assert r.returncode == 0
    lines = r.stdout.splitlines()
    assert len(lines) == 9
    for rank in range(3):
        assert [l for l in lines if l.startswith(f"[{rank}] ")] == [f"[{rank}] a", f"[{rank}] b", f"[{rank}] c"]


def test_mpmd_groups_get_consecutive_ranks_and_one_size():
    r = run_interlace("run", "-n", 1, "sh", "-c", "echo A $INTERLACE_RANK $INTERLACE_SIZE",
                      ":", "-n", 3, "sh", "-c", "echo B $INTERLACE_RANK $INTERLACE_SIZE")
    assert r.returncode == 0, r.stderr
    got = sorted(r.stdout.splitlines())
    assert got == ["A 0 4", "B 1 4", "B 2 4", "B 3 4"]


def test_program_arguments_are_passed_verbatim():
    r = run_interlace("run", sys.executable, "-c", "import sys; print(sys.argv[1:])",
                      "-n", "x y", "--", "'q'")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str(["-n", "x y", "--", "'q'"])


def test_export_passes_variables():
    r = run_interlace("run", "-x", "IL_TEST_A=1", "-x", "IL_TEST_B", "-n", 1,
                      "sh", "-c", "echo $IL_TEST_A-$IL_TEST_B",
                      env=launcher_env(IL_TEST_B="two"))
    assert r.stdout.strip() == "1-two"


def test_missing_program_is_reported_with_status_127():
    r = run_interlace("run", "-n", 2, "/nonexistent/prog")
    assert r.returncode == 127
    assert "/nonexistent/prog" in r.stderr


@pytest.mark.parametrize("args, needle", [
    (["-n", "0", "true"], "at least 1, got 0"),
    (["-n", "-3", "true"], "got -3"),
    (["-n", "two", "true"], "'two'"),
    (["--fabric", "infiniband", "true"], "'infiniband'"),
    ([], "usage"),
    (["-n", "2"], "no program"),
    (["-n", "2", ""], "empty program"),
    (["--hosts", "a,,b", "true"], "'a,,b'"),
    (["--hosts", "a;rm -rf", "true"], "'a;rm -rf'"),
    (["--hosts", "", "true"], "--hosts ''"),
    (["--hosts", "a,a", "true"], "'a' appears twice"),
    (["--timeout", "0", "true"], "'0'"),
    (["--rsh", "ssh", "--hosts", "a", "true"], "{host}"),
    (["-n", "1", "true", ":", "-n", "2"], "group 2"),
])
def test_bad_input_is_a_clear_error_with_status_2(args, needle):
    r = run_interlace("run", *args)
    assert r.returncode == 2
    assert needle in r.stderr + r.stdout


def test_unknown_command_is_status_2():
    r = run_interlace("launch")
    assert r.returncode == 2 and "'launch'" in r.stderr


def test_sigint_to_the_launcher_stops_the_ranks():
    cmd = [sys.executable, "-m", "interlace", "run", "-n", 2, "sleep", "30"]
    p = subprocess.Popen(list(map(str, cmd)), env=launcher_env(),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1.0)
    p.send_signal(2)
    _, err = p.communicate(timeout=15)
    assert p.returncode == 130
    assert "SIGINT" in err


# -- placement and remote command construction (no processes) --------------

def test_blocked_placement():
    from interlace.launcher import place
    assert place(8, 2) == [0, 0, 0, 0, 1, 1, 1, 1]
    assert place(5, 2) == [0, 0, 0, 1, 1]
    assert place(2, 3) == [0, 1]
    assert place(7, 3) == [0, 0, 0, 1, 1, 2, 2]


def test_plan_over_hosts_sets_local_ranks():
    from interlace.launcher import parse_args, plan_ranks
    opts = parse_args(["--hosts", "n1,n2", "-n", "5", "prog"])
    plans = plan_ranks(opts, "job", "sec", "tcp://1.2.3.4:5")
    assert [(p.host, p.env["INTERLACE_LOCAL_RANK"]) for p in plans] == [
        ("n1", "0"), ("n1", "1"), ("n1", "2"), ("n2", "0"), ("n2", "1")]
    assert not any(p.is_local for p in plans)


def test_remote_command_quoting():
    import shlex
    from interlace.launcher import RankPlan, remote_command
    plan = RankPlan(0, "n1", 0, False, ["prog", "a b", "it's"], {"INTERLACE_RANK": "0"})
    ssh = remote_command("ssh {host}", plan, "/work dir")
    assert ssh[:2] == ["ssh", "n1"] and len(ssh) == 3
    # ssh hands the single string to the remote shell, which must re-split it exactly.
    words = shlex.split(ssh[2])
    assert words[:2] == ["cd", "/work dir"] and words[-3:] == ["prog", "a b", "it's"]
    netns = remote_command("ip netns exec {host}", plan, "/w")
    assert netns[:4] == ["ip", "netns", "exec", "n1"] and netns[4:6] == ["sh", "-c"]
    custom = remote_command("docker exec {host} sh -c {cmd}", plan, "/w")
    assert custom[:5] == ["docker", "exec", "n1", "sh", "-c"] and custom[5].startswith("cd /w")


# -- several hosts through network namespaces --------------------------------

@pytest.fixture
def two_netns():
    """Two namespaces h1, h2 with veth links to the root namespace
    (10.251.x.0/24 test-only addresses); the launcher's store is reachable at
    the root side of each link."""
    tag = f"{os.getpid() % 10000}"
    names = [f"ilt{tag}a", f"ilt{tag}b"]
    cmds = []
    for i, ns in enumerate(names):
        host_if, ns_if = f"ilh{tag}{i}", f"iln{tag}{i}"
        net = f"10.251.{i + 1}"
        cmds += [["ip", "netns", "add", ns],
                 ["ip", "link", "add", host_if, "type", "veth", "peer", "name", ns_if],
                 ["ip", "link", "set", ns_if, "netns", ns],
                 ["ip", "addr", "add", f"{net}.1/24", "dev", host_if],
                 ["ip", "link", "set", host_if, "up"],
                 ["ip", "-n", ns, "addr", "add", f"{net}.2/24", "dev", ns_if],
                 ["ip", "-n", ns, "link", "set", ns_if, "up"],
                 ["ip", "-n", ns, "link", "set", "lo", "up"],
                 ["ip", "-n", ns, "route", "add", "default", "via", f"{net}.1"]]
    try:
        for c in cmds:
            subprocess.run(c, check=True, capture_output=True)
        yield names
    finally:
        for i, ns in enumerate(names):
            subprocess.run(["ip", "link", "delete", f"ilh{tag}{i}"], capture_output=True)
            subprocess.run(["ip", "netns", "delete", ns], capture_output=True)


@needs_netns
def test_ranks_start_in_other_namespaces_with_a_tcp_store(two_netns):
    pytest.importorskip("interlace._core")
    h1, h2 = two_netns
    prog = ("import os, socket; e = os.environ; "
            "print('R', e['INTERLACE_RANK'], e['INTERLACE_LOCAL_RANK'], e['INTERLACE_HOST'], "
            "e['INTERLACE_STORE'], os.getcwd())")
    r = run_interlace("run", "--hosts", f"{h1},{h2}", "--rsh", "ip netns exec {host}",
                      "--store-addr", "10.251.1.1", "-n", 4, sys.executable, "-c", prog,
                      cwd=tempfile.gettempdir())
    assert r.returncode == 0, r.stderr
    rows = sorted(l.split()[1:] for l in r.stdout.splitlines() if l.startswith("R "))
    assert [(row[0], row[1], row[2]) for row in rows] == [
        ("0", "0", h1), ("1", "1", h1), ("2", "0", h2), ("3", "1", h2)]
    assert all(row[3].startswith("tcp://10.251.1.1:") for row in rows)
    assert all(row[4] == os.path.realpath(tempfile.gettempdir()) for row in rows)


@needs_netns
def test_failure_in_a_namespace_is_named(two_netns):
    pytest.importorskip("interlace._core")
    h1, h2 = two_netns
    r = run_interlace("run", "--hosts", f"{h1},{h2}", "--rsh", "ip netns exec {host}",
                      "--store-addr", "10.251.1.1", "-n", 2, "sh", "-c",
                      'if [ "$INTERLACE_RANK" = 1 ]; then exit 9; fi; sleep 30')
    assert r.returncode == 9
    assert f"rank 1 on host {h2} exited with status 9" in r.stderr
