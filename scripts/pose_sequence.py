#!/usr/bin/env python3
"""Pose sequences for animated body colliders: a static body in A-pose (such as
../shared/data/bodies/mean_all.obj: Y up, metres, feet at y = 0, facing +Z) turned into OBJ files
NAME.0000.obj, NAME.0001.obj, ... by linear-blend skinning with procedural joints (hips, knees,
shoulders, elbows) found from the mesh's shape. Every pose has the input's vertices in the same
order and the same faces, so a mesh-sequence collider can interpolate between them.

Motions:
  walk       a walking cycle in place: thighs swing +-20 degrees, knees bend up to 40 degrees on
             the swing, arms swing against the legs, and the whole body turns +-4 degrees about
             the vertical through the hips (towards the forward leg) and rises up to 2 cm at
             each mid-stance (when the legs pass); periodic (frame N would equal frame 0).
  arms_down  the arms come down from the A-pose to about 12 degrees from the body, eased in and
             out, elbows straight.

  python3 scripts/pose_sequence.py BODY.obj --motion walk --frames 30 --out walk/body
"""
import argparse
import math
import os
import sys

import numpy as np


def read_obj(path):
    vertices, faces = [], []
    with open(path) as f:
        for line in f:
            if line.startswith("v "):
                vertices.append([float(x) for x in line.split()[1:4]])
            elif line.startswith("f "):
                faces.append(line.rstrip("\n"))
    if not vertices or not faces:
        raise ValueError(f"{path}: no vertices or no faces")
    return np.array(vertices), faces


def write_obj(path, vertices, faces):
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        f.writelines(f"v {x:.6f} {y:.6f} {z:.6f}\n" for x, y, z in vertices)
        f.write("\n".join(faces) + "\n")
    os.replace(tmp, path)


def smoothstep(edge0, edge1, x):
    t = np.clip((x - edge0) / (edge1 - edge0), 0.0, 1.0)
    return t * t * (3.0 - 2.0 * t)


def rotation(axis, degrees):
    """Rotation matrix about a unit axis (Rodrigues)."""
    a = np.asarray(axis, dtype=float) / np.linalg.norm(axis)
    k = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    t = math.radians(degrees)
    return np.eye(3) + math.sin(t) * k + (1 - math.cos(t)) * (k @ k)


class Rig:
    """Joints and skin weights of an A-pose body, from its shape: the arms are the vertices beyond
    the torso at arm height (their principal axis gives the arm's direction), the legs those below
    the crotch, split by the sign of x."""

    def __init__(self, v):
        self.v = v
        height = v[:, 1].max()
        self.hip_y, self.knee_y = 0.50 * height, 0.285 * height
        self.sides = {}
        for side in (1.0, -1.0):
            arm = v[(side * v[:, 0] > 0.25) & (v[:, 1] > 0.45 * height)]
            if len(arm) < 20:
                raise ValueError("no arms found beside the torso: is the body in A-pose, Y up?")
            centre = arm.mean(axis=0)
            axis = np.linalg.svd(arm - centre)[2][0]
            axis = axis if side * axis[0] > 0 else -axis  # outwards
            # The shoulder joint: where the arm's axis meets |x| = 0.17 m.
            shoulder = centre + axis * ((side * 0.17 - centre[0]) / axis[0])
            reach = ((arm - shoulder) @ axis).max()
            knee_slice = v[(np.abs(v[:, 1] - self.knee_y) < 0.01) & (side * v[:, 0] > 0.0)]
            self.sides[side] = {
                "shoulder": shoulder,
                "axis": axis,
                "elbow_s": 0.40 * reach,
                "hip": np.array([side * 0.09, self.hip_y, v[:, 2].mean()]),
                "knee": np.array([knee_slice[:, 0].mean(), self.knee_y, knee_slice[:, 2].mean()]),
            }
        self.weights = {side: self._weights(side) for side in self.sides}

    def _weights(self, side):
        v, j = self.v, self.sides[side]
        rel = v - j["shoulder"]
        s = rel @ j["axis"]
        radial = np.linalg.norm(rel - np.outer(s, j["axis"]), axis=1)
        # The arm: beyond the shoulder along its axis; near the shoulder only close to the axis
        # (not the chest and back beside it).
        inner = 0.06 + 0.05 * smoothstep(0.10, 0.20, s)  # wider along the forearm and hand
        near_axis = 1.0 - smoothstep(inner, inner + 0.10, radial)
        upper = smoothstep(-0.08, 0.10, s) * near_axis * smoothstep(0.06, 0.12, side * v[:, 0])
        fore = smoothstep(j["elbow_s"] - 0.05, j["elbow_s"] + 0.05, s)
        # The leg: below the hip, split between the legs softly at the crotch and sharply below
        # it, where the legs are apart.
        thigh = smoothstep(self.hip_y + 0.06, self.hip_y - 0.16, v[:, 1])
        split = 0.005 + 0.1 * smoothstep(self.hip_y - 0.28, self.hip_y - 0.08, v[:, 1])
        thigh *= smoothstep(-split, split, side * v[:, 0]) * (upper == 0)
        shin = smoothstep(self.knee_y + 0.07, self.knee_y - 0.07, v[:, 1])
        return {"upper": upper, "fore": fore, "thigh": thigh, "shin": shin}

    def pose(self, angles, positions=None):
        """Skinned positions for joint angles (degrees) per side: thigh (forward swing), knee
        (bend), arm_swing (forward), arm_down (towards the body), elbow (bend). `positions`: the
        A-pose shape to skin (default the body's own), with the body's joints and weights."""
        v = self.v if positions is None else positions
        out = v.copy()
        for side, a in angles.items():
            j, w = self.sides[side], self.weights[side]
            lateral = np.array([1.0, 0.0, 0.0])
            # Legs: root -> thigh (about the hip) -> shin (about the knee).
            r_thigh = rotation(lateral, -a.get("thigh", 0.0))
            r_shin = rotation(lateral, a.get("knee", 0.0))
            thigh_p = (v - j["hip"]) @ r_thigh.T + j["hip"]
            knee_now = (j["knee"] - j["hip"]) @ r_thigh.T + j["hip"]
            shin_p = (v - j["knee"]) @ (r_thigh @ r_shin).T + knee_now
            leg = (1 - w["shin"])[:, None] * thigh_p + w["shin"][:, None] * shin_p
            # Arms: root -> upper arm (about the shoulder) -> forearm (about the elbow).
            r_upper = rotation([0, 0, 1], -side * a.get("arm_down", 0.0)) @ rotation(
                lateral, -a.get("arm_swing", 0.0))
            elbow = j["shoulder"] + j["elbow_s"] * j["axis"]
            bend_axis = np.cross(j["axis"], [0.0, 0.0, 1.0])
            r_fore = rotation(bend_axis, a.get("elbow", 0.0))
            upper_p = (v - j["shoulder"]) @ r_upper.T + j["shoulder"]
            elbow_now = (elbow - j["shoulder"]) @ r_upper.T + j["shoulder"]
            fore_p = (v - elbow) @ (r_upper @ r_fore).T + elbow_now
            arm = (1 - w["fore"])[:, None] * upper_p + w["fore"][:, None] * fore_p
            out += w["thigh"][:, None] * (leg - v) + w["upper"][:, None] * (arm - v)
        return out

    def unpose(self, angles, posed):
        """The A-pose shape that `pose(angles, shape)` turns into `posed`: skinning moves each
        vertex by its own affine map, which is inverted here."""
        zero = np.zeros_like(self.v)
        shift = self.pose(angles, zero)
        linear = np.stack([self.pose(angles, zero + np.eye(3)[k]) - shift for k in range(3)], 2)
        return np.linalg.solve(linear, (posed - shift)[:, :, None])[:, :, 0]

    def place(self, positions, yaw, lift):
        """The whole body turned `yaw` degrees about the vertical through the hips and raised
        `lift` metres."""
        centre = np.array([0.0, self.hip_y, self.v[:, 2].mean()])
        return (positions - centre) @ rotation([0, 1, 0], yaw).T + centre + [0.0, lift, 0.0]

    def arm_angle(self, side):
        """The arm's angle from straight down in the A-pose, degrees."""
        d = self.sides[side]["axis"]
        return math.degrees(math.atan2(abs(d[0]), -d[1]))


def walk(rig, t):
    """Joint angles at phase t in [0, 1) of a walking cycle."""
    phase = 2.0 * math.pi * t
    angles = {}
    for side, offset in ((1.0, 0.0), (-1.0, math.pi)):
        swing = math.sin(phase + offset)
        angles[side] = {
            "thigh": 20.0 * swing,
            "knee": 40.0 * max(0.0, math.sin(phase + offset + 0.5 * math.pi)) ** 2,
            "arm_swing": -15.0 * swing,
            "elbow": 10.0,
        }
    return angles


def walk_root(t):
    """The body's turn (degrees) and rise (metres) at phase t of the walking cycle: it turns with
    the forward thigh and is highest at mid-stance, when the legs pass each other."""
    phase = 2.0 * math.pi * t
    return 4.0 * math.sin(phase), 0.01 * (1.0 + math.cos(2.0 * phase))


def arms_down(rig, t):
    ease = t * t * (3.0 - 2.0 * t)
    return {side: {"arm_down": ease * max(0.0, rig.arm_angle(side) - 12.0)} for side in (1.0, -1.0)}


MOTIONS = {"walk": walk, "arms_down": arms_down}


def generate(body, motion, frames, out):
    """Writes `frames` poses OUT.0000.obj ... and returns their paths."""
    v, faces = read_obj(body)
    rig = Rig(v)
    folder = os.path.dirname(out)
    if folder:
        os.makedirs(folder, exist_ok=True)
    paths = []
    for k in range(frames):
        t = k / frames if motion == "walk" else k / max(1, frames - 1)
        path = f"{out}.{k:04d}.obj"
        posed = rig.pose(MOTIONS[motion](rig, t))
        if motion == "walk":
            posed = rig.place(posed, *walk_root(t))
        write_obj(path, posed, faces)
        paths.append(path)
    return paths


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("body", help="the body mesh in A-pose (OBJ)")
    p.add_argument("--motion", choices=sorted(MOTIONS), default="walk")
    p.add_argument("--frames", type=int, default=30, help="poses to write (default 30)")
    p.add_argument("--out", required=True, help="output path prefix: OUT.0000.obj, ...")
    a = p.parse_args(argv)
    if a.frames < 2:
        p.error("--frames must be at least 2")
    try:
        paths = generate(a.body, a.motion, a.frames, a.out)
    except (OSError, ValueError) as e:
        print(f"pose_sequence: error: {e}", file=sys.stderr)
        return 2
    print(f"pose_sequence: {len(paths)} poses of {a.motion} in {paths[0]} .. {paths[-1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
