"""drape.batch on a local Ray instance (2 CPUs): a sweep's runs equal plain `drape simulate` runs
with the same overrides, a run whose process is killed is retried and resumes bit for bit, bad
sweeps are refused before anything runs, finished runs are skipped when the sweep runs again."""
import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from drape import batch, sweep

BASE = {
    "frames": 6, "solver": {"backend": "cpu", "substeps": 4, "iterations": 8},
    "cloth": {"mesh": {"grid": {"resolution": [16, 12], "size": [1, 0.8], "center": [0, 1, 0]}},
              "pins": [0, 15]},
    "colliders": [{"sphere": {"center": [0, 0.6, 0], "radius": 0.25}}],
    "output": {"dir": "out", "name": "sheet", "formats": ["ply"]},
}
VARY = {"cloth.bend": [0.01, 0.5], "solver.iterations": [4, 8]}


@pytest.fixture(scope="module")
def ray_instance():
    ray = pytest.importorskip("ray", reason="Ray is not installed (python3 -m pip install ray)")
    import logging

    # One GPU declared, none needed: Ray assigns it to a task that asks for one.
    ray.init(num_cpus=2, num_gpus=1, include_dashboard=False, logging_level=logging.ERROR,
             log_to_driver=False)
    yield ray
    ray.shutdown()


def write_sweep(folder, base=None, **keys):
    (folder / "base.json").write_text(json.dumps(base or BASE))
    path = folder / "sweep.json"
    path.write_text(json.dumps(dict({"scene": "base.json", "out": "sweep_out"}, **keys)))
    return path


def manifest(folder):
    runs = json.loads((folder / "sweep_out" / "manifest.json").read_text())["runs"]
    return {r["name"]: r for r in runs}


def plain_run(folder, base, overrides, name):
    """`drape simulate` on the base scene with the overrides written into it by hand."""
    scene = json.loads(json.dumps(base))
    for key, value in overrides.items():
        sweep.set_dotted(scene, key, value)
    path = folder / (name + ".json")
    path.write_text(json.dumps(scene))
    out = folder / ("plain_" + name)
    subprocess.run([os.environ["DRAPE_EXE"], "simulate", str(path), "-o", str(out), "--quiet"],
                   check=True)
    return out


def frames(folder):
    return {p.name: p.read_bytes() for p in sorted(folder.glob("sheet.*.ply"))}


def test_vary_expands_to_named_runs_with_resolved_scenes(tmp_path):
    (tmp_path / "body.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")
    base = dict(BASE, colliders=[{"mesh": "body.obj"}])
    path = write_sweep(tmp_path, base, vary=VARY,
                       runs=[{"name": "long", "set": {"frames": 9}}, {"set": {"fps": 30}}])
    s = sweep.load_sweep(str(path))
    names = [r.name for r in s.runs]
    assert names == ["cloth.bend-0.01_solver.iterations-4", "cloth.bend-0.01_solver.iterations-8",
                     "cloth.bend-0.5_solver.iterations-4", "cloth.bend-0.5_solver.iterations-8",
                     "long", "fps-30"]
    first = s.runs[0].scene
    assert first["cloth"]["bend"] == 0.01 and first["solver"]["iterations"] == 4
    assert first["colliders"][0]["mesh"] == str(tmp_path / "body.obj")
    assert first["output"]["dir"] == str(tmp_path / "sweep_out" / names[0])
    assert s.runs[4].scene["frames"] == 9 and "bend" not in s.runs[4].scene["cloth"]
    assert s.runs[5].overrides == {"fps": 30} and s.runs[5].scene["fps"] == 30
    assert (s.cpus, s.gpus, s.retries) == (1.0, 0.0, 2)
    assert len(sweep.derived_name({"cloth.pins": list(range(100))})) == sweep.MAX_NAME


@pytest.mark.parametrize("keys, message", [
    ({"vary": {"cloth.bendd": [0.1]}}, "run 'cloth.bendd-0.1': cloth.bendd: unknown key"),
    ({"vary": {"cloth.bend": [0.1, 2]}}, "cloth.bend: must be in [0, 1], got 2"),
    ({"vary": {"frames.x": [1]}}, "'frames' is not an object in the scene"),
    ({"runs": [{"set": {"cloth.mesh": "nope.obj"}}]}, "cloth.mesh: no such file"),
    ({"runs": []}, "the sweep has no runs"),
    ({"vary": {"fps": [24]}, "runs": [{"name": "fps-24"}]}, "two runs are named 'fps-24'"),
    ({"retries": -1, "runs": [{}]}, "retries must be an integer >= 0"),
    ({"resources": {"gpu": 1}, "runs": [{}]}, "resources: unknown key 'gpu'"),
])
def test_bad_sweeps_are_refused_before_anything_runs(tmp_path, keys, message):
    path = write_sweep(tmp_path, **keys)
    result = subprocess.run([sys.executable, "-m", "drape.batch", str(path)], capture_output=True,
                            text=True, check=False)
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("drape.batch: error: ")
    assert message in result.stderr
    assert not (tmp_path / "sweep_out").exists()


def test_a_sweep_equals_plain_runs_and_is_skipped_when_run_again(tmp_path, ray_instance):
    path = write_sweep(tmp_path, vary=VARY)
    assert batch.main([str(path), "--quiet"]) == 0
    runs = manifest(tmp_path)
    assert len(runs) == 4
    for name, run in runs.items():
        assert run["status"] == "finished" and run["attempts"] == 1, run
        assert run["summary"]["frames"] == 6 and run["summary"]["inside"] == 0
        out = tmp_path / "sweep_out" / name
        assert json.loads((out / "scene.json").read_text())["cloth"]["bend"] == run["overrides"][
            "cloth.bend"]
        expected = frames(plain_run(tmp_path, BASE, run["overrides"], name))
        assert len(expected) == 7 and frames(out) == expected, name

    stamps = {p: p.stat().st_mtime_ns for p in (tmp_path / "sweep_out").glob("*/sheet.*.ply")}
    assert batch.main([str(path), "--quiet"]) == 0
    again = manifest(tmp_path)
    assert all(r["skipped"] and r["attempts"] == 1 for r in again.values())
    assert stamps == {p: p.stat().st_mtime_ns for p in stamps}


def kill_when_frame_appears(run_dir, frame, killed, victim):
    """SIGKILLs the run's `drape simulate` process, or the Ray worker that started it, once it has
    written `frame`."""
    target = run_dir / ("sheet.%04d.ply" % frame)
    deadline = time.monotonic() + 60
    while not target.exists() and time.monotonic() < deadline:
        time.sleep(0.002)
    for pid in os.listdir("/proc"):
        try:
            cmdline = open("/proc/%s/cmdline" % pid, "rb").read().split(b"\0")
        except OSError:
            continue
        if b"simulate" in cmdline and str(run_dir / "scene.json").encode() in cmdline:
            if victim == "worker":
                status = open("/proc/%s/status" % pid).read()
                pid = next(l.split()[1] for l in status.splitlines() if l.startswith("PPid:"))
            os.kill(int(pid), signal.SIGKILL)
            killed.append(int(pid))


@pytest.mark.parametrize("victim", ["drape", "worker"])
def test_a_killed_run_is_retried_and_resumes_bit_for_bit(tmp_path, ray_instance, victim):
    base = dict(BASE, frames=60)
    base["cloth"] = dict(BASE["cloth"], mesh={"grid": {"resolution": [48, 48], "size": [1, 1],
                                                       "center": [0, 1, 0]}}, pins=[0, 47])
    path = write_sweep(tmp_path, base, runs=[{"name": "victim"}])
    killed = []
    watcher = threading.Thread(target=kill_when_frame_appears,
                               args=(tmp_path / "sweep_out" / "victim", 5, killed, victim))
    watcher.start()
    assert batch.main([str(path), "--quiet"]) == 0
    watcher.join()
    assert len(killed) == 1
    run = manifest(tmp_path)["victim"]
    assert run["status"] == "finished" and run["attempts"] == 2, run
    first = json.loads((tmp_path / "sweep_out" / "victim" / ".attempts.json").read_text())[0]
    assert "exit" not in first or first["exit"] == -signal.SIGKILL, first
    expected = frames(plain_run(tmp_path, base, {}, "victim"))
    assert len(expected) == 61 and frames(tmp_path / "sweep_out" / "victim") == expected


def test_gpu_runs_get_a_gpu_from_ray_and_bad_input_is_not_retried(tmp_path, ray_instance):
    path = write_sweep(tmp_path, runs=[{"name": "gpu"}], resources={"cpus": 1, "gpus": 1})
    code = batch.main([str(path), "--quiet"])
    run = manifest(tmp_path)["gpu"]
    assert run["gpus"] == ["0"] and run["attempts"] == 1, run
    if run["status"] == "failed":  # no cuda backend or no device here: exit 2 or 1, final
        assert code == 1 and run["exit"] in (1, 2) and "cuda" in run["error"].lower(), run
    else:
        assert code == 0 and run["summary"]["frames"] == 6
