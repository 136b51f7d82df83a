/* emulator/xml.c: see xml.h. */
#include "emulator/xml.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scaler/civil.h"

/* The length of the UTF-8 character at s[i..n) when XML 1.0 may carry it (Char: #x9 #xA
 * #xD [#x20-#xD7FF] [#xE000-#xFFFD] [#x10000-#x10FFFF]), else 0: control characters,
 * U+FFFE/U+FFFF, surrogates and malformed bytes, which no character reference can carry
 * either (a parser refuses &#x1;); then *bad is how many bytes one U+FFFD replaces (a
 * whole well-formed sequence, or one malformed byte). */
static size_t xml_char_len(const unsigned char *s, size_t i, size_t n, size_t *bad)
{
    unsigned c = s[i];
    size_t len;
    unsigned cp;

    *bad = 1;
    if (c < 0x80)
        return c >= 0x20 || c == '\t' || c == '\n' || c == '\r' ? 1 : 0;
    if (c >= 0xc2 && c <= 0xdf) {
        len = 2;
        cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (i + len > n)
        return 0;
    for (size_t k = 1; k < len; k++) {
        if ((s[i + k] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i + k] & 0x3f);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
        return 0;
    if ((cp >= 0xd800 && cp <= 0xdfff) || cp == 0xfffe || cp == 0xffff) {
        *bad = len;
        return 0;
    }
    return len;
}

void xml_escape(struct cm_buf *b, const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t start = 0;

    for (size_t i = 0; i < n;) {
        const char *rep = NULL;
        size_t len = 1, ok;

        switch (u[i]) {
        case '&':
            rep = "&amp;";
            break;
        case '<':
            rep = "&lt;";
            break;
        case '>':
            rep = "&gt;";
            break;
        case '"':
            rep = "&quot;";
            break;
        case '\'':
            rep = "&apos;";
            break;
        case '\r':
            rep = "&#xD;";
            break;
        default:
            if (u[i] < 0x80 && u[i] >= 0x20) {
                i++;
                continue;
            }
            ok = xml_char_len(u, i, n, &len);
            if (ok > 0) {
                i += ok;
                continue;
            }
            /* what XML cannot carry (only stored before the model's patterns were checked,
             * or in a value quoted by an error) is written as U+FFFD */
            rep = "\xef\xbf\xbd";
        }
        cm_buf_append(b, s + start, i - start);
        cm_buf_puts(b, rep);
        i += len;
        start = i;
    }
    cm_buf_append(b, s + start, n - start);
}

void xml_format_double(double d, char *out, size_t n)
{
    if (!isfinite(d)) {
        snprintf(out, n, "%s", isnan(d) ? "NaN" : d > 0 ? "Infinity" : "-Infinity");
        return;
    }
    if (d == floor(d) && fabs(d) < 1e15) {
        snprintf(out, n, "%.1f", d); /* 70.0, as AWS's Java services write doubles */
        return;
    }
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(out, n, "%.*g", prec, d);
        if (strtod(out, NULL) == d)
            return;
    }
}

static void open_tag(struct cm_buf *b, const char *t)
{
    cm_buf_putc(b, '<');
    cm_buf_puts(b, t);
    cm_buf_putc(b, '>');
}

static void close_tag(struct cm_buf *b, const char *t)
{
    cm_buf_puts(b, "</");
    cm_buf_puts(b, t);
    cm_buf_putc(b, '>');
}

static void write_value(struct cm_buf *b, const struct model_service *svc, const char *tag,
                        uint32_t si, json_t *v, int depth);

static void write_members(struct cm_buf *b, const struct model_service *svc,
                          const struct model_shape *sh, json_t *v, int depth)
{
    for (int i = 0; i < sh->nmembers; i++) {
        const struct model_member *m = model_member_get(svc, sh, i);
        json_t *mv = json_object_get(v, m->name);

        if (mv && !json_is_null(mv))
            write_value(b, svc, m->xml_name, m->shape, mv, depth + 1);
    }
}

static void write_value(struct cm_buf *b, const struct model_service *svc, const char *tag,
                        uint32_t si, json_t *v, int depth)
{
    const struct model_shape *sh = model_shape_get(svc, si);
    char num[64];

    if (depth > 64)
        return;
    switch ((enum model_type)sh->type) {
    case MODEL_STRUCTURE:
        if (!json_is_object(v))
            return;
        open_tag(b, tag);
        write_members(b, svc, sh, v, depth);
        close_tag(b, tag);
        return;
    case MODEL_LIST: {
        const struct model_member *m = model_member_get(svc, sh, 0);
        size_t i;
        json_t *e;

        if (!json_is_array(v))
            return;
        if (sh->flags & MODEL_F_FLATTENED) {
            json_array_foreach(v, i, e) write_value(b, svc, tag, m->shape, e, depth + 1);
            return;
        }
        if (json_array_size(v) == 0) {
            cm_buf_putc(b, '<');
            cm_buf_puts(b, tag);
            cm_buf_puts(b, "/>");
            return;
        }
        open_tag(b, tag);
        json_array_foreach(v, i, e) write_value(b, svc, m->xml_name, m->shape, e, depth + 1);
        close_tag(b, tag);
        return;
    }
    case MODEL_MAP: {
        const struct model_member *km = model_member_get(svc, sh, 0);
        const struct model_member *vm = model_member_get(svc, sh, 1);
        const char *key;
        json_t *e;

        if (!json_is_object(v))
            return;
        open_tag(b, tag);
        json_object_foreach(v, key, e)
        {
            if (!(sh->flags & MODEL_F_FLATTENED))
                open_tag(b, "entry");
            open_tag(b, km->xml_name);
            xml_escape(b, key, strlen(key));
            close_tag(b, km->xml_name);
            write_value(b, svc, vm->xml_name, vm->shape, e, depth + 1);
            if (!(sh->flags & MODEL_F_FLATTENED))
                close_tag(b, "entry");
        }
        close_tag(b, tag);
        return;
    }
    case MODEL_STRING:
    case MODEL_BLOB:
        if (!json_is_string(v))
            return;
        open_tag(b, tag);
        xml_escape(b, json_string_value(v), json_string_length(v));
        close_tag(b, tag);
        return;
    case MODEL_INTEGER:
    case MODEL_LONG:
        if (!json_is_number(v))
            return;
        snprintf(num, sizeof(num), "%lld",
                 json_is_integer(v) ? (long long)json_integer_value(v)
                                    : (long long)json_real_value(v));
        break;
    case MODEL_DOUBLE:
    case MODEL_FLOAT:
        if (!json_is_number(v))
            return;
        xml_format_double(json_number_value(v), num, sizeof(num));
        break;
    case MODEL_BOOLEAN:
        if (!json_is_boolean(v))
            return;
        snprintf(num, sizeof(num), "%s", json_is_true(v) ? "true" : "false");
        break;
    case MODEL_TIMESTAMP:
        if (!json_is_integer(v))
            return;
        sc_civil_format_iso_ms(json_integer_value(v), num, sizeof(num));
        break;
    default:
        return;
    }
    open_tag(b, tag);
    cm_buf_puts(b, num);
    close_tag(b, tag);
}

static const char *xmlns_of(const struct model_service *svc, char *buf, size_t n)
{
    size_t len = strlen(svc->xmlns);

    snprintf(buf, n, "%s%s", svc->xmlns, len && svc->xmlns[len - 1] == '/' ? "" : "/");
    return buf;
}

void xml_write_reply(struct cm_buf *b, const struct model_service *svc, const struct model_op *op,
                     json_t *out, const char *request_id)
{
    char ns[256];
    int ec2 = svc == &model_ec2;

    cm_buf_puts(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    cm_buf_printf(b, "<%sResponse xmlns=\"%s\">", op->name, xmlns_of(svc, ns, sizeof(ns)));
    if (ec2) {
        cm_buf_printf(b, "<requestId>%s</requestId>", request_id);
        if (op->output >= 0 && json_is_object(out))
            write_members(b, svc, model_shape_get(svc, (uint32_t)op->output), out, 0);
    } else {
        if (op->output >= 0 && op->result_tag) {
            open_tag(b, op->result_tag);
            if (json_is_object(out))
                write_members(b, svc, model_shape_get(svc, (uint32_t)op->output), out, 0);
            close_tag(b, op->result_tag);
        }
        cm_buf_printf(b, "<ResponseMetadata><RequestId>%s</RequestId></ResponseMetadata>",
                      request_id);
    }
    cm_buf_printf(b, "</%sResponse>\n", op->name);
}

void xml_write_error(struct cm_buf *b, const struct model_service *svc, const struct awserr *e,
                     const char *request_id)
{
    char ns[256];

    cm_buf_puts(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    if (svc == &model_ec2) {
        cm_buf_puts(b, "<Response><Errors><Error><Code>");
        xml_escape(b, e->code, strlen(e->code));
        cm_buf_puts(b, "</Code><Message>");
        xml_escape(b, e->message, strlen(e->message));
        cm_buf_printf(b, "</Message></Error></Errors><RequestID>%s</RequestID></Response>\n",
                      request_id);
        return;
    }
    if (svc)
        cm_buf_printf(b, "<ErrorResponse xmlns=\"%s\">", xmlns_of(svc, ns, sizeof(ns)));
    else
        cm_buf_puts(b, "<ErrorResponse>");
    cm_buf_printf(b, "<Error><Type>%s</Type><Code>", e->sender ? "Sender" : "Receiver");
    xml_escape(b, e->code, strlen(e->code));
    cm_buf_puts(b, "</Code><Message>");
    xml_escape(b, e->message, strlen(e->message));
    cm_buf_printf(b, "</Message></Error><RequestId>%s</RequestId></ErrorResponse>\n", request_id);
}
