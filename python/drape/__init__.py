"""drape: a Position Based Dynamics cloth solver for garments.

`load_scene` and `from_arrays` give a `Simulation` to step from Python; `drape.batch` runs sweeps
of scene files on a Ray cluster (``python3 -m drape.batch SWEEP.json``).
"""
from ._drape import Simulation, __version__, check_scene, from_arrays, load_scene

__all__ = ["Simulation", "check_scene", "from_arrays", "load_scene", "__version__"]
