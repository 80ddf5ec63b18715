"""The installed compiler wrappers interlace-cc, -c++, -oshcc and -oshc++:
- they work where the Python that installed interlace cannot import it, as in
  pip's isolated build environment (`MPICC=interlace-cc pip install mpi4py`);
- their command is the one python/interlace/wrappers.py builds (`interlace
  cluster` and the source-tree tests use that one);
- bad settings get an error naming the value.
test_packaging.py builds a C++ program with them in the ordinary environment."""
from __future__ import annotations

import json
import shlex
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from conftest import installed_script, launcher_env

try:
    import interlace
    from interlace import _paths, wrappers
    PREFIX = _paths.prefix()
except Exception:  # not installed: nothing here can be checked
    PREFIX = None

pytestmark = pytest.mark.skipif(PREFIX is None or installed_script("interlace-cc") is None,
                                reason="interlace is not pip-installed (run `make install`)")

NAMES = {"interlace-cc": "cc", "interlace-c++": "c++",
         "interlace-oshcc": "cc", "interlace-oshc++": "c++"}

MPI_PROGRAM = r"""
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
  int size = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  printf("size %d\n", size);
  MPI_Finalize();
  return 0;
}
"""

# What pip's build_env.py writes for an isolated build: the sites of the Python
# running pip, and whatever their .pth files add, leave sys.path of every
# Python started inside the build.
SITECUSTOMIZE = """
import os, site, sys
original = sys.path[:]
known = set()
for path in {sites!r}:
    site.addsitedir(path, known_paths=known)
hidden = {{os.path.normcase(p) for p in sys.path[len(original):]}}
sys.path = [p for p in original if os.path.normcase(p) not in hidden]
"""


def isolated_env(tmp_path: Path) -> dict:
    import site
    sites = {*site.getsitepackages(), str(Path(interlace.__file__).resolve().parents[1])}
    sitedir = tmp_path / "pip-build-env-site"
    sitedir.mkdir()
    (sitedir / "sitecustomize.py").write_text(SITECUSTOMIZE.format(sites=sorted(sites)))
    env = launcher_env(PYTHONNOUSERSITE="1", PYTHONPATH=str(sitedir))
    env.pop("LD_LIBRARY_PATH", None)  # the program finds the library by rpath
    # The premise: in there, this Python cannot import interlace.
    r = subprocess.run([sys.executable, "-c", "import interlace"], env=env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode != 0 and "No module named 'interlace'" in r.stderr, r.stderr
    return env


def run(cmd, env, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=240)


def test_interlace_cc_builds_mpi_program_in_pip_isolated_build(tmp_path):
    env = isolated_env(tmp_path)
    (tmp_path / "hello.c").write_text(MPI_PROGRAM)
    b = run([installed_script("interlace-cc"), "hello.c", "-o", "hello"], env, tmp_path)
    assert b.returncode == 0, b.stdout + b.stderr
    # Compile and link separately too, as setuptools does.
    c = run([installed_script("interlace-cc"), "-c", "hello.c", "-o", "hello.o"], env, tmp_path)
    assert c.returncode == 0, c.stdout + c.stderr
    ln = run([installed_script("interlace-cc"), "hello.o", "-o", "hello2"], env, tmp_path)
    assert ln.returncode == 0, ln.stdout + ln.stderr
    for prog in ("./hello", "./hello2"):
        r = run([prog], env, tmp_path)
        assert r.returncode == 0 and r.stdout.strip() == "size 1", r.stdout + r.stderr


# A PEP 517 backend of the project's own (no requirements, so pip needs no index)
# that builds with $MPICC the way setuptools-based packages such as mpi4py do.
BACKEND = """
import os, subprocess, zipfile
HERE = os.path.dirname(os.path.abspath(__file__))

def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    cc = os.environ["MPICC"]
    subprocess.run([cc, "-c", "hello.c", "-o", "hello.o"], cwd=HERE, check=True)
    subprocess.run([cc, "hello.o", "-o", "hello"], cwd=HERE, check=True)
    out = subprocess.run(["./hello"], cwd=HERE, check=True, capture_output=True, text=True)
    name = "mpicc_probe-0.0.0-py3-none-any.whl"
    info = "mpicc_probe-0.0.0.dist-info/"
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w") as z:
        z.writestr(info + "METADATA", "Metadata-Version: 2.1\\nName: mpicc_probe\\nVersion: 0.0.0\\n")
        z.writestr(info + "WHEEL", "Wheel-Version: 1.0\\nGenerator: test\\nRoot-Is-Purelib: true\\n"
                   "Tag: py3-none-any\\n")
        z.writestr("mpicc_probe_output.txt", out.stdout)
        z.writestr(info + "RECORD", "")
    return name
"""


def test_real_pip_isolated_build_with_mpicc_interlace_cc(tmp_path):
    """MPICC=interlace-cc pip wheel <project>, with pip's own build isolation."""
    if subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True).returncode:
        pytest.skip("pip is not available to this Python")
    src = tmp_path / "probe"
    src.mkdir()
    (src / "pyproject.toml").write_text('[build-system]\nrequires = []\n'
                                        'build-backend = "backend"\nbackend-path = ["."]\n')
    (src / "backend.py").write_text(BACKEND)
    (src / "hello.c").write_text(MPI_PROGRAM)
    env = launcher_env(MPICC=installed_script("interlace-cc"), PIP_NO_INDEX="1",
                       PIP_DISABLE_PIP_VERSION_CHECK="1")
    env.pop("LD_LIBRARY_PATH", None)
    env.pop("PYTHONPATH", None)
    r = run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(tmp_path / "out"),
             str(src)], env, tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    (whl,) = (tmp_path / "out").glob("mpicc_probe-*.whl")
    with zipfile.ZipFile(whl) as z:
        assert z.read("mpicc_probe_output.txt").decode().strip() == "size 1"


@pytest.mark.parametrize("name", sorted(NAMES))
def test_every_wrapper_runs_in_pip_isolated_build(name, tmp_path):
    env = isolated_env(tmp_path)
    src = tmp_path / ("x.cpp" if NAMES[name] == "c++" else "x.c")
    src.write_text("#include <mpi.h>\n#include <shmem.h>\nint main(void) { return 0; }\n")
    r = run([installed_script(name), src.name, "-o", "x"], env, tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert run(["./x"], env, tmp_path).returncode == 0


NO_LINK = {"-c", "-E", "-S", "-M", "-MM", "-fsyntax-only"}
ARGS = [
    ["x.c"],
    ["-O2", "x.c", "-o", "x", "-lm"],
    ["-c", "x.c"], ["-E", "x.c"], ["-S", "x.c"], ["-M", "x.c"], ["-MM", "x.c"],
    ["-fsyntax-only", "x.c"],
    ["-std=c++17", "x.cpp"],
    ["--showme", "x.c"],
    ["-DMSG=it's a \"test\"", "", "-o", "out dir/x", "$HOME", "*.c", "a\nb", "-cx"],
    [],
]
COMPILERS = [None, "ccache gcc", "'/opt/my cc/gcc' -m64", 'env "X=a b" gcc\\ x']


@pytest.mark.parametrize("compiler", COMPILERS)
@pytest.mark.parametrize("use_prefix", [False, True])
def test_showme_is_the_python_command(compiler, use_prefix, monkeypatch):
    env = launcher_env()
    if compiler is not None:
        env["INTERLACE_CC"] = env["INTERLACE_CXX"] = compiler
    if use_prefix:
        env["INTERLACE_PREFIX"] = str(PREFIX)
    for var in ("INTERLACE_CC", "INTERLACE_CXX", "INTERLACE_PREFIX"):
        if var in env:
            monkeypatch.setenv(var, env[var])
        else:
            monkeypatch.delenv(var, raising=False)
    for name, lang in NAMES.items():
        for args in ARGS:
            r = run([installed_script(name), "--showme", *args], env)
            assert r.returncode == 0, r.stderr
            py = wrappers.command(lang, [a for a in args if a != "--showme"])
            assert r.stdout == " ".join(map(shlex.quote, py)) + "\n", (name, args)
            links = not NO_LINK.intersection(args)
            assert ("-linterlace" in shlex.split(r.stdout)) == links, (name, args)


def test_arguments_reach_the_compiler_unchanged(tmp_path):
    echo = tmp_path / "echo_args.py"
    echo.write_text("import json, sys\nprint(json.dumps(sys.argv[1:]))\n")
    args = ["-c", "$HOME", "*.c", "it's", "", "a b", "x\ny", "`true`", "-DX=\"q\""]
    env = launcher_env(INTERLACE_CC=f"{shlex.quote(sys.executable)} {shlex.quote(str(echo))}")
    r = run([installed_script("interlace-cc"), *args], env, tmp_path)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == [f"-I{_paths.compat_includedir()}", f"-I{_paths.includedir()}",
                                    "-pthread", *args]


def test_wrapper_found_through_a_symlink(tmp_path):
    link = tmp_path / "bin" / "mycc"
    link.parent.mkdir()
    link.symlink_to(installed_script("interlace-cc"))
    env = launcher_env()
    r = run([str(link), "--showme", "x.c"], env)
    assert r.returncode == 0, r.stderr
    words = shlex.split(r.stdout)
    assert f"-I{_paths.compat_includedir()}" in words and f"-I{_paths.includedir()}" in words
    assert f"-L{_paths.libdir()}" in words


@pytest.mark.parametrize("var, value, code, message", [
    ("INTERLACE_PREFIX", "/nonexistent/prefix", 1,
     "INTERLACE_PREFIX=/nonexistent/prefix has no lib/cmake/interlace/interlaceConfig.cmake"),
    ("INTERLACE_CC", "gcc 'x", 1, "INTERLACE_CC='gcc 'x' cannot be split into words"),
    ("INTERLACE_CC", "gcc \\", 1, "cannot be split into words"),
    ("INTERLACE_CC", "/no/such/cc -O2", 127, "cannot run compiler '/no/such/cc'"),
])
def test_bad_settings_are_named(var, value, code, message, tmp_path):
    env = launcher_env(**{var: value})
    r = run([installed_script("interlace-cc"), "x.c"], env, tmp_path)
    assert r.returncode == code, r.stdout + r.stderr
    assert r.stderr.startswith("interlace-cc: ") and message in r.stderr, r.stderr
    # The Python command reports the same faults as errors, not tracebacks.
    if code == 1:
        py = run([sys.executable, "-c", "import sys; from interlace.wrappers import main_cc; "
                  "sys.exit(main_cc())", "x.c"], env, tmp_path)
        assert py.returncode == 1 and py.stderr.startswith("interlace-cc: "), py.stderr
        assert "Traceback" not in py.stderr


def test_wrapper_without_its_install_names_the_fix(tmp_path):
    copy = tmp_path / "bin" / "interlace-cc"
    copy.parent.mkdir()
    copy.write_bytes(Path(installed_script("interlace-cc")).read_bytes())
    copy.chmod(0o755)
    r = run([str(copy), "x.c"], launcher_env(), tmp_path)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "cannot find the installed interlace C++ library" in r.stderr
    assert "INTERLACE_PREFIX" in r.stderr
