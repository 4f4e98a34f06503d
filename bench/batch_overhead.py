"""What drape.batch adds to a run: the same small scenes run as plain `drape simulate` commands one
after another, and as a sweep on a local Ray instance one run at a time (--max-parallel 1, 1 CPU
per run, so both use one thread). Reports Ray's start, the median wall time per run both ways and
the difference per run, over --repeats sweeps; writes bench/results/batch_overhead.json.

usage: PYTHONPATH=build/python python3 bench/batch_overhead.py [--runs 8] [--repeats 3]
       [--grid 32] [--frames 24] [--exe build/drape]
"""
import argparse
import json
import logging
import os
import statistics
import subprocess
import sys
import tempfile
import time

from drape import batch


def scene(grid, frames):
    return {"frames": frames, "solver": {"backend": "cpu", "substeps": 4, "iterations": 10},
            "cloth": {"mesh": {"grid": {"resolution": [grid, grid], "size": [1, 1],
                                        "center": [0, 1, 0]}}, "pins": [0, grid - 1]},
            "output": {"dir": "out", "name": "cloth", "formats": ["ply"]}}


def plain_runs(exe, folder, base, bends):
    """Wall time of each plain CLI run (1 thread, like a 1-CPU task)."""
    times = []
    for i, bend in enumerate(bends):
        s = json.loads(json.dumps(base))
        s["cloth"]["bend"] = bend
        path = os.path.join(folder, "plain%d.json" % i)
        with open(path, "w", encoding="utf-8") as f:
            json.dump(s, f)
        start = time.perf_counter()
        subprocess.run([exe, "simulate", path, "-o", os.path.join(folder, "plain%d" % i),
                        "--threads", "1", "--quiet"], check=True)
        times.append(time.perf_counter() - start)
    return times


def batch_runs(folder, base, bends):
    """Wall time of the whole sweep (Ray already up) divided by its runs, and each task's own
    wall time of its drape child."""
    with open(os.path.join(folder, "base.json"), "w", encoding="utf-8") as f:
        json.dump(base, f)
    sweep = os.path.join(folder, "sweep.json")
    with open(sweep, "w", encoding="utf-8") as f:
        json.dump({"scene": "base.json", "out": "sweep", "vary": {"cloth.bend": bends},
                   "resources": {"cpus": 1}}, f)
    start = time.perf_counter()
    if batch.main([sweep, "--quiet", "--max-parallel", "1"]) != 0:
        sys.exit("bench: the sweep failed")
    wall = time.perf_counter() - start
    with open(os.path.join(folder, "sweep", "manifest.json"), encoding="utf-8") as f:
        runs = json.load(f)["runs"]
    return wall / len(bends), [r["wall_s"] for r in runs]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--grid", type=int, default=32)
    parser.add_argument("--frames", type=int, default=24)
    parser.add_argument("--exe", default=os.environ.get("DRAPE_EXE", "build/drape"))
    parser.add_argument("--json", default="bench/results/batch_overhead.json")
    args = parser.parse_args()
    exe = os.path.abspath(args.exe)
    os.environ["DRAPE_EXE"] = exe
    import ray

    start = time.perf_counter()
    ray.init(num_cpus=1, include_dashboard=False, logging_level=logging.ERROR,
             log_to_driver=False)
    ray_start = time.perf_counter() - start
    base = scene(args.grid, args.frames)
    bends = [round(0.01 + 0.5 * i / args.runs, 4) for i in range(args.runs)]
    plain, per_run, task = [], [], []
    for _ in range(args.repeats):
        with tempfile.TemporaryDirectory(prefix="drape-bench-") as folder:
            plain += plain_runs(exe, folder, base, bends)
            sweep_per_run, task_walls = batch_runs(folder, base, bends)
            per_run.append(sweep_per_run)
            task += task_walls
    ray.shutdown()
    result = {
        "scene": "%d² grid, %d frames, 4 substeps, 10 iterations, cpu backend, 1 thread" % (
            args.grid, args.frames),
        "runs_per_sweep": args.runs, "repeats": args.repeats, "cpus": os.cpu_count(),
        "ray_version": ray.__version__, "ray_start_s": ray_start,
        "plain_cli_median_s": statistics.median(plain),
        "batch_per_run_median_s": statistics.median(per_run),
        "task_child_median_s": statistics.median(task),
    }
    result["overhead_per_run_s"] = result["batch_per_run_median_s"] - result["plain_cli_median_s"]
    with open(args.json, "w", encoding="utf-8") as f:
        json.dump(result, f, indent=2)
    print("| | seconds |\n|---|---|")
    print("| Ray start (local, once per sweep) | %.2f |" % ray_start)
    print("| plain `drape simulate`, per run (median of %d) | %.3f |" % (
        len(plain), result["plain_cli_median_s"]))
    print("| drape.batch, sweep wall / runs (median of %d sweeps) | %.3f |" % (
        args.repeats, result["batch_per_run_median_s"]))
    print("| the task's drape child, per run (median of %d) | %.3f |" % (
        len(task), result["task_child_median_s"]))
    print("| overhead per run | %.3f |" % result["overhead_per_run_s"])


if __name__ == "__main__":
    main()
