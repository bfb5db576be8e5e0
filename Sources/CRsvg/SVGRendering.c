// librsvg and cairo are opened with dlopen on the first render instead of being linked:
// linked, every airloc command would map and relocate them (and GLib, Pango, FreeType,
// libxml2, ...) at start. Only the functions below are used, typed here from librsvg's
// and cairo's headers (librsvg 2.46+: rsvg_handle_render_document).

#include "SVGRendering.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    unsigned int domain;
    int code;
    char *message;
} gerror;

typedef struct {
    double x, y, width, height;
} rsvg_rectangle;

static struct {
    void *(*handle_new_from_data)(const unsigned char *, size_t, gerror **);
    int (*handle_render_document)(void *, void *, const rsvg_rectangle *, gerror **);
    void (*object_unref)(void *);
    void (*error_free)(gerror *);
    void *(*image_surface_create)(int, int, int);
    void *(*create)(void *);
    void (*destroy)(void *);
    void (*surface_destroy)(void *);
    int (*surface_write_to_png)(void *, const char *);
    const char *(*status_to_string)(int);
} api;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static const char *load_error = NULL;
static char load_error_text[512];

static void load(void) {
    void *rsvg = dlopen("librsvg-2.so.2", RTLD_NOW | RTLD_LOCAL);
    void *cairo = dlopen("libcairo.so.2", RTLD_NOW | RTLD_LOCAL);
    void *gobject = dlopen("libgobject-2.0.so.0", RTLD_NOW | RTLD_LOCAL);
    void *glib = dlopen("libglib-2.0.so.0", RTLD_NOW | RTLD_LOCAL);
    if (rsvg == NULL || cairo == NULL || gobject == NULL || glib == NULL) {
        snprintf(load_error_text, sizeof load_error_text,
                 "PNG output needs librsvg and cairo (Debian: apt install librsvg2-2): %s", dlerror());
        load_error = load_error_text;
        return;
    }
#define BIND(field, library, symbol)                                                               \
    if ((*(void **)&api.field = dlsym(library, symbol)) == NULL) {                                 \
        snprintf(load_error_text, sizeof load_error_text, "%s lacks %s (librsvg 2.46 or newer)", \
                 #library, symbol);                                                                \
        load_error = load_error_text;                                                              \
        return;                                                                                    \
    }
    BIND(handle_new_from_data, rsvg, "rsvg_handle_new_from_data")
    BIND(handle_render_document, rsvg, "rsvg_handle_render_document")
    BIND(object_unref, gobject, "g_object_unref")
    BIND(error_free, glib, "g_error_free")
    BIND(image_surface_create, cairo, "cairo_image_surface_create")
    BIND(create, cairo, "cairo_create")
    BIND(destroy, cairo, "cairo_destroy")
    BIND(surface_destroy, cairo, "cairo_surface_destroy")
    BIND(surface_write_to_png, cairo, "cairo_surface_write_to_png")
    BIND(status_to_string, cairo, "cairo_status_to_string")
#undef BIND
}

int airloc_svg_to_png(const char *svg, size_t length, int width, int height, const char *png_path, char *error,
                      size_t error_size) {
    pthread_once(&load_once, load);
    if (load_error != NULL) {
        snprintf(error, error_size, "%s", load_error);
        return 1;
    }
    gerror *failure = NULL;
    void *handle = api.handle_new_from_data((const unsigned char *)svg, length, &failure);
    if (handle == NULL) {
        snprintf(error, error_size, "the SVG does not parse: %s", failure ? failure->message : "?");
        if (failure) api.error_free(failure);
        return 2;
    }
    // CAIRO_FORMAT_ARGB32 = 0.
    void *surface = api.image_surface_create(0, width, height);
    void *context = api.create(surface);
    rsvg_rectangle viewport = {0, 0, (double)width, (double)height};
    int rendered = api.handle_render_document(handle, context, &viewport, &failure);
    api.destroy(context);
    api.object_unref(handle);
    if (!rendered) {
        snprintf(error, error_size, "the SVG could not be drawn: %s", failure ? failure->message : "?");
        if (failure) api.error_free(failure);
        api.surface_destroy(surface);
        return 2;
    }
    int status = api.surface_write_to_png(surface, png_path);
    api.surface_destroy(surface);
    if (status != 0) {
        snprintf(error, error_size, "cannot write %s: %s", png_path, api.status_to_string(status));
        return 3;
    }
    return 0;
}
