"""XPBD against PBD: the cost of a frame at equal substeps x iterations (cpu backend), and the
strain a hanging cloth ends at against the iteration count, and how far a sphere drape moves
between 10 and 40 iterations, for both models. Medians of --repeats timings of --frames frames
after one warm-up frame; writes bench/results/fabric.json.

usage: PYTHONPATH=build/python python3 bench/fabric.py [--sizes 64,128] [--threads 2]
"""
import argparse
import json
import os
import statistics
import time

import numpy as np

import drape

PBD = {"stretch": 1.0, "shear": 1.0, "bend": 0.1}
XPBD = {"model": "xpbd", "material": "cotton"}


def settings(fabric, iterations, substeps=8):
    # A 1 m cloth hanging from its edge at z = -0.5 (the grid comes from the arrays).
    cloth = dict(fabric, pins={"box": {"min": [-1, 0.9, -0.51], "max": [1, 1.1, -0.49]}})
    return {"solver": {"backend": "cpu", "substeps": substeps, "iterations": iterations},
            "cloth": cloth}


def grid(n):
    positions = [[x / (n - 1) - 0.5, 1.0, z / (n - 1) - 0.5] for z in range(n) for x in range(n)]
    triangles = []
    for z in range(n - 1):
        for x in range(n - 1):
            a = z * n + x
            triangles += [[a, a + n, a + 1], [a + 1, a + n, a + n + 1]]
    return np.array(positions), np.array(triangles, dtype=np.int64)


def ms_per_frame(n, fabric, frames, repeats, threads):
    positions, triangles = grid(n)
    times = []
    for _ in range(repeats):
        sim = drape.from_arrays(positions, triangles, settings(fabric, 10), threads=threads,
                                stats=False)
        sim.step(1)
        start = time.perf_counter()
        sim.step(frames)
        times.append((time.perf_counter() - start) * 1e3 / frames)
    return statistics.median(times)


def final_strain(fabric, iterations, n=32, frames=48):
    positions, triangles = grid(n)
    sim = drape.from_arrays(positions, triangles, settings(fabric, iterations))
    sim.step(frames)
    last = sim.stats[-1]
    return last["max_strain"], last["mean_strain"]


def sphere_drape(fabric, iterations, n, substeps, frames):
    # The cloth of data/sphere_drape_cotton.json (1.2 m at y = 1 over a 0.35 m sphere), coarser
    # and without the floor, which it does not reach.
    positions, triangles = grid(n)
    positions[:, [0, 2]] *= 1.2
    settings = {"solver": {"backend": "cpu", "substeps": substeps, "iterations": iterations},
                "cloth": fabric,
                "colliders": [{"sphere": {"center": [0, 0.5, 0], "radius": 0.35},
                               "friction": 0.5, "thickness": 0.01}]}
    sim = drape.from_arrays(positions, triangles, settings, threads=1, stats=False)
    frames_out = []
    for _ in range(frames):
        sim.step(1)
        frames_out.append(np.array(sim.positions, dtype=np.float64))
    return frames_out


def convergence(fabric, n=32, substeps=20, frames=48, checkpoints=(7, 12, 48)):
    # Mean vertex distance between the drapes at 10 and 40 iterations, and between 39 and 40 (how
    # far a one-iteration change moves the drape: its sensitivity, not its convergence).
    runs = {it: sphere_drape(fabric, it, n, substeps, frames) for it in (10, 39, 40)}
    distance = lambda a, b, f: float(np.linalg.norm(runs[a][f - 1] - runs[b][f - 1], axis=1).mean())
    return [{"frame": f, "10_vs_40": distance(10, 40, f), "39_vs_40": distance(39, 40, f)}
            for f in checkpoints]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="64,128")
    parser.add_argument("--frames", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--json", default="bench/results/fabric.json")
    args = parser.parse_args()
    cost = []
    print("| grid | PBD ms/frame | XPBD ms/frame | XPBD / PBD |\n|---|---|---|---|")
    for n in (int(s) for s in args.sizes.split(",")):
        pbd = ms_per_frame(n, PBD, args.frames, args.repeats, args.threads)
        xpbd = ms_per_frame(n, XPBD, args.frames, args.repeats, args.threads)
        cost.append({"grid": n, "pbd_ms": pbd, "xpbd_ms": xpbd, "ratio": xpbd / pbd})
        print("| %d² | %.2f | %.2f | %.2fx |" % (n, pbd, xpbd, xpbd / pbd))
    strain = []
    print("\n| iterations | PBD max / mean strain | XPBD cotton max / mean strain |\n|---|---|---|")
    for iterations in (5, 10, 20, 40):
        p = final_strain(PBD, iterations)
        x = final_strain(XPBD, iterations)
        strain.append({"iterations": iterations, "pbd": p, "xpbd": x})
        print("| %d | %.4f / %.4f | %.4f / %.4f |" % (iterations, p[0], p[1], x[0], x[1]))
    drape_distance = {}
    print("\n| model | frame | 10 vs 40 iterations, mean distance m | 39 vs 40 |\n|---|---|---|---|")
    for name, fabric in (("pbd", PBD), ("xpbd cotton", XPBD)):
        drape_distance[name] = convergence(fabric)
        for row in drape_distance[name]:
            print("| %s | %d | %.4f | %.4f |" % (name, row["frame"], row["10_vs_40"], row["39_vs_40"]))
    result = {"threads": args.threads, "substeps": 8, "iterations_for_cost": 10,
              "scene": "1 m cloth hanging from one edge, 8 substeps; strain: 32², frame 48",
              "cost": cost, "strain": strain,
              "sphere_drape": {"scene": "1.2 m 32² cloth over a 0.35 m sphere, 20 substeps, "
                                        "1 thread", "distance": drape_distance}}
    with open(args.json, "w", encoding="utf-8") as f:
        json.dump(result, f, indent=2)


if __name__ == "__main__":
    main()
