// The compiled part of the drape Python package, drape._drape (pybind11): build a cloth from numpy
// arrays or load a scene file, step frames with the GIL released, read positions back as numpy
// arrays. Errors keep the CLI's messages: bad input raises ValueError, failures while running raise
// RuntimeError.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <optional>
#include <string>

#include "drape/error.h"
#include "drape/scene.h"
#include "drape/simulation.h"
#include "drape/version.h"

namespace py = pybind11;

namespace drape::python {
namespace {

// drape::Simulation with numpy in and out; `step` lets other Python threads run.
class PySimulation {
 public:
  explicit PySimulation(Simulation simulation) : m_sim(std::move(simulation)) {}

  void step(int frames) {
    if (frames < 0) throw InputError("step: frames must not be negative");
    py::gil_scoped_release release;
    m_sim.step(frames);
  }

  py::array_t<float> positions() const {
    const std::vector<glm::dvec3>& x = m_sim.positions();
    py::array_t<float> out({static_cast<py::ssize_t>(x.size()), py::ssize_t{3}});
    auto view = out.mutable_unchecked<2>();
    for (std::size_t i = 0; i < x.size(); ++i) {
      for (int k = 0; k < 3; ++k) view(i, k) = static_cast<float>(x[i][k]);
    }
    return out;
  }

  py::array_t<std::int32_t> triangles() const {
    const auto& t = m_sim.triangles();
    py::array_t<std::int32_t> out({static_cast<py::ssize_t>(t.size()), py::ssize_t{3}});
    auto view = out.mutable_unchecked<2>();
    for (std::size_t i = 0; i < t.size(); ++i) {
      for (int k = 0; k < 3; ++k) view(i, k) = static_cast<std::int32_t>(t[i][k]);
    }
    return out;
  }

  // Per-frame stats as dicts with stats.json's keys.
  py::list stats() const {
    py::list out;
    for (const FrameStats& s : m_sim.stats()) {
      py::dict d;
      d["frame"] = s.frame;
      d["max_strain"] = s.strain.max;
      d["mean_strain"] = s.strain.mean;
      d["penetrations"] = s.penetrations;
      d["self_intersections"] = s.self_intersections;
      d["self_contacts"] = s.self_contacts;
      d["ms"] = s.ms;
      d["stitch_gap"] =
          py::dict(py::arg("max") = s.stitch_gap.max, py::arg("mean") = s.stitch_gap.mean);
      out.append(d);
    }
    return out;
  }

  int frame() const { return m_sim.frame(); }
  double time() const { return m_sim.time(); }
  double fps() const { return m_sim.scene().fps; }

 private:
  Simulation m_sim;
};

SimulationOptions options_with(int threads, bool stats) {
  if (threads < 0) {
    throw InputError("threads: must be 0 (chosen while it runs) or a positive count, got " +
                     std::to_string(threads));
  }
  SimulationOptions options;
  options.threads = threads;
  options.stats = stats;
  return options;
}

// Settings as JSON text; numpy arrays and scalars (pins as np.arange(...), np.int64 indices,
// np.float32 values) become lists and numbers.
std::string settings_json(const py::dict& settings) {
  const py::cpp_function plain([](const py::object& value) -> py::object {
    if (py::hasattr(value, "tolist")) return value.attr("tolist")();
    throw py::type_error("settings: " + py::repr(value).cast<std::string>() +
                         " is not a JSON value");
  });
  return py::module_::import("json")
      .attr("dumps")(settings, py::arg("default") = plain)
      .cast<std::string>();
}

PySimulation from_scene(const std::string& path, const std::string& backend, int threads,
                        bool stats) {
  Scene scene = load_scene(path);
  if (!backend.empty()) {
    const std::optional<Backend> b = find_backend(backend);
    if (!b) {
      throw InputError("backend: unknown backend '" + backend + "' (known: " + backend_names() +
                       ")");
    }
    scene.solver.backend = *b;
  }
  return PySimulation(Simulation(std::move(scene), options_with(threads, stats)));
}

// `settings` holds scene-file keys (fps, solver, gravity, wind, cloth without its mesh,
// colliders); the cloth's mesh comes from the arrays.
PySimulation from_arrays(const py::array& positions_in, const py::array& triangles_in,
                         const py::dict& settings, int threads, bool stats) {
  const char kind = triangles_in.dtype().kind();
  if (kind != 'i' && kind != 'u') {
    throw InputError("triangles: must be integer vertex indices, got an array of " +
                     py::str(triangles_in.dtype()).cast<std::string>());
  }
  using Positions = py::array_t<double, py::array::c_style | py::array::forcecast>;
  using Triangles = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>;
  const Positions positions = Positions::ensure(positions_in);
  if (!positions || positions.ndim() != 2 || positions.shape(1) != 3) {
    throw InputError("positions: must be an array of numbers of shape (N, 3)");
  }
  const Triangles triangles = Triangles::ensure(triangles_in);
  if (!triangles || triangles.ndim() != 2 || triangles.shape(1) != 3) {
    throw InputError("triangles: must be an array of shape (M, 3)");
  }
  std::vector<glm::dvec3> points;
  const auto p = positions.unchecked<2>();
  for (py::ssize_t i = 0; i < p.shape(0); ++i) points.emplace_back(p(i, 0), p(i, 1), p(i, 2));
  std::vector<glm::uvec3> tris;
  const auto t = triangles.unchecked<2>();
  for (py::ssize_t i = 0; i < t.shape(0); ++i) {
    for (int k = 0; k < 3; ++k) {
      if (t(i, k) < 0 || t(i, k) >= p.shape(0)) {
        throw InputError("triangles: row " + std::to_string(i) + " has vertex index " +
                         std::to_string(t(i, k)) + " out of range (" + std::to_string(p.shape(0)) +
                         " vertices)");
      }
    }
    tris.emplace_back(t(i, 0), t(i, 1), t(i, 2));
  }
  return PySimulation(Simulation(std::move(points), std::move(tris),
                                 parse_settings(settings_json(settings), "settings"),
                                 options_with(threads, stats)));
}

}  // namespace
}  // namespace drape::python

PYBIND11_MODULE(_drape, m) {
  m.doc() = "drape: a Position Based Dynamics cloth solver (reference, cpu and cuda backends)";
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const drape::InputError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });
  using drape::python::PySimulation;
  py::class_<PySimulation>(m, "Simulation")
      .def("step", &PySimulation::step, py::arg("frames") = 1,
           "Advance this many frames (the GIL is released meanwhile).")
      .def_property_readonly("positions", &PySimulation::positions,
                             "Vertex positions, float32 array of shape (N, 3), input order.")
      .def_property_readonly("triangles", &PySimulation::triangles)
      .def_property_readonly("frame", &PySimulation::frame)
      .def_property_readonly("time", &PySimulation::time, "frame / fps, seconds")
      .def_property_readonly("fps", &PySimulation::fps)
      .def_property_readonly(
          "stats", &PySimulation::stats,
          "Per-frame stats of frames 0..frame, as dicts with stats.json's keys.");
  m.def("load_scene", &drape::python::from_scene, py::arg("path"), py::arg("backend") = "",
        py::arg("threads") = 0, py::arg("stats") = true,
        "A simulation of a scene file (its cloth, colliders, settings). stats=False skips the "
        "per-frame metrics (strain, vertices inside colliders, self-intersections).");
  m.def(
      "check_scene", [](const std::string& path) { drape::load_scene(path); }, py::arg("path"),
      "Read and check a scene file (its keys, values and ranges) without building it; raises "
      "ValueError with the message `drape simulate` would give.");
  m.def("from_arrays", &drape::python::from_arrays, py::arg("positions"), py::arg("triangles"),
        py::arg("settings") = py::dict(), py::arg("threads") = 0, py::arg("stats") = true,
        "A simulation of a mesh given as arrays; `settings` takes the scene file's keys.");
  m.attr("__version__") = DRAPE_VERSION;
}
