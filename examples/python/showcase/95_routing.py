"""SMI-style routing and the simulated FPGA fabric: a topology with deadlock-free tables
(`interlace routes`), an unmodified MPI program run hop by hop over a ring, and SMI's
latency benchmark on a modelled Stratix 10 bus in virtual time (docs/routing.md,
docs/routing-layer.md, docs/sim.md)."""
import json
import re

TITLE = "Routing and simulation: deadlock-free routes, a routed job, SMI's latency in virtual time"

JACOBI = ("64", "64", "20")  # rows cols iterations
SUMMARY = re.compile(r"\S+: (\d+) ranks, (\d+) links, (\d+) vc\(s\), diameter (\d+)")


def latency_us(out: str) -> float:
    rows = [json.loads(ln) for ln in out.splitlines() if ln.startswith("{")]
    assert rows and "latency_us" in rows[0], out
    return rows[0]["latency_us"]


def run_programs(tools):
    n = max(tools.ranks, 4)
    ring, routes = tools.workdir / "ring.json", tools.workdir / "ring-routes"
    tools.interlace("routes", "topo", "ring", str(n), "-o", ring)
    m = SUMMARY.match(tools.interlace("routes", "gen", ring, "-o", routes).splitlines()[0])
    assert m, "no summary from routes gen"
    checked = tools.interlace("routes", "check", ring, routes).strip().splitlines()[-1]
    assert checked == "ok: correct and deadlock-free", checked
    lines = [f"ring of {m[1]}: {m[2]} links, diameter {m[4]}, {m[3]} virtual channels "
             f"(a dateline); interlace routes check: {checked.split(': ', 1)[1]}"]

    exe = tools.cc("examples/mpi/jacobi2d.c", "-O2", "-lm")
    direct = tools.run(exe, *JACOBI, ranks=n).splitlines()[0]
    routed = tools.interlace("run", "-n", str(n), "--topology", ring, "--routes", routes,
                             exe, *JACOBI).splitlines()[0]
    assert routed == direct, (routed, direct)
    lines.append(f"Jacobi-2D over the routed ring (neighbours only, frames forwarded hop by "
                 f"hop): the same checksum as the direct run")

    bus = tools.workdir / "bus8.json"
    tools.interlace("routes", "topo", "mesh", "8", "-o", bus)
    micro = tools.cc("bench/fidelity/smi_micro.c", "-Ibench/fidelity")
    got = []
    for hops in (1, 4, 7):
        out = tools.interlace("run", "-n", "8", "--fabric", "sim", "--preset", "smi",
                              "--topology", bus, micro, "--mode", "latency", "--peer", str(hops),
                              "--iters", "20")
        got.append(latency_us(out))
    paper = (0.801, 2.896, 5.103)
    shown = ", ".join(f"{h} hop{'s' * (h > 1)} {v:.2f} us" for h, v in zip((1, 4, 7), got))
    worst = max(abs(v / p - 1) for v, p in zip(got, paper))
    assert worst < 0.10, (got, paper)
    lines.append(f"SMI ping-pong on the simulated Stratix 10 bus (virtual time): {shown}; "
                 f"SMI's Table 3 within 10%")
    return lines
