/* scaler/json.c: see json.h. */
#include "scaler/json.h"

#include <stdlib.h>
#include <string.h>

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

const char **sc_json_keys_sorted(const json_t *o, size_t *n)
{
    size_t count = json_object_size(o), i = 0;
    const char **keys = calloc(count + 1, sizeof(*keys));
    const char *k;
    json_t *v;

    *n = 0;
    if (!keys)
        return NULL;
    /* json_object_foreach takes a non-const object; it only reads it */
    json_object_foreach((json_t *)o, k, v) keys[i++] = k;
    qsort(keys, i, sizeof(*keys), cmp_str);
    *n = i;
    return keys;
}
