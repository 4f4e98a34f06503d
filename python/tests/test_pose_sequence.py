"""scripts/pose_sequence.py: pose sequences of the shared body by linear-blend skinning (walk,
arms down) keep the mesh's vertices and faces, move what they should and stretch nothing."""
import importlib.util
import os

import numpy as np
import pytest

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
    head = rest[:, 1] > 1.5
    assert np.abs(poses[2][head] - rest[head]).max() < 1e-6  # the head does not move (6 decimals)


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


def test_a_mesh_without_arms_is_a_clear_error(tmp_path, capsys):
    mesh = tmp_path / "box.obj"
    mesh.write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")
    assert pose_sequence.main([str(mesh), "--out", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("pose_sequence: error: no arms found") and err.count("\n") == 1
