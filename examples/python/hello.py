"""Every rank greets rank 0, which prints the greetings in rank order.

    interlace run -n 4 python examples/python/hello.py
prints "hello from rank 1 of 4" ... "hello from rank 3 of 4", then "hello: 4 ranks OK".
"""
import interlace

comm = interlace.init()
if comm.rank == 0:
    greetings = {0: f"hello from rank 0 of {comm.size}"}
    for _ in range(comm.size - 1):
        status = interlace.Status()
        text = comm.recv(source=interlace.ANY_SOURCE, status=status)
        greetings[status.source] = text
    for r in sorted(greetings):
        print(greetings[r])
    assert sorted(greetings) == list(range(comm.size))
    print(f"hello: {comm.size} ranks OK")
else:
    comm.send(f"hello from rank {comm.rank} of {comm.size}", dest=0)
