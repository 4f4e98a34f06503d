"""The cpu backend's default thread count against fixed ones on this machine: one scene run with
--threads 1, 2, 4, ... up to the CPUs and with the default (chosen while it runs), the median
ms/frame of each (frame 0 excluded), repeated and alternated; the default's ratio to the best
fixed count. Writes JSON and prints a Markdown table.

usage: python3 bench/thread_sweep.py SCENE.json [--frames 24] [--repeats 3] [--exe build/drape]
       [--out bench/results/thread_sweep.json]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile


def run(exe, scene, frames, threads, folder):
    """Median ms/frame of one run; threads 0 is the default."""
    stats = os.path.join(folder, "stats.json")
    cmd = [exe, "simulate", scene, "--frames", str(frames), "--quiet", "-o", folder,
           "--stats", stats]
    if threads:
        cmd += ["--threads", str(threads)]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"thread_sweep: {' '.join(cmd)} failed: {done.stderr.strip()}")
    with open(stats) as f:
        frames_ms = [s["ms"] for s in json.load(f)["frames"] if s["frame"] > 0]
    return statistics.median(frames_ms)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("scene")
    parser.add_argument("--frames", type=int, default=24)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--exe", default="build/drape")
    parser.add_argument("--out", default="bench/results/thread_sweep.json")
    args = parser.parse_args()
    cpus = len(os.sched_getaffinity(0))
    counts = [1]
    while counts[-1] * 2 < cpus:
        counts.append(counts[-1] * 2)
    if cpus > 1:
        counts.append(cpus)
    settings = counts + [0]
    ms = {t: [] for t in settings}
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(args.repeats):
            for t in settings:
                ms[t].append(run(args.exe, args.scene, args.frames, t, folder))
    median = {t: statistics.median(v) for t, v in ms.items()}
    best = min(counts, key=lambda t: median[t])
    print(f"{args.scene}, {args.frames} frames, {cpus} CPUs, medians of {args.repeats}\n")
    print("| threads | ms/frame | against the best fixed count |\n|---|---|---|")
    for t in settings:
        print(f"| {t if t else 'default'} | {median[t]:.1f} | {median[t] / median[best]:.2f}x |")
    result = {"scene": args.scene, "frames": args.frames, "cpus": cpus, "repeats": args.repeats,
              "ms_per_frame": {str(t) if t else "default": ms[t] for t in settings},
              "best_fixed": best, "default_over_best": median[0] / median[best]}
    os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
    with open(args.out + ".tmp", "w") as f:
        json.dump(result, f, indent=2)
    os.replace(args.out + ".tmp", args.out)


if __name__ == "__main__":
    main()
