/* scaler/sim/scenario_internal.h: what scenario.c, scenario_infra.c, scenario_load.c and
 * scenario_expect.c share; not public.
 *
 * The parse context and the JSON readers (scenario.c), and the parsers of each part of the
 * file that sim_scenario_parse() calls. lookup() and the get_*() readers return 1 when the
 * key is present, 0 when it is absent (the default stored), -1 on an error; want_object()
 * and the parse_*() functions 0 or -1. Every error goes through fail(), which adds the line
 * "PATH: message" to the file's errors (c->lint) and returns -1: the reader goes on with the
 * next object, so every object's errors are reported. check_keys() reports every unknown
 * key of an object (with a "did you mean") and returns 0, so the object is read on. */
#ifndef SCALER_SIM_SCENARIO_INTERNAL_H
#define SCALER_SIM_SCENARIO_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "scaler/sim/scenario.h"

struct sc_lint;

struct ctx {
    struct sc_lint *lint; /* every error of the file (scaler/lint.h) */
    const char *file;
    int lenient; /* SIM_SCENARIO_LENIENT: dimensions naming nothing are warnings */
};

/* scenario.c: errors, paths and the JSON readers. */
int fail(struct ctx *c, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void path_join(char *out, const char *base, const char *tail);
void path_key(char *out, const char *base, const char *key);
void path_idx(char *out, const char *base, size_t i);
int check_keys(struct ctx *c, const json_t *obj, const char *path, const char *const *allowed);
int want_object(struct ctx *c, const json_t *v, const char *path);
int lookup(struct ctx *c, const json_t *obj, const char *path, const char *key, int required,
           json_t **out, char *p);
int get_num(struct ctx *c, const json_t *obj, const char *path, const char *key, int required,
            double def, double lo, double hi, double *out);
int get_int(struct ctx *c, const json_t *obj, const char *path, const char *key, int required,
            int def, int lo, int hi, int *out);
int get_bool(struct ctx *c, const json_t *obj, const char *path, const char *key, int def,
             int *out);
int get_str(struct ctx *c, const json_t *obj, const char *path, const char *key, int required,
            const char *def, char **out);
int get_enum(struct ctx *c, const json_t *obj, const char *path, const char *key, int required,
             const char *def, const char *const *words, char **out);
int parse_duration_value(struct ctx *c, const json_t *v, const char *p, int64_t *out);
int get_dur(struct ctx *c, const json_t *obj, const char *path, const char *key, int required,
            int64_t def, int64_t *out);
int get_str_array(struct ctx *c, const json_t *obj, const char *path, const char *key, int required,
                  char ***out, int *n);
int get_obj_array(struct ctx *c, const json_t *obj, const char *path, const char *key, json_t **arr,
                  size_t *n, char *p);

/* scenario_infra.c: $.infrastructure's entries. */
int parse_lb(struct ctx *c, const json_t *o, const char *path, struct sim_lb *lb);
int parse_lc(struct ctx *c, const json_t *o, const char *path, struct sim_launch_config *lc);
int parse_group(struct ctx *c, const json_t *o, const char *path, struct sim_group *g);
int parse_policy(struct ctx *c, const json_t *o, const char *path, struct sim_policy *pl);
int parse_alarm(struct ctx *c, const json_t *o, const char *path, struct sim_alarm *a);
int parse_composite(struct ctx *c, const json_t *o, const char *path, struct sim_composite *a);

/* scenario_alb.c: $.infrastructure.target_groups and .albs, a phase's "requests" and
 * "listener_port"; free_albs() frees what they read (and the phases' requests). */
int parse_tg(struct ctx *c, const json_t *o, const char *path, struct sim_tg *tg);
int parse_alb(struct ctx *c, const json_t *o, const char *path, struct sim_alb *b);
int parse_requests(struct ctx *c, const json_t *o, const char *path, struct sim_phase *ph);
void free_albs(struct sim_scenario *sc);

/* scenario_load.c: $.load's phases and $.faults' entries. */
int parse_phase(struct ctx *c, const json_t *o, const char *path, struct sim_phase *ph,
                int64_t duration_ms);
int parse_fault(struct ctx *c, const json_t *o, const char *path, struct sim_fault *f);

/* scenario_expect.c: $.expect's entries. */
int parse_expect(struct ctx *c, const json_t *o, const char *path, struct sim_expect *e,
                 int64_t duration_ms);

#endif
