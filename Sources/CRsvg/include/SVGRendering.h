#ifndef AIRLOC_SVG_RENDERING_H
#define AIRLOC_SVG_RENDERING_H

#include <stddef.h>

/// Renders an SVG document to a PNG file through librsvg and cairo, which are loaded
/// (dlopen) on the first call only: `airloc log plot --format png` is the one command that
/// needs them, and no other command pays for loading them and the dozens of libraries
/// they pull in.
///
/// Returns 0 on success; otherwise a nonzero code with `error` (of `error_size` bytes)
/// saying why: the libraries are missing (1), the SVG does not parse (2), the PNG cannot
/// be written (3).
int airloc_svg_to_png(const char *svg, size_t length, int width, int height, const char *png_path, char *error,
                      size_t error_size);

#endif
