"""SMI's own routing table files, byte for byte in SMI's layout.

SMI's codegen writes, per rank R and QSFP channel C (ports 0..3), two files:
  cks-rankR-channelC  one byte per destination rank (rank order): what the CK_S
                      kernel of channel C does with a packet for that rank:
                      0 = out of its own QSFP, 1 = to its CK_R (the packet is
                      for this rank), 2+i = to the i-th other CK_S of this FPGA
                      (channels in order, skipping C itself).
  ckr-rankR-channelC  two bytes (data, control) per logical port of the SMI
                      program: 0 = to CK_S C (not for this rank, or no such
                      endpoint), 1+i = to the i-th other CK_R, 4+j = to the j-th
                      application endpoint allocated to channel C.
The CK_R tables depend on the program's ports, not on the topology; they are
written for the operations given (SMI's program JSON, "operations"), else for a
program without operations (one logical port, all zero), as SMI's codegen does.
"""
from __future__ import annotations

import json
import os

from .topology import SMI_PORTS, RoutesError, Topology

# Which SMI kernels' FIFOs an operation uses (rendezvous point-to-point, SMI's default).
_USAGE = {
    "push": {"cks_data", "ckr_control"},
    "pop": {"ckr_data", "cks_control"},
    "broadcast": {"cks_data", "cks_control", "ckr_data", "ckr_control"},
    "reduce": {"cks_data", "cks_control", "ckr_data", "ckr_control"},
    "scatter": {"cks_data", "cks_control", "ckr_data", "ckr_control"},
    "gather": {"cks_data", "cks_control", "ckr_data", "ckr_control"},
}


def _other(own: int, target: int) -> int:
    """Index of `target` among the channels other than `own`."""
    return target if target < own else target - 1


def cks_table(topo: Topology, nxt: list[list[int]], rank: int, channel: int) -> bytes:
    out = []
    for dst in range(topo.ranks):
        if dst == rank:
            out.append(1)
            continue
        port = next(p for p, nb in topo.neighbours(rank) if nb == nxt[rank][dst])
        out.append(0 if port == channel else 2 + _other(channel, port))
    return bytes(out)


def load_program(path: str) -> list[tuple[str, int]]:
    """(type, logical port) of each operation of an SMI program JSON."""
    try:
        with open(path, encoding="utf-8") as f:
            obj = json.load(f)
    except OSError as e:
        raise RoutesError(f"{path}: cannot read the SMI program: {e.strerror}") from None
    except json.JSONDecodeError as e:
        raise RoutesError(f"{path}:{e.lineno}:{e.colno}: bad JSON: {e.msg}") from None
    ops = obj.get("operations") if isinstance(obj, dict) else None
    if not isinstance(ops, list):
        raise RoutesError(f"{path}: an SMI program has a list 'operations'")
    out = []
    for i, op in enumerate(ops):
        kind = op.get("type") if isinstance(op, dict) else None
        port = op.get("port") if isinstance(op, dict) else None
        if kind not in _USAGE:
            raise RoutesError(f"{path}: operation {i} has type {json.dumps(kind)} "
                              f"(known: {', '.join(_USAGE)})")
        if isinstance(port, bool) or not isinstance(port, int) or port < 0:
            raise RoutesError(f"{path}: operation {i} has port {json.dumps(port)}")
        out.append((kind, port))
    return out


def ckr_table(ops: list[tuple[str, int]], channel: int) -> bytes:
    ops = sorted(ops, key=lambda o: o[1])
    # SMI hands the CK_R endpoints to channels round-robin, data endpoints first.
    endpoints = [(port, key) for key in ("ckr_data", "ckr_control")
                 for kind, port in ops if key in _USAGE[kind]]
    seen = set()
    for e in endpoints:
        if e in seen:
            raise RoutesError(f"SMI program: logical port {e[0]} has two {e[1]} endpoints")
        seen.add(e)
    mine = endpoints[channel::SMI_PORTS]
    ports = max((p for _, p in ops), default=0) + 1
    out = []
    for port in range(ports):
        for key in ("ckr_data", "ckr_control"):
            if (port, key) not in seen:
                out.append(0)
                continue
            owner = endpoints.index((port, key)) % SMI_PORTS
            out.append(1 + _other(channel, owner) if owner != channel
                       else SMI_PORTS + mine.index((port, key)))
    return bytes(out)


def write_smi_files(topo: Topology, nxt: list[list[int]], out_dir: str,
                    ops: list[tuple[str, int]] | None = None) -> list[str]:
    written = []
    for rank in range(topo.ranks):
        for ch in range(SMI_PORTS):
            for prefix, data in (("cks", cks_table(topo, nxt, rank, ch)),
                                 ("ckr", ckr_table(ops or [], ch))):
                name = os.path.join(out_dir, f"{prefix}-rank{rank}-channel{ch}")
                with open(name, "wb") as f:
                    f.write(data)
                written.append(name)
    return written


def read_cks_files(directory: str, ranks: int) -> list[list[bytes]]:
    """tables[rank][channel], each `ranks` bytes long."""
    tables = []
    for rank in range(ranks):
        row = []
        for ch in range(SMI_PORTS):
            name = os.path.join(directory, f"cks-rank{rank}-channel{ch}")
            try:
                with open(name, "rb") as f:
                    data = f.read()
            except OSError as e:
                raise RoutesError(f"{name}: cannot read SMI's table: {e.strerror}") from None
            if len(data) != ranks:
                raise RoutesError(f"{name}: {len(data)} bytes, want one per rank ({ranks})")
            bad = [i for i, b in enumerate(data) if b > 1 + SMI_PORTS - 1]
            if bad:
                raise RoutesError(f"{name}: entry for rank {bad[0]} is {data[bad[0]]}, "
                                  f"want 0..{SMI_PORTS} (QSFP, CK_R or another CK_S)")
            row.append(data)
        tables.append(row)
    return tables


def has_smi_files(directory: str) -> bool:
    return os.path.exists(os.path.join(directory, "cks-rank0-channel0"))


def smi_step(tables: list[list[bytes]], rank: int, channel: int, dst: int) -> tuple[str, int]:
    """What CK_S `channel` of `rank` does with a packet for dst: ("qsfp", channel),
    ("ckr", channel) or ("cks", other channel)."""
    b = tables[rank][channel][dst]
    if b == 0:
        return "qsfp", channel
    if b == 1:
        return "ckr", channel
    k = b - 2
    return "cks", k if k < channel else k + 1
