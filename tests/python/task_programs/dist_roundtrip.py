"""Distributed tasks from Python (run under `interlace run -n P+1`): the host
scatters x, broadcasts a scale, and gathers each device's chunk times the scale
plus its device number; a second task sends to and receives from the last device."""
import sys

import numpy as np

from interlace import tasks

session = tasks.Session()


def scale_chunk(scale, chunk, out, offset):
    assert chunk.shape == out.shape, (chunk.shape, out.shape)
    out[:] = chunk * scale[0] + session.device_index + offset


def negate(src, dst):
    if src is not None:  # only the named device gets the arrays
        dst[:] = -src


def fail(scale):
    if session.device_index == session.num_devices - 1:
        raise ValueError(f"device {session.device_index} refuses")


if session.is_host:
    p = session.num_devices
    x = np.arange(12.0 * p).reshape(4 * p, 3)
    y = np.zeros_like(x)
    session.spawn(scale_chunk, 100, broadcast=np.array([2.0]), scatter=x, gather=y)
    session.taskwait()
    owner = np.repeat(np.arange(p), 4)[:, None]
    assert np.array_equal(y, 2 * x + owner + 100), y
    src, dst = np.arange(5, dtype=np.int32), np.zeros(5, dtype=np.int32)
    session.spawn(negate, send={p - 1: src}, receive={p - 1: dst})
    session.taskwait()
    assert (dst == -src).all(), dst
    session.spawn(fail, broadcast=np.zeros(1))
    try:
        session.taskwait()
        raise SystemExit("a device's exception did not reach taskwait")
    except Exception as e:
        assert f"device {p - 1} refuses" in str(e), e
    if p > 1:  # every size divides by one device
        try:
            session.spawn(scale_chunk, 0, scatter=np.zeros(p * 3 + 1, dtype=np.int8))
            session.taskwait()
            raise SystemExit("a scatter that does not divide was accepted")
        except ValueError as e:
            assert str(p * 3 + 1) in str(e), e
    session.finish()
    print(f"host: round trip over {p} devices OK", flush=True)
else:
    session.serve()
    try:
        session.spawn(scale_chunk)
        raise SystemExit("a device could spawn")
    except Exception as e:
        assert "device" in str(e), e
sys.exit(0)
