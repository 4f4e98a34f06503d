// Contact with an animated body, two ways, on the same cloth state: the blended level sets drape
// uses (one narrow-band SDF per pose, two trilinear samples a vertex), against direct contact with
// the triangles through a bounding-volume hierarchy refitted to the interpolated mesh at every
// substep (the alternative issue 17 names). Both answer, for every cloth vertex, "how far is the
// body, and on which side" within a search radius; the BVH finds the nearest triangle and takes
// the side from its normal. Also reported: how far the level sets' distance is from the exact one
// near the body.
//
// The state is a scene run for some frames (default: data/skirt_walk.json to frame 8, the skirt
// on the walking body; its poses must exist, see the README). Timed, each the median of
// --repeats runs on one thread: one collision pass of the level sets over every vertex with the
// cutoff drape uses, and with the clearance skip drape applies within a substep (a second pass
// right after the first, from the positions it left); the BVH's refit (vertex blend and box
// update) and one query pass at two radii: the collision thickness (enough to find contacts,
// blind to a vertex that went deeper) and the level sets' band (what a level set also answers).
//
//   bench_body_contact [--scene data/skirt_walk.json] [--frames 8] [--repeats 9]
//                      [--out bench/results/body_contact.json]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include <glm/geometric.hpp>
#include <nlohmann/json.hpp>

#include "bench_util.h"
#include "collision/collider.h"
#include "collision/collider_view.h"
#include "drape/scene.h"
#include "drape/simulation.h"
#include "io/atomic_file.h"
#include "kernels/collider.h"
#include "kernels/geometry.h"

namespace {

using drape::bench::Clock;
using drape::bench::median;
using drape::bench::seconds_since;

struct Box {
  glm::vec3 lo{std::numeric_limits<float>::max()}, hi{-std::numeric_limits<float>::max()};
  void grow(const glm::vec3& p) {
    lo = glm::min(lo, p);
    hi = glm::max(hi, p);
  }
  void grow(const Box& b) {
    lo = glm::min(lo, b.lo);
    hi = glm::max(hi, b.hi);
  }
  float distance2(const glm::vec3& p) const {
    const glm::vec3 d = glm::max(glm::max(lo - p, p - hi), glm::vec3(0.0f));
    return glm::dot(d, d);
  }
};

// A binary BVH over triangles (median split of the centroids along the widest axis, up to four
// triangles a leaf), built once on the first pose; children come after their parent, so a refit
// runs backwards.
class Bvh {
 public:
  Bvh(const std::vector<glm::vec3>& p, const std::vector<glm::uvec3>& triangles)
      : m_triangles(triangles) {
    std::vector<std::uint32_t> order(triangles.size());
    for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    m_nodes.reserve(2 * triangles.size());
    m_nodes.emplace_back();
    fill(p, order, 0, 0, static_cast<std::uint32_t>(order.size()));
    m_order = std::move(order);
  }

  void refit(const std::vector<glm::vec3>& p) {
    for (std::size_t n = m_nodes.size(); n-- > 0;) {
      Node& node = m_nodes[n];
      node.box = Box{};
      if (node.count > 0) {
        for (std::uint32_t i = node.first; i < node.first + node.count; ++i) {
          const glm::uvec3 t = m_triangles[m_order[i]];
          for (int k = 0; k < 3; ++k) node.box.grow(p[t[k]]);
        }
      } else {
        node.box.grow(m_nodes[node.first].box);
        node.box.grow(m_nodes[node.first + 1].box);
      }
    }
  }

  // The signed distance to the nearest triangle within `radius` (sign from its normal), or false.
  bool nearest(const std::vector<glm::vec3>& p, const glm::vec3& q, float radius,
               float& distance) const {
    float best = radius * radius;
    std::int64_t hit = -1;
    float hu = 0.0f, hv = 0.0f, hw = 0.0f;
    std::uint32_t stack[64];
    int top = 0;
    stack[top++] = 0;
    while (top > 0) {
      const Node& node = m_nodes[stack[--top]];
      if (node.box.distance2(q) > best) continue;
      if (node.count > 0) {
        for (std::uint32_t i = node.first; i < node.first + node.count; ++i) {
          const glm::uvec3 t = m_triangles[m_order[i]];
          float u, v, w;
          const float d2 = drape::kernels::closest_on_triangle(q, p[t.x], p[t.y], p[t.z], u, v, w);
          if (d2 < best) {
            best = d2;
            hit = m_order[i];
            hu = u;
            hv = v;
            hw = w;
          }
        }
        continue;
      }
      // The nearer child last, so it is searched first.
      const std::uint32_t a = node.first, b = node.first + 1;
      const bool a_first = m_nodes[a].box.distance2(q) < m_nodes[b].box.distance2(q);
      stack[top++] = a_first ? b : a;
      stack[top++] = a_first ? a : b;
    }
    if (hit < 0) return false;
    const glm::uvec3 t = m_triangles[static_cast<std::size_t>(hit)];
    const glm::vec3 on = hu * p[t.x] + hv * p[t.y] + hw * p[t.z];
    const glm::vec3 n = glm::cross(p[t.y] - p[t.x], p[t.z] - p[t.x]);
    distance = std::sqrt(best) * (glm::dot(q - on, n) < 0.0f ? -1.0f : 1.0f);
    return true;
  }

  std::size_t bytes() const { return m_nodes.size() * sizeof(Node) + m_order.size() * 4; }

 private:
  struct Node {
    Box box;
    std::uint32_t first = 0, count = 0;  // leaf: triangles [first, first + count); else children
  };

  void fill(const std::vector<glm::vec3>& p, std::vector<std::uint32_t>& order, std::uint32_t node,
            std::uint32_t begin, std::uint32_t end) {
    if (end - begin <= 4) {
      m_nodes[node].first = begin;
      m_nodes[node].count = end - begin;
      return;
    }
    Box centres;
    const auto centre = [&](std::uint32_t tri) {
      const glm::uvec3 t = m_triangles[tri];
      return (p[t.x] + p[t.y] + p[t.z]) / 3.0f;
    };
    for (std::uint32_t i = begin; i < end; ++i) centres.grow(centre(order[i]));
    const glm::vec3 extent = centres.hi - centres.lo;
    const int axis =
        extent.x >= extent.y && extent.x >= extent.z ? 0 : (extent.y >= extent.z ? 1 : 2);
    const std::uint32_t mid = (begin + end) / 2;
    std::nth_element(
        order.begin() + begin, order.begin() + mid, order.begin() + end,
        [&](std::uint32_t a, std::uint32_t b) { return centre(a)[axis] < centre(b)[axis]; });
    // Both children next to each other: reserve them, then fill each subtree.
    const auto left = static_cast<std::uint32_t>(m_nodes.size());
    m_nodes.emplace_back();
    m_nodes.emplace_back();
    m_nodes[node].first = left;
    fill(p, order, left, begin, mid);
    fill(p, order, left + 1, mid, end);
  }

  std::vector<glm::uvec3> m_triangles;
  std::vector<Node> m_nodes;
  std::vector<std::uint32_t> m_order;
};

template <class F>
double median_ms(int repeats, F&& f) {
  std::vector<double> ms;
  for (int r = 0; r < repeats; ++r) {
    const Clock::time_point t0 = Clock::now();
    f();
    ms.push_back(1000.0 * seconds_since(t0));
  }
  return median(ms);
}

}  // namespace

int main(int argc, char** argv) {
  std::string scene_path = "data/skirt_walk.json", out_path = "bench/results/body_contact.json";
  int frames = 8, repeats = 9;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--scene") {
      scene_path = argv[i + 1];
    } else if (flag == "--frames") {
      frames = std::max(0, std::atoi(argv[i + 1]));
    } else if (flag == "--repeats") {
      repeats = std::max(1, std::atoi(argv[i + 1]));
    } else if (flag == "--out") {
      out_path = argv[i + 1];
    } else {
      std::fprintf(stderr, "bench_body_contact: unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  drape::Scene scene = drape::load_scene(scene_path);
  scene.solver.backend = drape::Backend::cpu;
  drape::Simulation sim(scene, drape::SimulationOptions{1});
  sim.step(frames);
  const std::vector<drape::Collider> colliders = drape::build_colliders(sim.scene());
  const auto body = std::find_if(colliders.begin(), colliders.end(), [](const drape::Collider& c) {
    return !c.pose_positions.empty();
  });
  if (body == colliders.end()) {
    std::fprintf(stderr, "bench_body_contact: %s has no pose-sequence collider\n",
                 scene_path.c_str());
    return 2;
  }
  const drape::Collider& c = *body;
  const std::vector<glm::vec3> cloth(sim.positions().begin(), sim.positions().end());
  const auto n = static_cast<std::uint32_t>(cloth.size());
  const double dt = 1.0 / (scene.fps * scene.solver.substeps);
  const double t = sim.time();
  const drape::kernels::ColliderView view = drape::make_view(c, t - dt, t, c.grid->data());

  // Level sets: one pass over every vertex as collide() samples it (no response: the positions
  // stay put between repeats), then the clearance skip on a second pass.
  std::vector<glm::vec3> p = cloth;
  std::uint32_t contacts = 0;
  const float cutoff = view.thickness / view.now.scale;
  const double level_set_ms = median_ms(repeats, [&] {
    drape::kernels::GridAccessors acc(view);
    contacts = 0;
    for (const glm::vec3& q : cloth) {
      float phi;
      glm::vec3 grad;
      if (drape::kernels::signed_distance(view, view.now.to_local(q), phi, grad, cutoff, &acc) &&
          phi * view.now.scale < view.thickness) {
        ++contacts;
      }
    }
  });
  std::vector<glm::vec3> at(n);
  std::vector<float> reach(n);
  const std::vector<float> w(n, 1.0f);
  const drape::kernels::Clearance clear{at.data(), reach.data()};
  double skip_ms = 0.0;
  {
    std::vector<double> second;
    for (int r = 0; r < repeats; ++r) {
      std::fill(reach.begin(), reach.end(), 0.0f);
      p = cloth;
      drape::kernels::collide_range(view, p.data(), cloth.data(), w.data(), clear, true, 0, n);
      for (float& x : reach) x = x < 0.0f ? -x - 1.0f : x;
      const Clock::time_point t0 = Clock::now();
      drape::kernels::collide_range(view, p.data(), cloth.data(), w.data(), clear, true, 0, n);
      second.push_back(1000.0 * seconds_since(t0));
    }
    skip_ms = median(second);
  }

  // The BVH on the mesh interpolated at t.
  const drape::PoseBlend blend = c.blend_at(t);
  std::vector<glm::vec3> mesh(c.pose_positions[blend.k].size());
  const auto interpolate = [&] {
    for (std::size_t i = 0; i < mesh.size(); ++i) {
      mesh[i] = glm::vec3(
          glm::mix(c.pose_positions[blend.k][i], c.pose_positions[blend.next][i], blend.s));
    }
  };
  interpolate();
  const Clock::time_point b0 = Clock::now();
  Bvh bvh(mesh, c.pose_triangles);
  const double build_ms = 1000.0 * seconds_since(b0);
  const double refit_ms = median_ms(repeats, [&] {
    interpolate();
    bvh.refit(mesh);
  });
  const float band = static_cast<float>(c.poses.front()->background());
  nlohmann::json radii = nlohmann::json::array();
  for (const float radius : {view.thickness, band}) {
    std::uint32_t found = 0, bvh_contacts = 0;
    const double ms = median_ms(repeats, [&] {
      found = bvh_contacts = 0;
      for (const glm::vec3& q : cloth) {
        float d;
        if (bvh.nearest(mesh, view.now.to_local(q), radius, d)) {
          ++found;
          bvh_contacts += d < view.thickness;
        }
      }
    });
    radii.push_back(
        {{"radius_m", radius}, {"query_ms", ms}, {"found", found}, {"contacts", bvh_contacts}});
  }
  // How far the level sets' distance is from the exact one, for vertices within 1 cm.
  double worst = 0.0, sum = 0.0;
  std::uint32_t near = 0;
  {
    drape::kernels::GridAccessors acc(view);
    for (const glm::vec3& q : cloth) {
      float exact, phi;
      glm::vec3 grad;
      if (!bvh.nearest(mesh, view.now.to_local(q), 0.01f, exact) ||
          !drape::kernels::signed_distance(view, view.now.to_local(q), phi, grad, 1e30f, &acc)) {
        continue;
      }
      worst = std::max(worst, static_cast<double>(std::abs(phi - exact)));
      sum += std::abs(phi - exact);
      ++near;
    }
  }
  std::size_t grid_bytes = 0;
  for (const auto& g : c.poses) grid_bytes += g->size();
  const nlohmann::json result = {{"scene", scene_path},
                                 {"frame", frames},
                                 {"cloth_vertices", n},
                                 {"body_triangles", c.pose_triangles.size()},
                                 {"poses", c.poses.size()},
                                 {"threads", 1},
                                 {"repeats", repeats},
                                 {"level_set",
                                  {{"pass_ms", level_set_ms},
                                   {"pass_with_clearance_ms", skip_ms},
                                   {"contacts", contacts},
                                   {"within_1cm", near},
                                   {"max_error_m", worst},
                                   {"mean_error_m", near > 0 ? sum / near : 0.0},
                                   {"bytes_all_poses", grid_bytes}}},
                                 {"bvh",
                                  {{"build_ms", build_ms},
                                   {"refit_ms", refit_ms},
                                   {"bytes", bvh.bytes()},
                                   {"passes", radii}}}};
  drape::write_file_atomically(out_path, result.dump(2) + "\n");
  std::printf("%u cloth vertices against %zu body triangles (frame %d, 1 thread, median of %d)\n",
              n, c.pose_triangles.size(), frames, repeats);
  std::printf(
      "level sets: %.2f ms a pass (%u contacts), %.2f ms with the clearance skip; %.0f MB\n",
      level_set_ms, contacts, skip_ms, static_cast<double>(grid_bytes) / 1e6);
  std::printf(
      "level sets against the exact distance, %u vertices within 1 cm: max %.2f mm, mean "
      "%.3f mm\n",
      near, 1000.0 * worst, near > 0 ? 1000.0 * sum / near : 0.0);
  std::printf("BVH: build %.1f ms, refit %.2f ms a substep, %.1f MB\n", build_ms, refit_ms,
              static_cast<double>(bvh.bytes()) / 1e6);
  for (const auto& r : radii) {
    std::printf("BVH: %.2f ms a pass within %.3f m (%u found, %u contacts)\n",
                r["query_ms"].get<double>(), r["radius_m"].get<double>(),
                r["found"].get<unsigned>(), r["contacts"].get<unsigned>());
  }
  std::printf("wrote %s\n", out_path.c_str());
  return 0;
}
