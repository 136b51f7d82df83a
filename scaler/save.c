/* scaler/save.c: see save.h. */
#include "scaler/save.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scaler/str.h"

int sc_save_take(json_t *o, const char *key, json_t *v)
{
    if (!v)
        return -1;
    return json_object_set_new(o, key, v);
}

int sc_save_str(json_t *o, const char *key, const char *s)
{
    return sc_save_take(o, key, s ? json_string(s) : json_null());
}

int sc_save_int(json_t *o, const char *key, int64_t v)
{
    return sc_save_take(o, key, json_integer((json_int_t)v));
}

int sc_save_bool(json_t *o, const char *key, int v)
{
    return sc_save_take(o, key, json_boolean(v));
}

int sc_save_real(json_t *o, const char *key, double v)
{
    if (!isfinite(v))
        return -1;
    return sc_save_take(o, key, json_real(v));
}

int sc_save_u64(json_t *o, const char *key, uint64_t v)
{
    char hex[17];

    snprintf(hex, sizeof(hex), "%016llx", (unsigned long long)v);
    return sc_save_take(o, key, json_string(hex));
}

int sc_save_strv(json_t *o, const char *key, char *const *v, int n)
{
    json_t *a;

    if (!v && n > 0)
        return sc_save_take(o, key, json_null());
    a = json_array();
    if (!a)
        return -1;
    for (int i = 0; i < n; i++) {
        if (json_array_append_new(a, v[i] ? json_string(v[i]) : json_null()) != 0) {
            json_decref(a);
            return -1;
        }
    }
    return sc_save_take(o, key, a);
}

void sc_load_init(struct sc_load *l, const char *where, struct sc_error *err)
{
    l->err = err;
    l->failed = 0;
    l->where = where;
    l->sep = ": ";
}

int sc_load_fail(struct sc_load *l, const char *fmt, ...)
{
    char msg[SC_ERR_MESSAGE_LEN];
    va_list ap;

    if (l->failed)
        return -1;
    l->failed = 1;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    sc_fail(l->err, SC_ERR_VALIDATION, "state: %s%s%s", l->where, l->sep, msg);
    return -1;
}

static const json_t *member(struct sc_load *l, const json_t *o, const char *key)
{
    const json_t *v;

    if (l->failed)
        return NULL;
    if (!json_is_object(o)) {
        sc_load_fail(l, "%s: the enclosing value is not an object", key);
        return NULL;
    }
    v = json_object_get(o, key);
    if (!v)
        sc_load_fail(l, "%s: missing", key);
    return v;
}

int64_t sc_load_int(struct sc_load *l, const json_t *o, const char *key)
{
    const json_t *v = member(l, o, key);

    if (!v)
        return 0;
    if (!json_is_integer(v)) {
        sc_load_fail(l, "%s: expected an integer", key);
        return 0;
    }
    return (int64_t)json_integer_value(v);
}

int sc_load_int_range(struct sc_load *l, const json_t *o, const char *key, int lo, int hi)
{
    int64_t v = sc_load_int(l, o, key);

    if (l->failed)
        return lo;
    if (v < lo || v > hi) {
        sc_load_fail(l, "%s: %lld is out of range %d..%d", key, (long long)v, lo, hi);
        return lo;
    }
    return (int)v;
}

int sc_load_bool(struct sc_load *l, const json_t *o, const char *key)
{
    const json_t *v = member(l, o, key);

    if (!v)
        return 0;
    if (!json_is_boolean(v)) {
        sc_load_fail(l, "%s: expected true or false", key);
        return 0;
    }
    return json_is_true(v);
}

double sc_load_real(struct sc_load *l, const json_t *o, const char *key)
{
    const json_t *v = member(l, o, key);

    if (!v)
        return 0;
    if (!json_is_number(v)) {
        sc_load_fail(l, "%s: expected a number", key);
        return 0;
    }
    return json_number_value(v);
}

uint64_t sc_load_u64(struct sc_load *l, const json_t *o, const char *key)
{
    const char *s = sc_load_cstr(l, o, key);
    unsigned long long v = 0;
    char *end;

    if (!s)
        return 0;
    if (strlen(s) != 16 || strspn(s, "0123456789abcdef") != 16) {
        sc_load_fail(l, "%s: expected 16 hex digits", key);
        return 0;
    }
    v = strtoull(s, &end, 16);
    return (uint64_t)v;
}

char *sc_load_str(struct sc_load *l, const json_t *o, const char *key)
{
    const json_t *v = member(l, o, key);
    char *s;

    if (!v || json_is_null(v))
        return NULL;
    if (!json_is_string(v)) {
        sc_load_fail(l, "%s: expected a string", key);
        return NULL;
    }
    s = sc_strdup(json_string_value(v));
    if (!s)
        sc_load_fail(l, "%s: out of memory", key);
    return s;
}

const char *sc_load_cstr(struct sc_load *l, const json_t *o, const char *key)
{
    const json_t *v = member(l, o, key);

    if (!v)
        return NULL;
    if (!json_is_string(v)) {
        sc_load_fail(l, "%s: expected a string", key);
        return NULL;
    }
    return json_string_value(v);
}

const char *sc_load_cstr_opt(struct sc_load *l, const json_t *o, const char *key)
{
    const json_t *v;

    if (l->failed)
        return NULL;
    if (!json_is_object(o)) {
        sc_load_fail(l, "%s: the enclosing value is not an object", key);
        return NULL;
    }
    v = json_object_get(o, key);
    if (!v || json_is_null(v))
        return NULL;
    if (!json_is_string(v)) {
        sc_load_fail(l, "%s: expected a string", key);
        return NULL;
    }
    return json_string_value(v);
}

void sc_load_buf(struct sc_load *l, const json_t *o, const char *key, char *buf, size_t cap)
{
    const char *s = sc_load_cstr(l, o, key);

    buf[0] = '\0';
    if (!s)
        return;
    if (strlen(s) >= cap) {
        sc_load_fail(l, "%s: longer than %zu characters", key, cap - 1);
        return;
    }
    memcpy(buf, s, strlen(s) + 1);
}

const json_t *sc_load_array(struct sc_load *l, const json_t *o, const char *key)
{
    const json_t *v = member(l, o, key);

    if (v && !json_is_array(v)) {
        sc_load_fail(l, "%s: expected an array", key);
        return NULL;
    }
    return v;
}

const json_t *sc_load_object(struct sc_load *l, const json_t *o, const char *key)
{
    const json_t *v = member(l, o, key);

    if (v && !json_is_object(v)) {
        sc_load_fail(l, "%s: expected an object", key);
        return NULL;
    }
    return v;
}

void sc_strv_free(char **v, int n)
{
    if (!v)
        return;
    for (int i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

char **sc_load_strv(struct sc_load *l, const json_t *o, const char *key, int *n)
{
    const json_t *v = member(l, o, key);
    char **out;
    size_t k;

    *n = 0;
    if (!v || json_is_null(v))
        return NULL;
    if (!json_is_array(v)) {
        sc_load_fail(l, "%s: expected an array of strings", key);
        return NULL;
    }
    if (json_array_size(v) == 0)
        return NULL;
    if (json_array_size(v) > 100000) {
        sc_load_fail(l, "%s: too many entries", key);
        return NULL;
    }
    out = calloc(json_array_size(v), sizeof(*out));
    if (!out) {
        sc_load_fail(l, "%s: out of memory", key);
        return NULL;
    }
    for (k = 0; k < json_array_size(v); k++) {
        const json_t *x = json_array_get(v, k);

        if (!json_is_string(x)) {
            sc_load_fail(l, "%s[%zu]: expected a string", key, k);
            break;
        }
        out[k] = sc_strdup(json_string_value(x));
        if (!out[k]) {
            sc_load_fail(l, "%s: out of memory", key);
            break;
        }
    }
    if (l->failed) {
        sc_strv_free(out, (int)json_array_size(v));
        return NULL;
    }
    *n = (int)json_array_size(v);
    return out;
}

const char *sc_json_type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return "an object";
    case JSON_ARRAY:
        return "an array";
    case JSON_STRING:
        return "a string";
    case JSON_INTEGER:
    case JSON_REAL:
        return "a number";
    case JSON_TRUE:
    case JSON_FALSE:
        return "a boolean";
    case JSON_NULL:
        return "null";
    }
    return "?";
}
