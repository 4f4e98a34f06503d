"""scripts/dress_scene.py: the dress and the mannequin cut from the shared dress_draped.obj; the
dress keeps the panels' triangles and UVs, the mannequin is closed, and the scene
data/dress_mannequin.json reads them and its stitches."""
import os
import subprocess
import sys

import numpy as np
import pytest

import drape

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GARMENTS = os.path.join(ROOT, "..", "shared", "data", "garments")
SCRIPT = os.path.join(ROOT, "scripts", "dress_scene.py")

pytestmark = pytest.mark.skipif(
    not os.path.exists(os.path.join(GARMENTS, "dress_draped.obj")),
    reason="../shared/data/garments/dress_draped.obj is not here")


def read_obj(path):
    positions, uvs, faces = [], 0, []
    with open(path) as f:
        for line in f:
            if line.startswith("v "):
                positions.append([float(x) for x in line.split()[1:4]])
            elif line.startswith("vt "):
                uvs += 1
            elif line.startswith("f "):
                faces.append(tuple(int(c.split("/")[0]) - 1 for c in line.split()[1:]))
    return np.array(positions), uvs, faces


@pytest.fixture(scope="module")
def meshes(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("dress"))
    subprocess.run([sys.executable, SCRIPT, "--out", out], check=True, capture_output=True)
    return out


def test_the_dress_is_the_draped_start_of_the_panels(meshes):
    dress, uvs, faces = read_obj(os.path.join(meshes, "dress.obj"))
    panels, panel_uvs, panel_faces = read_obj(os.path.join(GARMENTS, "dress_panels.obj"))
    draped, _, _ = read_obj(os.path.join(GARMENTS, "dress_draped.obj"))
    assert faces == panel_faces and uvs == panel_uvs == len(panels)
    np.testing.assert_allclose(dress, draped[:len(panels)], atol=1e-6)


def test_the_mannequin_is_the_rest_and_closed(meshes):
    body, _, faces = read_obj(os.path.join(meshes, "mannequin.obj"))
    draped, _, _ = read_obj(os.path.join(GARMENTS, "dress_draped.obj"))
    panels, _, _ = read_obj(os.path.join(GARMENTS, "dress_panels.obj"))
    rest = len(draped) - len(panels)
    np.testing.assert_allclose(body[:rest], draped[len(panels):], atol=1e-6)
    directed = [(f[i], f[(i + 1) % 3]) for f in faces for i in range(3)]
    unique = set(directed)
    assert len(unique) == len(directed), "each edge once per direction"
    assert all((b, a) in unique for a, b in directed), "no hole left"
    assert len(body) - rest == 3, "the neck and the arms' ends capped"


def scene_file(meshes, tmp_path):
    """data/dress_mannequin.json, reading the meshes from `meshes`."""
    with open(os.path.join(ROOT, "data", "dress_mannequin.json")) as f:
        scene = f.read()
    shared = os.path.join(ROOT, "..", "shared")
    scene = scene.replace("dress/", meshes + "/").replace("../../shared", shared)
    path = tmp_path / "scene.json"
    path.write_text(scene)
    return str(path)


def test_the_scene_reads_them(meshes, tmp_path):
    drape.check_scene(scene_file(meshes, tmp_path))


def test_missing_inputs_are_a_clear_error(tmp_path):
    result = subprocess.run([sys.executable, SCRIPT, "--draped", str(tmp_path / "none.obj"),
                             "--out", str(tmp_path)], capture_output=True, text=True)
    assert result.returncode != 0 and "none.obj: no such file" in result.stderr


def test_the_panels_sew_without_crossing(meshes, tmp_path):
    # The first 17 frames, while the panels relax to their pattern's lengths: the seams close and
    # no two layers cross (the neighbours that sewing makes follow the fabric, so a gather's or a
    # tuck's layers stay contacts).
    sim = drape.load_scene(scene_file(meshes, tmp_path))
    sim.step(17)
    for s in sim.stats:
        assert s["self_intersections"] == 0, s["frame"]
        assert s["penetrations"] == 0, s["frame"]
        assert s["stitch_gap"]["max"] < 1e-3, s["frame"]
