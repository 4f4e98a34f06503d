#include "model/fabric.h"

#include <cmath>
#include <functional>
#include <queue>
#include <unordered_map>
#include <utility>

#include <glm/geometric.hpp>

namespace drape {

namespace {

std::uint64_t edge_key(std::uint32_t a, std::uint32_t b) {
  return (static_cast<std::uint64_t>(std::min(a, b)) << 32) | std::max(a, b);
}

// Lumped masses: a third of each triangle's area times the area density (g/m^2 to kg/m^2).
// A vertex of no triangle gets the mean mass, so that it falls like the cloth around it.
void area_masses(const ClothDesc& desc, const std::vector<double>& areas, ClothModel& cloth) {
  const std::size_t n = cloth.mesh.positions.size();
  std::vector<double> mass(n, 0.0);
  const double kg_per_m2 = desc.material.density * 1e-3;
  for (std::size_t t = 0; t < areas.size(); ++t) {
    const glm::uvec3 v = cloth.mesh.triangles[t];
    for (int i = 0; i < 3; ++i) mass[v[i]] += kg_per_m2 * areas[t] / 3.0;
  }
  double total = 0.0;
  std::size_t massive = 0;
  for (double m : mass) {
    total += m;
    massive += m > 0.0;
  }
  const double mean = massive > 0 ? total / static_cast<double>(massive) : 1.0;
  for (std::size_t i = 0; i < n; ++i) {
    if (cloth.inv_mass[i] != 0.0) cloth.inv_mass[i] = 1.0 / (mass[i] > 0.0 ? mass[i] : mean);
  }
}

// Stiffness of the discrete constraints from the continuum's (Grinspun et al. 2003, "Discrete
// Shells", for the hinge): an edge owning area A_e (a third of its triangles') with rest length
// L stores membrane energy Y A_e (strain)^2 / 2, so k = Y A_e / L^2 (N/m); a hinge of edge e
// between triangles of areas A1, A2 stores B |e|^2 / A_h theta^2 / 2 with A_h = (A1 + A2) / 3,
// so k = 3 B |e|^2 / (A1 + A2) (N m per radian^2). Compliance = 1 / k.
void compliances(const Material& m, const std::vector<glm::dvec3>& rest,
                 const std::vector<double>& areas, ClothModel& cloth) {
  const Topology& t = cloth.topology;
  std::unordered_map<std::uint64_t, double> edge_area;
  for (std::size_t i = 0; i < areas.size(); ++i) {
    const glm::uvec3 v = cloth.mesh.triangles[i];
    for (int j = 0; j < 3; ++j) edge_area[edge_key(v[j], v[(j + 1) % 3])] += areas[i] / 3.0;
  }
  cloth.stretch_compliance.resize(t.edge_count());
  for (std::size_t e = 0; e < t.edge_count(); ++e) {
    const double length = t.edge_rest_length[e];
    const double area = edge_area[edge_key(t.edge_v0[e], t.edge_v1[e])];
    cloth.stretch_compliance[e] = length * length / (m.stretch * area);
  }
  cloth.shear_compliance.resize(t.bend_count());
  cloth.bend_compliance.resize(t.bend_count());
  for (std::size_t b = 0; b < t.bend_count(); ++b) {
    const glm::dvec3 p1 = rest[t.bend_v1[b]], e = rest[t.bend_v2[b]] - p1;
    const double a1 = 0.5 * glm::length(glm::cross(e, rest[t.bend_v3[b]] - p1));
    const double a2 = 0.5 * glm::length(glm::cross(e, rest[t.bend_v4[b]] - p1));
    const double wing = t.shear_rest_length[b];
    cloth.shear_compliance[b] = wing * wing / (m.shear * (a1 + a2) / 3.0);
    cloth.bend_compliance[b] = (a1 + a2) / (3.0 * m.bend * glm::dot(e, e));
  }
}

// Kim et al. 2012, "Long Range Attachments": every free vertex is tied to its nearest pin by the
// geodesic rest distance (Dijkstra over the rest edges from all pins at once).
void attachments(ClothModel& cloth) {
  const std::size_t n = cloth.mesh.positions.size();
  const Topology& t = cloth.topology;
  std::vector<std::vector<std::pair<std::uint32_t, double>>> adjacent(n);
  for (std::size_t e = 0; e < t.edge_count(); ++e) {
    adjacent[t.edge_v0[e]].push_back({t.edge_v1[e], t.edge_rest_length[e]});
    adjacent[t.edge_v1[e]].push_back({t.edge_v0[e], t.edge_rest_length[e]});
  }
  cloth.attach_pin.assign(n, kNoPin);
  cloth.attach_length.assign(n, 0.0);
  using Item = std::pair<double, std::uint32_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> queue;
  std::vector<double> distance(n, INFINITY);
  for (std::uint32_t v = 0; v < n; ++v) {
    if (cloth.inv_mass[v] == 0.0) {
      distance[v] = 0.0;
      cloth.attach_pin[v] = v;
      queue.push({0.0, v});
    }
  }
  while (!queue.empty()) {
    const auto [d, v] = queue.top();
    queue.pop();
    if (d > distance[v]) continue;
    for (const auto& [u, length] : adjacent[v]) {
      if (d + length < distance[u]) {
        distance[u] = d + length;
        cloth.attach_pin[u] = cloth.attach_pin[v];
        queue.push({distance[u], u});
      }
    }
  }
  for (std::uint32_t v = 0; v < n; ++v) {
    if (cloth.inv_mass[v] == 0.0) cloth.attach_pin[v] = kNoPin;  // pins need no attachment
    if (cloth.attach_pin[v] != kNoPin) cloth.attach_length[v] = distance[v];
  }
}

}  // namespace

std::vector<double> triangle_areas(const std::vector<glm::dvec3>& rest,
                                   const std::vector<glm::uvec3>& triangles) {
  std::vector<double> areas(triangles.size());
  for (std::size_t i = 0; i < triangles.size(); ++i) {
    const glm::uvec3 v = triangles[i];
    const bool repeated = v.x == v.y || v.y == v.z || v.x == v.z;
    areas[i] = repeated
                   ? 0.0
                   : 0.5 * glm::length(glm::cross(rest[v.y] - rest[v.x], rest[v.z] - rest[v.x]));
  }
  return areas;
}

void apply_fabric(const ClothDesc& desc, const std::vector<glm::dvec3>& rest, ClothModel& cloth) {
  const std::vector<double> areas = triangle_areas(rest, cloth.mesh.triangles);
  if (desc.mass == MassModel::area) area_masses(desc, areas, cloth);
  if (desc.model == ClothModelKind::xpbd) compliances(desc.material, rest, areas, cloth);
  if (desc.max_strain > 0.0 && cloth.pinned > 0) attachments(cloth);

  const std::size_t n = cloth.mesh.positions.size();
  cloth.vertex_triangle_offsets.assign(n + 1, 0);
  for (const glm::uvec3& t : cloth.mesh.triangles) {
    for (int i = 0; i < 3; ++i) ++cloth.vertex_triangle_offsets[t[i] + 1];
  }
  for (std::size_t v = 0; v < n; ++v) {
    cloth.vertex_triangle_offsets[v + 1] += cloth.vertex_triangle_offsets[v];
  }
  cloth.vertex_triangles.resize(cloth.vertex_triangle_offsets[n]);
  std::vector<std::uint32_t> fill(cloth.vertex_triangle_offsets.begin(),
                                  cloth.vertex_triangle_offsets.end() - 1);
  for (std::uint32_t t = 0; t < cloth.mesh.triangles.size(); ++t) {
    for (int i = 0; i < 3; ++i) cloth.vertex_triangles[fill[cloth.mesh.triangles[t][i]]++] = t;
  }
}

}  // namespace drape
