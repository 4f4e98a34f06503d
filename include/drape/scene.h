// Scene files, JSON version 1 (design doc, "Scene file").
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <glm/vec3.hpp>

#include "drape/backend.h"
#include "drape/mesh.h"

namespace drape {

struct Transform {
  double scale = 1.0;
  glm::dvec3 rotate_deg{0.0};  // applied about X, then Y, then Z
  glm::dvec3 translate{0.0};
};

// A generated cloth in the XZ plane: resolution = vertices along X and Z.
struct GridDesc {
  int nx = 2, nz = 2;
  double size_x = 1.0, size_z = 1.0;
  glm::dvec3 center{0.0};
};

struct PinDesc {
  enum class Kind { none, indices, box, group };
  Kind kind = Kind::none;
  std::vector<std::int64_t> indices;
  glm::dvec3 box_min{0.0}, box_max{0.0};  // world space, after the transform
  std::string group;
};

// How constraints are solved (design doc, "Keys added for garments"): the spec's PBD with
// stiffness in [0, 1], or XPBD (Macklin et al. 2016) with a fabric's stiffness in SI units.
enum class ClothModelKind { pbd, xpbd };
// Vertex masses: the spec's w = 1 for every vertex, or from the fabric's area density.
enum class MassModel { unit, area };
// Where self-collision gathers edge-edge contacts (README, "Self-collision"): between any two
// parts of the cloth (`all`), only between parts near each other in the rest shape (`near`), or
// `near` where the cloth's edges are short enough next to its thickness for point-triangle
// contacts to hold the layers apart, else `all` (`automatic`, the scene's "auto").
enum class EdgePairs { automatic, all, near };

// A fabric: area density and membrane, shear and bending stiffness (src/model/material.cpp has the
// presets and their sources).
struct Material {
  std::string name = "cotton";  // a preset's name, or "custom"
  double density = 120.0;       // g/m^2
  double stretch = 9.8e3;       // N/m, membrane (tensile) stiffness
  double shear = 45.0;          // N/m per radian of shear
  double bend = 7.8e-6;         // N m, bending rigidity
  double damping = 1.0;         // 1/s, velocity decay rate
};

// A stitch: vertex v sewn to the point (1 - t) a + t b of edge a-b; a vertex-to-vertex stitch
// [v, w] has a = b = w and t = 0. `where` names its source for errors ("cloth.stitches[3]" or
// "panels.obj:15660").
struct StitchDesc {
  std::int64_t v = 0, a = 0, b = 0;
  double t = 0.0;
  std::string where;
};

// Vertices that follow a collider (cloth.attach): its rigid placement for analytic and level-set
// colliders. Hard (pinned to the moving point) unless a PBD stiffness below 1 or an XPBD
// compliance above 0 is given.
struct AttachDesc {
  int collider = 0;
  PinDesc vertices;
  double stiffness = 1.0, compliance = 0.0;
};

struct ClothDesc {
  std::string mesh_path;  // resolved against the scene file's folder; empty when `grid` is set
  std::optional<GridDesc> grid;
  std::shared_ptr<const TriMesh> mesh_data;  // a mesh given in memory (the Python module)
  Transform transform;
  PinDesc pins;
  double stretch = 1.0, shear = 1.0, bend = 0.1, damping = 0.99;
  double thickness = 0.005, friction = 0.3;  // self-collision: contact distance and friction
  bool self_collision = false;
  double self_collision_cell = 0.0;  // hash cell size, metres; 0 = the mean rest edge length
  bool self_collision_every_iteration = false;  // rebuild the contacts every iteration
  bool self_collision_untangle = false;         // recover from self-intersections (README)
  EdgePairs self_collision_edge_pairs = EdgePairs::automatic;  // README, "Self-collision"
  ClothModelKind model = ClothModelKind::pbd;
  Material material;
  MassModel mass = MassModel::unit;  // default: unit for pbd, area for xpbd
  double max_strain = 0.0;           // strain limit, 0 = none
  std::string rest_mesh_path;        // rest lengths and angles from this mesh; empty: the mesh
  bool bend_rest_flat = false;       // rest dihedral angles flat: no fold memory
  // Sewing (design doc, "Keys added for garments"): stitches given inline, or read from the
  // `stitch v a b t` lines of stitches_path; they shorten from their start length to zero over
  // sew_time seconds (0: at once). PBD stiffness in [0, 1]; XPBD compliance in m/N (0: hard).
  std::vector<StitchDesc> stitches;
  std::string stitches_path;
  double sew_time = 0.0, stitch_stiffness = 1.0, stitch_compliance = 0.0;
  // Projections of every stitch per solver iteration: a seam sewn both ways is a chain that one
  // Gauss-Seidel pass closes slowly.
  int stitch_passes = 1;
  std::vector<AttachDesc> attach;
};

// Per-triangle aerodynamic drag and lift against a wind of `wind` m/s (absent: no air).
struct AirDesc {
  bool enabled = false;
  glm::dvec3 wind{0.0};
  double density = 1.2;  // kg/m^3
  double drag = 0.0, lift = 0.0;
};

// A rigid keyframe of a collider's motion: applied on top of its static transform.
struct MotionKey {
  double time = 0.0;  // seconds
  glm::dvec3 translate{0.0};
  glm::dvec3 rotate_deg{0.0};  // about X, then Y, then Z
};

struct ColliderDesc {
  enum class Shape { sphere, box, plane, mesh, vdb, nvdb };
  Shape shape = Shape::sphere;
  glm::dvec3 a{0.0}, b{0.0};  // sphere: center a; box: min a, max b; plane: point a, normal b
  double radius = 0.0;        // sphere radius; box rounding of edges and corners
  std::string path;           // mesh, vdb, nvdb: resolved against the scene file's folder
  std::string grid_name;      // vdb: the grid to read (default: the first level set)
  double voxel_size = 0.005;  // mesh: SDF voxel size, metres
  int band = 3;               // mesh: narrow band, voxels on each side
  double friction = 0.5, restitution = 0.0, thickness = 0.005;
  Transform transform;
  std::vector<MotionKey> motion;  // sorted by time; empty = static
  std::string key;                // "colliders[i]", for messages
  // A mesh path with a printf integer field ("walk/body.%04d.obj") is a pose sequence: pose k at
  // time (k - first_frame) / fps (fps 0: the scene's), interpolated between poses, the last held.
  bool sequence = false;
  int first_frame = 0;
  double sequence_fps = 0.0;
};

// The file of pose k of a sequence path ("%04d" -> 0003), or "" when `pattern` has no single
// printf integer field.
std::string sequence_file(const std::string& pattern, int k);

struct SolverDesc {
  Backend backend = Backend::cpu;
  int substeps = 4, iterations = 10;
};

struct OutputDesc {
  std::string dir = "out";  // relative to the working directory
  std::string name = "cloth";
  std::vector<std::string> formats{"ply"};
  bool normals = false;  // area-weighted vertex normals in PLY and OBJ frames (USD always has them)
};

struct Scene {
  std::string path;  // the file it came from, for messages
  double fps = 24.0;
  int frames = 48;
  SolverDesc solver;
  glm::dvec3 gravity{0.0, -9.81, 0.0};
  glm::dvec3 wind{0.0};  // a uniform acceleration added to gravity, m/s^2
  ClothDesc cloth;
  AirDesc air;
  std::vector<ColliderDesc> colliders;
  OutputDesc output;
};

// The cache formats this build writes, and their names joined for messages ("ply, obj, usd").
const std::vector<std::string>& known_formats();
std::string format_names();

// A scene of an n x n grid cloth of `size` metres in the XZ plane at `center`, every other
// setting at its default; for tests, benchmarks and bindings.
Scene make_grid_scene(int n, double size, const glm::dvec3& center);

// Reads and validates a scene. Every problem is an InputError naming the file and the key
// (e.g. "cloth.stretch") or the line of a JSON syntax error.
Scene load_scene(const std::string& path);
Scene parse_scene(const std::string& text, const std::string& path);

// The settings of a cloth whose mesh comes from elsewhere (arrays in memory): every key of a scene
// file except cloth.mesh, which is an error here; `cloth` may be absent. `name` stands for the file
// in messages ("settings: cloth.stretch: must be in [0, 1], got 3").
Scene parse_settings(const std::string& text, const std::string& name);

// Checks values that the command line can also set (frames, formats).
void validate_scene(const Scene& scene);

}  // namespace drape
