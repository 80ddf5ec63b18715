"""What bench/run_tasks.py and bench/run_nbody.py share: the placement probe around
every run, waiting for the machine to go quiet, launching under `interlace run` and
under Open MPI's mpirun, and saving the raw runs (bench/results/, git-ignored)."""
from __future__ import annotations

import datetime
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_p2p import QUIET, cpu_snapshot, others_share, wait_quiet  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
PROBE_SRC = Path("/work/shared/tools/placement-probe.c")
OMPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
            "OMPI_MCA_rmaps_base_oversubscribe": "1"}


def build_probe(work: Path) -> Path | None:
    exe = work / "placement-probe"
    if PROBE_SRC.exists() and not exe.exists():
        work.mkdir(parents=True, exist_ok=True)
        subprocess.run(["cc", "-O2", "-o", str(exe), str(PROBE_SRC)], check=True)
    return exe if exe.exists() else None


def probe(exe: Path | None) -> str:
    if exe is None:
        return "unknown"
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.split()
    return out[0] if float(out[1]) <= 350 else "busy"


def interlace_cmd(ranks: int, argv: list, fabric: str = "shm") -> list:
    return [sys.executable, "-m", "interlace", "run", "-n", str(ranks), "--bind-to", "none", "--fabric", fabric] + [str(a) for a in argv]


def ompi_cmd(ranks: int, argv: list) -> list:
    return ["mpirun.openmpi", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none",
            "-n", str(ranks)] + [str(a) for a in argv]


def base_env(extra: dict | None = None) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("INTERLACE_")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "python"), env.get("PYTHONPATH")]))
    env.update(OMPI_ENV)
    env.update(extra or {})
    return env


def measured_run(cmd: list, env: dict, probe_exe, quiet_wait: float, timeout: float = 600) -> dict:
    """Runs cmd once between two probes; returns its stdout and the run's labels."""
    wait_quiet(quiet_wait)
    before = probe(probe_exe)
    snap, t0 = cpu_snapshot(), time.time()
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
    wall = time.time() - t0
    share = others_share(snap, cpu_snapshot(), wall)
    after = probe(probe_exe)
    if r.returncode != 0:
        sys.exit(f"{' '.join(map(str, cmd))} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
    placement = before if before == after else "mixed"
    return {"stdout": r.stdout, "placement": placement, "others": round(share, 3),
            "busy": share > QUIET, "wall": round(wall, 3)}


def parse_kv(line: str) -> dict:
    """`name k=v k=v ...` -> {k: v} with numbers converted."""
    out = {}
    for tok in line.split()[1:]:
        if "=" not in tok:
            continue
        k, v = tok.split("=", 1)
        try:
            out[k] = int(v)
        except ValueError:
            try:
                out[k] = float(v)
            except ValueError:
                out[k] = v
    return out


def save(kind: str, payload: dict) -> Path:
    out = REPO / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{kind}-{datetime.datetime.now():%Y%m%d-%H%M%S}.json"
    path.write_text(json.dumps(payload, indent=1))
    return path


def machine() -> str:
    model = ""
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{os.cpu_count()} CPUs ({model}), load average {os.getloadavg()[0]:.1f}"
