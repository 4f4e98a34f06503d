#include <drape/simulation.h>
#include <cstdio>

int main(int argc, char** argv) {
  drape::Simulation sim(drape::load_scene(argv[1]));  // InputError (exit-2 kind) on bad input
  sim.step(2);                                        // frames of 1/fps seconds
  std::printf("%zu vertices at frame %d\n", sim.vertex_count(), sim.frame());
}
