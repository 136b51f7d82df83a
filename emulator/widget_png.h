/* emulator/widget_png.h: an SVG document rasterized to PNG by librsvg 2 on cairo
 * (Debian's librsvg2), for GetMetricWidgetImage's default OutputFormat. The SVG is the
 * one common/svg writes, so the PNG is the same chart as the report's and the svg output. */
#ifndef EMULATOR_WIDGET_PNG_H
#define EMULATOR_WIDGET_PNG_H

#include <stddef.h>

#include "common/buf.h"

/* Renders svg (len bytes) onto a white width x height canvas and appends the PNG file to
 * out. Returns 0, or -1 (err, CM_ERR_LEN-sized, says why) when librsvg refuses the
 * document, cairo fails or out's cap is hit. Runs on the loop thread; takes a few ms. */
int widget_png_render(const char *svg, size_t len, int width, int height, struct cm_buf *out,
                      char *err, size_t errlen);

#endif
