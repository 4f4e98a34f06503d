"""Two runs of one scene side by side (bench/gpu_check.sh: `cpu` and `cuda`): per run the median
ms/frame, the worst frame's vertices inside colliders, self-intersections and stitch gap, and the
largest distance between the two runs' last frames (OBJ caches). Prints one Markdown row per run
and appends both to a JSON list.

usage: python3 bench/compare_runs.py SCENE_LABEL DIR_A DIR_B --json OUT.json
"""
import argparse
import glob
import json
import math
import os
import statistics
import sys


def last_frame(folder):
    frames = sorted(glob.glob(os.path.join(folder, "*.obj")))
    if not frames:
        sys.exit(f"compare_runs: no OBJ frames in {folder}")
    with open(frames[-1]) as f:
        return [tuple(map(float, line.split()[1:4])) for line in f if line.startswith("v ")]


def summary(folder):
    with open(os.path.join(folder, "stats.json")) as f:
        stats = json.load(f)
    frames = [s for s in stats["frames"] if s["frame"] > 0]
    gaps = [s["stitch_gap"]["max"] for s in frames if "stitch_gap" in s]
    return {"backend": stats["settings"]["backend"],
            "threads": stats["settings"].get("threads"),
            "frames": len(frames),
            "ms_per_frame_median": statistics.median(s["ms"] for s in frames),
            "max_inside": max(s["penetrations"] for s in frames),
            "max_self_intersections": max(s.get("self_intersections", 0) for s in frames),
            "max_stitch_gap_mm": 1000.0 * max(gaps) if gaps else None}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("label")
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--json", required=True)
    args = parser.parse_args()
    a, b = last_frame(args.a), last_frame(args.b)
    if len(a) != len(b):
        sys.exit(f"compare_runs: {len(a)} against {len(b)} vertices")
    apart = max(math.dist(p, q) for p, q in zip(a, b))
    rows = []
    for folder in (args.a, args.b):
        row = {"scene": args.label, **summary(folder), "last_frame_max_apart_mm": 1000.0 * apart}
        rows.append(row)
        gap = row["max_stitch_gap_mm"]
        print(f"| {args.label} | {row['backend']} | {row['threads']} | {row['frames']} | "
              f"{row['ms_per_frame_median']:.1f} | {row['max_inside']} | "
              f"{row['max_self_intersections']} | {'-' if gap is None else f'{gap:.2f}'} | "
              f"{1000.0 * apart:.2f} |")
    old = []
    if os.path.exists(args.json):
        with open(args.json) as f:
            old = json.load(f)
    with open(args.json, "w") as f:
        json.dump(old + rows, f, indent=2)


if __name__ == "__main__":
    main()
