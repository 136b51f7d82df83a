/* emulator/awsjson.c: see awsjson.h. */
#include "emulator/awsjson.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int awsjson_parse_request(const struct model_service *svc, const struct model_op *op,
                          const char *body, size_t len, json_t **out, struct awserr *err)
{
    json_error_t jerr;
    json_t *doc;
    int rc;

    *out = NULL;
    if (len == 0) {
        doc = json_object();
    } else {
        doc = json_loadb(body, len, JSON_REJECT_DUPLICATES, &jerr);
        if (!doc)
            return awserr_set(err, 400, "SerializationException", "Invalid JSON: %s", jerr.text);
    }
    if (!json_is_object(doc)) {
        json_decref(doc);
        return awserr_set(err, 400, "SerializationException",
                          "Start of structure or map found where not expected");
    }
    if (op->input < 0) {
        *out = doc;
        json_object_clear(doc);
        return 0;
    }
    rc = model_coerce(svc, (uint32_t)op->input, doc, 0, out, err);
    json_decref(doc);
    return rc;
}

json_t *awsjson_to_wire(const struct model_service *svc, uint32_t si, json_t *v)
{
    const struct model_shape *sh = model_shape_get(svc, si);

    switch ((enum model_type)sh->type) {
    case MODEL_STRUCTURE: {
        json_t *o = json_object();

        if (!json_is_object(v))
            return o;
        for (int i = 0; i < sh->nmembers; i++) {
            const struct model_member *m = model_member_get(svc, sh, i);
            json_t *mv = json_object_get(v, m->name);

            if (mv && !json_is_null(mv))
                json_object_set_new(o, m->name, awsjson_to_wire(svc, m->shape, mv));
        }
        return o;
    }
    case MODEL_LIST: {
        const struct model_member *m = model_member_get(svc, sh, 0);
        json_t *a = json_array();
        size_t i;
        json_t *e;

        json_array_foreach(v, i, e) json_array_append_new(a, awsjson_to_wire(svc, m->shape, e));
        return a;
    }
    case MODEL_MAP: {
        const struct model_member *vm = model_member_get(svc, sh, 1);
        json_t *o = json_object();
        const char *key;
        json_t *e;

        json_object_foreach(v, key, e)
            json_object_set_new(o, key, awsjson_to_wire(svc, vm->shape, e));
        return o;
    }
    case MODEL_TIMESTAMP:
        if (json_is_integer(v)) {
            json_int_t ms = json_integer_value(v);

            if (ms % 1000 == 0)
                return json_integer(ms / 1000);
            return json_real((double)ms / 1000.0);
        }
        return json_incref(v);
    default:
        return json_incref(v);
    }
}

void awsjson_write_reply(struct cm_buf *b, const struct model_service *svc,
                         const struct model_op *op, json_t *out)
{
    json_t *w;
    char *s;

    if (op->output < 0 || !out) {
        cm_buf_puts(b, "{}");
        return;
    }
    w = awsjson_to_wire(svc, (uint32_t)op->output, out);
    s = json_dumps(w, JSON_COMPACT | JSON_REAL_PRECISION(17));
    cm_buf_puts(b, s ? s : "{}");
    free(s);
    json_decref(w);
}

void awsjson_error_type(const struct model_service *svc, const struct awserr *e, char *out,
                        size_t n)
{
    const struct model_error *me = svc ? model_error_find(svc, e->code) : NULL;

    if (me)
        snprintf(out, n, "com.amazonaws.%s#%s", svc->name, me->shape);
    else
        snprintf(out, n, "%s", e->code);
}

void awsjson_write_error(struct cm_buf *b, const struct model_service *svc, const struct awserr *e)
{
    char type[256];
    json_t *o;
    char *s;

    awsjson_error_type(svc, e, type, sizeof(type));
    o = json_object();
    json_object_set_new(o, "__type", json_string(type));
    json_object_set_new(o, "message", json_string(e->message));
    s = json_dumps(o, JSON_COMPACT);
    cm_buf_puts(b, s ? s : "{}");
    free(s);
    json_decref(o);
}
