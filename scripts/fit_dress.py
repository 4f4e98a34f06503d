#!/usr/bin/env python3
"""The sewn dress graded to another body, and that body's fitting sequence, for
data/dress_mean_all.json (run scripts/dress_scene.py first):

  OUT/dress.obj          DIR/dress.obj graded: scaled by GIRTH, its mannequin's shoulders brought
                         LOWER metres below the body's and its torso axis onto the body's;
                         triangles and UVs kept
  OUT/panels.obj         the sewing pattern (dress_panels.obj) graded the same way: the rest shape
  OUT/body.0000.obj ...  the body's fitting, FRAMES poses: at the first its arms are raised and
                         swung back to the mannequin's (ARM degrees from straight down, SWING
                         degrees forward) and its surface near the dress is shrink-wrapped INSET
                         inside the mannequin, graded as the dress; over the poses it grows back
                         into its own shape while its arms come down to its A-pose (eased in and
                         out)

  python3 scripts/fit_dress.py [--body ../shared/data/bodies/mean_all.obj] [--dir data/dress]
                               [--out data/dress/fit] [--frames 49]
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dress_scene import SHARED, read_obj, write_obj  # noqa: E402
from pose_sequence import Rig  # noqa: E402

NEAR, FAR = 0.04, 0.08  # body vertices this close to the dress are fitted; none beyond FAR
ROUNDS = 10  # shrink-wrap rounds: project, then smooth


def closest_points(p, a, b, c):
    """The points of triangles (a, b, c) closest to points p, all (N, 3): Ericson's Voronoi
    regions (Real-Time Collision Detection, 5.1.5), vectorised."""
    ab, ac = b - a, c - a
    d1, d2 = np.einsum("ij,ij->i", ab, p - a), np.einsum("ij,ij->i", ac, p - a)
    d3, d4 = np.einsum("ij,ij->i", ab, p - b), np.einsum("ij,ij->i", ac, p - b)
    d5, d6 = np.einsum("ij,ij->i", ab, p - c), np.einsum("ij,ij->i", ac, p - c)
    va, vb, vc = d3 * d6 - d5 * d4, d5 * d2 - d1 * d6, d1 * d4 - d3 * d2

    def ratio(num, den):
        return (num / np.where(np.abs(den) < 1e-30, 1e-30, den))[:, None]

    out = a + ab * ratio(vb, va + vb + vc) + ac * ratio(vc, va + vb + vc)
    # Edge regions, then corner regions; the regions are disjoint, so the order only settles ties.
    regions = [
        ((va <= 0) & (d4 >= d3) & (d5 >= d6),
         lambda: b + (c - b) * ratio(d4 - d3, d4 - d3 + d5 - d6)),
        ((vb <= 0) & (d2 >= 0) & (d6 <= 0), lambda: a + ac * ratio(d2, d2 - d6)),
        ((vc <= 0) & (d1 >= 0) & (d3 <= 0), lambda: a + ab * ratio(d1, d1 - d3)),
        ((d6 >= 0) & (d5 <= d6), lambda: c),
        ((d3 >= 0) & (d4 <= d3), lambda: b),
        ((d1 <= 0) & (d2 <= 0), lambda: a),
    ]
    for inside, point in regions:
        out = np.where(inside[:, None], point(), out)
    return out


def nearest_vertex(points, vertices, chunk=500):
    """Index of and distance to the nearest of `vertices` for each point (brute force)."""
    index, dist = np.empty(len(points), int), np.empty(len(points))
    for i in range(0, len(points), chunk):
        d = ((points[i:i + chunk, None, :] - vertices[None]) ** 2).sum(-1)
        index[i:i + chunk], dist[i:i + chunk] = d.argmin(1), np.sqrt(d.min(1))
    return index, dist


class Surface:
    """A closed triangle mesh, for closest points and the outward normals there."""

    def __init__(self, vertices, faces):
        self.v, self.f = vertices, np.array(faces)
        n = np.cross(self.v[self.f[:, 1]] - self.v[self.f[:, 0]],
                     self.v[self.f[:, 2]] - self.v[self.f[:, 0]])
        self.normal = n / np.linalg.norm(n, axis=1)[:, None]
        ring = [[] for _ in self.v]
        for t, face in enumerate(self.f):
            for v in face:
                ring[v].append(t)
        width = max(map(len, ring))
        self.ring = np.array([r + [-1] * (width - len(r)) for r in ring])

    def closest(self, points):
        """For each point the closest point on the triangles around its nearest vertex, and
        that triangle's outward normal."""
        candidates = self.ring[nearest_vertex(points, self.v)[0]]
        best = np.full(len(points), np.inf)
        point, normal = np.zeros_like(points), np.zeros_like(points)
        for k in range(candidates.shape[1]):
            t = np.maximum(candidates[:, k], 0)
            q = closest_points(points, *(self.v[self.f[t, i]] for i in range(3)))
            d = np.where(candidates[:, k] >= 0, ((q - points) ** 2).sum(1), np.inf)
            better = d < best
            best[better], point[better] = d[better], q[better]
            normal[better] = self.normal[t[better]]
        return point, normal


def shrink_wrap(points, faces, weight, surface, inset):
    """`points` (a mesh with `faces`) moved, by `weight` in [0, 1] each, onto `surface` moved
    `inset` inwards, from outside and from inside alike, so the body fills the dress where the
    dress rests on the surface: projected, then smoothed towards their neighbours' mean, ROUNDS
    times (the smoothing evens out the points a projection piles up), then projected again."""
    neighbours = [set() for _ in points]
    for a, b, c in faces:
        neighbours[a] |= {b, c}
        neighbours[b] |= {a, c}
        neighbours[c] |= {a, b}
    moved = np.nonzero(weight > 0)[0]
    x, w = points.copy(), weight[moved, None]

    def project():
        c, n = surface.closest(x[moved])
        x[moved] += w * (c - inset * n - x[moved])

    for _ in range(ROUNDS):
        project()
        mean = np.array([x[list(neighbours[i])].mean(axis=0) for i in moved])
        x[moved] += 0.5 * w * (mean - x[moved])
    project()
    return x


def shoulder_top(v):
    """The height of the shoulders 0.14 m beside the body's middle (between 70% and 90% of the
    height, below the head)."""
    y = (v[:, 1] - v[:, 1].min()) / np.ptp(v[:, 1])
    return v[(np.abs(np.abs(v[:, 0]) - 0.14) < 0.01) & (y > 0.7) & (y < 0.9)][:, 1].max()


def torso_depth(v):
    """The mean depth (z) of the torso: of the vertices within 0.14 m of x = 0 between 45% and
    75% of the height."""
    y = (v[:, 1] - v[:, 1].min()) / np.ptp(v[:, 1])
    return v[(y > 0.45) & (y < 0.75) & (np.abs(v[:, 0]) < 0.14)][:, 2].mean()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--body", default=os.path.join(SHARED, "bodies", "mean_all.obj"))
    p.add_argument("--dir", default="data/dress", help="scripts/dress_scene.py's output")
    p.add_argument("--panels", default=os.path.join(SHARED, "garments", "dress_panels.obj"))
    p.add_argument("--out", default="data/dress/fit")
    p.add_argument("--frames", type=int, default=49,
                   help="poses of the fitting, 24 a second (default 49: 2 s)")
    p.add_argument("--girth", type=float, default=1.4, help="grading scale (default 1.4)")
    p.add_argument("--lower", type=float, default=0.014, help="metres (default 0.014)")
    p.add_argument("--arm", type=float, default=94.0, help="degrees (default 94)")
    p.add_argument("--swing", type=float, default=-12.5, help="degrees (default -12.5)")
    p.add_argument("--inset", type=float, default=0.002, help="metres (default 0.002)")
    a = p.parse_args()
    if a.frames < 2:
        p.error("--frames must be at least 2")
    inputs = [a.body] + [os.path.join(a.dir, n) for n in ("dress.obj", "mannequin.obj")]
    for path in inputs + [a.panels]:
        if not os.path.isfile(path):
            sys.exit(f"fit_dress: {path}: no such file (run scripts/dress_scene.py first)")
    (body, _, body_faces), (dress, uvs, dress_faces), (mannequin, _, mannequin_faces) = (
        read_obj(path) for path in inputs)
    try:
        rig = Rig(body)
    except ValueError as e:
        sys.exit(f"fit_dress: {a.body}: {e}")

    # Grading: the mannequin and the dress scaled by GIRTH, the mannequin's shoulders brought to
    # LOWER below the body's and its torso axis onto the body's.
    mz, bz = torso_depth(mannequin), torso_depth(body)
    shift = np.array([0.0, shoulder_top(body) - a.lower - a.girth * shoulder_top(mannequin),
                      bz - a.girth * mz])

    def grade(v):
        return a.girth * v + shift

    graded_dress, graded_mannequin = grade(dress), grade(mannequin)

    # The first pose: arms as the mannequin's, the surface near the dress inside the mannequin.
    def angles(ease):
        return {side: {"arm_down": -(1 - ease) * (a.arm - rig.arm_angle(side)),
                       "arm_swing": (1 - ease) * a.swing} for side in (1.0, -1.0)}

    raised = rig.pose(angles(0.0))
    weight = np.clip((FAR - nearest_vertex(raised, graded_dress)[1]) / (FAR - NEAR), 0.0, 1.0)
    first = shrink_wrap(raised, body_faces, weight,
                        Surface(graded_mannequin, mannequin_faces), a.inset)
    offset = rig.unpose(angles(0.0), first) - body  # the fitted shape, in the A-pose

    os.makedirs(a.out, exist_ok=True)
    write_obj(os.path.join(a.out, "dress.obj"), graded_dress, dress_faces,
              uvs if len(uvs) == len(dress) else None)
    panels, panel_uvs, _ = read_obj(a.panels)
    write_obj(os.path.join(a.out, "panels.obj"), grade(panels), dress_faces,
              panel_uvs if len(panel_uvs) == len(panels) else None)
    for k in range(a.frames):
        t = k / (a.frames - 1)
        ease = t * t * (3.0 - 2.0 * t)
        posed = rig.pose(angles(ease), body + (1.0 - ease) * offset)
        write_obj(os.path.join(a.out, f"body.{k:04d}.obj"), posed, body_faces)
    print(f"fit_dress: {a.out}/dress.obj (girth x{a.girth}), {a.out}/body.0000.obj .. "
          f"body.{a.frames - 1:04d}.obj ({int(np.sum(weight > 0))} of {len(body)} body "
          f"vertices fitted at the first)")


if __name__ == "__main__":
    main()
