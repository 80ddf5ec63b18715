"""What `pip install .` puts into the environment: a user program builds in one
line with interlace-c++, with pkg-config and with CMake's find_package, and
runs without LD_LIBRARY_PATH; `interlace config`/`info` report the install."""
from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO, installed_script, launcher_env, run_interlace

PROGRAM = r"""
#include <cstdio>
#include <interlace/core/datatype.hpp>
int main() {
  std::printf("int64=%zu float16=%zu\n",
              interlace::datatype_size(interlace::Datatype::int64),
              interlace::datatype_size(interlace::Datatype::float16));
}
"""
EXPECTED = "int64=8 float16=2"
# Every C compatibility header (installed in <prefix>/include/interlace/compat/).
C_API_HEADERS = ("mpi.h", "shmem.h", "shmemx.h", "smi.h", "ompif.h", "nanos6/distributed.h")
C_API_PROGRAM = "".join(f"#include <{h}>\n" for h in C_API_HEADERS) + \
    "int main(void) { return 0; }\n"

try:
    from interlace import _paths
    PREFIX = _paths.prefix()
except Exception as e:  # not installed: nothing here can be checked
    PREFIX = None
    WHY = str(e)

needs_install = pytest.mark.skipif(PREFIX is None, reason="interlace is not pip-installed "
                                   "(run `make install`)")


def clean_env() -> dict:
    env = launcher_env()
    env.pop("LD_LIBRARY_PATH", None)  # the programs must find the library by rpath
    return env


def sh(cmd: str, cwd: Path, env=None) -> subprocess.CompletedProcess:
    r = subprocess.run(cmd, shell=True, cwd=cwd, capture_output=True, text=True,
                       env=env or clean_env(), timeout=240)
    assert r.returncode == 0, f"{cmd}\n{r.stdout}\n{r.stderr}"
    return r


@pytest.fixture
def program(tmp_path) -> Path:
    (tmp_path / "hello.cpp").write_text(PROGRAM)
    return tmp_path


def test_pyproject_version_matches_cmake():
    cmake = (REPO / "CMakeLists.txt").read_text()
    py = (REPO / "pyproject.toml").read_text()
    v_cmake = re.search(r"project\(interlace VERSION ([0-9.]+)", cmake).group(1)
    v_py = re.search(r'^version = "([^"]+)"', py, re.M).group(1)
    assert v_cmake == v_py


def compat_headers() -> list[str]:
    """The C compatibility headers of the source tree: include/*.h and include/nanos6/."""
    inc = REPO / "include"
    names = sorted(p.relative_to(inc).as_posix() for p in inc.glob("*.h"))
    names += sorted(p.relative_to(inc).as_posix() for p in (inc / "nanos6").glob("*.h"))
    assert set(C_API_HEADERS) <= set(names), names
    return names


@needs_install
def test_install_layout():
    lib = _paths.libdir()
    assert (lib / "libinterlace.so").exists()
    assert (_paths.includedir() / "interlace" / "core" / "datatype.hpp").is_file()
    # mpi.h, shmem.h, ... in a private directory, as Open MPI's and MPICH's are:
    # <prefix>/include is on other builds' path (a pyenv Python's CPPFLAGS), where
    # they would hide another MPI's or OpenSHMEM's headers.
    compat = _paths.compat_includedir()
    assert compat == _paths.includedir() / "interlace" / "compat"
    for name in compat_headers():
        assert (compat / name).is_file(), name
        assert not (_paths.includedir() / name).exists(), name
    assert not (_paths.includedir() / "nanos6").exists()
    assert (_paths.cmake_dir() / "interlaceConfig.cmake").is_file()
    assert (_paths.pkgconfig_dir() / "interlace.pc").is_file()
    import interlace._core as core
    assert core.version() == __import__("interlace").__version__


@needs_install
def test_builds_with_the_compiler_wrapper(program):
    cxx = installed_script("interlace-c++")
    assert cxx, "interlace-c++ console script missing"
    sh(f"{cxx} hello.cpp -o hello", program)
    assert sh("./hello", program).stdout.strip() == EXPECTED


@needs_install
def test_wrapper_showme_prints_the_command():
    cxx = installed_script("interlace-c++")
    r = subprocess.run([cxx, "--showme", "x.cpp"], capture_output=True, text=True)
    assert r.returncode == 0
    words = shlex.split(r.stdout)
    assert f"-I{_paths.compat_includedir()}" in words and f"-I{_paths.includedir()}" in words
    assert "-linterlace" in words
    r = subprocess.run([installed_script("interlace-cc"), "--showme", "-c", "x.c"],
                       capture_output=True, text=True)
    assert "-linterlace" not in r.stdout  # compile only: no link flags


@needs_install
def test_builds_with_pkg_config(program):
    if not shutil.which("pkg-config"):
        pytest.skip("pkg-config not installed")
    env = clean_env()
    env["PKG_CONFIG_PATH"] = str(_paths.pkgconfig_dir())
    sh("c++ -std=c++20 hello.cpp -o hello $(pkg-config --cflags --libs interlace)", program, env)
    assert sh("./hello", program).stdout.strip() == EXPECTED


@needs_install
def test_builds_with_cmake_find_package(program):
    if not shutil.which("cmake"):
        pytest.skip("cmake not installed")
    (program / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.18)\n"
        "project(hello C CXX)\n"
        "find_package(interlace 0.1 REQUIRED)\n"
        "add_executable(hello hello.cpp capi.c)\n"
        "target_link_libraries(hello PRIVATE interlace::interlace)\n")
    # The C API's headers come through the target's include directories too.
    (program / "capi.c").write_text(C_API_PROGRAM.replace("int main(void)",
                                                          "int capi_unused(void)"))
    gen = "-G Ninja" if shutil.which("ninja") else ""
    prefix = run_interlace("config", "--cmake-prefix").stdout.strip()
    assert prefix == str(PREFIX)
    sh(f"cmake -S . -B b {gen} -DCMAKE_PREFIX_PATH={prefix} && cmake --build b", program)
    assert sh("./b/hello", program).stdout.strip() == EXPECTED


@needs_install
def test_config_flags():
    cflags = run_interlace("config", "--cflags").stdout.split()
    libs = run_interlace("config", "--libs").stdout
    assert cflags == [f"-I{_paths.compat_includedir()}", f"-I{_paths.includedir()}", "-pthread"]
    inc = run_interlace("config", "--includedir").stdout.strip()
    assert inc == str(_paths.includedir())
    compat = run_interlace("config", "--compat-includedir").stdout.strip()
    assert compat == str(_paths.compat_includedir()) and (Path(compat) / "mpi.h").is_file()
    assert "-linterlace" in libs and f"-L{_paths.libdir()}" in libs
    r = run_interlace("config")
    assert r.returncode == 2  # one of the flags is required


@needs_install
def test_builds_c_api_program_with_pkg_config(tmp_path):
    if not shutil.which("pkg-config"):
        pytest.skip("pkg-config not installed")
    env = clean_env()
    env["PKG_CONFIG_PATH"] = str(_paths.pkgconfig_dir())
    cflags = shlex.split(sh("pkg-config --cflags interlace", tmp_path, env).stdout)
    # The .pc file is relocatable: its paths go through ${pcfiledir}/../..
    dirs = [Path(f[2:]).resolve() for f in cflags if f.startswith("-I")]
    assert dirs == [_paths.compat_includedir().resolve(), _paths.includedir().resolve()], cflags
    (tmp_path / "capi.c").write_text(C_API_PROGRAM)
    sh("cc capi.c -o capi $(pkg-config --cflags --libs interlace)", tmp_path, env)
    sh("./capi", tmp_path)


def foreign_header(compiler: list[str], header: str, inc: Path, cwd: Path) -> str:
    """The file `#include <header>` resolves to when `compiler` gets -I<inc>, as a
    pyenv Python's CPPFLAGS give it to every C build; "" where none is found."""
    (cwd / "probe.c").write_text(f"#include <{header}>\n")
    r = subprocess.run([*compiler, f"-I{inc}", "-H", "-fsyntax-only", "probe.c"], cwd=cwd,
                       capture_output=True, text=True, timeout=120, env=clean_env())
    first = [l for l in r.stderr.splitlines() if l.startswith(". ")]
    return first[0][2:].strip() if first else ""


@needs_install
def test_prefix_include_on_the_path_does_not_hide_another_mpi_or_shmem(tmp_path):
    """Open MPI's and MPICH's wrappers put their own -I after the user's, so an mpi.h or
    shmem.h directly in <prefix>/include would win over theirs for anyone with
    <prefix>/include in CPPFLAGS (mpi4py built with mpicc.openmpi in a pyenv Python)."""
    inc = _paths.includedir()
    for header in C_API_HEADERS:
        found = foreign_header(["cc"], header, inc, tmp_path)
        assert not found.startswith(str(inc) + "/"), (header, found)
        # The same lookup with the wrappers' flags finds ours: the probe can fail.
        found = foreign_header(["cc", f"-I{_paths.compat_includedir()}"], header, inc,
                               tmp_path)
        assert found == str(_paths.compat_includedir() / header), (header, found)
    for wrapper, header, ours in (("mpicc.openmpi", "mpi.h", "OMPI_MAJOR_VERSION"),
                                  ("oshcc", "shmem.h", "OSHMEM_MAJOR_VERSION")):
        if shutil.which(wrapper) is None:
            continue
        found = foreign_header([wrapper], header, inc, tmp_path)
        assert found and not found.startswith(str(inc) + "/"), (wrapper, found)
        assert ours in Path(found).read_text(), (wrapper, found)


def test_info_shows_version_fabrics_and_configuration():
    pytest.importorskip("interlace._core")
    r = run_interlace("info", env=launcher_env(INTERLACE_EAGER_LIMIT="64k",
                                               INTERLACE_SOMETHING="x"))
    assert r.returncode == 0, r.stderr
    assert re.search(r"^interlace \d+\.\d+\.\d+", r.stdout)
    assert re.search(r"^fabrics: .*shm.*tcp", r.stdout, re.M)
    assert "INTERLACE_EAGER_LIMIT=65536" in r.stdout
    assert "INTERLACE_SOMETHING=x" in r.stdout


def test_info_names_a_bad_setting():
    pytest.importorskip("interlace._core")
    r = run_interlace("info", env=launcher_env(INTERLACE_FABRIC="carrier-pigeon"))
    assert r.returncode == 1
    assert "carrier-pigeon" in r.stdout + r.stderr


def test_info_checks_the_fabric_name_against_the_registry_and_lists_fabric_options():
    pytest.importorskip("interlace._core")
    r = run_interlace("info", env=launcher_env(INTERLACE_FABRIC="infiniband"))
    assert r.returncode == 1
    assert "infiniband" in r.stdout and re.search(r"shm, sim, tcp, (ucx, )?udp", r.stdout), r.stdout
    r = run_interlace("info", env=launcher_env())
    assert r.returncode == 0, r.stderr
    assert re.search(r"^  shm \(host\): ", r.stdout, re.M), r.stdout
    assert re.search(r"^  tcp \(network\): ", r.stdout, re.M), r.stdout
    assert re.search(r"^  sim \(host\): ", r.stdout, re.M), r.stdout
    assert "INTERLACE_SHM_RING_BYTES (default 256k)" in r.stdout


@needs_install
def test_installed_headers_build_a_messaging_program_that_runs_under_the_launcher(tmp_path):
    src = REPO / "examples" / "cpp" / "hello.cpp"
    if not src.exists():
        pytest.skip("examples/cpp/hello.cpp not there")
    sh(f"{installed_script('interlace-c++')} {src} -o hello", tmp_path)
    r = run_interlace("run", "-n", 3, "--timeout", 60, "./hello", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "hello from rank 2 of 3" in r.stdout


def test_extension_uses_the_shared_library_not_a_copy_of_its_own():
    """One libinterlace.so for C, C++ and Python: a static copy in the extension would
    carry registries (fabrics, algorithms) of its own."""
    core = pytest.importorskip("interlace._core")
    if not shutil.which("ldd"):
        pytest.skip("no ldd")
    out = subprocess.run(["ldd", core.__file__], capture_output=True, text=True).stdout
    assert re.search(r"libinterlace\.so\.\d+ => \S+", out), out
