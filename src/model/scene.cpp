// Scene file reader. Every key is checked against the contract in the design doc; unknown keys
// are errors, so a typo never silently falls back to a default.
#include "drape/scene.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <glm/geometric.hpp>

#include <nlohmann/json.hpp>

#include "drape/error.h"
#include "io/text_scan.h"
#include "model/material.h"

namespace drape {

using nlohmann::json;

const std::vector<std::string>& known_formats() {
  static const std::vector<std::string> names{"ply", "obj", "usd", "usdc"};
  return names;
}

std::string format_names() {
  std::string names;
  for (const std::string& f : known_formats()) names += (names.empty() ? "" : ", ") + f;
  return names;
}

namespace {

// Reads one JSON object, remembering its dotted path for messages.
class ObjectReader {
 public:
  ObjectReader(const json& j, std::string path, const std::string& file)
      : m_json(j), m_path(std::move(path)), m_file(file) {
    if (!j.is_object())
      fail(m_path.empty() ? "the scene must be a JSON object" : "must be an object");
  }

  [[noreturn]] void fail(const std::string& what, const std::string& key = "") const {
    const std::string where = key.empty() ? m_path : join(key);
    throw InputError(m_file + ": " + (where.empty() ? "" : where + ": ") + what);
  }

  std::string join(const std::string& key) const {
    return m_path.empty() ? key : m_path + (key.rfind("[", 0) == 0 ? "" : ".") + key;
  }
  const std::string& file() const { return m_file; }

  void allow_only(std::initializer_list<const char*> keys) const {
    for (const auto& item : m_json.items()) {
      if (std::none_of(keys.begin(), keys.end(), [&](const char* k) { return item.key() == k; })) {
        fail("unknown key", item.key());
      }
    }
  }

  bool has(const char* key) const { return m_json.contains(key); }
  const json& at(const char* key) const { return m_json.at(key); }

  double number(const char* key, double fallback, double lo, double hi) const {
    if (!has(key)) return fallback;
    const json& v = at(key);
    if (!v.is_number()) fail("must be a number", key);
    const double x = v.get<double>();
    if (!(x >= lo && x <= hi)) {
      fail("must be in [" + format(lo) + ", " + format(hi) + "], got " + format(x), key);
    }
    return x;
  }

  int integer(const char* key, int fallback, long long lo, long long hi) const {
    if (!has(key)) return fallback;
    const json& v = at(key);
    if (!v.is_number_integer()) fail("must be an integer", key);
    const long long x = v.get<long long>();
    if (x < lo || x > hi) {
      fail("must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " +
               std::to_string(x),
           key);
    }
    return static_cast<int>(x);
  }

  bool boolean(const char* key, bool fallback) const {
    if (!has(key)) return fallback;
    if (!at(key).is_boolean()) fail("must be true or false", key);
    return at(key).get<bool>();
  }

  std::string string(const char* key, const std::string& fallback) const {
    if (!has(key)) return fallback;
    if (!at(key).is_string()) fail("must be a string", key);
    return at(key).get<std::string>();
  }

  glm::dvec3 vec3(const char* key, const glm::dvec3& fallback) const {
    if (!has(key)) return fallback;
    const json& v = at(key);
    if (!v.is_array() || v.size() != 3 ||
        !std::all_of(v.begin(), v.end(), [](const json& e) { return e.is_number(); })) {
      fail("must be an array of 3 numbers", key);
    }
    glm::dvec3 r{v[0].get<double>(), v[1].get<double>(), v[2].get<double>()};
    if (!std::isfinite(r.x) || !std::isfinite(r.y) || !std::isfinite(r.z))
      fail("must be finite", key);
    return r;
  }

  ObjectReader object(const char* key) const { return ObjectReader(at(key), join(key), m_file); }

  static std::string format(double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", x);
    return buf;
  }

 private:
  const json& m_json;
  std::string m_path;
  const std::string& m_file;
};

std::string folder_of(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

constexpr double kHuge = 1e9;
// A generated grid larger than this many vertices is refused before anything is allocated.
constexpr long long kMaxGridVertices = 100'000'000;

GridDesc read_grid(const ObjectReader& r) {
  r.allow_only({"resolution", "size", "center"});
  GridDesc g;
  if (r.has("resolution")) {
    const json& res = r.at("resolution");
    if (!res.is_array() || res.size() != 2 || !res[0].is_number_integer() ||
        !res[1].is_number_integer()) {
      r.fail("must be two integers [nx, nz]", "resolution");
    }
    const long long nx = res[0].get<long long>(), nz = res[1].get<long long>();
    if (nx < 2 || nz < 2) r.fail("needs at least 2 vertices per side", "resolution");
    if (nx > kMaxGridVertices || nz > kMaxGridVertices || nx * nz > kMaxGridVertices) {
      r.fail("grid of " + std::to_string(nx) + " x " + std::to_string(nz) +
                 " vertices is larger than the limit of " + std::to_string(kMaxGridVertices),
             "resolution");
    }
    g.nx = static_cast<int>(nx);
    g.nz = static_cast<int>(nz);
  }
  if (r.has("size")) {
    const json& s = r.at("size");
    if (!s.is_array() || s.size() != 2 || !s[0].is_number() || !s[1].is_number() ||
        !(s[0].get<double>() > 0) || !(s[1].get<double>() > 0) || !(s[0].get<double>() < kHuge) ||
        !(s[1].get<double>() < kHuge)) {
      r.fail("must be two positive numbers [sx, sz]", "size");
    }
    g.size_x = s[0].get<double>();
    g.size_z = s[1].get<double>();
  }
  g.center = r.vec3("center", g.center);
  return g;
}

// Vertices as cloth.pins gives them (indices, a box, a group), from `key` of `cloth`.
PinDesc read_pins(const ObjectReader& cloth, const char* key = "pins") {
  PinDesc pins;
  const json& j = cloth.at(key);
  if (j.is_array()) {
    pins.kind = PinDesc::Kind::indices;
    for (std::size_t i = 0; i < j.size(); ++i) {
      if (!j[i].is_number_integer() || j[i].get<long long>() < 0) {
        cloth.fail("must be a non-negative vertex index",
                   std::string(key) + "[" + std::to_string(i) + "]");
      }
      pins.indices.push_back(j[i].get<std::int64_t>());
    }
    return pins;
  }
  const ObjectReader r = cloth.object(key);
  if (r.has("box")) {
    r.allow_only({"box"});
    const ObjectReader box = r.object("box");
    box.allow_only({"min", "max"});
    if (!box.has("min") || !box.has("max")) box.fail("needs min and max");
    pins.kind = PinDesc::Kind::box;
    pins.box_min = box.vec3("min", {});
    pins.box_max = box.vec3("max", {});
  } else if (r.has("group")) {
    r.allow_only({"group"});
    pins.kind = PinDesc::Kind::group;
    pins.group = r.string("group", "");
  } else {
    r.fail("must be a list of indices, {\"box\": ...} or {\"group\": ...}");
  }
  return pins;
}

Transform read_transform(const ObjectReader& t);

std::string one_of(const ObjectReader& r, const char* key, const std::string& fallback,
                   std::initializer_list<const char*> names) {
  const std::string value = r.string(key, fallback);
  std::string list;
  for (const char* n : names) {
    if (value == n) return value;
    list += (list.empty() ? "\"" : ", \"") + std::string(n) + "\"";
  }
  r.fail("must be one of " + list + ", got \"" + value + "\"", key);
}

// cloth.model, material, mass, max_strain, rest_mesh, bend_rest (design doc, "Keys added for
// garments"). PBD stiffness in [0, 1] and an XPBD material exclude each other.
void read_fabric(const ObjectReader& r, const std::string& file, ClothDesc& c) {
  const bool xpbd = one_of(r, "model", "pbd", {"pbd", "xpbd"}) == "xpbd";
  c.model = xpbd ? ClothModelKind::xpbd : ClothModelKind::pbd;
  for (const char* key : {"stretch", "shear", "bend", "damping"}) {
    if (xpbd && r.has(key)) {
      r.fail(
          "is a PBD stiffness in [0, 1]; with \"model\": \"xpbd\" the fabric comes from "
          "cloth.material",
          key);
    }
  }
  if (r.has("material")) {
    if (r.at("material").is_string()) {
      const std::string name = r.string("material", "");
      const std::optional<Material> preset = find_material(name);
      if (!preset)
        r.fail("unknown material '" + name + "' (known: " + material_names() + ")", "material");
      c.material = *preset;
    } else {
      const ObjectReader m = r.object("material");
      m.allow_only({"density", "stretch", "shear", "bend", "damping"});
      Material& f = c.material;
      f.name = "custom";
      f.density = m.number("density", f.density, 1.0, 1e5);
      f.stretch = m.number("stretch", f.stretch, 1e-3, 1e9);
      f.shear = m.number("shear", f.shear, 1e-6, 1e9);
      f.bend = m.number("bend", f.bend, 1e-12, 1e3);
      f.damping = m.number("damping", f.damping, 0.0, 1e3);
    }
  }
  c.mass = one_of(r, "mass", xpbd ? "area" : "unit", {"unit", "area"}) == "area" ? MassModel::area
                                                                                 : MassModel::unit;
  c.max_strain = r.number("max_strain", 0.0, 1e-4, 10.0);
  if (r.has("rest_mesh")) {
    const std::string path = r.string("rest_mesh", "");
    if (path.empty()) r.fail("must not be empty", "rest_mesh");
    c.rest_mesh_path = path[0] == '/' ? path : folder_of(file) + path;
  }
  c.bend_rest_flat = one_of(r, "bend_rest", "mesh", {"mesh", "flat"}) == "flat";
}

// cloth.attach: vertices (as in cloth.pins) that follow a collider; the collider index is
// checked once the colliders are read.
void read_attach(const ObjectReader& r, const std::string& file, ClothDesc& c) {
  if (!r.has("attach")) return;
  const bool xpbd = c.model == ClothModelKind::xpbd;
  const json& list = r.at("attach");
  if (!list.is_array()) r.fail("must be a list of {\"collider\": i, \"vertices\": ...}", "attach");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const ObjectReader a(list[i], r.join("attach[" + std::to_string(i) + "]"), file);
    a.allow_only({"collider", "vertices", xpbd ? "compliance" : "stiffness"});
    if (!a.has("collider") || !a.has("vertices")) a.fail("needs collider and vertices");
    AttachDesc d;
    d.collider = a.integer("collider", 0, 0, 1 << 20);
    d.vertices = read_pins(a, "vertices");
    d.stiffness = a.number("stiffness", 1.0, 0.0, 1.0);
    d.compliance = a.number("compliance", 0.0, 0.0, 1.0);
    c.attach.push_back(d);
  }
}

// One inline stitch: [v, a, b, t] or [v, w], indices checked against the mesh later.
StitchDesc read_stitch(const ObjectReader& r, const json& e, std::size_t i) {
  const std::string key = "stitches[" + std::to_string(i) + "]";
  const auto index = [&](const json& x) {
    if (!x.is_number_integer() || x.get<std::int64_t>() < 0) {
      r.fail("must be [v, a, b, t] or [v, w] with vertex indices from 0", key);
    }
    return x.get<std::int64_t>();
  };
  if (!e.is_array() || (e.size() != 4 && e.size() != 2)) {
    r.fail("must be [v, a, b, t] or [v, w] with vertex indices from 0", key);
  }
  StitchDesc s;
  s.where = r.file() + ": " + r.join(key);
  s.v = index(e[0]);
  s.a = index(e[1]);
  s.b = e.size() == 4 ? index(e[2]) : s.a;
  if (e.size() == 4) {
    if (!e[3].is_number()) r.fail("t must be a number in [0, 1]", key);
    s.t = e[3].get<double>();
  }
  return s;
}

// cloth.stitches (an array, or a file with `stitch v a b t` lines), sew_time, stitch_stiffness
// (pbd), stitch_compliance (xpbd) and stitch_passes.
void read_sewing(const ObjectReader& r, const std::string& file, ClothDesc& c) {
  const bool xpbd = c.model == ClothModelKind::xpbd;
  for (const char* key : {"sew_time", "stitch_stiffness", "stitch_compliance", "stitch_passes"}) {
    if (r.has(key) && !r.has("stitches")) r.fail("needs cloth.stitches", key);
  }
  if (r.has(xpbd ? "stitch_stiffness" : "stitch_compliance")) {
    r.fail(xpbd ? "is a PBD stiffness; with \"model\": \"xpbd\" use stitch_compliance (m/N)"
                : "is an XPBD compliance; with \"model\": \"pbd\" use stitch_stiffness",
           xpbd ? "stitch_stiffness" : "stitch_compliance");
  }
  c.sew_time = r.number("sew_time", 0.0, 0.0, kHuge);
  c.stitch_stiffness = r.number("stitch_stiffness", 1.0, 0.0, 1.0);
  c.stitch_compliance = r.number("stitch_compliance", 0.0, 0.0, 1.0);
  c.stitch_passes = r.integer("stitch_passes", 1, 1, 64);
  if (!r.has("stitches")) return;
  const json& value = r.at("stitches");
  if (value.is_string()) {
    const std::string path = value.get<std::string>();
    if (path.empty()) r.fail("must not be empty", "stitches");
    c.stitches_path = path[0] == '/' ? path : folder_of(file) + path;
  } else if (value.is_array()) {
    for (std::size_t i = 0; i < value.size(); ++i)
      c.stitches.push_back(read_stitch(r, value[i], i));
  } else {
    r.fail("must be an array of [v, a, b, t] / [v, w] or a file with `stitch v a b t` lines",
           "stitches");
  }
}

AirDesc read_air(const ObjectReader& a) {
  a.allow_only({"wind", "density", "drag", "lift"});
  AirDesc air;
  air.enabled = true;
  air.wind = a.vec3("wind", air.wind);
  air.density = a.number("density", air.density, 0.0, 1e4);
  air.drag = a.number("drag", air.drag, 0.0, 100.0);
  air.lift = a.number("lift", air.lift, 0.0, 100.0);
  return air;
}

// `mesh_here`: the mesh is a key of this object (a scene file), or given elsewhere (settings).
ClothDesc read_cloth(const ObjectReader& r, const std::string& file, bool mesh_here) {
  r.allow_only({"mesh",          "transform", "pins",      "stretch",          "shear",
                "bend",          "damping",   "thickness", "friction",         "self_collision",
                "model",         "material",  "mass",      "max_strain",       "rest_mesh",
                "bend_rest",     "stitches",  "sew_time",  "stitch_stiffness", "stitch_compliance",
                "stitch_passes", "attach"});
  ClothDesc c;
  if (!mesh_here) {
    if (r.has("mesh")) r.fail("give the mesh as the positions and triangles arrays", "mesh");
  } else if (!r.has("mesh")) {
    r.fail("missing key", "mesh");
  } else if (const json& mesh = r.at("mesh"); mesh.is_string()) {
    const std::string path = mesh.get<std::string>();
    if (path.empty()) r.fail("must not be empty", "mesh");
    c.mesh_path = path[0] == '/' ? path : folder_of(file) + path;
  } else {
    const ObjectReader m = r.object("mesh");
    m.allow_only({"grid"});
    if (!m.has("grid")) m.fail("must be a file path or {\"grid\": {...}}");
    c.grid = read_grid(m.object("grid"));
  }
  if (r.has("transform")) c.transform = read_transform(r.object("transform"));
  if (r.has("pins")) c.pins = read_pins(r);
  c.stretch = r.number("stretch", c.stretch, 0.0, 1.0);
  c.shear = r.number("shear", c.shear, 0.0, 1.0);
  c.bend = r.number("bend", c.bend, 0.0, 1.0);
  c.damping = r.number("damping", c.damping, 0.0, 1.0);
  c.thickness = r.number("thickness", c.thickness, 0.0, kHuge);
  c.friction = r.number("friction", c.friction, 0.0, 1.0);
  if (r.has("self_collision")) {
    // true / false, or an object of settings (which turns it on).
    if (r.at("self_collision").is_object()) {
      const ObjectReader s = r.object("self_collision");
      s.allow_only({"cell_size", "rebuild", "untangle", "edge_pairs"});
      c.self_collision = true;
      c.self_collision_cell = s.number("cell_size", 0.0, 1e-6, kHuge);
      const std::string rebuild = s.string("rebuild", "substep");
      if (rebuild != "substep" && rebuild != "iteration") {
        s.fail("must be \"substep\" or \"iteration\", got \"" + rebuild + "\"", "rebuild");
      }
      c.self_collision_every_iteration = rebuild == "iteration";
      c.self_collision_untangle = s.boolean("untangle", false);
      const std::string edges = one_of(s, "edge_pairs", "auto", {"auto", "all", "near"});
      c.self_collision_edge_pairs = edges == "all"    ? EdgePairs::all
                                    : edges == "near" ? EdgePairs::near
                                                      : EdgePairs::automatic;
    } else if (r.at("self_collision").is_boolean()) {
      c.self_collision = r.boolean("self_collision", false);
    } else {
      r.fail(
          "must be true, false or {\"cell_size\": .., \"rebuild\": .., \"untangle\": .., "
          "\"edge_pairs\": ..}",
          "self_collision");
    }
  }
  if (c.self_collision && !(c.thickness > 0.0)) {
    r.fail("must be above 0 when self_collision is on", "thickness");
  }
  read_fabric(r, file, c);
  read_sewing(r, file, c);
  read_attach(r, file, c);
  return c;
}

Transform read_transform(const ObjectReader& t) {
  t.allow_only({"scale", "rotate_deg", "translate"});
  Transform out;
  out.scale = t.number("scale", 1.0, 1e-9, kHuge);
  out.rotate_deg = t.vec3("rotate_deg", {});
  out.translate = t.vec3("translate", {});
  return out;
}

std::vector<MotionKey> read_motion(const ObjectReader& r) {
  const json& m = r.at("motion");
  if (!m.is_array() || m.empty()) r.fail("must be a non-empty list of keys", "motion");
  std::vector<MotionKey> keys;
  for (std::size_t i = 0; i < m.size(); ++i) {
    const ObjectReader k =
        ObjectReader(m[i], r.join("motion[" + std::to_string(i) + "]"), r.file());
    k.allow_only({"time", "translate", "rotate_deg"});
    if (!k.has("time")) k.fail("missing key", "time");
    MotionKey key;
    key.time = k.number("time", 0.0, -kHuge, kHuge);
    key.translate = k.vec3("translate", {});
    key.rotate_deg = k.vec3("rotate_deg", {});
    if (!keys.empty() && key.time <= keys.back().time)
      k.fail("keys must be in increasing time", "time");
    keys.push_back(key);
  }
  return keys;
}

}  // namespace

std::string sequence_file(const std::string& pattern, int k) {
  const std::size_t at = pattern.find('%');
  if (at == std::string::npos) return "";
  std::size_t end = at + 1;
  while (end < pattern.size() && pattern[end] >= '0' && pattern[end] <= '9') ++end;
  if (end >= pattern.size() || pattern[end] != 'd' || end - at > 4) return "";
  if (pattern.find('%', end) != std::string::npos) return "";
  const int width = end > at + 1 ? std::stoi(pattern.substr(at + 1, end - at - 1)) : 0;
  std::string number = std::to_string(k);
  if (static_cast<int>(number.size()) < width) number.insert(0, width - number.size(), '0');
  return pattern.substr(0, at) + number + pattern.substr(end + 1);
}

namespace {

ColliderDesc read_collider(const ObjectReader& r, const std::string& key, const std::string& file) {
  r.allow_only({"sphere", "box", "plane", "mesh", "vdb", "nvdb", "voxel_size", "band", "grid",
                "friction", "restitution", "thickness", "transform", "motion", "first_frame",
                "fps"});
  ColliderDesc c;
  c.key = key;
  int shapes = 0;
  for (const char* shape : {"sphere", "box", "plane", "mesh", "vdb", "nvdb"})
    shapes += r.has(shape);
  if (shapes != 1) r.fail("needs exactly one of sphere, box, plane, mesh, vdb, nvdb");
  if (r.has("sphere")) {
    const ObjectReader o = r.object("sphere");
    o.allow_only({"center", "radius"});
    c.shape = ColliderDesc::Shape::sphere;
    c.a = o.vec3("center", {});
    if (!o.has("radius")) o.fail("missing key", "radius");
    c.radius = o.number("radius", 0.0, 1e-9, kHuge);
  } else if (r.has("box")) {
    const ObjectReader o = r.object("box");
    o.allow_only({"min", "max", "radius"});
    if (!o.has("min") || !o.has("max")) o.fail("needs min and max");
    c.shape = ColliderDesc::Shape::box;
    c.a = o.vec3("min", {});
    c.b = o.vec3("max", {});
    if (!(c.a.x < c.b.x && c.a.y < c.b.y && c.a.z < c.b.z)) {
      o.fail("min must be below max on every axis");
    }
    const glm::dvec3 size = c.b - c.a;
    c.radius = o.number("radius", 0.0, 0.0, 0.5 * std::min({size.x, size.y, size.z}));
  } else if (r.has("plane")) {
    const ObjectReader o = r.object("plane");
    o.allow_only({"point", "normal"});
    c.shape = ColliderDesc::Shape::plane;
    c.a = o.vec3("point", {});
    c.b = o.vec3("normal", {0, 1, 0});
    if (!(glm::dot(c.b, c.b) > 1e-12)) o.fail("must not be zero", "normal");
  } else {
    const char* shape = r.has("mesh") ? "mesh" : (r.has("vdb") ? "vdb" : "nvdb");
    c.shape = r.has("mesh") ? ColliderDesc::Shape::mesh
                            : (r.has("vdb") ? ColliderDesc::Shape::vdb : ColliderDesc::Shape::nvdb);
    const std::string p = r.string(shape, "");
    if (p.empty()) r.fail("must be a file path", shape);
    c.path = p[0] == '/' ? p : folder_of(file) + p;
  }
  if (c.shape != ColliderDesc::Shape::mesh && (r.has("voxel_size") || r.has("band"))) {
    r.fail("voxel_size and band apply to mesh colliders only");
  }
  if (c.shape != ColliderDesc::Shape::vdb && r.has("grid"))
    r.fail("applies to vdb colliders only", "grid");
  c.sequence = c.shape == ColliderDesc::Shape::mesh && !sequence_file(c.path, 0).empty();
  for (const char* k : {"first_frame", "fps"}) {
    if (!c.sequence && r.has(k)) {
      r.fail("applies to pose sequences only (a mesh path with a field such as %04d)", k);
    }
  }
  c.first_frame = r.integer("first_frame", 0, 0, 1 << 24);
  c.sequence_fps = r.number("fps", 0.0, 1e-3, 1e6);
  c.voxel_size = r.number("voxel_size", c.voxel_size, 1e-5, 10.0);
  c.band = r.integer("band", c.band, 1, 100);
  c.grid_name = r.string("grid", "");
  c.friction = r.number("friction", c.friction, 0.0, 1.0);
  c.restitution = r.number("restitution", c.restitution, 0.0, 1.0);
  c.thickness = r.number("thickness", c.thickness, 0.0, kHuge);
  if (r.has("transform")) c.transform = read_transform(r.object("transform"));
  if (r.has("motion")) c.motion = read_motion(r);
  return c;
}

std::vector<std::string> read_formats(const ObjectReader& r) {
  const json& f = r.at("formats");
  if (!f.is_array() || f.empty()) r.fail("must be a non-empty list of format names", "formats");
  std::vector<std::string> formats;
  for (const json& e : f) {
    if (!e.is_string()) r.fail("must be a list of strings", "formats");
    formats.push_back(e.get<std::string>());
  }
  return formats;
}

}  // namespace

namespace {

Scene parse(const std::string& text, const std::string& path, bool mesh_here) {
  json root;
  try {
    root = json::parse(text);
  } catch (const json::exception& e) {
    // nlohmann's messages read "[json.exception.parse_error.101] parse error at line L, column C:
    // ..." (or out_of_range.406 for a number too large to hold); keep the part after the id.
    const std::string what = e.what();
    const std::size_t cut = what.find("] ");
    throw InputError(path +
                     ": invalid JSON: " + (cut == std::string::npos ? what : what.substr(cut + 2)));
  }
  const ObjectReader r(root, "", path);
  r.allow_only({"version", "fps", "frames", "solver", "gravity", "wind", "air", "cloth",
                "colliders", "output"});
  Scene s;
  s.path = path;
  if (r.has("version") && r.integer("version", 1, 1, 1) != 1) r.fail("unsupported", "version");
  s.fps = r.number("fps", s.fps, 1e-3, 1e6);
  s.frames = r.integer("frames", s.frames, 0, 10'000'000);
  if (r.has("solver")) {
    const ObjectReader solver = r.object("solver");
    solver.allow_only({"backend", "substeps", "iterations"});
    if (solver.has("backend")) {
      const std::string name = solver.string("backend", "");
      const std::optional<Backend> backend = find_backend(name);
      if (!backend) {
        solver.fail("unknown backend '" + name + "' (known: " + backend_names() + ")", "backend");
      }
      s.solver.backend = *backend;
    }
    s.solver.substeps = solver.integer("substeps", s.solver.substeps, 1, 10000);
    s.solver.iterations = solver.integer("iterations", s.solver.iterations, 1, 10000);
  }
  s.gravity = r.vec3("gravity", s.gravity);
  s.wind = r.vec3("wind", s.wind);
  if (r.has("air")) s.air = read_air(r.object("air"));
  if (r.has("cloth")) {
    s.cloth = read_cloth(r.object("cloth"), path, mesh_here);
  } else if (mesh_here) {
    r.fail("missing key", "cloth");
  }
  if (r.has("colliders")) {
    const json& c = r.at("colliders");
    if (!c.is_array()) r.fail("must be a list", "colliders");
    for (std::size_t i = 0; i < c.size(); ++i) {
      const std::string key = "colliders[" + std::to_string(i) + "]";
      s.colliders.push_back(read_collider(ObjectReader(c[i], key, path), key, path));
    }
  }
  for (std::size_t i = 0; i < s.cloth.attach.size(); ++i) {
    const auto collider = static_cast<std::size_t>(s.cloth.attach[i].collider);
    if (collider >= s.colliders.size()) {
      r.fail("no collider " + std::to_string(collider) + " (the scene has " +
                 std::to_string(s.colliders.size()) + ")",
             "cloth.attach[" + std::to_string(i) + "].collider");
    }
  }
  if (r.has("output")) {
    const ObjectReader out = r.object("output");
    out.allow_only({"dir", "name", "formats", "normals"});
    s.output.normals = out.boolean("normals", s.output.normals);
    s.output.dir = out.string("dir", s.output.dir);
    s.output.name = out.string("name", s.output.name);
    if (out.has("formats")) s.output.formats = read_formats(out);
    if (s.output.name.empty() || s.output.name.find('/') != std::string::npos) {
      out.fail("must be a plain file name", "name");
    }
  }
  validate_scene(s);
  return s;
}

}  // namespace

Scene parse_scene(const std::string& text, const std::string& path) {
  return parse(text, path, true);
}

Scene parse_settings(const std::string& text, const std::string& name) {
  return parse(text, name, false);
}

void validate_scene(const Scene& s) {
  std::set<std::string> seen;
  for (const std::string& f : s.output.formats) {
    const auto& formats = known_formats();
    if (std::find(formats.begin(), formats.end(), f) == formats.end()) {
      throw InputError(s.path + ": output.formats: unknown format '" + f +
                       "' (known: " + format_names() + ")");
    }
    if (!seen.insert(f).second) throw InputError(s.path + ": output.formats: '" + f + "' twice");
  }
  if (s.frames < 0) throw InputError(s.path + ": frames: must not be negative");
}

Scene make_grid_scene(int n, double size, const glm::dvec3& center) {
  Scene s;
  s.path = "grid";
  GridDesc g;
  g.nx = g.nz = n;
  g.size_x = g.size_z = size;
  g.center = center;
  s.cloth.grid = g;
  return s;
}

Scene load_scene(const std::string& path) {
  return parse_scene(read_file(path), path);
}

}  // namespace drape
