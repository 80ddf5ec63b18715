"""interlace: a communication runtime (MPI-style messaging over shared memory
and TCP; streaming, collectives and PGAS are planned).

Names come from submodules; binding modules add their own import lines here.
"""
try:
    from ._build_info import version as __version__
except ImportError:  # source checkout that was never built
    __version__ = "0+unknown"

# The native core is optional so the launcher (pure Python) also works from a
# source checkout; an extension that exists but fails to load still raises.
try:
    from ._core import TcpStoreServer, builtin_fabrics, config_description
    from .errors import *  # noqa: F403  Error, LostPeerError, ... (p2p)
    from .comm import *  # noqa: F403  init, finalize, Comm, Request, Status, ANY_SOURCE, ...
    from .coll import *  # noqa: F403  IN_PLACE, SUM, ..., Op (collective methods live on Comm)
    from . import stream  # noqa: F401  interlace.stream.SendChannel / RecvChannel (SMI)
    from . import tasks  # noqa: F401  interlace.tasks.task / spawn / taskwait (dependencies on arrays)
except ModuleNotFoundError as _e:
    if _e.name != __name__ + "._core":
        raise
