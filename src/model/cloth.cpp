#include <algorithm>
#include <cmath>

#include <glm/gtc/matrix_transform.hpp>

#include "drape/error.h"
#include "model/cloth.h"
#include "model/fabric.h"

namespace drape {

void apply_transform(const Transform& t, std::vector<glm::dvec3>& positions) {
  const glm::dvec3 r = glm::radians(t.rotate_deg);
  glm::dmat4 m = glm::translate(glm::dmat4(1.0), t.translate);
  m = glm::rotate(m, r.z, glm::dvec3(0, 0, 1));
  m = glm::rotate(m, r.y, glm::dvec3(0, 1, 0));
  m = glm::rotate(m, r.x, glm::dvec3(1, 0, 0));
  m = glm::scale(m, glm::dvec3(t.scale));
  for (glm::dvec3& p : positions) p = glm::dvec3(m * glm::dvec4(p, 1.0));
}

namespace {

// The vertices a PinDesc names (cloth.pins, cloth.attach[i].vertices); `where` prefixes errors.
std::vector<std::uint32_t> resolve_pins(const PinDesc& pins, const TriMesh& mesh,
                                        const std::string& where) {
  const std::size_t n = mesh.positions.size();
  std::vector<std::uint32_t> out;
  switch (pins.kind) {
    case PinDesc::Kind::none:
      break;
    case PinDesc::Kind::indices:
      for (std::size_t i = 0; i < pins.indices.size(); ++i) {
        if (pins.indices[i] < 0 || static_cast<std::size_t>(pins.indices[i]) >= n) {
          throw InputError(where + "[" + std::to_string(i) + "]: vertex " +
                           std::to_string(pins.indices[i]) + " is past the last vertex (" +
                           std::to_string(n - 1) + ")");
        }
        out.push_back(static_cast<std::uint32_t>(pins.indices[i]));
      }
      break;
    case PinDesc::Kind::box:
      for (std::size_t i = 0; i < n; ++i) {
        const glm::dvec3& p = mesh.positions[i];
        if (glm::all(glm::greaterThanEqual(p, pins.box_min)) &&
            glm::all(glm::lessThanEqual(p, pins.box_max))) {
          out.push_back(static_cast<std::uint32_t>(i));
        }
      }
      if (out.empty()) throw InputError(where + ".box: contains no vertex of the cloth");
      break;
    case PinDesc::Kind::group: {
      const VertexGroup* g = mesh.find_group(pins.group);
      if (g == nullptr) {
        std::string known;
        for (const VertexGroup& e : mesh.groups) known += (known.empty() ? "" : ", ") + e.name;
        throw InputError(where + ".group: the mesh has no group '" + pins.group + "'" +
                         (known.empty() ? " (it has none)" : " (it has: " + known + ")"));
      }
      out = g->vertices;
      break;
    }
  }
  return out;
}

// The rest shape: cloth.rest_mesh (same vertices and triangles, the same transform) or the mesh.
std::vector<glm::dvec3> rest_positions(const Scene& scene, const TriMesh& mesh) {
  const std::string& path = scene.cloth.rest_mesh_path;
  if (path.empty()) return mesh.positions;
  TriMesh rest = load_mesh(path);
  const std::string cloth_name =
      scene.cloth.grid ? "the grid of " + scene.path : scene.cloth.mesh_path;
  if (rest.positions.size() != mesh.positions.size()) {
    throw InputError(path + ": cloth.rest_mesh has " + std::to_string(rest.positions.size()) +
                     " vertices, the cloth mesh " + cloth_name + " has " +
                     std::to_string(mesh.positions.size()));
  }
  if (rest.triangles != mesh.triangles) {
    throw InputError(path + ": cloth.rest_mesh has other triangles than the cloth mesh " +
                     cloth_name + " (they must be the same, in the same order)");
  }
  apply_transform(scene.cloth.transform, rest.positions);
  return rest.positions;
}

// cloth.attach against the mesh: a vertex is attached once and not pinned; hard attachments get
// w = 0 (the solvers move them with their collider).
void resolve_attachments(const Scene& scene, ClothModel& cloth) {
  const bool xpbd = scene.cloth.model == ClothModelKind::xpbd;
  std::vector<bool> taken(cloth.mesh.positions.size(), false);
  ClothModel::Attachments& out = cloth.attachments;
  for (std::size_t i = 0; i < scene.cloth.attach.size(); ++i) {
    const AttachDesc& d = scene.cloth.attach[i];
    const std::string where = scene.path + ": cloth.attach[" + std::to_string(i) + "].vertices";
    const bool hard = xpbd ? d.compliance == 0.0 : d.stiffness == 1.0;
    for (std::uint32_t v : resolve_pins(d.vertices, cloth.mesh, where)) {
      if (cloth.inv_mass[v] == 0.0 && !taken[v]) {
        throw InputError(where + ": vertex " + std::to_string(v) + " is pinned (cloth.pins)");
      }
      if (taken[v])
        throw InputError(where + ": vertex " + std::to_string(v) + " is attached twice");
      taken[v] = true;
      out.vertex.push_back(v);
      out.collider.push_back(static_cast<std::uint32_t>(d.collider));
      out.hard.push_back(hard ? 1 : 0);
      out.stiffness.push_back(d.stiffness);
      out.compliance.push_back(d.compliance);
      if (hard) cloth.inv_mass[v] = 0.0;
    }
  }
}

}  // namespace

ClothModel build_cloth(const Scene& scene) {
  ClothModel cloth;
  if (scene.cloth.mesh_data) {
    cloth.mesh = *scene.cloth.mesh_data;
  } else {
    cloth.mesh = scene.cloth.grid ? make_grid(*scene.cloth.grid) : load_mesh(scene.cloth.mesh_path);
  }
  apply_transform(scene.cloth.transform, cloth.mesh.positions);
  cloth.inv_mass.assign(cloth.mesh.positions.size(), 1.0);
  for (std::uint32_t v : resolve_pins(scene.cloth.pins, cloth.mesh, scene.path + ": cloth.pins")) {
    cloth.inv_mass[v] = 0.0;
  }
  resolve_attachments(scene, cloth);
  for (double w : cloth.inv_mass) cloth.pinned += w == 0.0;
  cloth.rest = rest_positions(scene, cloth.mesh);
  const std::vector<glm::dvec3>& rest = cloth.rest;
  cloth.topology = build_topology(rest, cloth.mesh.triangles);
  if (cloth.topology.degenerate_triangles == cloth.mesh.triangles.size()) {
    throw InputError((scene.cloth.grid ? scene.path : scene.cloth.mesh_path) +
                     ": every triangle is degenerate; nothing to simulate");
  }
  if (scene.cloth.bend_rest_flat) {
    std::fill(cloth.topology.bend_rest_angle.begin(), cloth.topology.bend_rest_angle.end(), M_PI);
  }
  apply_fabric(scene.cloth, rest, cloth);
  cloth.stitches = build_stitches(scene.cloth, cloth.mesh.positions, cloth.inv_mass);
  return cloth;
}

}  // namespace drape
