"""Bad input to the OpenSHMEM C API (docs/shmem.md#errors): PE 0 makes one bad call
while PE 1 is blocked waiting for a value that never comes. The job must end with a
nonzero status within bounded time (shmem_global_exit ends the blocked PE), and the
report must name the routine and the bad value. A last case runs the same program
without a fault and expects success, so a failure is the fault's, not the program's."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from conftest import REPO, run_interlace

BUILD = Path(os.environ.get("INTERLACE_BUILD_DIR", REPO / "build"))
RUN_S = 60

PROGRAM = r"""
#include <shmem.h>
#include <stdio.h>
#include <string.h>
long never = 0, lock = 0, x = 0;
int main(int argc, char **argv) {
  const char *c = argc > 1 ? argv[1] : "ok";
  if (!strcmp(c, "before_init")) return shmem_my_pe();
  shmem_init();
  long *heap = shmem_malloc(64);
  int me = shmem_my_pe(), n = shmem_n_pes();
  if (me == 1) {  /* blocked until the job ends, unless the case is "ok" */
    if (strcmp(c, "ok")) shmem_long_wait_until(&never, SHMEM_CMP_NE, 0);
  } else {
    long local[4] = {1, 2, 3, 4};
    if (!strcmp(c, "pe")) shmem_long_p(heap, 1, n + 3);
    if (!strcmp(c, "nelems")) shmem_long_put(heap, local, (size_t)-3, 1);
    if (!strcmp(c, "cmp")) shmem_long_wait_until(&x, 9, 0);
    if (!strcmp(c, "heap")) shmem_malloc((size_t)8 << 20);
    if (!strcmp(c, "misaligned")) shmem_long_atomic_fetch_add((long *)((char *)heap + 4), 1, 1);
    if (!strcmp(c, "not_symmetric")) shmem_long_put(local, local, 4, 1);
    if (!strcmp(c, "null")) shmem_long_get(NULL, heap, 4, 1);
    if (!strcmp(c, "sig_op")) shmem_long_put_signal(heap, local, 4, (uint64_t *)(heap + 7), 1, 7, 1);
    if (!strcmp(c, "ctx_default")) shmem_ctx_destroy(SHMEM_CTX_DEFAULT);
    if (!strcmp(c, "lock_not_held")) shmem_clear_lock(&lock);
    if (!strcmp(c, "align")) shmem_align(24, 64);
    if (!strcmp(c, "ok")) {
      shmem_long_put(heap, local, 4, 1);
      shmem_set_lock(&lock); shmem_long_atomic_add(&x, 1, 0); shmem_clear_lock(&lock);
      if (shmem_long_g(heap, 0) != heap[0]) return 3;
    }
    if (strcmp(c, "ok")) { printf("no error for %s\n", c); fflush(stdout); return 2; }
  }
  shmem_free(heap);
  shmem_finalize();
  if (me == 0) printf("OK\n");
  return 0;
}
"""

# case -> fragments the report must contain (the routine first)
CASES = {
    "pe": ["shmem_long_p", "PE 5", "out of range"],
    "nelems": ["shmem_long_put", "nelems -3 is negative"],
    "cmp": ["shmem_long_wait_until", "cmp 9"],
    "heap": ["shmem_malloc", "SHMEM_SYMMETRIC_SIZE=1048576"],
    "misaligned": ["shmem_long_atomic_fetch_add", "not aligned"],
    "not_symmetric": ["shmem_long_put", "not symmetric"],
    "null": ["shmem_long_get", "dest is a null pointer"],
    "sig_op": ["shmem_long_put_signal", "sig_op 7"],
    "ctx_default": ["shmem_ctx_destroy", "SHMEM_CTX_DEFAULT cannot be destroyed"],
    "lock_not_held": ["shmem_clear_lock", "is not held"],
    "align": ["shmem_align", "alignment 24 is not a power of two"],
}


@pytest.fixture(scope="module")
def program(tmp_path_factory) -> Path:
    lib = BUILD / "libinterlace.so"
    if not lib.exists():
        pytest.fail(f"{lib} is missing: build the tree first (make build)")
    out = tmp_path_factory.mktemp("shmem_errors")
    (out / "errors.c").write_text(PROGRAM)
    r = subprocess.run(["cc", "-O1", "-std=c11", f"-I{REPO / 'include'}", str(out / "errors.c"),
                        "-o", str(out / "errors"), f"-L{BUILD}", f"-Wl,-rpath,{BUILD}",
                        "-linterlace"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return out / "errors"


def run(program: Path, case: str, n: int = 2):
    return run_interlace("run", "-n", n, "--timeout", RUN_S, program, case,
                         timeout=RUN_S + 30, env=None)


@pytest.mark.timeout(RUN_S + 60)
@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_call_ends_the_job_with_a_report_naming_routine_and_value(program, case,
                                                                       monkeypatch):
    if case == "heap":
        monkeypatch.setenv("SHMEM_SYMMETRIC_SIZE", "1M")
    r = run(program, case)
    out = r.stdout + r.stderr
    assert r.returncode != 0, out
    assert "no error for" not in out, out
    assert "timed out" not in out, out  # ended by the report, not by the launcher's limit
    line = next((ln for ln in out.splitlines() if ln.startswith("interlace shmem: ")), None)
    assert line is not None, out
    for fragment in CASES[case]:
        assert fragment in line, f"{fragment!r} not in {line!r}"
    assert line.startswith(f"interlace shmem: {CASES[case][0]}: "), line


@pytest.mark.timeout(RUN_S + 60)
def test_call_before_init_is_reported(program):
    r = subprocess.run([str(program), "before_init"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "interlace shmem: shmem_my_pe: " in r.stderr and "before shmem_init" in r.stderr


@pytest.mark.timeout(RUN_S + 60)
def test_same_program_without_a_fault_succeeds(program):
    r = run(program, "ok")
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.strip().endswith("OK"), r.stdout
