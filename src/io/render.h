// Preview pictures: a small software rasterizer (z-buffer, Lambert shading) that needs no GPU or
// display, and PNG output through stb_image_write (Debian's libstb).
#pragma once

#include <string>
#include <vector>

#include <glm/vec3.hpp>

#include "drape/mesh.h"
#include "drape/scene.h"

namespace drape {

struct RenderMesh {
  TriMesh mesh;
  glm::vec3 colour{0.8f};
  bool framed = true;  // the camera frames these; a ground plane is drawn but not framed
};

struct Image {
  int width = 0, height = 0;
  std::vector<unsigned char> rgb;  // row-major, top row first
};

// Renders the meshes from a fixed three-quarter view framed on the bounding box of the framed ones.
Image render_meshes(const std::vector<RenderMesh>& meshes, int width, int height);

// Tiles images (all the same size) into rows of `columns`.
Image contact_sheet(const std::vector<Image>& tiles, int columns);

// Writes a PNG whole (temporary name, then rename); RuntimeError on failure.
void write_png(const std::string& path, const Image& image);

// The cloth of a scene's cached frame (DIR/NAME.%04d.ply or .obj) and its colliders placed at
// that frame's time, as meshes to render. Level-set colliders from .vdb/.nvdb files have no mesh
// and are left out (`skipped` counts them). InputError when the frame is not in the cache.
std::vector<RenderMesh> scene_frame_meshes(const Scene& scene, int frame, int& skipped);

}  // namespace drape
