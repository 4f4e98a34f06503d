"""scripts/pose_sequence.py: pose sequences of the shared body by linear-blend skinning (walk,
arms down) keep the mesh's vertices and faces, move what they should and stretch nothing; cloth
attached to the walking body follows its surface points."""
import importlib.util
import json
import os

import numpy as np
import pytest

import drape

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BODY = os.path.join(ROOT, "..", "shared", "data", "bodies", "mean_all.obj")

spec = importlib.util.spec_from_file_location(
    "pose_sequence", os.path.join(ROOT, "scripts", "pose_sequence.py"))
pose_sequence = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pose_sequence)

needs_body = pytest.mark.skipif(not os.path.exists(BODY),
                                reason="../shared/data/bodies/mean_all.obj is not here")


def edges(faces):
    pairs = set()
    for line in faces:
        corners = [int(t.split("/")[0]) - 1 for t in line.split()[1:]]
        for a, b in zip(corners, corners[1:] + corners[:1]):
            pairs.add((min(a, b), max(a, b)))
    return np.array(sorted(pairs))


def stretch(rest, posed, e):
    """The largest relative change of an edge's length, and the share of edges changed > 30%."""
    before = np.linalg.norm(rest[e[:, 0]] - rest[e[:, 1]], axis=1)
    after = np.linalg.norm(posed[e[:, 0]] - posed[e[:, 1]], axis=1)
    change = np.abs(after / before - 1.0)
    return change.max(), np.mean(change > 0.3)


def assert_not_torn(rest, posed, e):
    # Skinning without corrective shapes stretches a few edges where two bones meet (the crotch
    # of a stride, the armpit): up to 90% in under 0.5% of the edges; nothing tears.
    worst, share = stretch(rest, posed, e)
    assert worst < 1.0 and share < 0.005, (worst, share)


@needs_body
def test_walk_writes_poses_of_the_same_mesh_and_is_periodic(tmp_path):
    rest, faces = pose_sequence.read_obj(BODY)
    paths = pose_sequence.generate(BODY, "walk", 6, str(tmp_path / "walk" / "body"))
    assert [os.path.basename(p) for p in paths] == [f"body.{k:04d}.obj" for k in range(6)]
    poses = []
    for p in paths:
        v, f = pose_sequence.read_obj(p)
        assert v.shape == rest.shape and f == faces
        poses.append(v)
    assert np.abs(poses[3] - poses[0]).max() > 0.1  # the legs have changed places
    rig = pose_sequence.Rig(rest)
    start = rig.pose(pose_sequence.walk(rig, 0.0))
    assert np.abs(rig.pose(pose_sequence.walk(rig, 1.0)) - start).max() < 1e-9
    e = edges(faces)
    for v in poses:
        assert_not_torn(rest, v, e)
    # The head moves only with the whole body: its shape is kept (6 decimals in the files), and
    # it turns and rises with the pelvis.
    head = np.flatnonzero(rest[:, 1] > 1.5)[::50]
    shape = np.linalg.norm(rest[head][:, None] - rest[head][None], axis=2)
    for v in poses:
        moved = np.linalg.norm(v[head][:, None] - v[head][None], axis=2)
        assert np.abs(moved - shape).max() < 1e-5
    lift = [v[head, 1].mean() - rest[head, 1].mean() for v in poses]
    assert abs(lift[0] - 0.02) < 1e-5 and min(lift) > -1e-6  # highest at mid-stance, never sinks
    assert np.abs(poses[1][head] - rest[head]).max() > 0.005  # the body has turned


@needs_body
def test_arms_come_down_and_nothing_else_moves(tmp_path):
    rest, faces = pose_sequence.read_obj(BODY)
    paths = pose_sequence.generate(BODY, "arms_down", 4, str(tmp_path / "body"))
    first, _ = pose_sequence.read_obj(paths[0])
    last, _ = pose_sequence.read_obj(paths[-1])
    assert np.abs(first - rest).max() < 1e-5  # starts in the A-pose (6 decimals in the file)
    assert np.abs(rest[:, 0]).max() > 0.6 and np.abs(last[:, 0]).max() < 0.4
    still = (rest[:, 1] < 0.9) & (np.abs(rest[:, 0]) < 0.2) | (rest[:, 1] > 1.5)
    assert np.abs(last[still] - rest[still]).max() < 1e-5  # legs, hips and head stay
    assert_not_torn(rest, last, edges(faces))


@needs_body
def test_unpose_inverts_pose_for_another_shape():
    rest, _ = pose_sequence.read_obj(BODY)
    rig = pose_sequence.Rig(rest)
    angles = {side: {"arm_down": -40.0, "arm_swing": -12.0, "elbow": 15.0, "thigh": 10.0,
                     "knee": 20.0} for side in (1.0, -1.0)}
    # A thinner body, skinned with the rig's joints and weights, and back.
    shape = rest * [0.9, 1.0, 0.9]
    posed = rig.pose(angles, shape)
    assert np.abs(posed - rig.pose(angles)).max() > 0.01
    np.testing.assert_allclose(rig.unpose(angles, posed), shape, atol=1e-9)


def test_a_mesh_without_arms_is_a_clear_error(tmp_path, capsys):
    mesh = tmp_path / "box.obj"
    mesh.write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")
    assert pose_sequence.main([str(mesh), "--out", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("pose_sequence: error: no arms found") and err.count("\n") == 1


def closest_on_triangles(p, a, b, c):
    """Barycentric weights (u, v, w) of the point of each triangle abc nearest to p (Ericson's
    regions: a vertex, an edge or the face), and its squared distance."""
    ab, ac, ap = b - a, c - a, p - a
    d1, d2 = (ab * ap).sum(1), (ac * ap).sum(1)
    bp, cp = p - b, p - c
    d3, d4 = (ab * bp).sum(1), (ac * bp).sum(1)
    d5, d6 = (ab * cp).sum(1), (ac * cp).sum(1)
    va, vb, vc = d3 * d6 - d5 * d4, d5 * d2 - d1 * d6, d1 * d4 - d3 * d2
    zero, one = np.zeros_like(d1), np.ones_like(d1)
    with np.errstate(divide="ignore", invalid="ignore"):
        total = va + vb + vc
        v, w = vb / total, vc / total
        bc = (d4 - d3) / ((d4 - d3) + (d5 - d6))
        regions = [  # (condition, v, w); the first that holds wins
            ((d1 <= 0) & (d2 <= 0), zero, zero),
            ((d3 >= 0) & (d4 <= d3), one, zero),
            ((d6 >= 0) & (d5 <= d6), zero, one),
            ((vc <= 0) & (d1 >= 0) & (d3 <= 0), d1 / (d1 - d3), zero),
            ((vb <= 0) & (d2 >= 0) & (d6 <= 0), zero, d2 / (d2 - d6)),
            ((va <= 0) & (d4 - d3 >= 0) & (d5 - d6 >= 0), 1 - bc, bc),
        ]
        for cond, rv, rw in reversed(regions):
            v, w = np.where(cond, rv, v), np.where(cond, rw, w)
    u = 1 - v - w
    q = u[:, None] * a + v[:, None] * b + w[:, None] * c
    return np.stack([u, v, w], 1), ((p - q) ** 2).sum(1)


def frame(a, b, c):
    """The orthonormal frame of triangle abc: along ab, across, the normal (as columns)."""
    e = (b - a) / np.linalg.norm(b - a)
    n = np.cross(b - a, c - a)
    n /= np.linalg.norm(n)
    return np.stack([e, np.cross(n, e), n], -1)


@needs_body
def test_a_patch_attached_to_a_walking_thigh_stays_on_its_surface_points(tmp_path):
    # A 6 cm square patch 1 cm in front of the left thigh, its upper three rows attached: each
    # attached vertex follows the point of the thigh nearest to it at frame 0 (barycentric on
    # that triangle, its offset kept in the triangle's frame) as the leg swings.
    paths = pose_sequence.generate(BODY, "walk", 6, str(tmp_path / "walk" / "body"))
    grid = np.linspace(-0.03, 0.03, 5)
    patch = [(0.105 + x, 0.6 + y, 0.076) for y in grid for x in grid]
    quads = [(5 * r + c + 1, 5 * r + c + 2, 5 * r + c + 7, 5 * r + c + 6)
             for r in range(4) for c in range(4)]
    (tmp_path / "patch.obj").write_text("".join(f"v {x} {y} {z}\n" for x, y, z in patch) +
                                        "".join("f %d %d %d\nf %d %d %d\n" % (a, b, c, a, c, d)
                                                for a, b, c, d in quads))
    attached = list(range(10, 25))
    scene = {"fps": 24, "frames": 5, "solver": {"backend": "cpu", "substeps": 8, "iterations": 6},
             "cloth": {"mesh": "patch.obj", "model": "xpbd", "material": "cotton",
                       "attach": [{"collider": 0, "vertices": attached}]},
             "colliders": [{"mesh": "walk/body.%04d.obj", "voxel_size": 0.01, "thickness": 0.004}]}
    (tmp_path / "scene.json").write_text(json.dumps(scene))
    sim = drape.load_scene(str(tmp_path / "scene.json"), stats=False)
    start = sim.positions[attached].astype(float)
    _, faces = pose_sequence.read_obj(paths[0])
    tris = np.array([[int(t.split("/")[0]) - 1 for t in f.split()[1:4]] for f in faces])
    poses = [pose_sequence.read_obj(p)[0] for p in paths]
    a, b, c = (poses[0][tris[:, i]] for i in range(3))
    bound = []
    for x in start:
        weights, d2 = closest_on_triangles(np.broadcast_to(x, a.shape), a, b, c)
        t = int(np.argmin(d2))
        q = weights[t] @ np.stack([a[t], b[t], c[t]])
        bound.append((t, weights[t], frame(a[t], b[t], c[t]).T @ (x - q)))
    assert max(np.linalg.norm(offset) for _, _, offset in bound) < 0.03
    moved = 0.0
    for f in range(1, 6):  # pose f is the surface at frame f (the poses run at the scene's fps)
        sim.step()
        for k, (t, weights, offset) in enumerate(bound):
            corners = poses[f][tris[t]]
            target = weights @ corners + frame(*corners) @ offset
            assert np.linalg.norm(sim.positions[attached[k]] - target) < 1e-3, (f, k)
        moved = max(moved, np.abs(sim.positions[attached] - start).max())
    assert moved > 0.05  # the thigh swung the patch
