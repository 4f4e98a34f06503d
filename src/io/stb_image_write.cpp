// The PNG encoder: stb_image_write (public domain, Debian's libstb-dev ships the header), compiled
// here so that drape needs only the header. Chosen because a preview picture needs nothing more
// than an RGB buffer turned into a PNG, without a windowing or GPU stack.
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STBI_WRITE_NO_STDIO
#include <stb/stb_image_write.h>
