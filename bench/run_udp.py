#!/usr/bin/env python3
"""Issue 11's network comparison: interlace's udp fabric against its tcp fabric and
Open MPI's TCP BTL, two ranks in two network namespaces joined by a veth pair, with
0%, 1% and 10% of the packets on the link dropped at random by nftables.

  sudo bench/run_udp.py [--rounds 5] [--loss 0,1,10] [--only tcp,udp,ompi] [--one-way]

Every run is bench/net_pingpong.c (latency at 8 B and 1 KiB, windowed bandwidth at
64 KiB and 1 MiB), built with interlace-cc and with mpicc.openmpi. Runs are interleaved
(per round: every loss level, and within it every implementation) and bracketed by the
placement probe (/work/shared/tools/placement-probe.c); a run whose probes disagree is
"mixed", one during which other processes used more than 10% of the CPUs "disturbed";
both stay in the JSON but out of the tables unless asked for. Writes
bench/results/udp-<date>.json and prints the tables (bench/udp_report.py).
Needs root (namespaces, nftables). The namespaces are removed on exit.
"""
import argparse
import atexit
import datetime
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import udp_report  # noqa: E402
from netns_link import IFACE, Link  # noqa: E402
from p2p_report import machine_info  # noqa: E402
from run_p2p import QUIET, cpu_snapshot, others_share, wait_quiet  # noqa: E402

REPO = HERE.parent
PROBE_SRC = Path("/work/shared/tools/placement-probe.c")
BUSY_NS = 350
OMPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}


def sh(cmd, **kw):
    print("+", " ".join(map(str, cmd)), file=sys.stderr)
    return subprocess.run([str(c) for c in cmd], check=True, **kw)


def tool(name):
    """A console script of the Python that runs this driver (a venv's interlace-cc),
    else the one on PATH."""
    local = Path(sys.executable).parent / name
    return str(local) if local.exists() else shutil.which(name)


def build(work: Path, want):
    work.mkdir(parents=True, exist_ok=True)
    sh(["cc", "-O2", "-o", work / "placement-probe", PROBE_SRC])
    src, flags = REPO / "bench/net_pingpong.c", ["-O2", "-Wall", f"-I{REPO / 'bench'}"]
    bins = {"probe": work / "placement-probe"}
    if {"tcp", "udp"} & set(want):
        cc = tool("interlace-cc")
        if cc:
            sh([cc, *flags, "-o", work / "net_pingpong.interlace", src])
            bins["interlace"] = work / "net_pingpong.interlace"
        else:
            print("warning: interlace-cc not found; interlace runs skipped", file=sys.stderr)
    if "ompi" in want:
        if shutil.which("mpicc.openmpi"):
            sh(["mpicc.openmpi", *flags, "-o", work / "net_pingpong.openmpi", src])
            bins["ompi"] = work / "net_pingpong.openmpi"
        else:
            print("warning: mpicc.openmpi missing (apt-get install libopenmpi-dev)", file=sys.stderr)
    return bins


def ompi_agent(work: Path, link: Link) -> Path:
    """mpirun's rsh agent: `agent HOST CMD...` runs CMD in HOST's namespace, so that the
    orted of rank 1 starts on the other side of the link."""
    cases = "\n".join(f"  {a}) ns={ns} ;;" for a, ns in zip(link.addr, link.ns))
    p = work / "ompi-netns-agent.sh"
    # mpirun does not always reap its agent, so the CPU time of the remote daemon and
    # rank would be missing from the driver's children and count as "others": the
    # shell records it (`times`) in a file the driver adds back (agent_cpu).
    p.write_text(f"#!/bin/sh\nhost=$1; shift\ncase \"$host\" in\n{cases}\n"
                 f"  *) echo \"ompi-netns-agent: unknown host $host\" >&2; exit 1 ;;\nesac\n"
                 f"exec ip netns exec \"$ns\" sh -c \"$*; rc=\\$?; times > {work}/agent-cpu.\\$\\$; exit \\$rc\"\n")
    p.chmod(0o755)
    return p


def commands(bins, link: Link, agent: Path, args):
    """name -> argv (run from the root namespace). Each launcher runs in the first
    namespace so that the second reaches its store / daemon over the link."""
    enter = ["ip", "netns", "exec", link.ns[0]]
    prog_args = ["--reps", str(args.reps), "--budget", str(args.budget), "--window", str(args.window),
                 "--window-bytes", str(args.window_bytes), "--deadline", str(args.deadline)]
    cmds = {}
    variants = [("tcp", "tcp", []), ("udp", "udp", [])]
    for spec in args.udp_variant:  # NAME:VAR=VALUE[,VAR=VALUE]
        name, _, settings = spec.partition(":")
        variants.append((name, "udp", [v for v in settings.split(",") if v]))
    for name, fabric, settings in variants:
        if (name in args.only or name not in ("tcp", "udp")) and "interlace" in bins:
            extra = [a for v in args.interlace_env + settings for a in ("-x", v)]
            cmds[name] = enter + [
                sys.executable, "-m", "interlace", "run", "-n", "2",
                "--hosts", ",".join(link.ns), "--rsh", "ip netns exec {host}",
                "--store-addr", link.addr[0], "--fabric", fabric, "--timeout", str(args.timeout - 5),
                "-x", f"INTERLACE_TCP_ADDR={IFACE}", "-x", f"INTERLACE_UDP_ADDR={IFACE}", *extra,
                bins["interlace"], "--label", name, *prog_args]
    if "ompi" in args.only and "ompi" in bins:
        cmds["ompi"] = enter + [
            "mpirun.openmpi", "-np", "2", "--host", ",".join(link.addr), "--bind-to", "none",
            "--mca", "plm_rsh_agent", agent, "--mca", "pml", "ob1", "--mca", "btl", "tcp,self",
            "--mca", "btl_tcp_if_include", IFACE, "--mca", "oob_tcp_if_include", IFACE,
            "--mca", "osc", "^rdma", bins["ompi"], "--label", "ompi", *prog_args]
    return cmds


def agent_cpu(work: Path) -> float:
    """CPU seconds recorded by the agent's shells since the last call (and removes them)."""
    total = 0.0
    for f in work.glob("agent-cpu.*"):
        lines = f.read_text().splitlines()
        if len(lines) >= 2:  # `times`: the shell's own, then its children's "XmY.YYYs XmY.YYYs"
            for field in lines[1].split():
                m, _, sec = field.rstrip("s").partition("m")
                total += float(m) * 60 + float(sec)
        f.unlink()
    return total


def probe(exe):
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=True, timeout=60).stdout.split()
    return ("busy" if float(out[1]) > BUSY_NS else out[0]), float(out[1])


def run_one(argv, timeout):
    env = dict(os.environ, **OMPI_ENV)
    # The launcher forwards every INTERLACE_* variable to the ranks: only ours.
    env = {k: v for k, v in env.items() if not k.startswith("INTERLACE_")}
    try:
        p = subprocess.Popen([str(a) for a in argv], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, start_new_session=True)
    except OSError as e:
        return [], f"cannot start: {e}"
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)  # the launcher's group: ranks under ip netns exec too
        out, err = p.communicate()
        recs = [json.loads(l) for l in out.splitlines() if l.startswith("{")]
        return recs, f"timeout after {timeout}s: {err.strip()[-300:]}"
    recs = [json.loads(l) for l in out.splitlines() if l.startswith("{")]
    return recs, None if p.returncode == 0 else f"exit {p.returncode}: {err.strip()[-400:]}"


def snmp_delta(a, b):
    keys = ("Tcp.OutSegs", "Tcp.RetransSegs", "Udp.OutDatagrams", "Udp.InDatagrams",
            "Udp.RcvbufErrors", "Udp.SndbufErrors")
    return {ns: {k: b[ns].get(k, 0) - a[ns].get(k, 0) for k in keys} for ns in a}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--loss", default="0,1,10", help="loss levels in percent")
    ap.add_argument("--only", default="tcp,udp,ompi")
    ap.add_argument("--one-way", action="store_true",
                    help="drop only packets arriving at rank 1 (default: both directions)")
    ap.add_argument("--offload", action="store_true",
                    help="leave veth segmentation offload on (loss then hits 64 KiB TCP bursts)")
    ap.add_argument("--reps", type=int, default=5, help="repetitions per size in a run")
    ap.add_argument("--budget", type=float, default=0.1, help="seconds per repetition")
    ap.add_argument("--window", type=int, default=8, help="messages in flight (bandwidth)")
    ap.add_argument("--window-bytes", type=int, default=2 << 20, help="bytes in flight at most")
    ap.add_argument("--deadline", type=float, default=5.0,
                    help="seconds per size after which no further repetition starts")
    ap.add_argument("-x", dest="interlace_env", action="append", default=[],
                    help="NAME=VALUE for interlace ranks (e.g. a udp fabric setting)")
    ap.add_argument("--udp-variant", action="append", default=[], metavar="NAME:VAR=VALUE,...",
                    help="one more implementation: the udp fabric with these settings "
                         "(e.g. udp-gbn:INTERLACE_UDP_MODE=gbn)")
    ap.add_argument("--timeout", type=int, default=120, help="seconds per run")
    ap.add_argument("--quiet-wait", type=float, default=20.0)
    ap.add_argument("--include-disturbed", action="store_true")
    ap.add_argument("--work-dir", default=str(REPO / "build-bench/udp"))
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    args.only = [s for s in args.only.split(",") if s]
    try:
        losses = [float(x) for x in args.loss.split(",") if x]
    except ValueError:
        sys.exit(f"run_udp.py: --loss {args.loss!r}: expected percentages such as 0,1,10")
    if not losses or any(not 0 <= x <= 100 for x in losses):
        sys.exit(f"run_udp.py: --loss {args.loss!r}: each level must be within 0-100")
    if os.geteuid() != 0:
        sys.exit("run_udp.py: needs root (ip netns, nft)")
    for t in ("nft", "ip"):
        if not shutil.which(t):
            sys.exit(f"run_udp.py: '{t}' not found (apt-get install nftables iproute2)")

    work = Path(args.work_dir)
    bins = build(work, args.only)
    link = Link(offload=args.offload)
    atexit.register(link.down)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    link.up()
    cmds = commands(bins, link, ompi_agent(work, link), args)
    print("implementations:", ", ".join(cmds), file=sys.stderr)
    out = Path(args.out) if args.out else REPO / "bench/results" / f"udp-{datetime.date.today()}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    runs, t_start = [], time.time()
    setup = {"loss_both_directions": not args.one_way, "offload": args.offload, "reps": args.reps,
             "budget_s": args.budget, "window": args.window, "window_bytes": args.window_bytes,
             "deadline_s": args.deadline, "interlace_env": args.interlace_env,
             "udp_variants": args.udp_variant}

    def save():
        doc = {"date": datetime.datetime.now().isoformat(timespec="seconds"),
               "machine": machine_info(), "setup": setup, "rounds": args.rounds,
               "elapsed_s": round(time.time() - t_start, 1),
               "commands": {k: [str(a) for a in v] for k, v in cmds.items()}, "runs": runs}
        out.write_text(json.dumps(doc, indent=1))
        return doc

    for rnd in range(args.rounds):
        for loss in losses:
            link.set_loss(loss, both=not args.one_way)
            for name, argv in cmds.items():
                wait_quiet(args.quiet_wait)
                n0, s0 = link.counters(), link.snmp()
                before = probe(bins["probe"])
                agent_cpu(work)
                t0, c0 = time.time(), cpu_snapshot()
                recs, err = run_one(argv, args.timeout)
                wall, c1 = time.time() - t0, cpu_snapshot()
                c1 = (c1[0], c1[1] + agent_cpu(work))
                after = probe(bins["probe"])
                others = others_share(c0, c1, wall)
                placement = before[0] if before[0] == after[0] else "mixed"
                disturbed = others > QUIET + 0.02 / max(wall, 0.01)
                n1 = link.counters()
                seen = sum(n1[ns][0] - n0[ns][0] for ns in n1)
                dropped = sum(n1[ns][1] - n0[ns][1] for ns in n1)
                print(f"round {rnd + 1}/{args.rounds} loss {loss:4g}% {name:5} {placement:5} "
                      f"{'DISTURBED ' if disturbed else ''}(probe {before[1]:.0f}/{after[1]:.0f} ns, "
                      f"others {others:4.0%}) dropped {dropped}/{seen} {wall:5.1f}s"
                      + (f"  ERROR {err}" if err else ""), file=sys.stderr)
                runs.append({"round": rnd, "loss_pct": loss, "impl": name, "placement": placement,
                             "probe_ns": [before[1], after[1]], "others_share": round(others, 3),
                             "disturbed": disturbed, "wall_s": round(wall, 2), "error": err,
                             "link_packets": seen, "link_dropped": dropped,
                             "snmp": snmp_delta(s0, link.snmp()), "results": recs})
                save()
    doc = save()
    print(udp_report.markdown(doc, args.include_disturbed))
    print(f"\nraw results: {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
