/* emulator/widget_png.c: see widget_png.h. */
#include "emulator/widget_png.h"

#include <stdio.h>

#include <cairo.h>
#include <librsvg/rsvg.h>

struct sink {
    struct cm_buf *out;
    int full;
};

static cairo_status_t write_png(void *closure, const unsigned char *data, unsigned int length)
{
    struct sink *s = closure;

    if (cm_buf_append(s->out, (const char *)data, length) != 0) {
        s->full = 1;
        return CAIRO_STATUS_WRITE_ERROR;
    }
    return CAIRO_STATUS_SUCCESS;
}

int widget_png_render(const char *svg, size_t len, int width, int height, struct cm_buf *out,
                      char *err, size_t errlen)
{
    GError *gerr = NULL;
    RsvgHandle *h = NULL;
    cairo_surface_t *surf = NULL;
    cairo_t *cr = NULL;
    RsvgRectangle vp = { 0, 0, width, height };
    struct sink sink = { out, 0 };
    int rc = -1;

    h = rsvg_handle_new_from_data((const guint8 *)svg, (gsize)len, &gerr);
    if (!h) {
        snprintf(err, errlen, "librsvg: %s", gerr ? gerr->message : "cannot read the SVG");
        goto out;
    }
    surf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height);
    if (cairo_surface_status(surf) != CAIRO_STATUS_SUCCESS) {
        snprintf(err, errlen, "cairo: %s", cairo_status_to_string(cairo_surface_status(surf)));
        goto out;
    }
    cr = cairo_create(surf);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    if (!rsvg_handle_render_document(h, cr, &vp, &gerr)) {
        snprintf(err, errlen, "librsvg: %s", gerr ? gerr->message : "cannot render the SVG");
        goto out;
    }
    cairo_surface_flush(surf);
    if (cairo_surface_write_to_png_stream(surf, write_png, &sink) != CAIRO_STATUS_SUCCESS) {
        snprintf(err, errlen, "%s",
                 sink.full ? "the image is too large" : "cairo: PNG write failed");
        goto out;
    }
    rc = 0;
out:
    if (gerr)
        g_error_free(gerr);
    if (cr)
        cairo_destroy(cr);
    if (surf)
        cairo_surface_destroy(surf);
    if (h)
        g_object_unref(h);
    return rc;
}
