/* scaler/json_tags.c: see json_tags.h. */
#include "scaler/json_tags.h"

#include <string.h>

static json_t *find(json_t *tags, const char *key, size_t *at)
{
    size_t i;
    json_t *t;

    json_array_foreach(tags, i, t)
    {
        const char *k = json_string_value(json_object_get(t, "Key"));

        if (k && strcmp(k, key) == 0) {
            if (at)
                *at = i;
            return t;
        }
    }
    return NULL;
}

enum sc_status sc_json_tags_add(json_t *rec, const struct sc_tag *tags, int n, struct sc_error *err)
{
    json_t *list = json_object_get(rec, "Tags");

    if (sc_tags_check(tags, n, err) != SC_OK)
        return SC_ERR_MISSING_PARAMETER;
    if (!json_is_array(list)) {
        list = json_array();
        if (!list || json_object_set_new(rec, "Tags", list))
            return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    }
    for (int i = 0; i < n; i++) {
        json_t *t = find(list, tags[i].key, NULL);

        if (t) {
            if (json_object_set_new(t, "Value", json_string(tags[i].value)))
                return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
        } else if (json_array_append_new(
                       list, json_pack("{s:s,s:s}", "Key", tags[i].key, "Value", tags[i].value))) {
            return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
        }
    }
    return SC_OK;
}

void sc_json_tags_remove(json_t *rec, const char *const *keys, int n)
{
    json_t *list = json_object_get(rec, "Tags");
    size_t at;

    for (int i = 0; i < n; i++)
        if (keys[i] && find(list, keys[i], &at))
            json_array_remove(list, at);
}

void sc_json_tags_visit(const json_t *rec, sc_tag_visit_fn fn, void *ud)
{
    size_t i;
    json_t *t;

    json_array_foreach(json_object_get(rec, "Tags"), i, t)
    {
        const char *v = json_string_value(json_object_get(t, "Value"));

        if (fn(json_string_value(json_object_get(t, "Key")), v ? v : "", ud))
            break;
    }
}
