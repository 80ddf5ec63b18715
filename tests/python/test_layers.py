"""The layer graph is enforced by the build: each layer compiles against a generated
include root (build/layers/<layer>/) that holds only the public headers of the layers
below it and its own private folder. These checks compile one-line files against those
roots: what crosses the graph must not compile, what follows it must."""
import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("INTERLACE_BUILD_DIR", REPO / "build"))
LAYERS = BUILD / "layers"

pytestmark = pytest.mark.skipif(not LAYERS.is_dir() or not shutil.which("c++"),
                                reason="needs a CMake build tree (make build) and c++")


def compiles(layer: str, include: str) -> bool:
    r = subprocess.run(["c++", "-std=c++20", "-fsyntax-only", "-I", str(LAYERS / layer), "-x", "c++", "-"],
                       input=f'#include "{include}"\nint main() {{}}\n', capture_output=True, text=True)
    return r.returncode == 0


@pytest.mark.parametrize("layer,include", [
    ("coll", "p2p/p2p_engine.hpp"),             # another model's private header
    ("coll", "stream/stream_engine.hpp"),
    ("compat", "stream/stream_engine.hpp"),     # smi.h's layer: stream's public API only
    ("p2p", "interlace/coll/coll.hpp"),         # a layer above
    ("engine", "interlace/groups/comm_state.hpp"),
    ("fabric", "interlace/engine/context.hpp"),
    ("core", "interlace/bootstrap/store.hpp"),
])
def test_a_header_across_the_layer_graph_does_not_compile(layer, include):
    assert not compiles(layer, include), f"{layer} can include {include}"


@pytest.mark.parametrize("layer,include", [
    ("coll", "interlace/p2p/transport.hpp"),
    ("coll", "interlace/groups/comm_state.hpp"),
    ("coll", "coll/executor.hpp"),
    ("compat", "interlace/stream/channel.hpp"),
    ("p2p", "interlace/engine/completion.hpp"),
    ("fabric", "interlace/fabric/registry.hpp"),
])
def test_public_headers_below_and_own_private_headers_compile(layer, include):
    assert compiles(layer, include), f"{layer} cannot include {include}"
