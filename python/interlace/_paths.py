"""Where `pip install` put the C++ library, headers, CMake package and
pkg-config file: the wheel's data tree, which pip unpacks into the
environment's prefix (sys.prefix for a venv or system install, the user base
for `pip install --user`). INTERLACE_PREFIX overrides the search (e.g. for a
plain `cmake --install` into a prefix of one's choice).
"""
from __future__ import annotations

import os
import site
import sys
from pathlib import Path

_CONFIG = Path("cmake") / "interlace" / "interlaceConfig.cmake"  # under the libdir
_LIBDIRS = ("lib", "lib64")


class NotInstalledError(RuntimeError):
    pass


def _config_under(root: Path) -> Path | None:
    for lib in _LIBDIRS:
        if (root / lib / _CONFIG).is_file():
            return root / lib / _CONFIG
    return None


def _from_metadata() -> Path | None:
    # The installed RECORD lists our data files; locating one of them is exact
    # whatever scheme pip used.
    try:
        from importlib import metadata
        dist = metadata.distribution("interlace")
    except Exception:
        return None
    for f in dist.files or []:
        if f.as_posix().endswith("cmake/interlace/interlaceConfig.cmake"):
            return Path(str(dist.locate_file(f))).resolve()
    return None


def config_file() -> Path:
    """<prefix>/<libdir>/cmake/interlace/interlaceConfig.cmake of the install in use."""
    env = os.environ.get("INTERLACE_PREFIX")
    if env:
        found = _config_under(Path(env))
        if found is None:
            raise NotInstalledError(
                f"INTERLACE_PREFIX={env} has no lib/{_CONFIG}; is interlace installed there?")
        return found
    found = _from_metadata()
    if found is not None and found.is_file():
        return found
    for cand in (sys.prefix, site.getuserbase()):
        found = _config_under(Path(cand))
        if found is not None:
            return found
    raise NotInstalledError(
        "cannot find the installed interlace C++ library (looked in the package "
        f"metadata, {sys.prefix} and {site.getuserbase()}); run `pip install .` in the "
        "interlace source tree, or set INTERLACE_PREFIX")


def prefix() -> Path:
    return config_file().parents[3]


def libdir() -> Path:
    return config_file().parents[2]


def includedir() -> Path:
    return prefix() / "include"


def compat_includedir() -> Path:
    """Where mpi.h, shmem.h and the other C compatibility headers are installed: a
    directory of their own, like Open MPI's and MPICH's, so that a build for another
    MPI or OpenSHMEM with includedir() on its path (a pyenv Python's CPPFLAGS) does not
    pick them up. They include <interlace/...>, so includedir() is needed too."""
    return includedir() / "interlace" / "compat"


def cmake_dir() -> Path:
    return config_file().parent


def pkgconfig_dir() -> Path:
    return libdir() / "pkgconfig"
