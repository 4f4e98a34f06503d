"""The Python module next to other work: steps of the default scene (data/sphere_drape.json,
stats on) with threads=1 and with the default thread count (threads=0, chosen while it runs),
alternately, on a quiet machine and next to one busy process. Medians of --repeats runs of
--frames frames; prints ms per frame. The C++ side is bench_solvers --contended.

usage: PYTHONPATH=build/python python3 bench/contended_python.py [--frames 24] [--repeats 5]
"""
import argparse
import statistics
import subprocess
import sys
import time

import drape


def ms_per_frame(threads, frames):
    sim = drape.load_scene("data/sphere_drape.json", threads=threads)
    start = time.perf_counter()
    sim.step(frames)
    return (time.perf_counter() - start) * 1e3 / frames


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--frames", type=int, default=24)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print("| next to | threads=1 ms/frame | threads=0 (default) ms/frame | default / 1 |")
    print("|---|---|---|---|")
    for condition in ("quiet", "busy process"):
        busy = None
        if condition == "busy process":
            busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
            time.sleep(0.3)
        try:
            one, default = [], []
            for _ in range(args.repeats):
                one.append(ms_per_frame(1, args.frames))
                default.append(ms_per_frame(0, args.frames))
        finally:
            if busy is not None:
                busy.kill()
                busy.wait()
        a, b = statistics.median(one), statistics.median(default)
        print("| %s | %.1f | %.1f | %.2fx |" % (condition, a, b, b / a))


if __name__ == "__main__":
    main()
