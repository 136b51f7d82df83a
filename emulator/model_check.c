/* emulator/model_check.c: typing and constraint checks of requests against the model
 * (see model.h, model_coerce). One pass for every protocol. */
#include "emulator/model.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emulator/awserr.h"
#include "emulator/model_pattern.h"
#include "scaler/civil.h"

#define MAX_ERRS 10

struct ctx {
    const struct model_service *svc;
    enum model_err_style style;
    int text;
    int nerr;
    char msgs[AWSERR_MSG_LEN];
    /* for EC2/CW the first error decides code and message */
    char code[AWSERR_CODE_LEN];
    char first[AWSERR_MSG_LEN];
    char path[512];
    char wire[512]; /* the parameter as the caller named it (EC2 / CW texts) */
};

enum model_err_style model_err_style_of(const struct model_service *svc)
{
    if (svc == &model_ec2)
        return MODEL_ERRS_EC2;
    if (svc == &model_cloudwatch)
        return MODEL_ERRS_CW;
    return MODEL_ERRS_SMITHY;
}

int model_utf8_valid(const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0;

    while (i < n) {
        unsigned c = s[i];
        unsigned cp;
        int len;

        if (c < 0x80) {
            i++;
            continue;
        }
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
        if (i + (size_t)len > n)
            return 0;
        for (int k = 1; k < len; k++) {
            if ((s[i + (size_t)k] & 0xc0) != 0x80)
                return 0;
            cp = (cp << 6) | (s[i + (size_t)k] & 0x3f);
        }
        if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
            return 0;
        if (cp >= 0xd800 && cp <= 0xdfff)
            return 0;
        i += (size_t)len;
    }
    return 1;
}

static size_t utf8_chars(const char *s, size_t n)
{
    size_t c = 0;

    for (size_t i = 0; i < n; i++) {
        if (((unsigned char)s[i] & 0xc0) != 0x80)
            c++;
    }
    return c;
}

/* ---- error collection ------------------------------------------------------------ */

static void add_err(struct ctx *c, const char *code, const char *smithy, const char *single)
{
    if (c->nerr == 0) {
        snprintf(c->code, sizeof(c->code), "%s", code);
        snprintf(c->first, sizeof(c->first), "%s", single);
    }
    if (c->nerr < MAX_ERRS) {
        size_t len = strlen(c->msgs);

        snprintf(c->msgs + len, sizeof(c->msgs) - len, "%s%s", c->nerr ? "; " : "", smithy);
    }
    c->nerr++;
}

static void value_repr(const json_t *v, char *out, size_t n)
{
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        size_t len = strlen(s);

        if (len > 200) { /* cut at a character's start, never inside one */
            len = 200;
            while (len > 0 && ((unsigned char)s[len] & 0xc0) == 0x80)
                len--;
        }
        snprintf(out, n, "'%.*s'", (int)len, s);
    } else if (json_is_integer(v)) {
        snprintf(out, n, "'%lld'", (long long)json_integer_value(v));
    } else if (json_is_real(v)) {
        snprintf(out, n, "'%g'", json_real_value(v));
    } else if (json_is_boolean(v)) {
        snprintf(out, n, "'%s'", json_is_true(v) ? "true" : "false");
    } else if (!v) {
        snprintf(out, n, "null");
    } else {
        snprintf(out, n, "'%s'", json_is_array(v) ? "[...]" : "{...}");
    }
}

/* A constraint failure: Smithy text for ASG/ELB/CW, EC2's InvalidParameterValue. */
static void constraint(struct ctx *c, const json_t *v, const char *what)
{
    char val[256], smithy[1400], single[1400];

    value_repr(v, val, sizeof(val));
    snprintf(smithy, sizeof(smithy), "Value %s at '%.300s' failed to satisfy constraint: %.800s",
             val, c->path, what);
    if (c->style == MODEL_ERRS_EC2) {
        snprintf(single, sizeof(single), "Value (%.200s) for parameter %.300s is invalid. %.800s",
                 json_is_string(v) ? json_string_value(v) : val, c->wire, what);
        add_err(c, "InvalidParameterValue", smithy, single);
    } else {
        add_err(c, "ValidationError", smithy, smithy);
    }
}

static void missing(struct ctx *c)
{
    char smithy[900], single[900];

    snprintf(smithy, sizeof(smithy),
             "Value null at '%.300s' failed to satisfy constraint: Member must not be null",
             c->path);
    if (c->style == MODEL_ERRS_EC2) {
        snprintf(single, sizeof(single), "The request must contain the parameter %.300s", c->wire);
        add_err(c, "MissingParameter", smithy, single);
    } else if (c->style == MODEL_ERRS_CW) {
        snprintf(single, sizeof(single), "The parameter %.300s is required.", c->wire);
        add_err(c, "MissingParameter", smithy, single);
    } else {
        add_err(c, "ValidationError", smithy, smithy);
    }
}

/* ---- the walk -------------------------------------------------------------------- */

static json_t *walk(struct ctx *c, uint32_t si, json_t *in, int depth);

/* Appends ".name" (or "name" at the root) to buf of size cap holding n bytes; silently
 * keeps the prefix when it would not fit. Returns the start of the new segment, or
 * (size_t)-1 when it did not fit. */
static size_t seg_append(char *buf, size_t cap, size_t n, const char *name, size_t l)
{
    if (n + l + 2 > cap)
        return (size_t)-1;
    if (n)
        buf[n++] = '.';
    memcpy(buf + n, name, l + 1);
    return n;
}

/* Per member of every request: memcpy, not snprintf (PutMetricData walks thousands). */
static void path_push(struct ctx *c, const char *name, size_t *plen, size_t *wlen, int camel)
{
    size_t l = strlen(name), at;

    *plen = strlen(c->path);
    *wlen = strlen(c->wire);
    at = seg_append(c->path, sizeof(c->path), *plen, name, l);
    if (camel && at != (size_t)-1 && c->path[at] >= 'A' && c->path[at] <= 'Z')
        c->path[at] = (char)(c->path[at] - 'A' + 'a');
    seg_append(c->wire, sizeof(c->wire), *wlen, name, l);
}

static void path_pop(struct ctx *c, size_t plen, size_t wlen)
{
    c->path[plen] = '\0';
    c->wire[wlen] = '\0';
}

static json_t *scalar_string(struct ctx *c, const struct model_shape *sh, json_t *in)
{
    const char *s;
    size_t n, chars;
    char what[1024];
    int bad = 0;

    if (!json_is_string(in)) {
        constraint(c, in, "Member must be a string");
        return NULL;
    }
    s = json_string_value(in);
    n = json_string_length(in);
    if (model_utf8_valid(s, n) && strlen(s) != n && sh->pattern && sh->type == MODEL_STRING &&
        model_pattern_match(sh->pattern, s, n, NULL) == 0) {
        /* a NUL where the model's pattern refuses it: AWS's pattern text (the value is
         * quoted up to the NUL) */
        snprintf(what, sizeof(what), "Member must satisfy regular expression pattern: %s",
                 sh->pattern);
        constraint(c, in, what);
        return NULL;
    }
    if (!model_utf8_valid(s, n) || strlen(s) != n) {
        json_t *tmp = json_string("<invalid UTF-8>");

        constraint(c, tmp, "Member must be valid UTF-8");
        json_decref(tmp);
        return NULL;
    }
    chars = utf8_chars(s, n);
    /* AWS lists every constraint a value fails, the pattern's first ("2 validation errors
     * detected: Value '' at 'x' failed to satisfy constraint: Member must satisfy regular
     * expression pattern: ...; Value '' at 'x' ... length greater than or equal to 1") */
    if (sh->pattern && sh->type == MODEL_STRING &&
        model_pattern_match(sh->pattern, s, n, NULL) == 0) {
        snprintf(what, sizeof(what), "Member must satisfy regular expression pattern: %s",
                 sh->pattern);
        constraint(c, in, what);
        bad = 1;
    }
    if ((sh->flags & MODEL_F_HAS_MIN) && (double)chars < sh->min) {
        snprintf(what, sizeof(what), "Member must have length greater than or equal to %.0f",
                 sh->min);
        constraint(c, in, what);
        bad = 1;
    }
    if ((sh->flags & MODEL_F_HAS_MAX) && (double)chars > sh->max) {
        snprintf(what, sizeof(what), "Member must have length less than or equal to %.0f", sh->max);
        constraint(c, in, what);
        bad = 1;
    }
    if (bad)
        return NULL;
    if (!model_enum_ok(c->svc, sh, s)) {
        size_t len;

        snprintf(what, sizeof(what), "Member must satisfy enum value set: [");
        for (int i = 0; i < sh->nenums; i++) {
            len = strlen(what);
            snprintf(what + len, sizeof(what) - len, "%s%s", i ? ", " : "",
                     c->svc->enums[sh->enums + (uint32_t)i]);
        }
        len = strlen(what);
        snprintf(what + len, sizeof(what) - len, "]");
        constraint(c, in, what);
        return NULL;
    }
    return json_incref(in);
}

static int range_ok(struct ctx *c, const struct model_shape *sh, json_t *in, double v)
{
    char what[128];

    if ((sh->flags & MODEL_F_HAS_MIN) && v < sh->min) {
        snprintf(what, sizeof(what), "Member must have value greater than or equal to %.15g",
                 sh->min);
        constraint(c, in, what);
        return 0;
    }
    if ((sh->flags & MODEL_F_HAS_MAX) && v > sh->max) {
        snprintf(what, sizeof(what), "Member must have value less than or equal to %.15g", sh->max);
        constraint(c, in, what);
        return 0;
    }
    return 1;
}

static json_t *scalar_integer(struct ctx *c, const struct model_shape *sh, json_t *in)
{
    long long v;

    if (c->text && json_is_string(in)) {
        const char *s = json_string_value(in);
        char *end;

        errno = 0;
        v = strtoll(s, &end, 10);
        if (errno || end == s || *end != '\0') {
            constraint(c, in, "Member must be a number");
            return NULL;
        }
    } else if (json_is_integer(in)) {
        v = json_integer_value(in);
    } else if (json_is_real(in) && json_real_value(in) == floor(json_real_value(in)) &&
               fabs(json_real_value(in)) < 9.0e15) {
        v = (long long)json_real_value(in);
    } else {
        constraint(c, in, "Member must be a number");
        return NULL;
    }
    if (sh->type == MODEL_INTEGER && (v < INT32_MIN || v > INT32_MAX)) {
        constraint(c, in, "Member must be a 32-bit integer");
        return NULL;
    }
    if (!range_ok(c, sh, in, (double)v))
        return NULL;
    return json_integer(v);
}

static json_t *scalar_double(struct ctx *c, const struct model_shape *sh, json_t *in)
{
    double v;

    if (c->text && json_is_string(in)) {
        const char *s = json_string_value(in);
        char *end;

        errno = 0;
        v = strtod(s, &end);
        if (end == s || *end != '\0') {
            constraint(c, in, "Member must be a number");
            return NULL;
        }
    } else if (json_is_number(in)) {
        v = json_number_value(in);
    } else if (!c->text && json_is_string(in) && strcmp(sh->name, "DatapointValue") == 0 &&
               (strcmp(json_string_value(in), "NaN") == 0 ||
                strcmp(json_string_value(in), "Infinity") == 0 ||
                strcmp(json_string_value(in), "-Infinity") == 0)) {
        /* CBOR's non-finite datapoint values (acbor.c spells them as text) reach
         * PutMetricData, whose rule answers AWS's InvalidParameterValue "The value NaN for
         * parameter MetricData.member.1.Value is invalid." */
        return json_incref(in);
    } else {
        constraint(c, in, "Member must be a number");
        return NULL;
    }
    if (!isfinite(v)) {
        constraint(c, in, "Member must be a finite number");
        return NULL;
    }
    if (!range_ok(c, sh, in, v))
        return NULL;
    return json_real(v);
}

static json_t *scalar_boolean(struct ctx *c, json_t *in)
{
    if (c->text && json_is_string(in)) {
        const char *s = json_string_value(in);

        if (strcasecmp(s, "true") == 0)
            return json_true();
        if (strcasecmp(s, "false") == 0)
            return json_false();
    } else if (json_is_boolean(in)) {
        return json_incref(in);
    }
    constraint(c, in, "Member must be a boolean");
    return NULL;
}

static json_t *scalar_timestamp(struct ctx *c, json_t *in)
{
    int64_t ms;

    if (json_is_string(in)) {
        const char *s = json_string_value(in);
        char *end;
        double secs;

        if (sc_civil_parse_iso(s, &ms) == 0)
            return json_integer(ms);
        secs = strtod(s, &end);
        if (end != s && *end == '\0' && isfinite(secs) && fabs(secs) < 1e13)
            return json_integer((json_int_t)llround(secs * 1000.0));
    } else if (json_is_number(in)) {
        double secs = json_number_value(in);

        if (isfinite(secs) && fabs(secs) < 1e13)
            return json_integer((json_int_t)llround(secs * 1000.0));
    }
    constraint(c, in, "Member must be a timestamp");
    return NULL;
}

static json_t *walk_struct(struct ctx *c, const struct model_shape *sh, json_t *in, int depth)
{
    json_t *out;
    int nset = 0;

    if (!json_is_object(in)) {
        constraint(c, in, "Member must be a structure");
        return NULL;
    }
    out = json_object();
    for (int i = 0; i < sh->nmembers; i++) {
        const struct model_member *m = model_member_get(c->svc, sh, i);
        json_t *v = json_object_get(in, m->name);
        size_t pl, wl;

        path_push(c, m->name, &pl, &wl, 1);
        if (!v || json_is_null(v)) {
            if (m->flags & MODEL_M_REQUIRED)
                missing(c);
        } else {
            json_t *t = walk(c, m->shape, v, depth + 1);

            if (t) {
                json_object_set_new_nocheck(out, m->name, t); /* a model name: ASCII */
                nset++;
            }
        }
        path_pop(c, pl, wl);
    }
    if ((sh->flags & MODEL_F_UNION) && nset > 1)
        constraint(c, in, "Member must set exactly one union member");
    return out;
}

static json_t *walk_list(struct ctx *c, const struct model_shape *sh, json_t *in, int depth)
{
    const struct model_member *m = model_member_get(c->svc, sh, 0);
    json_t *out;
    size_t i, n;
    char what[128];

    if (!json_is_array(in)) {
        constraint(c, in, "Member must be a list");
        return NULL;
    }
    n = json_array_size(in);
    if ((sh->flags & MODEL_F_HAS_MIN) && (double)n < sh->min) {
        snprintf(what, sizeof(what), "Member must have length greater than or equal to %.0f",
                 sh->min);
        constraint(c, in, what);
        return NULL;
    }
    if ((sh->flags & MODEL_F_HAS_MAX) && (double)n > sh->max) {
        snprintf(what, sizeof(what), "Member must have length less than or equal to %.0f", sh->max);
        constraint(c, in, what);
        return NULL;
    }
    out = json_array();
    for (i = 0; i < n; i++) {
        char idx[32];
        size_t pl, wl, pl2, wl2;
        json_t *t;

        snprintf(idx, sizeof(idx), "%zu", i + 1);
        path_push(c, idx, &pl, &wl, 0);
        path_push(c, "member", &pl2, &wl2, 0);
        /* the wire name of an element is Name.N (EC2) or Name.member.N; keep it short */
        c->wire[wl2] = '\0';
        t = walk(c, m->shape, json_array_get(in, i), depth + 1);
        path_pop(c, pl, wl);
        if (!t) {
            t = json_null();
        }
        json_array_append_new(out, t);
    }
    return out;
}

static json_t *walk_map(struct ctx *c, const struct model_shape *sh, json_t *in, int depth)
{
    const struct model_member *k = model_member_get(c->svc, sh, 0);
    const struct model_member *v = model_member_get(c->svc, sh, 1);
    json_t *out;
    const char *key;
    json_t *val;

    if (!json_is_object(in)) {
        constraint(c, in, "Member must be a map");
        return NULL;
    }
    out = json_object();
    json_object_foreach(in, key, val)
    {
        json_t *ks = json_string(key);
        json_t *kt = ks ? walk(c, k->shape, ks, depth + 1) : NULL;
        json_t *vt;
        size_t pl, wl;

        json_decref(ks);
        json_decref(kt);
        path_push(c, key, &pl, &wl, 0);
        vt = walk(c, v->shape, val, depth + 1);
        path_pop(c, pl, wl);
        if (vt)
            json_object_set_new(out, key, vt);
    }
    return out;
}

static json_t *walk(struct ctx *c, uint32_t si, json_t *in, int depth)
{
    const struct model_shape *sh = model_shape_get(c->svc, si);

    if (depth > 64) {
        constraint(c, in, "Member is nested too deeply");
        return NULL;
    }
    switch ((enum model_type)sh->type) {
    case MODEL_STRUCTURE:
        return walk_struct(c, sh, in, depth);
    case MODEL_LIST:
        return walk_list(c, sh, in, depth);
    case MODEL_MAP:
        return walk_map(c, sh, in, depth);
    case MODEL_STRING:
    case MODEL_BLOB:
        return scalar_string(c, sh, in);
    case MODEL_INTEGER:
    case MODEL_LONG:
        return scalar_integer(c, sh, in);
    case MODEL_DOUBLE:
    case MODEL_FLOAT:
        return scalar_double(c, sh, in);
    case MODEL_BOOLEAN:
        return scalar_boolean(c, in);
    case MODEL_TIMESTAMP:
        return scalar_timestamp(c, in);
    }
    return NULL;
}

int model_coerce(const struct model_service *svc, uint32_t shape, json_t *in, int text,
                 json_t **out, struct awserr *err)
{
    struct ctx *c = calloc(1, sizeof(*c));
    json_t *r;
    int rc = 0;

    if (!c)
        return awserr_set(err, 500, "InternalFailure", "out of memory");
    c->svc = svc;
    c->style = model_err_style_of(svc);
    c->text = text;
    r = walk(c, shape, in, 0);
    if (c->nerr > 0) {
        json_decref(r);
        r = NULL;
        if (strcmp(c->code, "ValidationError") == 0)
            awserr_set(err, 400, "ValidationError", "%d validation error%s detected: %s", c->nerr,
                       c->nerr == 1 ? "" : "s", c->msgs);
        else
            awserr_set(err, 400, c->code, "%s", c->first);
        rc = -1;
    } else if (!r) {
        rc = awserr_set(err, 500, "InternalFailure", "request could not be typed");
    }
    *out = r;
    free(c);
    return rc;
}
