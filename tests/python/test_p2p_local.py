"""The parts of the Python p2p API that need no peers: buffer and datatype
interpretation, the exception classes, and a singleton run without a launcher."""
from __future__ import annotations

import builtins
import subprocess
import sys
from pathlib import Path

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("interlace._core", reason="the interlace extension is not built")
import interlace  # noqa: E402
from interlace import _core  # noqa: E402

D = interlace.Datatype


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8", "uint16",
                                   "uint32", "uint64", "float16", "float32", "float64"])
@pytest.mark.parametrize("count", [0, 1, 1000])
def test_numpy_dtype_inferred(dtype, count):
    a = np.zeros(count, dtype)
    assert _core.buffer_info(a) == (D[dtype], count, a.nbytes)


def test_generic_buffers_and_specs():
    assert _core.buffer_info(b"abc") == (D.uint8, 3, 3)
    assert _core.buffer_info(memoryview(bytearray(5))) == (D.uint8, 5, 5)
    assert _core.buffer_info(np.zeros(2, np.complex64)) == (D.bytes, 16, 16)
    assert _core.buffer_info(np.zeros(3, ">i4")) == (D.bytes, 12, 12)  # non-native order
    a = np.zeros(8, np.int32)
    assert _core.buffer_info([a, interlace.INT16]) == (D.int16, 16, 32)
    assert _core.buffer_info([a, 3]) == (D.int32, 3, 12)
    assert _core.buffer_info((a, 2, "float32")) == (D.float32, 2, 8)
    assert _core.buffer_info([a, None, np.dtype("uint64")]) == (D.uint64, 4, 32)
    assert _core.buffer_info([a, np.int8]) == (D.int8, 32, 32)
    assert _core.buffer_info(np.zeros((3, 4), order="F")) == (D.float64, 12, 96)


def test_bfloat16_when_available():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    a = np.zeros(5, ml_dtypes.bfloat16)
    assert _core.buffer_info(a, True) == (D.bfloat16, 5, 10)


@pytest.mark.parametrize("spec,exc,words", [
    (3, TypeError, ["int"]),
    (np.zeros(8)[::2], ValueError, ["not contiguous", "(4,)"]),
    ([np.zeros(2), "int33"], ValueError, ["int33"]),
    ([np.zeros(2), 3], ValueError, ["count 3", "16"]),
    ([np.zeros(3, np.int8), interlace.INT32], ValueError, ["3 bytes", "int32"]),
    ([np.zeros(3), 1, 2, 3], TypeError, ["4 items"]),
    ([np.zeros(3), "x", "int8"], TypeError, ["str"]),
    ([np.zeros(3), 99], ValueError, ["99"]),
    ([np.zeros(3), None, 99], ValueError, ["99"]),
])
def test_bad_buffers_name_the_value(spec, exc, words):
    with pytest.raises(exc) as info:
        _core.buffer_info(spec)
    for w in words:
        assert w in str(info.value)


def test_readonly_receive_buffer():
    with pytest.raises(ValueError, match="read-only.*bytes"):
        _core.buffer_info(b"abc", True)
    ro = np.zeros(3)
    ro.setflags(write=False)
    with pytest.raises(ValueError, match="read-only"):
        _core.buffer_info(ro, True)


def test_exception_hierarchy():
    e = interlace.errors._from_core(int(interlace.ErrorCode.timeout), "timeout: x")
    assert isinstance(e, interlace.Error) and isinstance(e, builtins.TimeoutError)
    assert isinstance(e, RuntimeError) and e.code == interlace.ErrorCode.timeout
    assert str(e) == "timeout: x"
    e = interlace.errors._from_core(int(interlace.ErrorCode.invalid_rank), "bad")
    assert isinstance(e, ValueError) and isinstance(e, interlace.Error)
    assert type(interlace.errors._from_core(10, "")) is interlace.LostPeerError
    assert type(interlace.errors._from_core(9, "")) is interlace.TruncationError
    assert type(interlace.errors._from_core(999, "")) is interlace.Error


def test_status_defaults():
    st = interlace.Status()
    assert (st.Get_source(), st.Get_tag(), st.Get_count(), st.cancelled) == (-1, -1, 0, False)
    st.count = 12
    assert st.Get_count(interlace.INT32) == 3 and st.Get_elements("int16") == 6
    assert "count=12" in repr(st)


def test_constants():
    assert interlace.ANY_SOURCE == -1 and interlace.ANY_TAG == -1
    assert interlace.PROC_NULL == -2 and interlace.TAG_UB == 2**31 - 1
    assert not interlace.COMM_NULL and interlace.COMM_NULL.is_null


@pytest.mark.timeout(60)
def test_singleton_without_launcher(tmp_path):
    prog = tmp_path / "single.py"
    prog.write_text(
        "import interlace, numpy as np\n"
        "c = interlace.init()\n"
        "assert (c.rank, c.size) == (0, 1) and c is interlace.init()\n"
        "c.send({'k': 1}, 0, 3)\n"
        "assert c.recv(source=0, tag=3) == {'k': 1}\n"
        "a = np.arange(10.0); b = np.zeros(10)\n"
        "r = c.Irecv(b, 0, 1); c.Send(a, 0, 1); r.Wait()\n"
        "assert (a == b).all()\n"
        "print('single ok')\n")
    env = {k: v for k, v in __import__("os").environ.items() if not k.startswith("INTERLACE_")}
    proc = subprocess.run([sys.executable, str(prog)], capture_output=True, text=True,
                          timeout=50, env=env, cwd=str(Path(prog).parent))
    assert proc.returncode == 0 and "single ok" in proc.stdout, proc.stderr
