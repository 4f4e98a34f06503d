"""Sweep files: a base scene, dotted-key overrides (a cartesian product under ``vary``, explicit
runs under ``runs``) and the runs they expand to, each with a stable name and a resolved scene of
its own. Everything here is checked before anything runs; a problem raises SweepError with one
line naming the sweep file, the run and the key."""
import copy
import hashlib
import itertools
import json
import os
import re
import tempfile
from dataclasses import dataclass, field

from . import _drape

SWEEP_KEYS = ("scene", "out", "vary", "runs", "resources", "retries")
RUN_KEYS = ("name", "set")
RESOURCE_KEYS = ("cpus", "gpus")
# Scene keys that hold file paths, relative to the scene file: a resolved scene lives in its run's
# folder, so they become absolute there.
PATH_KEYS = ("cloth.mesh", "cloth.rest_mesh", "cloth.stitches")
COLLIDER_PATH_KEYS = ("mesh", "vdb", "nvdb")
NAME_CHARS = re.compile(r"[^A-Za-z0-9._+-]")
MAX_NAME = 80


class SweepError(Exception):
    """Bad sweep input: one line, exit code 2, nothing run."""


@dataclass
class Run:
    name: str
    overrides: dict  # dotted key -> value, in the sweep's order
    scene: dict = field(default_factory=dict)  # the base scene with the overrides and paths resolved


@dataclass
class Sweep:
    path: str
    scene_path: str
    out: str  # absolute
    runs: list
    cpus: float = 1.0
    gpus: float = 0.0
    retries: int = 2


def _fail(where, message):
    raise SweepError("%s: %s" % (where, message))


def _read_json(path, what):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        raise SweepError("%s: cannot read %s: %s" % (path, what, e.strerror)) from None
    except json.JSONDecodeError as e:
        raise SweepError("%s:%d: not valid JSON: %s" % (path, e.lineno, e.msg)) from None


def _only(where, obj, allowed, what):
    if not isinstance(obj, dict):
        _fail(where, "%s must be an object" % what)
    unknown = [k for k in obj if k not in allowed]
    if unknown:
        _fail(where, "%s: unknown key '%s' (known: %s)" % (what, unknown[0], ", ".join(allowed)))


def _number(where, obj, key, default, minimum, integer=False):
    value = obj.get(key, default)
    ok = isinstance(value, int) if integer else isinstance(value, (int, float))
    if isinstance(value, bool) or not ok or value < minimum:
        kind = "an integer" if integer else "a number"
        _fail(where, "%s must be %s >= %s, got %s" % (key, kind, minimum, json.dumps(value)))
    return value


def set_dotted(scene, key, value):
    """Sets scene[a][b][c] = value for key "a.b.c"; a numeric part indexes a list
    ("colliders.0.friction"). Missing objects on the way are created; the scene reader then
    decides whether the key exists in the format. Raises ValueError for a path through a value."""
    parts = key.split(".")
    if not key or any(p == "" for p in parts):
        raise ValueError("'%s' is not a dotted key" % key)
    node = scene
    for depth, part in enumerate(parts):
        last = depth == len(parts) - 1
        here = ".".join(parts[: depth + 1])
        if isinstance(node, list):
            if not part.isdigit() or int(part) >= len(node):
                raise ValueError("'%s': the scene's list has no item %s" % (here, part))
            index = int(part)
        elif isinstance(node, dict):
            index = part
            if not last and index not in node:
                node[index] = {}
        else:
            raise ValueError("'%s' is not an object in the scene" % ".".join(parts[:depth]))
        if last:
            node[index] = copy.deepcopy(value)
        else:
            node = node[index]


def _value_text(value):
    return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))


def derived_name(overrides):
    """A folder name that says what a run changes: cloth.bend-0.01_cloth.stretch-0.9; long ones
    are shortened and keep a hash of the overrides so that they stay distinct."""
    if not overrides:
        return "base"
    text = "_".join("%s-%s" % (k, _value_text(v)) for k, v in overrides.items())
    name = NAME_CHARS.sub("-", text)
    if len(name) > MAX_NAME:
        digest = hashlib.sha1(json.dumps(overrides, sort_keys=True).encode()).hexdigest()[:10]
        name = name[: MAX_NAME - 11] + "-" + digest
    return name


def _expand(where, sweep):
    runs = []
    vary = sweep.get("vary", {})
    if not isinstance(vary, dict):
        _fail(where, "vary must be an object of dotted keys and lists of values")
    for key, values in vary.items():
        if not isinstance(values, list) or not values:
            _fail(where, "vary: '%s' needs a non-empty list of values" % key)
    if vary:
        for combination in itertools.product(*vary.values()):
            overrides = dict(zip(vary.keys(), combination))
            runs.append(Run(derived_name(overrides), overrides))
    explicit = sweep.get("runs", [])
    if not isinstance(explicit, list):
        _fail(where, "runs must be a list of {\"name\": ..., \"set\": {...}}")
    for i, entry in enumerate(explicit):
        _only(where, entry, RUN_KEYS, "runs[%d]" % i)
        overrides = entry.get("set", {})
        if not isinstance(overrides, dict):
            _fail(where, "runs[%d].set must be an object of dotted keys and values" % i)
        name = entry.get("name", derived_name(overrides))
        if not isinstance(name, str) or name in (".", "..") or not name or NAME_CHARS.search(name):
            _fail(where, "runs[%d].name must be a folder name of letters, digits and _.+-, got %s"
                  % (i, json.dumps(name)))
        runs.append(Run(name, dict(overrides)))
    if not runs:
        _fail(where, "the sweep has no runs (give vary, runs or both)")
    seen = {}
    for run in runs:
        if run.name in seen:
            _fail(where, "two runs are named '%s' (%s and %s)"
                  % (run.name, json.dumps(seen[run.name]), json.dumps(run.overrides)))
        seen[run.name] = run.overrides
    return runs


def _absolute(path, folder):
    return path if os.path.isabs(path) else os.path.normpath(os.path.join(folder, path))


def _resolve_paths(scene, folder):
    """Makes the scene's file paths absolute; raises ValueError for one that names no file (a
    pose sequence's pattern, NAME.%04d.obj, is left to the scene reader)."""
    slots = []
    cloth = scene.get("cloth")
    if isinstance(cloth, dict):
        slots += [(cloth, key.split(".")[1], key) for key in PATH_KEYS]
    colliders = scene.get("colliders")
    for i, collider in enumerate(colliders if isinstance(colliders, list) else []):
        if isinstance(collider, dict):
            slots += [(collider, key, "colliders.%d.%s" % (i, key)) for key in COLLIDER_PATH_KEYS]
    for holder, key, dotted in slots:
        if isinstance(holder.get(key), str):
            holder[key] = _absolute(holder[key], folder)
            if "%" not in holder[key] and not os.path.isfile(holder[key]):
                raise ValueError("%s: no such file %s" % (dotted, holder[key]))


def resolve(base, scene_folder, run, run_dir):
    """The base scene with the run's overrides, file paths made absolute (relative paths in the
    base scene and in overrides are relative to the base scene's folder) and output.dir set to
    the run's folder."""
    scene = copy.deepcopy(base)
    for key, value in run.overrides.items():
        set_dotted(scene, key, value)
    _resolve_paths(scene, scene_folder)
    output = scene.setdefault("output", {})
    if isinstance(output, dict):
        output["dir"] = run_dir
    return scene


def scene_text(scene):
    return json.dumps(scene, indent=2) + "\n"


def load_sweep(path, out=None):
    """Reads SWEEP.json, expands its runs and checks every resolved scene with drape's own scene
    reader. `out` (the --out flag, relative to the working directory) replaces the file's out
    (relative to the sweep file)."""
    sweep = _read_json(path, "the sweep")
    where = path
    _only(where, sweep, SWEEP_KEYS, "sweep")
    folder = os.path.dirname(os.path.abspath(path))
    if not isinstance(sweep.get("scene"), str):
        _fail(where, "scene must name the base scene file")
    scene_path = _absolute(sweep["scene"], folder)
    base = _read_json(scene_path, "the base scene")
    if out is None:
        out = sweep.get("out", os.path.join("out", os.path.splitext(os.path.basename(path))[0]))
        if not isinstance(out, str) or not out:
            _fail(where, "out must be a folder name")
        out = _absolute(out, folder)
    out = os.path.abspath(out)
    resources = sweep.get("resources", {})
    _only(where, resources, RESOURCE_KEYS, "resources")
    cpus = _number(where, resources, "cpus", 1, 0.01)
    gpus = _number(where, resources, "gpus", 0, 0)
    retries = _number(where, sweep, "retries", 2, 0, integer=True)
    runs = _expand(where, sweep)
    scene_folder = os.path.dirname(scene_path)
    with tempfile.TemporaryDirectory(prefix="drape-sweep-") as scratch:
        check = os.path.join(scratch, "scene.json")
        for run in runs:
            run_where = "%s: run '%s'" % (where, run.name)
            try:
                run.scene = resolve(base, scene_folder, run, os.path.join(out, run.name))
            except ValueError as e:
                _fail(run_where, str(e))
            with open(check, "w", encoding="utf-8") as f:
                f.write(scene_text(run.scene))
            try:
                _drape.check_scene(check)
            except ValueError as e:
                _fail(run_where, str(e).replace(check + ": ", ""))
    return Sweep(path, scene_path, out, runs, float(cpus), float(gpus), retries)
