/* emulator/console.c: see console.h. The page is emulator/console.html, assembled into
 * .rodata with .incbin (the Makefile makes this object depend on it), so it is edited as
 * HTML and shipped inside the binary. */
#include "emulator/console.h"

__asm__(".section .rodata\n"
        ".balign 16\n"
        ".type console_html_start, @object\n"
        "console_html_start:\n"
        ".incbin \"emulator/console.html\"\n"
        "console_html_end:\n"
        ".byte 0\n"
        ".previous\n");

extern const char console_html_start[];
extern const char console_html_end[];

const char *console_page_html(size_t *len)
{
    *len = (size_t)(console_html_end - console_html_start);
    return console_html_start;
}

void console_page(struct dispatch_response *rs)
{
    size_t len;
    const char *html = console_page_html(&len);

    rs->status = 200;
    rs->content_type = "text/html; charset=utf-8";
    dispatch_response_header(rs, "Cache-Control", "no-cache");
    cm_buf_append(&rs->body, html, len);
}
