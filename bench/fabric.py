"""XPBD against PBD: the cost of a frame at equal substeps x iterations (cpu backend), and the
strain a hanging cloth ends at against the iteration count, and how far a sphere drape moves
between 10 and 40 iterations, for both models. Medians of --repeats timings of --frames frames
after one warm-up frame; writes bench/results/fabric.json. With --variants, only the sphere
drape's distances with more damping, in still air, and for smaller cloths.

usage: PYTHONPATH=build/python python3 bench/fabric.py [--sizes 64,128] [--threads 2] [--variants]
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


def sphere_drape(fabric, iterations, n, substeps, frames, size=1.2, air=None, offset=(0.0, 0.0),
                 height=1.0, friction=0.5):
    # The cloth of data/sphere_drape_cotton.json (1.2 m at y = 1 over a 0.35 m sphere), coarser
    # and without the floor, which it does not reach.
    positions, triangles = grid(n)
    positions[:, [0, 2]] *= size
    positions[:, [0, 2]] += offset
    positions[:, 1] = height
    settings = {"solver": {"backend": "cpu", "substeps": substeps, "iterations": iterations},
                "cloth": fabric,
                "colliders": [{"sphere": {"center": [0, 0.5, 0], "radius": 0.35},
                               "friction": friction, "thickness": 0.01}]}
    if air:
        settings["air"] = air
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


# Cotton's values as a custom material, to change one of them.
COTTON = {"density": 120.0, "stretch": 490.3 / 0.050, "shear": 0.8 * 56.19,
          "bend": 0.080 * 9.80665e-5, "damping": 1.0}
# Sphere drapes at 24², 20 substeps, 72 frames (at rest): is the distance between 10 and 40
# iterations the fold picked, or the solve? (name, XPBD fabric, cloth size m, air, and the cloth's
# placement: centre offset in x and z, start height, the sphere's friction)
PLACED = ((0.0, 0.0), 1.0, 0.5)
VARIANTS = (
    ("1.2 m cloth", XPBD, 1.2, None, PLACED),
    ("1.2 m, damping 5/s", {"model": "xpbd", "material": dict(COTTON, damping=5.0)}, 1.2, None,
     PLACED),
    ("1.2 m, damping 20/s", {"model": "xpbd", "material": dict(COTTON, damping=20.0)}, 1.2, None,
     PLACED),
    ("1.2 m, still air, drag 1", XPBD, 1.2, {"density": 1.2, "drag": 1.0}, PLACED),
    ("1.2 m, 16.5 cm off centre", XPBD, 1.2, None, ((0.15, 0.07), 1.0, 0.5)),
    ("1.2 m, 27 cm off centre", XPBD, 1.2, None, ((0.25, 0.1), 1.0, 0.5)),
    ("1.2 m, starts 2 cm above the sphere", XPBD, 1.2, None, ((0.0, 0.0), 0.87, 0.5)),
    ("1.2 m, friction 1", XPBD, 1.2, None, ((0.0, 0.0), 1.0, 1.0)),
    ("0.9 m cloth", XPBD, 0.9, None, PLACED),
    ("0.8 m cloth", XPBD, 0.8, None, PLACED),
    ("0.6 m cloth", XPBD, 0.6, None, PLACED),
)


def drape_variants():
    rows = []
    print("\n| drape | model | 10 vs 40, mm | 39 vs 40, mm |\n|---|---|---|---|")
    for name, xpbd, size, air, (offset, height, friction) in VARIANTS:
        for model, fabric in (("pbd", PBD), ("xpbd cotton", xpbd)):
            if model == "pbd" and (xpbd is not XPBD or air):
                continue  # damping and air change the XPBD fabric only
            ends = {it: sphere_drape(fabric, it, 24, 20, 72, size, air, offset, height,
                                     friction)[-1] for it in (10, 39, 40)}
            far = lambda a, b: float(np.linalg.norm(ends[a] - ends[b], axis=1).mean())
            rows.append({"drape": name, "model": model, "10_vs_40": far(10, 40),
                         "39_vs_40": far(39, 40)})
            print("| %s | %s | %.1f | %.1f |" % (name, model, 1e3 * far(10, 40), 1e3 * far(39, 40)))
    return rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="64,128")
    parser.add_argument("--frames", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--json", default="bench/results/fabric.json")
    parser.add_argument("--variants", action="store_true",
                        help="only the sphere drape variants (24², 20 substeps, at rest), to "
                             "bench/results/fabric_variants.json")
    args = parser.parse_args()
    if args.variants:
        with open("bench/results/fabric_variants.json", "w", encoding="utf-8") as f:
            json.dump({"scene": "sphere drape, 24², 20 substeps, frame 72, 1 thread",
                       "rows": drape_variants()}, f, indent=2)
        return
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
