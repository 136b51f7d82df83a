/* scaler/dashboard_view.c: see dashboard_view.h. */
#include "scaler/dashboard_view.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "scaler/widget.h"

#define AUTO_MAX_POINTS 1440

int sc_dashboard_auto_period(int64_t range_ms)
{
    static const int periods[] = { 60, 300, 900, 3600, 21600, 86400 };
    int64_t range_s = range_ms > 0 ? (range_ms + 999) / 1000 : 0;

    for (size_t i = 0; i < sizeof(periods) / sizeof(periods[0]); i++)
        if (range_s / periods[i] <= AUTO_MAX_POINTS)
            return periods[i];
    return 86400;
}

/* The value a variable takes when the dashboard loads: its default, else its first
 * listed value. NULL when it has neither. */
static const char *variable_value(const json_t *var)
{
    const char *v = json_string_value(json_object_get(var, "defaultValue"));
    const json_t *first = json_array_get(json_object_get(var, "values"), 0);

    if (v)
        return v;
    return json_string_value(json_object_get(first, "value"));
}

/* A dimension variable: in every metrics entry, the value after the dimension name. */
static void set_dimension(json_t *props, const char *dim, const char *value)
{
    size_t i;
    json_t *entry;

    json_array_foreach(json_object_get(props, "metrics"), i, entry)
    {
        size_t n = json_array_size(entry);
        for (size_t k = 2; k + 1 < n; k += 2) {
            const char *name = json_string_value(json_array_get(entry, k));
            if (name && strcmp(name, dim) == 0 && json_is_string(json_array_get(entry, k + 1)))
                json_array_set_new(entry, k + 1, json_string(value));
        }
    }
}

/* s with every match of re replaced by value; NULL when nothing matched or on OOM. */
static char *replace_all(const char *s, const regex_t *re, const char *value)
{
    size_t vlen = strlen(value), cap = strlen(s) + 1, len = 0;
    char *out = malloc(cap);
    const char *p = s;
    int matched = 0;
    regmatch_t m;

    if (!out)
        return NULL;
    while (*p && regexec(re, p, 1, &m, p == s ? 0 : REG_NOTBOL) == 0) {
        size_t pre = (size_t)m.rm_so, adv = m.rm_eo > m.rm_so ? (size_t)m.rm_eo : pre + 1;
        size_t need = len + pre + vlen + (adv - (size_t)m.rm_eo) + strlen(p + adv) + 1;
        if (need > cap) {
            char *n = realloc(out, need * 2);
            if (!n) {
                free(out);
                return NULL;
            }
            out = n;
            cap = need * 2;
        }
        memcpy(out + len, p, pre);
        len += pre;
        memcpy(out + len, value, vlen);
        len += vlen;
        if (m.rm_eo == m.rm_so) /* an empty match: keep the character and move on */
            out[len++] = p[pre];
        p += adv;
        matched = 1;
    }
    if (!matched) {
        free(out);
        return NULL;
    }
    if (len + strlen(p) + 1 > cap) {
        char *n = realloc(out, len + strlen(p) + 1);
        if (!n) {
            free(out);
            return NULL;
        }
        out = n;
    }
    strcpy(out + len, p);
    return out;
}

/* Every string inside j (object members and array items, not keys), replaced in place. */
static void replace_strings(json_t *j, const regex_t *re, const char *value)
{
    const char *key;
    json_t *v;
    size_t i;

    if (json_is_object(j)) {
        json_object_foreach(j, key, v)
        {
            if (json_is_string(v)) {
                char *r = replace_all(json_string_value(v), re, value);
                if (r)
                    json_object_set_new(j, key, json_string(r));
                free(r);
            } else {
                replace_strings(v, re, value);
            }
        }
    } else if (json_is_array(j)) {
        json_array_foreach(j, i, v)
        {
            if (json_is_string(v)) {
                char *r = replace_all(json_string_value(v), re, value);
                if (r)
                    json_array_set_new(j, i, json_string(r));
                free(r);
            } else {
                replace_strings(v, re, value);
            }
        }
    }
}

static void apply_variables(const json_t *body, json_t *props)
{
    size_t i;
    const json_t *var;

    json_array_foreach(json_object_get(body, "variables"), i, var)
    {
        const char *type = json_string_value(json_object_get(var, "type"));
        const char *value = variable_value(var);

        if (!type || !value)
            continue;
        if (strcmp(type, "property") == 0) {
            const char *prop = json_string_value(json_object_get(var, "property"));
            if (!prop)
                continue;
            if (strcmp(prop, "region") == 0)
                json_object_set_new(props, "region", json_string(value));
            else
                set_dimension(props, prop, value);
        } else if (strcmp(type, "pattern") == 0) {
            const char *pat = json_string_value(json_object_get(var, "pattern"));
            regex_t re;
            if (!pat || !*pat || regcomp(&re, pat, REG_EXTENDED) != 0)
                continue;
            replace_strings(props, &re, value);
            regfree(&re);
        }
    }
}

/* The range of a widget's graph: its start/end, else the dashboard's, else 3 hours. */
static int64_t widget_range_ms(const json_t *body, const json_t *props, int64_t now_ms)
{
    int64_t start = now_ms - 3 * 3600 * 1000LL, end = now_ms;
    const char *s = json_string_value(json_object_get(props, "start"));
    const char *e = json_string_value(json_object_get(props, "end"));

    if (!s)
        s = json_string_value(json_object_get(body, "start"));
    if (!e)
        e = json_string_value(json_object_get(body, "end"));
    if (s && sc_widget_parse_time(s, now_ms, &start) != 0)
        start = now_ms - 3 * 3600 * 1000LL;
    if (e && sc_widget_parse_time(e, now_ms, &end) != 0)
        end = now_ms;
    return end - start;
}

void sc_dashboard_present(const json_t *body, json_t *props, int64_t now_ms)
{
    const char *po = json_string_value(json_object_get(body, "periodOverride"));
    size_t i;
    json_t *entry;

    if (!json_is_object(props))
        return;
    apply_variables(body, props);
    if (po && strcmp(po, "inherit") == 0)
        return;
    json_object_set_new(
        props, "period",
        json_integer(sc_dashboard_auto_period(widget_range_ms(body, props, now_ms))));
    json_array_foreach(json_object_get(props, "metrics"), i, entry)
    {
        json_t *last = json_array_get(entry, json_array_size(entry) - 1);
        if (json_is_object(last))
            json_object_del(last, "period");
    }
}
