"""One run of a sweep, as a Ray task executes it: `drape simulate` on the run's resolved scene with
--resume, in a child process that dies with its worker. Bad input and solver failures are final
(exit 2 or 1: the same input fails the same way again); any other end of the child, such as a
SIGKILL, raises RunInterrupted so that Ray retries the task, which resumes from the checkpoint."""
import ctypes
import json
import os
import shutil
import signal
import socket
import subprocess
import time

ATTEMPTS_FILE = ".attempts.json"
PR_SET_PDEATHSIG = 1


class RunInterrupted(RuntimeError):
    """The run's process ended without finishing or failing: Ray retries the task."""


def drape_executable():
    """The drape command: $DRAPE_EXE, else the one installed in this package (drape/bin/drape),
    else the first on PATH."""
    candidates = [os.environ.get("DRAPE_EXE"),
                  os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "drape"),
                  shutil.which("drape")]
    for candidate in candidates:
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    raise FileNotFoundError("the drape command was not found (set DRAPE_EXE, or pip install drape "
                            "on this node)")


try:
    _PRCTL = ctypes.CDLL(None, use_errno=True).prctl
except (OSError, AttributeError):
    _PRCTL = None


def _die_with_parent():
    # Linux: the child gets SIGKILL when the worker that started it dies, so a retried task never
    # runs beside an orphan writing the same folder. Looked up before the fork: the child only
    # makes the call.
    if _PRCTL is not None:
        _PRCTL(PR_SET_PDEATHSIG, signal.SIGKILL)


def read_attempts(run_dir):
    try:
        with open(os.path.join(run_dir, ATTEMPTS_FILE), encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return []


def _write_attempts(run_dir, attempts):
    path = os.path.join(run_dir, ATTEMPTS_FILE)
    tmp = "%s.tmp%d" % (path, os.getpid())
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(attempts, f)
    os.replace(tmp, path)


def command(run_dir, threads, cuda):
    cmd = [drape_executable(), "simulate", os.path.join(run_dir, "scene.json"), "-o", run_dir,
           "--resume", "--quiet", "--threads", str(threads)]
    if cuda:
        cmd += ["--backend", "cuda"]
    return cmd


def run(run_dir, threads, cuda, gpu_ids=()):
    """Runs (or resumes) the run in `run_dir` and returns its outcome: status finished or failed,
    the attempt's wall time, and for a failure the child's one-line error."""
    attempts = read_attempts(run_dir)
    attempt = {"host": socket.gethostname(), "pid": os.getpid(), "threads": threads,
               "gpus": [str(g) for g in gpu_ids], "started": time.time()}
    attempts.append(attempt)
    _write_attempts(run_dir, attempts)
    start = time.monotonic()
    child = subprocess.run(command(run_dir, threads, cuda), stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           preexec_fn=_die_with_parent, check=False)
    attempt["wall_s"] = time.monotonic() - start
    attempt["exit"] = child.returncode
    _write_attempts(run_dir, attempts)
    outcome = {"attempts": len(attempts), "wall_s": attempt["wall_s"], "host": attempt["host"],
               "gpus": attempt["gpus"]}
    if child.returncode == 0:
        return dict(outcome, status="finished")
    lines = [l for l in child.stderr.splitlines() if l.strip()]
    if child.returncode in (1, 2):
        return dict(outcome, status="failed", exit=child.returncode,
                    error=lines[-1] if lines else "drape exited with %d" % child.returncode)
    how = ("killed by signal %d" % -child.returncode if child.returncode < 0
           else "exited with %d" % child.returncode)
    raise RunInterrupted("%s: drape simulate %s (attempt %d)" % (run_dir, how, len(attempts)))


def ray_task(run_dir, threads, cuda):
    """The body of the Ray task: `run` with the GPUs Ray assigned to it (Ray also sets
    CUDA_VISIBLE_DEVICES, which the child inherits)."""
    import ray

    return run(run_dir, threads, cuda, ray.get_gpu_ids())
