// The drape Python module (pybind11): build a cloth from numpy arrays or load a scene file, step
// frames with the GIL released, read positions back as numpy arrays. Errors keep the CLI's
// messages: bad input raises ValueError, failures while running raise RuntimeError.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "model/cloth.h"
#include "collision/collider.h"
#include "drape/error.h"
#include "drape/scene.h"
#include "solver/solver.h"

namespace py = pybind11;

namespace drape {
namespace {

class Simulation {
 public:
  Simulation(Scene scene, int threads) : m_scene(std::move(scene)) {
    m_cloth = build_cloth(m_scene);
    m_colliders = build_colliders(m_scene);
    SolverOptions options;
    options.threads = threads;
    m_solver =
        make_solver(m_scene.solver.backend, m_cloth, physics_params(m_scene), options, m_colliders);
  }

  // Advances `frames` frames of 1/fps seconds; other Python threads run meanwhile.
  void step(int frames) {
    if (frames < 0) throw InputError("step: frames must not be negative");
    py::gil_scoped_release release;
    for (int f = 0; f < frames; ++f) m_solver->step_frame();
    m_frame += frames;
  }

  py::array_t<float> positions() const {
    std::vector<glm::dvec3> x;
    m_solver->copy_positions(x);
    py::array_t<float> out({static_cast<py::ssize_t>(x.size()), py::ssize_t{3}});
    auto view = out.mutable_unchecked<2>();
    for (std::size_t i = 0; i < x.size(); ++i) {
      for (int k = 0; k < 3; ++k) view(i, k) = static_cast<float>(x[i][k]);
    }
    return out;
  }

  py::array_t<std::int32_t> triangles() const {
    const auto& t = m_cloth.mesh.triangles;
    py::array_t<std::int32_t> out({static_cast<py::ssize_t>(t.size()), py::ssize_t{3}});
    auto view = out.mutable_unchecked<2>();
    for (std::size_t i = 0; i < t.size(); ++i) {
      for (int k = 0; k < 3; ++k) view(i, k) = static_cast<std::int32_t>(t[i][k]);
    }
    return out;
  }

  int frame() const { return m_frame; }
  double fps() const { return m_scene.fps; }

 private:
  Scene m_scene;
  ClothModel m_cloth;
  std::vector<Collider> m_colliders;
  std::unique_ptr<Solver> m_solver;
  int m_frame = 0;
};

Simulation from_scene(const std::string& path, const std::string& backend, int threads) {
  Scene scene = load_scene(path);
  if (!backend.empty()) {
    scene.solver.backend = backend;
    validate_scene(scene);
  }
  return Simulation(std::move(scene), threads);
}

// `settings` holds scene-file keys (fps, solver, gravity, wind, cloth without its mesh,
// colliders); the cloth's mesh comes from the arrays.
Simulation from_arrays(
    py::array_t<double, py::array::c_style | py::array::forcecast> positions,
    py::array_t<std::int64_t, py::array::c_style | py::array::forcecast> triangles,
    const py::dict& settings, int threads) {
  if (positions.ndim() != 2 || positions.shape(1) != 3) {
    throw InputError("positions: must be an array of shape (N, 3)");
  }
  if (triangles.ndim() != 2 || triangles.shape(1) != 3) {
    throw InputError("triangles: must be an array of shape (M, 3)");
  }
  auto mesh = std::make_shared<TriMesh>();
  const auto p = positions.unchecked<2>();
  for (py::ssize_t i = 0; i < p.shape(0); ++i) {
    const glm::dvec3 v{p(i, 0), p(i, 1), p(i, 2)};
    if (!std::isfinite(v.x) || !std::isfinite(v.y) || !std::isfinite(v.z)) {
      throw InputError("positions: row " + std::to_string(i) + " is not finite");
    }
    mesh->positions.push_back(v);
  }
  const auto t = triangles.unchecked<2>();
  for (py::ssize_t i = 0; i < t.shape(0); ++i) {
    for (int k = 0; k < 3; ++k) {
      if (t(i, k) < 0 || t(i, k) >= p.shape(0)) {
        throw InputError("triangles: row " + std::to_string(i) + " has vertex index " +
                         std::to_string(t(i, k)) + " out of range (" + std::to_string(p.shape(0)) +
                         " vertices)");
      }
    }
    mesh->triangles.emplace_back(t(i, 0), t(i, 1), t(i, 2));
  }
  if (mesh->triangles.empty()) throw InputError("triangles: no triangles");
  const std::string text = py::module_::import("json").attr("dumps")(settings).cast<std::string>();
  nlohmann::json json = nlohmann::json::parse(text);
  if (json.contains("cloth") && !json["cloth"].is_object()) {
    throw InputError("settings: cloth: must be an object");
  }
  if (json.contains("cloth") && json["cloth"].contains("mesh")) {
    throw InputError("settings: cloth.mesh: give the mesh as the positions and triangles arrays");
  }
  // A stand-in mesh lets the scene reader check every other key; the arrays replace it.
  json["cloth"]["mesh"] = {{"grid", {{"resolution", {2, 2}}}}};
  Scene scene = parse_scene(json.dump(), "settings");
  scene.cloth.grid.reset();
  scene.cloth.mesh_data = std::move(mesh);
  return Simulation(std::move(scene), threads);
}

}  // namespace
}  // namespace drape

PYBIND11_MODULE(drape, m) {
  m.doc() = "drape: a Position Based Dynamics cloth solver (reference, cpu and cuda backends)";
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const drape::InputError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });
  py::class_<drape::Simulation>(m, "Simulation")
      .def("step", &drape::Simulation::step, py::arg("frames") = 1,
           "Advance this many frames (the GIL is released meanwhile).")
      .def_property_readonly("positions", &drape::Simulation::positions,
                             "Vertex positions, float32 array of shape (N, 3), input order.")
      .def_property_readonly("triangles", &drape::Simulation::triangles)
      .def_property_readonly("frame", &drape::Simulation::frame)
      .def_property_readonly("fps", &drape::Simulation::fps);
  m.def("load_scene", &drape::from_scene, py::arg("path"), py::arg("backend") = "",
        py::arg("threads") = 0, "A simulation of a scene file (its cloth, colliders, settings).");
  m.def("from_arrays", &drape::from_arrays, py::arg("positions"), py::arg("triangles"),
        py::arg("settings") = py::dict(), py::arg("threads") = 0,
        "A simulation of a mesh given as arrays; `settings` takes the scene file's keys.");
  m.attr("__version__") = DRAPE_VERSION;
}
