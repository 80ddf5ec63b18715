"""`interlace run --cluster FILE` (docs/cluster.md) without the transpiler: the size
and each rank's host and program come from the description, external ZRLMPI ranks are
not started but described, the udp peer list reaches the others, per-rank variants of
a built program and directories of variants run the right program on each rank,
variants in C are built once and cached, and bad input is refused naming the value."""
from __future__ import annotations

import json
import os
import re
import stat
import sys

import pytest

from conftest import installed_script, run_interlace

PRINT_ENV = ("import os, sys; e = os.environ; print('R', e['INTERLACE_RANK'], e['INTERLACE_SIZE'], "
             "e.get('INTERLACE_FABRIC', '-'), e.get('INTERLACE_UDP_PEERS', '-'), "
             "e.get('INTERLACE_ZRLMPI_RANKS', '-'), e['INTERLACE_HOST'], sys.argv[1:])")


def rows(stdout: str) -> dict[int, list[str]]:
    out = {}
    for line in stdout.splitlines():
        if line.startswith("R "):
            f = line.split(maxsplit=7)
            out[int(f[1])] = f[2:]
    return out


def desc(tmp_path, obj, name="cluster.json"):
    p = tmp_path / name
    p.write_text(json.dumps(obj))
    return p


def script(path, body):
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_size_and_kinds_come_from_the_description(tmp_path):
    c = desc(tmp_path, {"nodes": {"cpu": [0], "fpga": [1, 2, 3]},
                        "config": {"com_opt": 3, "mem_opt": 0}})
    r = run_interlace("run", "--cluster", c, sys.executable, "-c", PRINT_ENV, "x")
    assert r.returncode == 0, r.stderr
    got = rows(r.stdout)
    assert sorted(got) == [0, 1, 2, 3]
    assert all(v[0] == "4" and v[1] == "-" and v[5] == "['x']" for v in got.values())
    # -n may be given; it must agree
    r = run_interlace("run", "-n", 4, "--cluster", c, sys.executable, "-c", PRINT_ENV)
    assert r.returncode == 0 and len(rows(r.stdout)) == 4, r.stderr


def test_n_that_contradicts_the_description_is_refused(tmp_path):
    c = desc(tmp_path, {"nodes": {"cpu": [0], "fpga": [1, 2, 3]}})
    r = run_interlace("run", "-n", 3, "--cluster", c, sys.executable, "-c", "pass")
    assert r.returncode == 2
    assert f"-n 3 contradicts {c}, which describes 4 ranks (0: cpu, 1-3: fpga)" in r.stderr


def test_bad_description_exits_2_naming_file_and_value(tmp_path):
    c = desc(tmp_path, {"nodes": {"cpu": [0], "fpga": [2]}})
    r = run_interlace("run", "--cluster", c, sys.executable, "-c", "pass")
    assert r.returncode == 2
    assert f"{c}: rank 1 is missing" in r.stderr
    r = run_interlace("run", "--cluster", tmp_path / "none.json", sys.executable, "-c", "pass")
    assert r.returncode == 2 and "none.json: cannot read" in r.stderr


@pytest.mark.parametrize("args, words", [
    (["-n", "1", "--cluster", "{c}", "true", ":", "-n", "1", "true"], "':' program groups"),
    (["--cluster", "{c}", "--hosts", "a,b", "true"], "does not combine with --hosts"),
    (["--cluster", "{c}", "--devices", "1", "true"], "does not combine with --devices"),
    (["-DDIM=4", "true"], "go with --cluster"),
    (["--build-dir", "/tmp", "true"], "go with --cluster"),
])
def test_option_combinations_that_make_no_sense(tmp_path, args, words):
    c = desc(tmp_path, {"nodes": {"cpu": [0, 1]}})
    r = run_interlace("run", *[a.format(c=c) for a in args])
    assert r.returncode == 2 and words in r.stderr, r.stderr


def test_external_zrlmpi_ranks_are_described_not_started(tmp_path):
    c = desc(tmp_path, {"nodes": {"cpu": [0, 1], "fpga": [2, 3]},
                        "ranks": {"2": {"external": "zrlmpi", "host": "127.0.0.1"}}})
    r = run_interlace("run", "--cluster", c, sys.executable, "-c", PRINT_ENV, "arg")
    assert r.returncode == 0, r.stderr
    got = rows(r.stdout)
    assert sorted(got) == [0, 1, 3]  # rank 2 is started elsewhere
    peers = ",".join(f"127.0.0.1:{2718 + i}" for i in range(4))  # ZRLMPI's port convention
    for v in got.values():
        assert v[:4] == ["4", "udp", peers, "2"]
    assert "rank 2 is an external ZRLMPI node (fpga, 127.0.0.1:2720)" in r.stderr
    # ZRLMPI's argv: <prog> udp <own address> <size> <own rank> <the others in rank order> ARGS
    assert re.search(r"<zrlmpi-program> udp 127\.0\.0\.1 4 2 127\.0\.0\.1 127\.0\.0\.1 "
                     r"127\.0\.0\.1 -c .* arg", r.stderr), r.stderr


def test_external_ranks_need_udp(tmp_path):
    c = desc(tmp_path, {"nodes": {"cpu": [0], "fpga": [1]}, "fabric": "tcp",
                        "ranks": {"1": {"external": "zrlmpi", "host": "127.0.0.1"}}})
    r = run_interlace("run", "--cluster", c, "true")
    assert r.returncode == 2
    assert "ZRLMPI nodes (rank 1) speak udp, but ranks 0-1 ask for fabric 'tcp'" in r.stderr


def test_ranks_asking_for_different_fabrics_are_named(tmp_path):
    c = desc(tmp_path, {"nodes": {"cpu": ["0-3"]}, "fabric": "shm",
                        "ranks": {"2-3": {"fabric": "tcp"}}})
    r = run_interlace("run", "--cluster", c, "true")
    assert r.returncode == 2
    assert "ranks 0-1: 'shm'; ranks 2-3: 'tcp'" in r.stderr and "one fabric" in r.stderr


def test_job_fabric_and_unknown_fabric(tmp_path):
    c = desc(tmp_path, {"nodes": {"cpu": [0, 1]}, "fabric": "tcp"})
    r = run_interlace("run", "--cluster", c, sys.executable, "-c", PRINT_ENV)
    assert r.returncode == 0, r.stderr
    assert {v[1] for v in rows(r.stdout).values()} == {"tcp"}
    c = desc(tmp_path, {"nodes": {"cpu": [0, 1]}, "fabric": "carrier-pigeon"})
    r = run_interlace("run", "--cluster", c, "true")
    assert r.returncode == 2 and "unknown fabric 'carrier-pigeon'" in r.stderr


def test_hosts_per_rank(tmp_path):
    c = desc(tmp_path, {"nodes": {"cpu": [0, 1, 2]}, "hosts": ["localhost", "localhost",
                                                               "127.0.0.1"]})
    r = run_interlace("run", "--cluster", c, sys.executable, "-c", PRINT_ENV)
    assert r.returncode == 0, r.stderr
    assert [rows(r.stdout)[i][4] for i in range(3)] == ["localhost", "localhost", "127.0.0.1"]


def test_per_rank_variants_of_a_built_program(tmp_path):
    script(tmp_path / "main", 'echo "R $INTERLACE_RANK main $*"')
    script(tmp_path / "accel", 'echo "R $INTERLACE_RANK accel $*"')
    c = desc(tmp_path, {"nodes": {"cpu": [0], "fpga": [1, 2]}, "ranks": {"2": {"variant": "accel"}}})
    r = run_interlace("run", "--cluster", c, tmp_path / "main", "a1")
    assert r.returncode == 0, r.stderr
    assert sorted(r.stdout.split("\n")[:-1]) == ["R 0 main a1", "R 1 main a1", "R 2 accel a1"]
    c = desc(tmp_path, {"nodes": {"cpu": [0, 1]}, "ranks": {"1": {"variant": "nope"}}})
    r = run_interlace("run", "--cluster", c, tmp_path / "main")
    assert r.returncode == 2
    assert f"rank 1's variant 'nope' is {tmp_path / 'nope'}, which does not exist" in r.stderr


def test_directory_of_variants(tmp_path):
    d = tmp_path / "variants"
    d.mkdir()
    script(d / "cpu", 'echo "R $INTERLACE_RANK cpu"')
    script(d / "acc", 'echo "R $INTERLACE_RANK acc"')
    (d / "ranks.json").write_text(json.dumps({"0": "cpu", "1": "acc", "2": "acc"}))
    c = desc(tmp_path, {"nodes": {"cpu": [0], "fpga": [1, 2]}, "ranks": {"1": {"variant": "cpu"}}})
    r = run_interlace("run", "--cluster", c, d)
    assert r.returncode == 0, r.stderr
    # the description's variant wins over ranks.json
    assert sorted(r.stdout.split("\n")[:-1]) == ["R 0 cpu", "R 1 cpu", "R 2 acc"]
    (d / "ranks.json").unlink()
    r = run_interlace("run", "--cluster", c, d)
    assert r.returncode == 2 and "rank 0 has no variant" in r.stderr


C_VARIANT = """#include <mpi.h>
#include <stdio.h>
#include "greeting.h"
int main(int argc, char **argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  printf("R %d %s %d\\n", rank, GREETING, VALUE);
  MPI_Finalize();
  return 0;
}
"""


def test_c_variants_are_built_once_and_cached(tmp_path):
    if installed_script("interlace-cc") is None:
        pytest.skip("interlace-cc is not installed")
    d = tmp_path / "variants"
    d.mkdir()
    (d / "hello.c").write_text(C_VARIANT)
    (d / "greeting.h").write_text('#define GREETING "hi"\n')
    (d / "ranks.json").write_text(json.dumps({"0": "hello", "1": "hello"}))
    c = desc(tmp_path, {"nodes": {"cpu": [0], "fpga": [1]}})
    cache = tmp_path / "cache"

    def run(*extra):
        r = run_interlace("run", "--cluster", c, "--build-dir", cache, *extra, d, timeout=120)
        assert r.returncode == 0, r.stderr
        return sorted(r.stdout.split("\n")[:-1])

    def built():
        return sorted(p for p in cache.glob("*/hello"))

    assert run("-DVALUE=1") == ["R 0 hi 1", "R 1 hi 1"]
    first = built()
    assert len(first) == 1  # one variant, built once for both ranks
    mtime = first[0].stat().st_mtime_ns
    assert run("-DVALUE=1") == ["R 0 hi 1", "R 1 hi 1"]
    assert built() == first and first[0].stat().st_mtime_ns == mtime  # from the cache
    assert run("-D", "VALUE=2") == ["R 0 hi 2", "R 1 hi 2"]  # another define: another build
    assert len(built()) == 2
    (d / "greeting.h").write_text('#define GREETING "ho"\n')  # a header counts too
    assert run("-DVALUE=2") == ["R 0 ho 2", "R 1 ho 2"]
    assert len(built()) == 3
    assert not list(cache.glob("tmp-*"))


def test_c_variant_that_does_not_compile_exits_1_with_the_compiler_message(tmp_path):
    if installed_script("interlace-cc") is None:
        pytest.skip("interlace-cc is not installed")
    d = tmp_path / "variants"
    d.mkdir()
    (d / "bad.c").write_text("int main(void) { return undefined_thing; }\n")
    (d / "ranks.json").write_text(json.dumps({"0": "bad"}))
    c = desc(tmp_path, {"nodes": {"cpu": [0]}})
    r = run_interlace("run", "--cluster", c, "--build-dir", tmp_path / "cache", d, timeout=120)
    assert r.returncode == 1
    assert "building variant 'bad' failed" in r.stderr and "undefined_thing" in r.stderr


def test_help_mentions_cluster():
    r = run_interlace("run", "--help")
    assert r.returncode == 0
    assert "--cluster FILE" in r.stdout and "docs/cluster.md" in r.stdout
