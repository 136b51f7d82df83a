/* emulator/acbor.c: see acbor.h. */
#include "emulator/acbor.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/base64.h"
#include "emulator/awsjson.h"

struct dec {
    const uint8_t *p;
    size_t n, i;
    const char *why;
};

static int need(struct dec *d, size_t k)
{
    if (d->n - d->i < k) {
        d->why = "truncated input";
        return -1;
    }
    return 0;
}

/* Reads the argument of an initial byte; *indef set for additional info 31. */
static int read_arg(struct dec *d, uint8_t ib, uint64_t *v, int *indef)
{
    uint8_t ai = ib & 0x1f;

    *indef = 0;
    if (ai < 24) {
        *v = ai;
        return 0;
    }
    if (ai == 31) {
        *indef = 1;
        *v = 0;
        return 0;
    }
    if (ai > 27) {
        d->why = "reserved additional information";
        return -1;
    }
    {
        size_t k = (size_t)1 << (ai - 24);
        uint64_t x = 0;

        if (need(d, k))
            return -1;
        for (size_t j = 0; j < k; j++)
            x = (x << 8) | d->p[d->i + j];
        d->i += k;
        *v = x;
    }
    return 0;
}

static double half_to_double(uint16_t h)
{
    int e = (h >> 10) & 0x1f;
    int m = h & 0x3ff;
    double v;

    if (e == 0)
        v = ldexp(m, -24);
    else if (e != 31)
        v = ldexp(m + 1024, e - 25);
    else
        v = m == 0 ? INFINITY : NAN;
    return (h & 0x8000) ? -v : v;
}

static json_t *real_or_text(double v)
{
    if (isnan(v))
        return json_string("NaN");
    if (isinf(v))
        return json_string(v > 0 ? "Infinity" : "-Infinity");
    return json_real(v);
}

static json_t *item(struct dec *d, int depth);

/* A definite or indefinite text/byte string into a new JSON string. */
static json_t *string_item(struct dec *d, int major, uint64_t len, int indef)
{
    struct cm_buf b;
    json_t *s;

    cm_buf_init(&b, 0);
    if (!indef) {
        if (len > d->n - d->i) {
            d->why = "truncated input";
            goto fail;
        }
        cm_buf_append(&b, d->p + d->i, (size_t)len);
        d->i += (size_t)len;
    } else {
        while (1) {
            uint8_t ib;
            uint64_t cl;
            int ci;

            if (need(d, 1))
                goto fail;
            ib = d->p[d->i++];
            if (ib == 0xff)
                break;
            if ((ib >> 5) != major) {
                d->why = "bad chunk in indefinite-length string";
                goto fail;
            }
            if (read_arg(d, ib, &cl, &ci))
                goto fail;
            if (ci || cl > d->n - d->i) {
                d->why = ci ? "nested indefinite string" : "truncated input";
                goto fail;
            }
            cm_buf_append(&b, d->p + d->i, (size_t)cl);
            d->i += (size_t)cl;
        }
    }
    if (major == 3 && !model_utf8_valid(b.data ? b.data : "", b.len)) {
        d->why = "invalid UTF-8 in text string";
        goto fail;
    }
    s = json_stringn_nocheck(b.data ? b.data : "", b.len);
    cm_buf_cleanup(&b);
    return s;
fail:
    cm_buf_cleanup(&b);
    return NULL;
}

static json_t *item(struct dec *d, int depth)
{
    uint8_t ib;
    int major, indef;
    uint64_t v;

    if (depth > ACBOR_MAX_DEPTH) {
        d->why = "nested too deeply";
        return NULL;
    }
    if (need(d, 1))
        return NULL;
    ib = d->p[d->i++];
    major = ib >> 5;
    if (major == 7) {
        uint8_t ai = ib & 0x1f;

        switch (ai) {
        case 20:
            return json_false();
        case 21:
            return json_true();
        case 22:
        case 23:
            return json_null();
        case 25:
            if (need(d, 2))
                return NULL;
            v = ((uint64_t)d->p[d->i] << 8) | d->p[d->i + 1];
            d->i += 2;
            return real_or_text(half_to_double((uint16_t)v));
        case 26: {
            uint32_t u;
            float f;

            if (need(d, 4))
                return NULL;
            u = ((uint32_t)d->p[d->i] << 24) | ((uint32_t)d->p[d->i + 1] << 16) |
                ((uint32_t)d->p[d->i + 2] << 8) | d->p[d->i + 3];
            d->i += 4;
            memcpy(&f, &u, sizeof(f));
            return real_or_text((double)f);
        }
        case 27: {
            uint64_t u = 0;
            double f;

            if (need(d, 8))
                return NULL;
            for (int j = 0; j < 8; j++)
                u = (u << 8) | d->p[d->i + (size_t)j];
            d->i += 8;
            memcpy(&f, &u, sizeof(f));
            return real_or_text(f);
        }
        default:
            d->why = "unsupported simple value";
            return NULL;
        }
    }
    if (read_arg(d, ib, &v, &indef))
        return NULL;
    switch (major) {
    case 0:
        if (indef || v > (uint64_t)INT64_MAX) {
            d->why = "integer out of range";
            return NULL;
        }
        return json_integer((json_int_t)v);
    case 1:
        if (indef || v > (uint64_t)INT64_MAX) {
            d->why = "integer out of range";
            return NULL;
        }
        return json_integer(-1 - (json_int_t)v);
    case 2:
    case 3:
        return string_item(d, major, v, indef);
    case 4: {
        json_t *a = json_array();

        for (uint64_t k = 0; indef || k < v; k++) {
            json_t *e;

            if (indef) {
                if (need(d, 1))
                    goto fail_a;
                if (d->p[d->i] == 0xff) {
                    d->i++;
                    break;
                }
            } else if (d->n - d->i < 1) {
                d->why = "truncated input";
                goto fail_a;
            }
            e = item(d, depth + 1);
            if (!e)
                goto fail_a;
            json_array_append_new(a, e);
        }
        return a;
fail_a:
        json_decref(a);
        return NULL;
    }
    case 5: {
        json_t *o = json_object();

        for (uint64_t k = 0; indef || k < v; k++) {
            json_t *key, *val;

            if (indef) {
                if (need(d, 1))
                    goto fail_o;
                if (d->p[d->i] == 0xff) {
                    d->i++;
                    break;
                }
            } else if (d->n - d->i < 2) {
                d->why = "truncated input";
                goto fail_o;
            }
            key = item(d, depth + 1);
            if (!key)
                goto fail_o;
            if (!json_is_string(key) || strlen(json_string_value(key)) != json_string_length(key)) {
                json_decref(key);
                d->why = "map key is not a text string";
                goto fail_o;
            }
            /* a key given twice is refused, as the JSON protocol's JSON_REJECT_DUPLICATES
             * does (it kept the last) */
            if (json_object_get(o, json_string_value(key))) {
                json_decref(key);
                d->why = "duplicate map key";
                goto fail_o;
            }
            val = item(d, depth + 1);
            if (!val) {
                json_decref(key);
                goto fail_o;
            }
            json_object_set_new_nocheck(o, json_string_value(key), val);
            json_decref(key);
        }
        return o;
fail_o:
        json_decref(o);
        return NULL;
    }
    case 6:
        if (indef) {
            d->why = "bad tag";
            return NULL;
        }
        return item(d, depth + 1);
    }
    d->why = "malformed item";
    return NULL;
}

int acbor_decode(const uint8_t *p, size_t n, json_t **out, struct awserr *err)
{
    struct dec d = { p, n, 0, NULL };
    json_t *v = item(&d, 0);

    *out = NULL;
    if (!v)
        return awserr_set(err, 400, "SerializationException", "Malformed CBOR: %s",
                          d.why ? d.why : "bad item");
    if (d.i != n) {
        json_decref(v);
        return awserr_set(err, 400, "SerializationException", "Malformed CBOR: trailing bytes");
    }
    *out = v;
    return 0;
}

int acbor_parse_request(const struct model_service *svc, const struct model_op *op,
                        const uint8_t *body, size_t len, json_t **out, struct awserr *err)
{
    json_t *doc;
    int rc;

    *out = NULL;
    if (len == 0) {
        doc = json_object();
    } else if (acbor_decode(body, len, &doc, err)) {
        return -1;
    }
    if (!json_is_object(doc)) {
        json_decref(doc);
        return awserr_set(err, 400, "SerializationException", "Request body is not a CBOR map");
    }
    if (op->input < 0) {
        json_object_clear(doc);
        *out = doc;
        return 0;
    }
    rc = model_coerce(svc, (uint32_t)op->input, doc, 0, out, err);
    json_decref(doc);
    return rc;
}

/* ---- encoder ---------------------------------------------------------------------- */

void acbor_put_head(struct cm_buf *b, int major, uint64_t v)
{
    uint8_t h[9];
    size_t n;

    if (v < 24) {
        h[0] = (uint8_t)((major << 5) | (int)v);
        n = 1;
    } else if (v <= 0xff) {
        h[0] = (uint8_t)((major << 5) | 24);
        h[1] = (uint8_t)v;
        n = 2;
    } else if (v <= 0xffff) {
        h[0] = (uint8_t)((major << 5) | 25);
        h[1] = (uint8_t)(v >> 8);
        h[2] = (uint8_t)v;
        n = 3;
    } else if (v <= 0xffffffffu) {
        h[0] = (uint8_t)((major << 5) | 26);
        for (int i = 0; i < 4; i++)
            h[1 + i] = (uint8_t)(v >> (24 - 8 * i));
        n = 5;
    } else {
        h[0] = (uint8_t)((major << 5) | 27);
        for (int i = 0; i < 8; i++)
            h[1 + i] = (uint8_t)(v >> (56 - 8 * i));
        n = 9;
    }
    cm_buf_append(b, h, n);
}

void acbor_put_text(struct cm_buf *b, const char *s, size_t n)
{
    acbor_put_head(b, 3, n);
    cm_buf_append(b, s, n);
}

static void put_int(struct cm_buf *b, int64_t v)
{
    if (v >= 0)
        acbor_put_head(b, 0, (uint64_t)v);
    else
        acbor_put_head(b, 1, (uint64_t)(-1 - v));
}

void acbor_put_double(struct cm_buf *b, double d)
{
    uint64_t u;
    uint8_t h[9];

    memcpy(&u, &d, sizeof(u));
    h[0] = 0xfb;
    for (int i = 0; i < 8; i++)
        h[1 + i] = (uint8_t)(u >> (56 - 8 * i));
    cm_buf_append(b, h, 9);
}

void acbor_put_json(struct cm_buf *b, json_t *v)
{
    size_t i;
    const char *k;
    json_t *e;

    switch (json_typeof(v)) {
    case JSON_OBJECT:
        acbor_put_head(b, 5, json_object_size(v));
        json_object_foreach(v, k, e)
        {
            acbor_put_text(b, k, strlen(k));
            acbor_put_json(b, e);
        }
        break;
    case JSON_ARRAY:
        acbor_put_head(b, 4, json_array_size(v));
        json_array_foreach(v, i, e) acbor_put_json(b, e);
        break;
    case JSON_STRING:
        acbor_put_text(b, json_string_value(v), json_string_length(v));
        break;
    case JSON_INTEGER:
        put_int(b, json_integer_value(v));
        break;
    case JSON_REAL:
        acbor_put_double(b, json_real_value(v));
        break;
    case JSON_TRUE:
        cm_buf_putc(b, (char)0xf5);
        break;
    case JSON_FALSE:
        cm_buf_putc(b, (char)0xf4);
        break;
    case JSON_NULL:
        cm_buf_putc(b, (char)0xf6);
        break;
    }
}

static void put_value(struct cm_buf *b, const struct model_service *svc, uint32_t si, json_t *v,
                      int depth)
{
    const struct model_shape *sh = model_shape_get(svc, si);

    if (depth > ACBOR_MAX_DEPTH) {
        cm_buf_putc(b, (char)0xf6);
        return;
    }
    switch ((enum model_type)sh->type) {
    case MODEL_STRUCTURE: {
        size_t cnt = 0;

        for (int i = 0; i < sh->nmembers; i++) {
            json_t *mv = json_object_get(v, model_member_get(svc, sh, i)->name);

            cnt += mv && !json_is_null(mv);
        }
        acbor_put_head(b, 5, cnt);
        for (int i = 0; i < sh->nmembers; i++) {
            const struct model_member *m = model_member_get(svc, sh, i);
            json_t *mv = json_object_get(v, m->name);

            if (!mv || json_is_null(mv))
                continue;
            acbor_put_text(b, m->name, strlen(m->name));
            put_value(b, svc, m->shape, mv, depth + 1);
        }
        return;
    }
    case MODEL_LIST: {
        const struct model_member *m = model_member_get(svc, sh, 0);
        size_t i;
        json_t *e;

        acbor_put_head(b, 4, json_array_size(v));
        json_array_foreach(v, i, e) put_value(b, svc, m->shape, e, depth + 1);
        return;
    }
    case MODEL_MAP: {
        const struct model_member *vm = model_member_get(svc, sh, 1);
        const char *k;
        json_t *e;

        acbor_put_head(b, 5, json_object_size(v));
        json_object_foreach(v, k, e)
        {
            acbor_put_text(b, k, strlen(k));
            put_value(b, svc, vm->shape, e, depth + 1);
        }
        return;
    }
    case MODEL_TIMESTAMP:
        acbor_put_head(b, 6, 1);
        if (json_is_integer(v) && json_integer_value(v) % 1000 == 0)
            put_int(b, json_integer_value(v) / 1000);
        else
            acbor_put_double(b, json_is_integer(v) ? (double)json_integer_value(v) / 1000.0
                                                   : json_number_value(v));
        return;
    case MODEL_DOUBLE:
    case MODEL_FLOAT:
        acbor_put_double(b, json_number_value(v));
        return;
    case MODEL_BLOB: {
        /* the IR holds a blob as base64 text (as JSON 1.0 and query carry it); CBOR
         * carries the bytes (GetMetricWidgetImage's MetricWidgetImage) */
        size_t n = 0;
        char *raw = json_is_string(v) ? cm_base64_decode(json_string_value(v), &n) : NULL;

        if (!raw) {
            acbor_put_json(b, v);
            return;
        }
        acbor_put_head(b, 2, n);
        cm_buf_append(b, raw, n);
        free(raw);
        return;
    }
    default:
        acbor_put_json(b, v);
        return;
    }
}

void acbor_write_reply(struct cm_buf *b, const struct model_service *svc, const struct model_op *op,
                       json_t *out)
{
    if (op->output < 0 || !out) {
        acbor_put_head(b, 5, 0);
        return;
    }
    put_value(b, svc, (uint32_t)op->output, out, 0);
}

void acbor_write_error(struct cm_buf *b, const struct model_service *svc, const struct awserr *e)
{
    char type[256];

    awsjson_error_type(svc, e, type, sizeof(type));
    acbor_put_head(b, 5, 2);
    acbor_put_text(b, "__type", 6);
    acbor_put_text(b, type, strlen(type));
    acbor_put_text(b, "message", 7);
    acbor_put_text(b, e->message, strlen(e->message));
}
