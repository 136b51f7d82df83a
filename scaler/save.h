/* scaler/save.h: helpers the modules' save/load functions share (sc_X_save / sc_X_load;
 * libscaler-internal, not for callers). Saving builds Jansson values; loading reads them
 * through a struct sc_load that keeps the first error, so a loader reads every field
 * and checks once at the end ("state: groups[2].min_size: expected an integer").
 *
 * Strings on save: NULL becomes JSON null. Numbers: int64 as JSON integers, doubles as
 * reals (printed with 17 digits by Jansson, so they round-trip exactly), uint64 as 16
 * hex digits. */
#ifndef SCALER_SAVE_H
#define SCALER_SAVE_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "scaler/status.h"

/* --- save -------------------------------------------------------------------------------- */

/* o[key] = s (NULL: null). Returns 0, or -1 on OOM or invalid UTF-8. */
int sc_save_str(json_t *o, const char *key, const char *s);
int sc_save_int(json_t *o, const char *key, int64_t v);
int sc_save_bool(json_t *o, const char *key, int v);
int sc_save_real(json_t *o, const char *key, double v); /* non-finite: -1 */
int sc_save_u64(json_t *o, const char *key, uint64_t v);
/* o[key] = [v[0], ...] (v NULL with n 0: []; v NULL with n > 0: null). */
int sc_save_strv(json_t *o, const char *key, char *const *v, int n);
/* o[key] = v (stolen; NULL means OOM: -1). */
int sc_save_take(json_t *o, const char *key, json_t *v);

/* --- load -------------------------------------------------------------------------------- */

struct sc_load {
    struct sc_error *err;
    int failed;
    const char *where; /* "asg", "ec2", ...: prefixes the message */
    /* between where and the message: ": " (sc_load_init); "." when where is the path of the
     * object whose members the messages name ("state: alarms[2].period: expected an integer") */
    const char *sep;
};

void sc_load_init(struct sc_load *l, const char *where, struct sc_error *err);
/* Records the first error (later ones are dropped). Returns -1. */
int sc_load_fail(struct sc_load *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Required members (missing or of another type: an error, and 0 / NULL returned). */
int64_t sc_load_int(struct sc_load *l, const json_t *o, const char *key);
/* An int in lo..hi. */
int sc_load_int_range(struct sc_load *l, const json_t *o, const char *key, int lo, int hi);
int sc_load_bool(struct sc_load *l, const json_t *o, const char *key);
double sc_load_real(struct sc_load *l, const json_t *o, const char *key); /* int or real */
uint64_t sc_load_u64(struct sc_load *l, const json_t *o, const char *key);
/* A string or null: a malloc'd copy (NULL for null). OOM is an error. */
char *sc_load_str(struct sc_load *l, const json_t *o, const char *key);
/* A string (not null): the borrowed value. */
const char *sc_load_cstr(struct sc_load *l, const json_t *o, const char *key);
/* A string, or absent or null (NULL, not an error): the borrowed value. */
const char *sc_load_cstr_opt(struct sc_load *l, const json_t *o, const char *key);
/* A string (not null) copied into buf (an error when it does not fit). */
void sc_load_buf(struct sc_load *l, const json_t *o, const char *key, char *buf, size_t cap);
/* An array (not null): the borrowed value, or NULL with an error. */
const json_t *sc_load_array(struct sc_load *l, const json_t *o, const char *key);
/* An object (not null): the borrowed value, or NULL with an error. */
const json_t *sc_load_object(struct sc_load *l, const json_t *o, const char *key);
/* An array of strings, or null: malloc'd copies (*n set); NULL for [] and null. */
char **sc_load_strv(struct sc_load *l, const json_t *o, const char *key, int *n);
/* Frees n strings and their array (NULL is fine): what sc_load_strv returned, and the
 * records' own string arrays. */
void sc_strv_free(char **v, int n);

/* "an object", "an array", "a string", "a number", "a boolean" or "null": how the JSON
 * readers (the state file, the app profile, the scenario) name what they found. */
const char *sc_json_type_name(const json_t *v);

#endif
