"""The OpenSHMEM C API's names (include/shmem.h, docs/shmem.md):

- every routine of OpenSHMEM 1.5 that interlace implements outside teams and
  collectives, with the names built here from the specification's type tables (not
  from shmem.h's), is an exported symbol of libinterlace, and a C program that takes
  the address of each one compiles and links with `interlace-oshcc` (configure scripts
  test for routines exactly this way);
- the C11 type-generic calls (with and without a context argument) compile, and one
  with an unsupported type does not;
- the C++ overloads of the same generic names compile with `interlace-oshc++`.

The wrappers are those of this source tree, pointed at the build tree ($INTERLACE_BUILD_DIR,
default build/) installed into a private prefix."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO, launcher_env

BUILD = Path(os.environ.get("INTERLACE_BUILD_DIR", REPO / "build"))

# The specification's tables (TYPE, TYPENAME).
RMA = [("float", "float"), ("double", "double"), ("long double", "longdouble"),
       ("char", "char"), ("signed char", "schar"), ("short", "short"), ("int", "int"),
       ("long", "long"), ("long long", "longlong"), ("unsigned char", "uchar"),
       ("unsigned short", "ushort"), ("unsigned int", "uint"), ("unsigned long", "ulong"),
       ("unsigned long long", "ulonglong"), ("int8_t", "int8"), ("int16_t", "int16"),
       ("int32_t", "int32"), ("int64_t", "int64"), ("uint8_t", "uint8"),
       ("uint16_t", "uint16"), ("uint32_t", "uint32"), ("uint64_t", "uint64"),
       ("size_t", "size"), ("ptrdiff_t", "ptrdiff")]
AMO = ["int", "long", "longlong", "uint", "ulong", "ulonglong", "int32", "int64", "uint32",
       "uint64", "size", "ptrdiff"]
EXT_AMO = AMO + ["float", "double"]
BITWISE = ["uint", "ulong", "ulonglong", "int32", "int64", "uint32", "uint64"]
SYNC = ["short", "int", "long", "longlong", "ushort", "uint", "ulong", "ulonglong", "int32",
        "int64", "uint32", "uint64", "size", "ptrdiff"]
SIZES = ["8", "16", "32", "64", "128"]


def with_ctx(names: list[str]) -> list[str]:
    return names + [n.replace("shmem_", "shmem_ctx_", 1) for n in names]


def routine_names() -> list[str]:
    names = ["shmem_init", "shmem_init_thread", "shmem_query_thread", "shmem_finalize",
             "shmem_my_pe", "shmem_n_pes", "shmem_info_get_version", "shmem_info_get_name",
             "shmem_global_exit", "shmem_pe_accessible", "shmem_addr_accessible", "shmem_ptr",
             "start_pes", "_my_pe", "_num_pes",
             "shmem_malloc", "shmem_calloc", "shmem_align", "shmem_realloc", "shmem_free",
             "shmem_malloc_with_hints", "shmalloc", "shfree", "shrealloc", "shmemalign",
             "shmem_ctx_create", "shmem_ctx_destroy", "shmem_fence", "shmem_quiet",
             "shmem_ctx_fence", "shmem_ctx_quiet", "shmem_signal_fetch",
             "shmem_signal_wait_until", "shmem_set_lock", "shmem_clear_lock", "shmem_test_lock",
             "shmem_wait", "shmem_wait_until", "shmem_swap",
             "shmem_clear_cache_inv", "shmem_set_cache_inv", "shmem_clear_cache_line_inv",
             "shmem_set_cache_line_inv", "shmem_udcflush", "shmem_udcflush_line", "shmem_team_ptr"]
    for _, t in RMA:
        names += with_ctx([f"shmem_{t}_{op}" for op in (
            "put", "get", "put_nbi", "get_nbi", "p", "g", "iput", "iget", "put_signal",
            "put_signal_nbi")])
    for s in SIZES + ["mem"]:
        names += with_ctx([f"shmem_put{s}", f"shmem_get{s}", f"shmem_put{s}_nbi",
                           f"shmem_get{s}_nbi", f"shmem_put{s}_signal",
                           f"shmem_put{s}_signal_nbi"])
    for s in SIZES:
        names += with_ctx([f"shmem_iput{s}", f"shmem_iget{s}"])
    for t in EXT_AMO:
        names += with_ctx([f"shmem_{t}_atomic_{op}" for op in (
            "fetch", "set", "swap", "fetch_nbi", "swap_nbi")])
    for t in AMO:
        names += with_ctx([f"shmem_{t}_atomic_{op}" for op in (
            "compare_swap", "fetch_inc", "inc", "fetch_add", "add", "compare_swap_nbi",
            "fetch_inc_nbi", "fetch_add_nbi")])
    for t in BITWISE:
        for op in ("and", "or", "xor"):
            names += with_ctx([f"shmem_{t}_atomic_fetch_{op}", f"shmem_{t}_atomic_{op}",
                               f"shmem_{t}_atomic_fetch_{op}_nbi"])
    for t in ["int", "long", "longlong", "float", "double"]:
        names += [f"shmem_{t}_fetch", f"shmem_{t}_set", f"shmem_{t}_swap"]
    for t in ["int", "long", "longlong"]:
        names += [f"shmem_{t}_{op}" for op in ("cswap", "finc", "inc", "fadd", "add")]
    for t in SYNC:
        names += [f"shmem_{t}_{op}" for op in (
            "wait_until", "wait_until_all", "wait_until_any", "wait_until_some",
            "wait_until_all_vector", "wait_until_any_vector", "wait_until_some_vector",
            "test", "test_all", "test_any", "test_some", "test_all_vector", "test_any_vector",
            "test_some_vector")]
    for t in ["short", "int", "long", "longlong"]:
        names.append(f"shmem_{t}_wait")
    assert len(names) == len(set(names))
    return names


def shmem_built() -> Path:
    lib = BUILD / "libinterlace.so"
    if not lib.exists():
        pytest.fail(f"{lib} is missing: build the tree first (make build)")
    return lib


@pytest.fixture(scope="module")
def prefix(tmp_path_factory) -> Path:
    """The build tree installed where the wrappers look (INTERLACE_PREFIX)."""
    shmem_built()
    out = tmp_path_factory.mktemp("prefix")
    r = subprocess.run(["cmake", "--install", str(BUILD), "--prefix", str(out)],
                       capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, r.stdout + r.stderr
    assert (out / "include" / "interlace" / "compat" / "shmem.h").exists()
    assert not (out / "include" / "shmem.h").exists()  # private, as Open MPI's mpi.h
    return out


def wrapper(name: str, args: list[str], prefix: Path, cwd: Path):
    """Runs this tree's interlace-oshcc/interlace-oshc++ (main_oshcc/main_oshcxx)."""
    entry = {"interlace-oshcc": "main_oshcc", "interlace-oshc++": "main_oshcxx"}[name]
    env = launcher_env(INTERLACE_PREFIX=str(prefix))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "python"),
                                                      env.get("PYTHONPATH")]))
    code = f"import sys; from interlace.wrappers import {entry}; sys.exit({entry}())"
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          timeout=300, cwd=cwd, env=env)


def test_every_routine_is_exported():
    lib = shmem_built()
    if shutil.which("nm") is None:
        pytest.skip("nm is not installed")
    out = subprocess.run(["nm", "-D", "--defined-only", str(lib)], capture_output=True,
                         text=True, timeout=60, check=True).stdout
    exported = {line.split()[-1] for line in out.splitlines() if " T " in line}
    missing = [n for n in routine_names() if n not in exported]
    assert not missing, f"{len(missing)} routines not exported, e.g. {missing[:20]}"
    assert "SHMEM_CTX_DEFAULT" in out


def test_every_routine_links_with_interlace_oshcc(prefix, tmp_path):
    names = routine_names()
    refs = ",\n  ".join(f"(fn){n}" for n in names)
    src = tmp_path / "link.c"
    src.write_text(
        "#include <shmem.h>\n#include <stdio.h>\n"
        "typedef void (*fn)(void);\n"
        f"static fn routines[] = {{\n  {refs}\n}};\n"
        "int main(void) {\n"
        "  const void *ctx = &SHMEM_CTX_DEFAULT;\n"
        "  printf(\"%zu %d\\n\", sizeof routines / sizeof routines[0], ctx != 0);\n"
        "  return 0;\n}\n")
    b = wrapper("interlace-oshcc", ["-std=c11", "-Wall", "-Werror", "-Wno-cast-function-type",
                                    "link.c", "-o", "link"], prefix, tmp_path)
    assert b.returncode == 0, b.stdout + b.stderr[-4000:]
    env = launcher_env()
    env.pop("LD_LIBRARY_PATH", None)  # the wrapper's rpath finds the library
    r = subprocess.run([str(tmp_path / "link")], capture_output=True, text=True, timeout=60,
                       env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == [str(len(names)), "1"]


C11_GENERIC = r"""
#include <shmem.h>
long lv, la[4]; int ia[4]; double dv; float fa[4]; unsigned int ua[2]; short sv;
uint64_t sig; const long clv = 0;
int main(void) {
  shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
  size_t idx[4]; int st[4] = {0}; long cmpv[4] = {0};
  shmem_put(fa, fa, 4, 0); shmem_put(ctx, fa, fa, 4, 0); shmem_put(SHMEM_CTX_DEFAULT, ia, ia, 4, 0);
  shmem_get(la, la, 4, 0); shmem_get(ctx, la, la, 4, 0);
  shmem_put_nbi(ia, ia, 4, 0); shmem_get_nbi(ctx, ia, ia, 4, 0);
  shmem_p(&dv, 1.0, 0); shmem_p(ctx, &lv, 1L, 0);
  long g = shmem_g(&lv, 0) + shmem_g(&clv, 0) + shmem_g(ctx, &clv, 0);
  shmem_iput(ia, ia, 1, 2, 2, 0); shmem_iget(ctx, ia, ia, 2, 1, 2, 0);
  shmem_put_signal(la, la, 4, &sig, 1, SHMEM_SIGNAL_SET, 0);
  shmem_put_signal_nbi(ctx, la, la, 4, &sig, 1, SHMEM_SIGNAL_ADD, 0);
  g += shmem_atomic_fetch(&lv, 0) + shmem_atomic_fetch(ctx, &clv, 0);
  double d = shmem_atomic_fetch(&dv, 0) + shmem_atomic_swap(&dv, 2.0, 0);
  shmem_atomic_set(&dv, 1.0, 0); shmem_atomic_set(ctx, &lv, 1L, 0);
  g += shmem_atomic_compare_swap(&lv, 0L, 1L, 0) + shmem_atomic_fetch_inc(ctx, &lv, 0);
  g += shmem_atomic_fetch_add(&lv, 2L, 0); shmem_atomic_add(ctx, &lv, 2L, 0);
  shmem_atomic_inc(&lv, 0);
  g += shmem_atomic_fetch_and(ua, 1u, 0) + shmem_atomic_fetch_or(ctx, ua, 1u, 0);
  g += shmem_atomic_fetch_xor(&lv, 1L, 0);  /* long is int64_t here */
  shmem_atomic_and(ua, 1u, 0); shmem_atomic_or(ua, 1u, 0); shmem_atomic_xor(ctx, ua, 1u, 0);
  shmem_atomic_fetch_nbi(&lv, &lv, 0); shmem_atomic_fetch_add_nbi(ctx, &lv, &lv, 1L, 0);
  shmem_atomic_compare_swap_nbi(&lv, &lv, 0L, 1L, 0); shmem_atomic_swap_nbi(&dv, &dv, 1.0, 0);
  shmem_atomic_fetch_inc_nbi(&lv, &lv, 0); shmem_atomic_fetch_and_nbi(ua, ua, 1u, 0);
  shmem_atomic_fetch_or_nbi(ua, ua, 1u, 0); shmem_atomic_fetch_xor_nbi(ua, ua, 1u, 0);
  g += shmem_fadd(&lv, 1L, 0) + shmem_finc(&lv, 0) + shmem_cswap(&lv, 0L, 1L, 0);
  g += shmem_swap(&lv, 1L, 0) + shmem_fetch(&lv, 0); shmem_set(&lv, 1L, 0);
  shmem_add(&lv, 1L, 0); shmem_inc(&lv, 0);
  shmem_wait_until(&lv, SHMEM_CMP_EQ, 0); shmem_wait_until(&sv, SHMEM_CMP_NE, 1);
  shmem_wait_until_all(la, 4, st, SHMEM_CMP_GE, 0);
  g += shmem_wait_until_any(la, 4, NULL, SHMEM_CMP_GE, 0);
  g += shmem_wait_until_some(la, 4, idx, st, SHMEM_CMP_GE, 0);
  shmem_wait_until_all_vector(la, 4, st, SHMEM_CMP_GE, cmpv);
  g += shmem_wait_until_any_vector(la, 4, st, SHMEM_CMP_GE, cmpv);
  g += shmem_wait_until_some_vector(la, 4, idx, st, SHMEM_CMP_GE, cmpv);
  g += shmem_test(&lv, SHMEM_CMP_EQ, 0) + shmem_test_all(la, 4, st, SHMEM_CMP_EQ, 0);
  g += shmem_test_any(la, 4, st, SHMEM_CMP_EQ, 0) + shmem_test_some(la, 4, idx, st, SHMEM_CMP_EQ, 0);
  g += shmem_test_all_vector(la, 4, st, SHMEM_CMP_EQ, cmpv);
  g += shmem_test_any_vector(la, 4, st, SHMEM_CMP_EQ, cmpv);
  g += shmem_test_some_vector(la, 4, idx, st, SHMEM_CMP_EQ, cmpv);
  return (int)(g + (long)d);
}
"""

CXX_OVERLOADS = r"""
#include <shmem.h>
long lv, la[4]; double dv; float fa[4]; unsigned int ua[2]; unsigned short us;
int main() {
  shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
  size_t idx[4]; int st[4] = {0};
  shmem_put(fa, fa, 4, 0); shmem_put(ctx, fa, fa, 4, 0); shmem_get(ctx, la, la, 4, 0);
  shmem_p(&dv, 1.0, 0); long g = shmem_g(&lv, 0) + shmem_g(ctx, &lv, 0);
  shmem_iput(la, la, 1, 1, 4, 0); shmem_put_signal(la, la, 4, (uint64_t *)nullptr, 1, 0, 0);
  g += shmem_atomic_fetch_add(&lv, 1L, 0) + shmem_atomic_fetch(ctx, &lv, 0);
  double d = shmem_atomic_swap(&dv, 1.0, 0);
  g += shmem_atomic_fetch_xor(ua, 1u, 0); shmem_atomic_inc(ctx, &lv, 0);
  shmem_atomic_fetch_add_nbi(&lv, &lv, 1L, 0);
  shmem_wait_until(&lv, SHMEM_CMP_EQ, 0L); shmem_wait_until(&us, SHMEM_CMP_EQ, (unsigned short)0);
  g += shmem_test_some(la, 4, idx, st, SHMEM_CMP_EQ, 0L) + shmem_swap(&lv, 1L, 0);
  return static_cast<int>(g + static_cast<long>(d));
}
"""


def test_c11_generic_calls_compile(prefix, tmp_path):
    (tmp_path / "gen.c").write_text(C11_GENERIC)
    b = wrapper("interlace-oshcc", ["-std=c11", "-Wall", "-Wextra", "-Werror", "-c", "gen.c"],
                prefix, tmp_path)
    assert b.returncode == 0, b.stderr[-4000:]


def test_c11_generic_call_of_an_unsupported_type_does_not_compile(prefix, tmp_path):
    (tmp_path / "bad.c").write_text(
        "#include <shmem.h>\nstruct s { int x; } a[2];\n"
        "int main(void) { shmem_put(a, a, 2, 0); return 0; }\n")
    b = wrapper("interlace-oshcc", ["-std=c11", "-c", "bad.c"], prefix, tmp_path)
    assert b.returncode != 0
    assert "shmem_put" in b.stderr or "not a function" in b.stderr, b.stderr


def test_cxx_overloads_compile(prefix, tmp_path):
    (tmp_path / "gen.cpp").write_text(CXX_OVERLOADS)
    b = wrapper("interlace-oshc++", ["-Wall", "-Wextra", "-Werror", "-c", "gen.cpp"], prefix,
                tmp_path)
    assert b.returncode == 0, b.stderr[-4000:]


def test_oshcc_showme_names_the_library(prefix, tmp_path):
    b = wrapper("interlace-oshcc", ["--showme", "prog.c"], prefix, tmp_path)
    assert b.returncode == 0, b.stderr
    words = b.stdout.split()
    assert f"-I{prefix}/include/interlace/compat" in words, b.stdout
    assert f"-I{prefix}/include" in words and "-linterlace" in words, b.stdout
