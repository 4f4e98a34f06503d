"""python3 -m drape.batch SWEEP.json [--address ADDR] [--out DIR] [--max-parallel N] [--quiet]

Runs every run of a sweep (see drape.sweep) as a Ray task: locally on a Ray instance of its own,
or on an existing cluster with --address. Each run writes out/NAME/ (scene.json, frames,
stats.json) with --resume semantics, so a retried task continues from its checkpoint; finished
runs are skipped when the sweep is run again. out/manifest.json says how every run went.
Exit codes: 0 all runs finished, 1 some failed, 2 bad sweep (nothing run)."""
import argparse
import json
import os
import shutil
import sys
import time

from . import runner
from .sweep import SweepError, load_sweep, scene_text

MANIFEST = "manifest.json"


def write_atomically(path, text):
    tmp = "%s.tmp%d" % (path, os.getpid())
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def read_summary(run_dir):
    """The stats summary the manifest keeps: strain, vertices inside colliders, self-intersections."""
    try:
        with open(os.path.join(run_dir, "stats.json"), encoding="utf-8") as f:
            summary = json.load(f)["summary"]
    except (OSError, ValueError, KeyError):
        return None
    return {"frames": summary.get("frames"), "max_strain": summary.get("max_strain"),
            "inside": summary.get("max_penetrations"),
            "self_intersections": summary.get("max_self_intersections"),
            "ms_per_frame": summary.get("ms_per_frame")}


class Batch:
    """The runs' folders and the manifest, kept on disk as runs finish."""

    def __init__(self, sweep):
        self.sweep = sweep
        self.entries = {}
        self.started = time.time()
        os.makedirs(sweep.out, exist_ok=True)
        previous = self._previous_manifest()
        for run in sweep.runs:
            run_dir = os.path.join(sweep.out, run.name)
            text = scene_text(run.scene)
            scene_file = os.path.join(run_dir, "scene.json")
            same = os.path.isfile(scene_file) and open(scene_file, encoding="utf-8").read() == text
            entry = {"name": run.name, "overrides": run.overrides, "folder": run_dir,
                     "status": "pending", "attempts": 0, "wall_s": None, "summary": None}
            if same and os.path.isfile(os.path.join(run_dir, "stats.json")):
                entry.update({k: v for k, v in previous.get(run.name, {}).items()
                              if k in ("attempts", "wall_s", "host", "gpus")})
                entry.update(status="finished", skipped=True, summary=read_summary(run_dir))
            else:
                if not same and os.path.isdir(run_dir):
                    shutil.rmtree(run_dir)  # another scene's run: its frames and checkpoint
                os.makedirs(run_dir, exist_ok=True)
                write_atomically(scene_file, text)
                entry["attempts"] = len(runner.read_attempts(run_dir))
            self.entries[run.name] = entry
        self.write()

    def _previous_manifest(self):
        try:
            with open(os.path.join(self.sweep.out, MANIFEST), encoding="utf-8") as f:
                return {r["name"]: r for r in json.load(f)["runs"]}
        except (OSError, ValueError, KeyError, TypeError):
            return {}

    def pending(self):
        return [e for e in self.entries.values() if e["status"] == "pending"]

    def count(self, status):
        return sum(1 for e in self.entries.values() if e["status"] == status)

    def finish(self, name, outcome):
        entry = self.entries[name]
        entry.update(outcome)
        if entry["status"] == "finished":
            entry["summary"] = read_summary(entry["folder"])
        self.write()

    def write(self):
        manifest = {"sweep": os.path.abspath(self.sweep.path), "scene": self.sweep.scene_path,
                    "resources": {"cpus": self.sweep.cpus, "gpus": self.sweep.gpus},
                    "retries": self.sweep.retries, "started": self.started,
                    "runs": list(self.entries.values())}
        write_atomically(os.path.join(self.sweep.out, MANIFEST), json.dumps(manifest, indent=2))


class Progress:
    """runs done / total and an ETA on stderr when it is a terminal; a line per run otherwise."""

    def __init__(self, batch, quiet):
        self.batch, self.quiet = batch, quiet
        self.tty = sys.stderr.isatty()
        self.start = time.monotonic()
        self.todo = len(batch.pending())
        self.completed = 0
        self.running = 0

    def update(self, finished_entry=None):
        if finished_entry is not None:
            self.completed += 1
        if self.quiet:
            return
        total = len(self.batch.entries)
        done = self.batch.count("finished") + self.batch.count("failed")
        if not self.tty:
            if finished_entry is not None:
                e = finished_entry
                detail = e.get("error", "%.1f s" % (e.get("wall_s") or 0))
                print("drape.batch: %d/%d %s %s (%s)" % (done, total, e["status"], e["name"],
                                                        detail), file=sys.stderr, flush=True)
            return
        eta = "--:--"
        if self.completed:  # from the throughput so far, with runs in parallel
            left = (time.monotonic() - self.start) / self.completed * (self.todo - self.completed)
            eta = "%d:%02d" % divmod(int(left), 60)
        width = 30
        bar = "#" * (width * done // total) + "-" * (width - width * done // total)
        failed = self.batch.count("failed")
        print("\r[%s] %d/%d runs%s, %d running, ETA %s " % (
            bar, done, total, ", %d failed" % failed if failed else "", self.running, eta),
            end="", file=sys.stderr, flush=True)

    def close(self):
        if self.tty and not self.quiet:
            print(file=sys.stderr)


def _start_ray(address):
    try:
        import ray
    except ImportError:
        raise SweepError("Ray is not installed (python3 -m pip install ray)") from None
    if not ray.is_initialized():
        import logging

        ray.init(address=address, include_dashboard=False, logging_level=logging.ERROR,
                 log_to_driver=False)
    return ray


def execute(batch, progress, address=None, max_parallel=None):
    """Submits the pending runs as Ray tasks (at most max_parallel at a time) and records each
    outcome in the manifest as it comes."""
    sweep = batch.sweep
    pending = batch.pending()
    if not pending:
        return
    ray = _start_ray(address)
    task = ray.remote(runner.ray_task).options(
        num_cpus=sweep.cpus, num_gpus=sweep.gpus, max_retries=sweep.retries,
        retry_exceptions=[runner.RunInterrupted])
    threads = max(1, int(sweep.cpus))
    cuda = sweep.gpus > 0
    in_flight = {}
    queue = list(pending)
    while queue or in_flight:
        submitted = False
        while queue and (max_parallel is None or len(in_flight) < max_parallel):
            entry = queue.pop(0)
            entry["status"] = "running"
            in_flight[task.remote(entry["folder"], threads, cuda)] = entry
            submitted = True
        if submitted:
            batch.write()
        progress.running = len(in_flight)
        progress.update()
        ready, _ = ray.wait(list(in_flight), num_returns=1, timeout=1.0)
        for ref in ready:
            entry = in_flight.pop(ref)
            try:
                outcome = ray.get(ref)
            except ray.exceptions.RayError as e:
                lines = str(e).strip().splitlines()
                message = lines[-1] if lines else type(e).__name__
                if "No module named 'drape'" in message:
                    message += " (install drape on every node of the cluster)"
                outcome = {"status": "failed", "error": "gave up after %d attempts: %s" % (
                    len(runner.read_attempts(entry["folder"])), message)}
            outcome["attempts"] = len(runner.read_attempts(entry["folder"]))
            batch.finish(entry["name"], outcome)
            progress.running = len(in_flight)
            progress.update(entry)


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="python3 -m drape.batch",
                                     description="Run a sweep of drape scenes on Ray.")
    parser.add_argument("sweep", metavar="SWEEP.json")
    parser.add_argument("--address", help="join this Ray cluster (default: a local instance)")
    parser.add_argument("--out", help="output folder (default: the sweep's out)")
    parser.add_argument("--max-parallel", type=int, metavar="N",
                        help="at most N runs at a time (default: as many as resources allow)")
    parser.add_argument("--quiet", action="store_true", help="no progress, no summary")
    args = parser.parse_args(argv)
    if args.max_parallel is not None and args.max_parallel < 1:
        parser.error("--max-parallel must be at least 1")
    return args


def main(argv=None):
    args = parse_args(argv)
    start = time.monotonic()
    try:
        sweep = load_sweep(args.sweep, args.out)
        batch = Batch(sweep)
        progress = Progress(batch, args.quiet)
        try:
            execute(batch, progress, args.address, args.max_parallel)
        finally:
            progress.close()
    except SweepError as e:
        print("drape.batch: error: %s" % e, file=sys.stderr)
        return 2
    failed = batch.count("failed")
    if not args.quiet:
        skipped = sum(1 for e in batch.entries.values() if e.get("skipped"))
        print("drape.batch: %d runs: %d finished%s, %d failed in %.1f s; %s" % (
            len(batch.entries), batch.count("finished"),
            " (%d already done)" % skipped if skipped else "", failed,
            time.monotonic() - start, os.path.join(sweep.out, MANIFEST)), file=sys.stderr)
        for e in batch.entries.values():
            if e["status"] == "failed":
                print("drape.batch: %s failed: %s" % (e["name"], e["error"]), file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
