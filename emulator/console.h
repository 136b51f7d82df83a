/* emulator/console.h: the lab console, one self-contained page (emulator/console.html:
 * HTML, CSS and JavaScript, nothing fetched from elsewhere) embedded in the binary at build
 * time, served by the admin API at GET / (Accept: text/html) and GET /_scalelab/ui. The
 * page reads /_scalelab/overview and follows /_scalelab/events (docs/admin-api.md). */
#ifndef EMULATOR_CONSOLE_H
#define EMULATOR_CONSOLE_H

#include <stddef.h>

#include "emulator/dispatch.h"

/* The page (borrowed, static) and its length in bytes. */
const char *console_page_html(size_t *len);
/* Fills rs (initialized by the caller) with the page: 200, text/html, no caching. */
void console_page(struct dispatch_response *rs);

#endif
