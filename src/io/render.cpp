#include "io/render.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>

#include <stb/stb_image_write.h>
#include <glm/geometric.hpp>

#include "collision/collider.h"
#include "drape/error.h"
#include "io/atomic_file.h"
#include "io/cache.h"
#include "model/primitives.h"

namespace drape {

namespace {

struct Camera {
  glm::dvec3 eye, forward, right, up;
  double focal = 1.0;  // pixels per unit at distance 1
  double cx = 0.0, cy = 0.0;
};

Camera frame_camera(const std::vector<RenderMesh>& meshes, int width, int height) {
  glm::dvec3 lo(std::numeric_limits<double>::max()), hi(-std::numeric_limits<double>::max());
  for (const RenderMesh& m : meshes) {
    if (!m.framed) continue;
    for (const glm::dvec3& p : m.mesh.positions) {
      lo = glm::min(lo, p);
      hi = glm::max(hi, p);
    }
  }
  if (lo.x > hi.x) lo = hi = glm::dvec3(0.0);
  const glm::dvec3 centre = 0.5 * (lo + hi);
  const double radius = std::max(0.5 * glm::length(hi - lo), 1e-6);
  Camera c;
  const glm::dvec3 view = glm::normalize(glm::dvec3(0.75, 0.55, 1.0));
  const double fov = 0.6;  // radians, vertical
  c.eye = centre + view * (radius / std::sin(0.5 * fov));
  c.forward = -view;
  c.right = glm::normalize(glm::cross(c.forward, glm::dvec3(0, 1, 0)));
  c.up = glm::cross(c.right, c.forward);
  c.focal = 0.5 * height / std::tan(0.5 * fov);
  c.cx = 0.5 * width;
  c.cy = 0.5 * height;
  return c;
}

void draw_triangle(const Camera& cam, const glm::dvec3 world[3], const glm::vec3& colour,
                   Image& image, std::vector<float>& depth) {
  glm::dvec3 screen[3];
  for (int i = 0; i < 3; ++i) {
    const glm::dvec3 v = world[i] - cam.eye;
    const double z = glm::dot(v, cam.forward);
    if (z <= 1e-6) return;  // behind the camera: the framing keeps the scene in front
    screen[i] = {cam.cx + cam.focal * glm::dot(v, cam.right) / z,
                 cam.cy - cam.focal * glm::dot(v, cam.up) / z, z};
  }
  const double area = (screen[1].x - screen[0].x) * (screen[2].y - screen[0].y) -
                      (screen[2].x - screen[0].x) * (screen[1].y - screen[0].y);
  if (std::abs(area) < 1e-12) return;
  // Two-sided Lambert: a key light from the upper right and some ambient.
  const glm::dvec3 normal = glm::normalize(glm::cross(world[1] - world[0], world[2] - world[0]));
  const glm::dvec3 light = glm::normalize(glm::dvec3(0.4, 1.0, 0.6));
  const double shade = 0.25 + 0.75 * std::abs(glm::dot(normal, light));
  const int x0 =
      std::max(0, static_cast<int>(std::floor(std::min({screen[0].x, screen[1].x, screen[2].x}))));
  const int x1 =
      std::min(image.width - 1,
               static_cast<int>(std::ceil(std::max({screen[0].x, screen[1].x, screen[2].x}))));
  const int y0 =
      std::max(0, static_cast<int>(std::floor(std::min({screen[0].y, screen[1].y, screen[2].y}))));
  const int y1 =
      std::min(image.height - 1,
               static_cast<int>(std::ceil(std::max({screen[0].y, screen[1].y, screen[2].y}))));
  for (int y = y0; y <= y1; ++y) {
    for (int x = x0; x <= x1; ++x) {
      const double px = x + 0.5, py = y + 0.5;
      double b[3];
      for (int i = 0; i < 3; ++i) {
        const glm::dvec3& a = screen[(i + 1) % 3];
        const glm::dvec3& c = screen[(i + 2) % 3];
        b[i] = ((c.x - a.x) * (py - a.y) - (px - a.x) * (c.y - a.y)) / area;
      }
      if (b[0] < 0 || b[1] < 0 || b[2] < 0) continue;
      const auto z =
          static_cast<float>(b[0] * screen[0].z + b[1] * screen[1].z + b[2] * screen[2].z);
      float& stored = depth[static_cast<std::size_t>(y) * image.width + x];
      if (z >= stored) continue;
      stored = z;
      unsigned char* pixel = &image.rgb[3 * (static_cast<std::size_t>(y) * image.width + x)];
      for (int k = 0; k < 3; ++k) {
        pixel[k] = static_cast<unsigned char>(std::clamp(255.0 * shade * colour[k], 0.0, 255.0));
      }
    }
  }
}

}  // namespace

Image render_meshes(const std::vector<RenderMesh>& meshes, int width, int height) {
  Image image;
  image.width = width;
  image.height = height;
  image.rgb.resize(3 * static_cast<std::size_t>(width) * height);
  for (int y = 0; y < height; ++y) {  // a soft vertical gradient behind the scene
    const auto v = static_cast<unsigned char>(235 - 40 * y / std::max(1, height - 1));
    for (int x = 0; x < width; ++x) {
      unsigned char* pixel = &image.rgb[3 * (static_cast<std::size_t>(y) * width + x)];
      pixel[0] = pixel[1] = pixel[2] = v;
    }
  }
  if (meshes.empty()) return image;
  const Camera cam = frame_camera(meshes, width, height);
  std::vector<float> depth(static_cast<std::size_t>(width) * height,
                           std::numeric_limits<float>::max());
  for (const RenderMesh& m : meshes) {
    for (const glm::uvec3& t : m.mesh.triangles) {
      const glm::dvec3 world[3] = {m.mesh.positions[t.x], m.mesh.positions[t.y],
                                   m.mesh.positions[t.z]};
      draw_triangle(cam, world, m.colour, image, depth);
    }
  }
  return image;
}

Image contact_sheet(const std::vector<Image>& tiles, int columns) {
  Image sheet;
  if (tiles.empty()) return sheet;
  const int rows = (static_cast<int>(tiles.size()) + columns - 1) / columns;
  const int w = tiles[0].width, h = tiles[0].height;
  sheet.width = w * columns;
  sheet.height = h * rows;
  sheet.rgb.assign(3 * static_cast<std::size_t>(sheet.width) * sheet.height, 255);
  for (std::size_t i = 0; i < tiles.size(); ++i) {
    const int ox = static_cast<int>(i) % columns * w, oy = static_cast<int>(i) / columns * h;
    for (int y = 0; y < h; ++y) {
      std::copy_n(&tiles[i].rgb[3 * static_cast<std::size_t>(y) * w], 3 * w,
                  &sheet.rgb[3 * (static_cast<std::size_t>(oy + y) * sheet.width + ox)]);
    }
  }
  return sheet;
}

namespace {

void append_png_bytes(void* context, void* data, int size) {
  static_cast<std::string*>(context)->append(static_cast<const char*>(data),
                                             static_cast<std::size_t>(size));
}

}  // namespace

void write_png(const std::string& path, const Image& image) {
  std::string bytes;
  if (stbi_write_png_to_func(append_png_bytes, &bytes, image.width, image.height, 3,
                             image.rgb.data(), 3 * image.width) == 0) {
    throw RuntimeError(path + ": cannot encode the PNG");
  }
  write_file_atomically(path, bytes);
}

namespace {

// A pose sequence's mesh at time t: the two poses around it blended (the last one held).
TriMesh sequence_mesh(const ColliderDesc& d, double t, double scene_fps) {
  const double u = std::max(0.0, t * (d.sequence_fps > 0.0 ? d.sequence_fps : scene_fps));
  int k = d.first_frame + static_cast<int>(u);
  while (k > d.first_frame && !std::filesystem::exists(sequence_file(d.path, k))) --k;
  TriMesh mesh = load_mesh(sequence_file(d.path, k));
  const std::string next = sequence_file(d.path, k + 1);
  const double s = u - std::floor(u);
  if (s > 0.0 && std::filesystem::exists(next)) {
    const TriMesh after = load_mesh(next);
    if (after.positions.size() == mesh.positions.size()) {
      for (std::size_t i = 0; i < mesh.positions.size(); ++i) {
        mesh.positions[i] = glm::mix(mesh.positions[i], after.positions[i], s);
      }
    }
  }
  return mesh;
}

// The collider's surface in world space at its pose at time t (a plane as a finite square around
// the cloth's bounding box lo..hi).
TriMesh collider_mesh(const ColliderDesc& d, const ColliderPose& pose, double t, double scene_fps,
                      const glm::dvec3& lo, const glm::dvec3& hi) {
  const auto place = [&](TriMesh m) {
    for (glm::dvec3& p : m.positions) p = pose.rotation * (pose.scale * p) + pose.translation;
    return m;
  };
  switch (d.shape) {
    case ColliderDesc::Shape::sphere:
      return place(make_uv_sphere(d.a, d.radius, 24, 48));
    case ColliderDesc::Shape::box: {
      // Drawn sharp, inset so that its corners stay inside the rounded surface the cloth rests on.
      const glm::dvec3 inset(0.42 * d.radius);
      return place(make_box(d.a + inset, d.b - inset));
    }
    case ColliderDesc::Shape::plane: {
      const glm::dvec3 n = glm::normalize(pose.rotation * d.b);
      const glm::dvec3 point = pose.rotation * (pose.scale * d.a) + pose.translation;
      const glm::dvec3 centre = 0.5 * (lo + hi);
      const glm::dvec3 on_plane = centre - glm::dot(centre - point, n) * n;
      const glm::dvec3 u = glm::normalize(
          glm::cross(n, std::abs(n.x) < 0.9 ? glm::dvec3(1, 0, 0) : glm::dvec3(0, 0, 1)));
      const glm::dvec3 v = glm::cross(n, u);
      // A square three times the cloth's size, in small quads so that those behind the camera
      // can be dropped one by one.
      GridDesc square;
      square.nx = square.nz = 33;
      square.size_x = square.size_z = 3.0 * std::max(glm::length(hi - lo), 1e-3);
      TriMesh m = make_grid(square);
      for (glm::dvec3& p : m.positions) p = on_plane + p.x * u + p.z * v;
      return m;
    }
    case ColliderDesc::Shape::mesh:
      return place(d.sequence ? sequence_mesh(d, t, scene_fps) : load_mesh(d.path));
    default:
      return {};
  }
}

}  // namespace

std::vector<RenderMesh> scene_frame_meshes(const Scene& scene, int frame, int& skipped) {
  std::string path;
  for (const char* ext : {"ply", "obj"}) {
    const std::string candidate = frame_path(scene.output.dir, scene.output.name, frame, ext);
    if (std::filesystem::exists(candidate)) {
      path = candidate;
      break;
    }
  }
  if (path.empty()) {
    throw InputError(frame_path(scene.output.dir, scene.output.name, frame, "ply") + ": frame " +
                     std::to_string(frame) +
                     " is not in the cache (simulate the scene first, with ply or obj output)");
  }
  std::vector<RenderMesh> meshes;
  meshes.push_back({load_mesh(path), glm::vec3(0.35f, 0.55f, 0.85f), true});
  glm::dvec3 lo(std::numeric_limits<double>::max()), hi(-std::numeric_limits<double>::max());
  for (const glm::dvec3& p : meshes[0].mesh.positions) {
    lo = glm::min(lo, p);
    hi = glm::max(hi, p);
  }
  skipped = 0;
  for (const ColliderDesc& d : scene.colliders) {
    if (d.shape == ColliderDesc::Shape::vdb || d.shape == ColliderDesc::Shape::nvdb) {
      ++skipped;
      continue;
    }
    Collider collider;
    collider.desc = d;
    const double t = frame / scene.fps;
    meshes.push_back({collider_mesh(d, collider.pose_at(t), t, scene.fps, lo, hi),
                      glm::vec3(0.75f, 0.72f, 0.68f), d.shape != ColliderDesc::Shape::plane});
  }
  return meshes;
}

}  // namespace drape
