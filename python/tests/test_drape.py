"""The drape Python module: a scene file gives the CLI's frames, arrays build a cloth, the GIL is
released while stepping, errors carry the CLI's messages."""
import json
import os
import struct
import subprocess
import threading

import numpy as np
import pytest

import drape

SCENE = {
    "frames": 6, "solver": {"backend": "cpu", "substeps": 4, "iterations": 8},
    "wind": [0, 0, 1],
    "cloth": {"mesh": {"grid": {"resolution": [16, 12], "size": [1, 0.8], "center": [0, 1, 0]}},
              "pins": [0, 15]},
    "colliders": [{"sphere": {"center": [0, 0.6, 0], "radius": 0.25}}],
    "output": {"dir": "out", "name": "sheet", "formats": ["ply"]},
}


def read_ply(path):
    data = open(path, "rb").read()
    end = data.index(b"end_header\n") + len(b"end_header\n")
    header = data[:end].decode().split("\n")
    n = int(next(l for l in header if l.startswith("element vertex")).split()[2])
    return np.frombuffer(data, dtype="<f4", count=3 * n, offset=end).reshape(n, 3)


def test_scene_file_matches_the_cli(tmp_path):
    scene = tmp_path / "scene.json"
    scene.write_text(json.dumps(SCENE))
    subprocess.run([os.environ["DRAPE_EXE"], "simulate", str(scene), "--quiet"], cwd=tmp_path,
                   check=True)
    sim = drape.load_scene(str(scene))
    assert sim.positions.shape == (192, 3) and sim.positions.dtype == np.float32
    assert np.array_equal(sim.positions, read_ply(tmp_path / "out" / "sheet.0000.ply"))
    for frame in range(1, 7):
        sim.step()
        assert sim.frame == frame
        assert np.array_equal(sim.positions, read_ply(tmp_path / "out" / ("sheet.%04d.ply" % frame)))


def test_arrays_build_a_cloth_and_pins_hold():
    n = 10
    xs, zs = np.meshgrid(np.linspace(-0.5, 0.5, n), np.linspace(-0.5, 0.5, n))
    positions = np.stack([xs.ravel(), np.ones(n * n), zs.ravel()], axis=1)
    quads = [(z * n + x, z * n + x + n, z * n + x + n + 1, z * n + x + 1)
             for z in range(n - 1) for x in range(n - 1)]
    triangles = np.array([t for a, b, c, d in quads for t in ((a, b, c), (a, c, d))], np.int32)
    sim = drape.from_arrays(positions, triangles, {"cloth": {"pins": [0, n - 1], "bend": 0.2},
                                                   "solver": {"substeps": 4}})
    sim.step(12)
    x = sim.positions
    assert np.all(np.isfinite(x))
    assert np.array_equal(x[[0, n - 1]], positions[[0, n - 1]].astype(np.float32))
    assert x[:, 1].min() < 0.6  # the free edge fell
    assert sim.triangles.shape == triangles.shape


def stacked_sheets(n, gap):
    xs, zs = np.meshgrid(np.linspace(-0.25, 0.25, n), np.linspace(-0.25, 0.25, n))
    sheet = np.stack([xs.ravel(), np.full(n * n, 0.45), zs.ravel()], axis=1)
    positions = np.concatenate([sheet, sheet + [0.01, gap, 0.005]])
    quads = [(z * n + x, z * n + x + n, z * n + x + n + 1, z * n + x + 1)
             for z in range(n - 1) for x in range(n - 1)]
    one = [t for a, b, c, d in quads for t in ((a, b, c), (a, c, d))]
    triangles = np.array(one + [(a + n * n, b + n * n, c + n * n) for a, b, c in one], np.int32)
    return positions, triangles


def test_self_collision_from_settings_keeps_sheets_apart():
    n = 12
    positions, triangles = stacked_sheets(n, 0.03)
    settings = {"solver": {"substeps": 8},
                "colliders": [{"sphere": {"center": [0, 0, 0], "radius": 0.2}}]}

    def closest_between_sheets(self_collision):
        settings["cloth"] = {"thickness": 0.01, "self_collision": self_collision}
        sim = drape.from_arrays(positions, triangles, settings)
        sim.step(30)
        x = sim.positions.astype(np.float64)
        lower, upper = x[:n * n], x[n * n:]
        gaps = np.linalg.norm(lower[:, None, :] - upper[None, :, :], axis=2)
        return gaps.min(), np.linalg.norm(upper, axis=1).mean() - np.linalg.norm(lower, axis=1).mean()

    gap_on, above_on = closest_between_sheets(True)
    gap_off, _ = closest_between_sheets(False)
    assert gap_on >= 0.005 and above_on > 0
    assert gap_off < 0.005


def test_errors_are_exceptions_with_the_cli_messages(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"cloth": {"mesh": {"grid": {}}, "strech": 1}}')
    with pytest.raises(ValueError, match="bad.json: cloth.strech: unknown key"):
        drape.load_scene(str(bad))
    tri = np.array([[0, 1, 2]])
    pts = np.zeros((3, 3))
    pts[1, 0] = pts[2, 2] = 1.0
    with pytest.raises(ValueError, match="settings: cloth.stretch: must be in"):
        drape.from_arrays(pts, tri, {"cloth": {"stretch": 3}})
    with pytest.raises(ValueError, match="vertex index 7 out of range"):
        drape.from_arrays(pts, np.array([[0, 1, 7]]))
    with pytest.raises(RuntimeError, match="the cuda backend"):
        drape.load_scene(os.path.join(os.environ["DRAPE_SOURCE_DIR"], "data", "sphere_drape.json"),
                         backend="cuda")


def test_stepping_releases_the_gil():
    sim = drape.load_scene(os.path.join(os.environ["DRAPE_SOURCE_DIR"], "data", "sphere_drape.json"))
    ticks = []
    stop = threading.Event()

    def tick():
        while not stop.is_set():
            ticks.append(1)
            stop.wait(0.001)

    thread = threading.Thread(target=tick)
    thread.start()
    sim.step(10)
    stop.set()
    thread.join()
    assert len(ticks) > 5  # Python ran while the solver stepped


def sheet():
    """A 4 x 4 grid sheet as arrays."""
    xs, zs = np.meshgrid(np.linspace(0, 1, 4), np.linspace(0, 1, 4))
    points = np.stack([xs.ravel(), np.ones(16), zs.ravel()], axis=1)
    quads = [(r * 4 + c, r * 4 + c + 1, r * 4 + c + 5, r * 4 + c + 4)
             for r in range(3) for c in range(3)]
    tris = np.array([t for a, b, c, d in quads for t in ((a, b, c), (a, c, d))], dtype=np.int32)
    return points, tris


def test_numpy_values_are_accepted_where_json_takes_numbers():
    points, tris = sheet()
    plain = drape.from_arrays(points, tris, {"cloth": {"pins": [0, 3]}, "fps": 24})
    numpy = drape.from_arrays(points, tris.astype(np.uint64),
                              {"cloth": {"pins": np.array([0, 3])}, "fps": np.int64(24)})
    plain.step(3)
    numpy.step(3)
    assert np.array_equal(plain.positions, numpy.positions)
    assert np.array_equal(numpy.positions[[0, 3]], points[[0, 3]].astype(np.float32))
    assert plain.time == 3 / 24 and len(plain.stats) == 4 and plain.stats[3]["frame"] == 3
    assert plain.stats[3]["max_strain"] > 0
    quick = drape.from_arrays(points, tris, {"cloth": {"pins": [0, 3]}, "fps": 24}, stats=False)
    quick.step(3)
    assert np.array_equal(quick.positions, plain.positions) and quick.stats[3]["max_strain"] == 0


def test_bad_arguments_name_the_argument():
    points, tris = sheet()
    with pytest.raises(ValueError, match="triangles: must be integer vertex indices"):
        drape.from_arrays(points, tris.astype(np.float64))
    with pytest.raises(ValueError, match="threads: must be 0"):
        drape.from_arrays(points, tris, threads=-1)
    with pytest.raises(ValueError, match="positions: must be an array of numbers of shape"):
        drape.from_arrays(points[:, :2], tris)
    with pytest.raises(TypeError, match="settings: .* is not a JSON value"):
        drape.from_arrays(points, tris, {"cloth": {"pins": object()}})


def test_a_diverging_solve_raises_with_the_clis_message():
    points = np.array([[0, 0, 0], [3e38, 0, 0], [0, 0, 3e38], [3e38, 0, 3e38]])
    sim = drape.from_arrays(points, np.array([[0, 1, 3], [0, 3, 2]]))
    with pytest.raises(RuntimeError, match="frame 1: vertex 0 has a non-finite position"):
        sim.step(1)
    assert sim.frame == 0
