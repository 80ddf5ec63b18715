"""Helpers for the interlace.shmem test programs (each runs on every PE under
`interlace run` and prints one 'OK <section> rank <r>' line per passed section)."""
import interlace


def ok(name):
    print(f"OK {name} rank {interlace.init().rank}", flush=True)  # also after shmem.finalize()


def raises(exc, fn, *args, contains=(), **kw):
    """Calls fn; it must raise `exc` with a message naming every string in `contains`."""
    try:
        fn(*args, **kw)
    except exc as e:
        for s in contains:
            assert str(s) in str(e), f"{type(e).__name__} message {str(e)!r} lacks {s!r}"
        return e
    raise AssertionError(f"{getattr(fn, '__name__', fn)}{args} did not raise {exc.__name__}")
