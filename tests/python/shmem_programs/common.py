"""Helpers for the interlace.shmem test programs (each runs on every PE under
`interlace run` and prints one 'OK <section> rank <r>' line per passed section)."""
import interlace


RANK = interlace.init().rank  # shmem.init() attaches to this runtime


def ok(name):
    print(f"OK {name} rank {RANK}", flush=True)  # also after the finalizes


def raises(exc, fn, *args, contains=(), **kw):
    """Calls fn; it must raise `exc` with a message naming every string in `contains`."""
    try:
        fn(*args, **kw)
    except exc as e:
        for s in contains:
            assert str(s) in str(e), f"{type(e).__name__} message {str(e)!r} lacks {s!r}"
        return e
    raise AssertionError(f"{getattr(fn, '__name__', fn)}{args} did not raise {exc.__name__}")
