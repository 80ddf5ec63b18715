"""Helpers for the p2p test programs (each program runs on every rank under
`interlace run` and prints one 'OK <name> rank <r>' line per passed section)."""
import interlace

BARRIER_TAG = 32000


_private = {}


def barrier(comm):
    """A plain p2p barrier (the collectives are not this layer's), on a private
    duplicate so wildcard receives of the program never see its messages."""
    if comm.size == 1:
        return
    if comm.id not in _private:
        _private[comm.id] = comm.Dup()
    comm = _private[comm.id]
    if comm.rank == 0:
        for src in range(1, comm.size):
            comm.recv(source=src, tag=BARRIER_TAG)
        for dst in range(1, comm.size):
            comm.send(None, dst, BARRIER_TAG)
    else:
        comm.send(None, 0, BARRIER_TAG)
        comm.recv(source=0, tag=BARRIER_TAG)


def ok(comm, name):
    print(f"OK {name} rank {comm.rank}", flush=True)


def raises(exc, fn, *args, contains=(), **kw):
    """Calls fn and returns the exception, which must be `exc` and whose
    message must name every string in `contains`."""
    try:
        fn(*args, **kw)
    except exc as e:
        for s in contains:
            assert str(s) in str(e), f"{type(e).__name__} message {str(e)!r} lacks {s!r}"
        return e
    raise AssertionError(f"{getattr(fn, '__name__', fn)}{args} did not raise {exc.__name__}")
