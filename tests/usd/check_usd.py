#!/usr/bin/env python3
"""Opens drape's USD cache with Pixar's USD Python API (the usd-core package) and checks it
against the PLY frames of the same run: time range and rate, stage metadata, the Mesh prim's
topology, and points equal to the PLY positions bit for bit at every frame. Also checks that a
run killed before its end leaves no .usda, and that a resumed run writes the same .usda as an
uninterrupted one, and that texture coordinates of an OBJ cloth (face-varying) and of a PLY cloth
(per vertex) arrive as primvars:st. Exits 77 (skipped) when usd-core is not installed."""
import os
import random
import struct
import subprocess
import sys
import tempfile
import time

try:
    from pxr import Usd, UsdGeom
except ImportError:
    print("skipped: usd-core is not installed (pip install usd-core)")
    sys.exit(77)

DRAPE = sys.argv[1]
FRAMES = 8
SCENE = """{"frames": %d, "fps": 30, "solver": {"substeps": 8},
  "cloth": {"mesh": {"grid": {"resolution": [32, 28], "size": [1, 1], "center": [0, 1, 0]}},
            "pins": [0, 23]},
  "colliders": [{"sphere": {"center": [0, 0.6, 0], "radius": 0.25}}],
  "output": {"dir": "out", "name": "sheet", "formats": ["usd", "ply"]}}""" % FRAMES


# README, "Opening the caches": drape's cache in a stage in centimetres with Z up.
CM_ZUP = """#usda 1.0
(
    metersPerUnit = 0.01
    upAxis = "Z"
)

def Xform "cloth_cm_zup"
{
    double3 xformOp:rotateXYZ = (90, 0, 0)
    double3 xformOp:scale = (100, 100, 100)
    uniform token[] xformOpOrder = ["xformOp:rotateXYZ", "xformOp:scale"]

    def "cloth" (
        prepend references = @%s@
    )
    {
    }
}
"""


def read_ply(path):
    data = open(path, "rb").read()
    end = data.index(b"end_header\n") + len(b"end_header\n")
    header = data[:end].decode().split("\n")
    n = int(next(l for l in header if l.startswith("element vertex")).split()[2])
    return [struct.unpack_from("<3f", data, end + 12 * i) for i in range(n)]


def check(condition, what):
    if not condition:
        print("FAIL:", what)
        sys.exit(1)


def frames_written(cwd):
    out = os.path.join(cwd, "out")
    return len([f for f in os.listdir(out) if f.endswith(".ply")]) if os.path.isdir(out) else 0


def run(cwd, *args, kill_at=None, delay=0.0):
    """Runs drape; with kill_at, SIGKILLs it `delay` seconds after the cache holds that many
    frames (returns -9), so kills follow the run's progress, not the wall clock."""
    cmd = [DRAPE, "simulate", "scene.json", "--quiet", *args]
    proc = subprocess.Popen(cmd, cwd=cwd)
    while kill_at is not None and proc.poll() is None:
        if frames_written(cwd) >= kill_at:
            time.sleep(delay)
            proc.kill()
            proc.wait()
            return -9
        time.sleep(0.0005)
    return proc.wait()


with tempfile.TemporaryDirectory() as work:
    open(os.path.join(work, "scene.json"), "w").write(SCENE)
    check(run(work) == 0, "drape simulate failed")
    usda = os.path.join(work, "out", "sheet.usda")
    stage = Usd.Stage.Open(usda)
    check(stage.GetStartTimeCode() == 0 and stage.GetEndTimeCode() == FRAMES, "time range")
    check(stage.GetTimeCodesPerSecond() == 30, "timeCodesPerSecond")
    check(UsdGeom.GetStageUpAxis(stage) == "Y", "upAxis")
    check(UsdGeom.GetStageMetersPerUnit(stage) == 1, "metersPerUnit")
    mesh = UsdGeom.Mesh(stage.GetDefaultPrim())
    check(bool(mesh), "the default prim is a Mesh")
    check(mesh.GetSubdivisionSchemeAttr().Get() == "none", "subdivisionScheme")
    counts = mesh.GetFaceVertexCountsAttr().Get()
    check(len(counts) == 2 * 31 * 27 and set(counts) == {3}, "faceVertexCounts")
    check(mesh.GetNormalsInterpolation() == "vertex", "vertex normals")
    for frame in range(FRAMES + 1):
        points = mesh.GetPointsAttr().Get(frame)
        ply = read_ply(os.path.join(work, "out", "sheet.%04d.ply" % frame))
        check(len(points) == len(ply) == 896, "point count at frame %d" % frame)
        check(all(tuple(p) == q for p, q in zip(points, ply)), "points equal PLY at frame %d" % frame)
        check(len(mesh.GetNormalsAttr().Get(frame)) == 896, "normals at frame %d" % frame)
        check(len(mesh.GetVelocitiesAttr().Get(frame)) == 896, "velocities at frame %d" % frame)
        check(len(mesh.GetExtentAttr().Get(frame)) == 2, "extent at frame %d" % frame)
    reference = open(usda).read()

    # The README's wrapper for a stage in centimetres, Z up: a point (x, y, z) of the cache lands
    # at (100 x, -100 z, 100 y).
    open(os.path.join(work, "shot.usda"), "w").write(CM_ZUP % "out/sheet.usda")
    shot = Usd.Stage.Open(os.path.join(work, "shot.usda"))
    check(UsdGeom.GetStageUpAxis(shot) == "Z" and UsdGeom.GetStageMetersPerUnit(shot) == 0.01,
          "the wrapper stage is Z-up in centimetres")
    prim = shot.GetPrimAtPath("/cloth_cm_zup/cloth")
    check(prim.GetTypeName() == "Mesh", "the referenced cloth is a Mesh")
    world = UsdGeom.Xformable(prim).ComputeLocalToWorldTransform(FRAMES)
    p = UsdGeom.Mesh(prim).GetPointsAttr().Get(FRAMES)[5]
    q = world.Transform(p)
    check(all(abs(a - b) < 1e-3 for a, b in zip(q, (100 * p[0], -100 * p[2], 100 * p[1]))),
          "the wrapper maps Y-up metres to Z-up centimetres")

    os.rename(os.path.join(work, "out"), os.path.join(work, "whole"))
    check(run(work, kill_at=3) == -9, "the first run was meant to be killed")
    check(not os.path.exists(usda), "a killed run left a .usda")
    rng = random.Random(3)
    for attempt in range(100):
        target = frames_written(work) + rng.randint(1, 3)
        if run(work, "--resume", kill_at=target, delay=rng.uniform(0, 0.01)) == 0:
            break
    check(os.path.exists(usda), "the resumed run finished")
    check(open(usda).read() == reference, "the resumed .usda equals the uninterrupted one")

# Two quads of a strip, unwrapped with a seam: vertices 1 and 4 have two texture coordinates each.
UV_OBJ = """v 0 1 0\nv 1 1 0\nv 2 1 0\nv 0 1 1\nv 1 1 1\nv 2 1 1
vt 0 0\nvt 0.5 0\nvt 0 1\nvt 0.5 1\nvt 0.625 0\nvt 1 0\nvt 0.625 1\nvt 1 1
g left
f 1/1 2/2 5/4 4/3
g right
f 2/5 3/6 6/8 5/7
"""
# Corners of the fan-split faces (0, 1, 2), (0, 2, 3) of each quad, as written above.
UV_CORNERS = [(0, 0), (0.5, 0), (0.5, 1), (0, 0), (0.5, 1), (0, 1),
              (0.625, 0), (1, 0), (1, 1), (0.625, 0), (1, 1), (0.625, 1)]
UV_PLY = """ply\nformat ascii 1.0\nelement vertex 4\nproperty float x\nproperty float y
property float z\nproperty float s\nproperty float t\nelement face 1
property list uchar int vertex_indices\nend_header
0 1 0 0 0\n1 1 0 0.25 0\n1 1 1 0.25 0.75\n0 1 1 0 0.75\n4 0 1 2 3
"""
UV_SCENE = """{"frames": 2, "cloth": {"mesh": "%s"},
  "output": {"dir": "out", "name": "%s", "formats": ["usd", "obj"]}}"""


def st_of(work, mesh_file, text):
    open(os.path.join(work, mesh_file), "w").write(text)
    # A cache name per mesh: USD keeps an open stage's layer for its path.
    name = mesh_file.replace(".", "_")
    open(os.path.join(work, "scene.json"), "w").write(UV_SCENE % (mesh_file, name))
    check(run(work) == 0, "drape simulate failed on " + mesh_file)
    stage = Usd.Stage.Open(os.path.join(work, "out", name + ".usda"))
    st = UsdGeom.PrimvarsAPI(stage.GetDefaultPrim()).GetPrimvar("st")
    check(st.IsDefined(), "primvars:st of " + mesh_file)
    check(st.GetTypeName() == "texCoord2f[]", "st is texCoord2f[]")
    return stage, st  # the primvar is valid while its stage is open


with tempfile.TemporaryDirectory() as work:
    stage, st = st_of(work, "strip.obj", UV_OBJ)
    check(st.GetInterpolation() == "faceVarying", "OBJ texture coordinates are face-varying")
    check(st.IsIndexed() and len(st.Get()) == 8, "st keeps the OBJ's 8 coordinates, indexed")
    check([tuple(c) for c in st.ComputeFlattened()] == UV_CORNERS, "st per corner")
    obj = open(os.path.join(work, "out", "strip_obj.0002.obj")).read()
    check(obj.count("\nvt ") == 8 and "\ng left\n" in obj and "\ng right\n" in obj,
          "the OBJ frame keeps vt and the groups")
    stage, st = st_of(work, "quad.ply", UV_PLY)
    check(st.GetInterpolation() == "vertex" and not st.IsIndexed(), "PLY s, t are per vertex")
    check([tuple(c) for c in st.Get()] == [(0, 0), (0.25, 0), (0.25, 0.75), (0, 0.75)],
          "st per vertex")

# --format usdc: a crate file (converted by Pixar's library) with the same content as the .usda;
# with usdc alone, no .usda is left.
with tempfile.TemporaryDirectory() as work:
    open(os.path.join(work, "scene.json"), "w").write(SCENE)
    check(run(work, "--format", "usd,usdc") == 0, "drape simulate --format usd,usdc failed")
    usda, usdc = (os.path.join(work, "out", "sheet." + e) for e in ("usda", "usdc"))
    check(open(usdc, "rb").read(8) == b"PXR-USDC", "the .usdc is a crate file")
    text, crate = Usd.Stage.Open(usda), Usd.Stage.Open(usdc)
    check(crate.GetEndTimeCode() == FRAMES and UsdGeom.GetStageUpAxis(crate) == "Y", "usdc stage")
    a, b = UsdGeom.Mesh(text.GetDefaultPrim()), UsdGeom.Mesh(crate.GetDefaultPrim())
    check(list(a.GetFaceVertexIndicesAttr().Get()) == list(b.GetFaceVertexIndicesAttr().Get()),
          "usdc topology")
    for frame in range(FRAMES + 1):
        for attr in ("GetPointsAttr", "GetNormalsAttr", "GetVelocitiesAttr"):
            check(list(getattr(a, attr)().Get(frame)) == list(getattr(b, attr)().Get(frame)),
                  "usdc %s at frame %d" % (attr, frame))
    per = 896 * (FRAMES + 1)
    print("bytes per vertex per frame: usda %.1f, usdc %.1f (%.2fx smaller)" % (
        os.path.getsize(usda) / per, os.path.getsize(usdc) / per,
        os.path.getsize(usda) / os.path.getsize(usdc)))
    os.rename(os.path.join(work, "out"), os.path.join(work, "both"))
    check(run(work, "--format", "usdc") == 0, "drape simulate --format usdc failed")
    check(os.path.exists(usdc) and not os.path.exists(usda), "usdc alone leaves no .usda")
print("usd cache: all checks passed")
