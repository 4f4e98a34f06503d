#!/usr/bin/env python3
"""The meshes of the sewn-dress scene (data/dress_mannequin.json), cut from
../shared/data/garments/dress_draped.obj, which holds a dress draped on a mannequin as one mesh:

  DIR/dress.obj      its first vertices (as many as dress_panels.obj has), in their draped
                     positions, with the panels' triangles and UVs: the garment, started sewn
  DIR/mannequin.obj  the other vertices and their triangles, with each hole in the surface (the
                     neck and the arms' ends) closed by a fan around its centre, so the body is
                     a closed surface a level set can be built from

  python3 scripts/dress_scene.py [--draped ...dress_draped.obj] [--panels ...dress_panels.obj]
                                 [--out data/dress]
"""
import argparse
import os
import sys
from collections import defaultdict

import numpy as np

SHARED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "data")


def read_obj(path):
    positions, uvs, faces = [], [], []
    with open(path) as f:
        for line in f:
            if line.startswith("v "):
                positions.append([float(x) for x in line.split()[1:4]])
            elif line.startswith("vt "):
                uvs.append([float(x) for x in line.split()[1:3]])
            elif line.startswith("f "):
                faces.append([int(c.split("/")[0]) - 1 for c in line.split()[1:]])
    return np.array(positions), np.array(uvs), faces


def write_obj(path, positions, faces, uvs=None):
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        for p in positions:
            f.write("v %.7g %.7g %.7g\n" % tuple(p))
        for uv in uvs if uvs is not None else []:
            f.write("vt %.7g %.7g\n" % tuple(uv))
        # With UVs, vertex i has texture coordinate i (as in the sewing pattern).
        corner = (lambda i: f"{i + 1}/{i + 1}") if uvs is not None else (lambda i: f"{i + 1}")
        for face in faces:
            f.write("f " + " ".join(corner(i) for i in face) + "\n")
    os.replace(tmp, path)


def boundary_loops(faces):
    # Directed boundary edges (an edge no other triangle has the other way round), chained.
    directed = {(f[i], f[(i + 1) % 3]) for f in faces for i in range(3)}
    following = {}
    for a, b in directed:
        if (b, a) not in directed:
            if a in following:
                raise ValueError(f"vertex {a} has two boundary edges leaving it")
            following[a] = b
    loops = []
    while following:
        start, loop = next(iter(following)), []
        v = start
        while True:
            loop.append(v)
            v = following.pop(v)
            if v == start:
                break
        loops.append(loop)
    return loops


def capped(positions, faces):
    # A fan from each hole's centroid, wound like the surface around it (the boundary runs the
    # other way round in the cap).
    positions, faces = list(positions), [list(f) for f in faces]
    loops = boundary_loops(faces)
    for loop in loops:
        centre = len(positions)
        positions.append(np.mean([positions[v] for v in loop], axis=0))
        for a, b in zip(loop, loop[1:] + loop[:1]):
            faces.append([b, a, centre])
    return np.array(positions), faces, loops


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--draped", default=os.path.join(SHARED, "garments", "dress_draped.obj"))
    parser.add_argument("--panels", default=os.path.join(SHARED, "garments", "dress_panels.obj"))
    parser.add_argument("--out", default="data/dress")
    args = parser.parse_args()
    for path in (args.draped, args.panels):
        if not os.path.isfile(path):
            sys.exit(f"dress_scene: {path}: no such file (the meshes of ../shared/data)")
    draped, _, draped_faces = read_obj(args.draped)
    panels, panel_uvs, panel_faces = read_obj(args.panels)
    n = len(panels)
    dress_faces = [f for f in draped_faces if max(f) < n]
    body_faces = [[v - n for v in f] for f in draped_faces if min(f) >= n]
    if len(dress_faces) + len(body_faces) != len(draped_faces):
        sys.exit(f"dress_scene: {args.draped}: a triangle joins the dress to the body")
    if sorted(map(sorted, dress_faces)) != sorted(map(sorted, panel_faces)):
        sys.exit(f"dress_scene: the dress in {args.draped} has other triangles than {args.panels}")
    os.makedirs(args.out, exist_ok=True)
    write_obj(os.path.join(args.out, "dress.obj"), draped[:n], panel_faces,
              panel_uvs if len(panel_uvs) == n else None)
    try:
        body, body_faces, holes = capped(draped[n:], body_faces)
    except ValueError as e:
        sys.exit(f"dress_scene: {args.draped}: the mannequin's border: {e}")
    edges = defaultdict(int)
    for f in body_faces:
        for i in range(3):
            edges[tuple(sorted((f[i], f[(i + 1) % 3])))] += 1
    if any(count != 2 for count in edges.values()):
        sys.exit("dress_scene: the capped mannequin is not a closed surface")
    write_obj(os.path.join(args.out, "mannequin.obj"), body, body_faces)
    print(f"dress_scene: {args.out}/dress.obj ({n} vertices, {len(panel_faces)} triangles), "
          f"{args.out}/mannequin.obj ({len(body)} vertices, {len(body_faces)} triangles, "
          f"{len(holes)} holes capped)")


if __name__ == "__main__":
    main()
