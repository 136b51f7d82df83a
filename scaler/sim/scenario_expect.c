/* scaler/sim/scenario_expect.c: the scenario's expectations ($.expect) read into struct
 * sim_expect; scaler/sim/expect.c checks them against a run. */
#include "scaler/sim/scenario.h"

#include <stdint.h>

#include <jansson.h>

#include "scaler/sim/scenario_internal.h"

/* ---- expectations ---- */

static int parse_bounds(struct ctx *c, const json_t *v, const char *p, struct sim_expect *e,
                        int need_max_only)
{
    static const char *const keys[] = { "min", "max", NULL };
    static const char *const max_keys[] = { "max", NULL };

    if (want_object(c, v, p) != 0 || check_keys(c, v, p, need_max_only ? max_keys : keys) != 0)
        return -1;
    e->has_min = get_num(c, v, p, "min", 0, 0, 0, 1e12, &e->min);
    if (e->has_min < 0)
        return -1;
    e->has_max = get_num(c, v, p, "max", need_max_only, 0, 0, 1e12, &e->max);
    if (e->has_max < 0)
        return -1;
    if (!e->has_min && !e->has_max)
        return fail(c, p, "give \"min\", \"max\" or both");
    if (e->has_min && e->has_max && e->min > e->max) {
        char pk[SIM_PATH_MAX];
        path_key(pk, p, "min");
        return fail(c, pk, "must be <= max (%g), is %g", e->max, e->min);
    }
    return 0;
}

int parse_expect(struct ctx *c, const json_t *o, const char *path, struct sim_expect *e,
                 int64_t duration_ms)
{
    static const char *const keys[] = { "name",
                                        "group",
                                        "at",
                                        "by",
                                        "throughout",
                                        "from",
                                        "until",
                                        "window",
                                        "in_service",
                                        "desired",
                                        "failed_pct",
                                        "p99_ms",
                                        "direction_changes",
                                        "scale_out",
                                        NULL };
    static const char *const checks[] = { "in_service",        "desired",   "failed_pct", "p99_ms",
                                          "direction_changes", "scale_out", NULL };
    static const char *const so_keys[] = { "after", "within", NULL };
    char p[SIM_PATH_MAX];
    json_t *v = NULL;
    int found = 0, hat, hby, hth = 0, hfrom, huntil, hw;
    int64_t at_ms = 0, by_ms = 0;

    path_join(e->path, path, "");
    {
        int bad = 0;

        bad |= check_keys(c, o, path, keys) != 0;
        bad |= get_str(c, o, path, "name", 0, NULL, &e->label) < 0;
        bad |= get_str(c, o, path, "group", 0, NULL, &e->group) < 0;
        if (bad)
            return -1;
    }
    for (int i = 0; checks[i]; i++) {
        if (json_object_get(o, checks[i])) {
            found++;
            e->kind = (enum sim_expect_kind)i;
            v = json_object_get(o, checks[i]);
            path_key(p, path, checks[i]);
        }
    }
    if (found != 1)
        return fail(c, path,
                    "give exactly one check: in_service, desired, failed_pct, p99_ms, "
                    "direction_changes, scale_out");
    hat = get_dur(c, o, path, "at", 0, 0, &at_ms);
    if (hat < 0)
        return -1;
    hby = get_dur(c, o, path, "by", 0, 0, &by_ms);
    if (hby < 0)
        return -1;
    if (get_bool(c, o, path, "throughout", 0, &hth) < 0)
        return -1;
    hfrom = get_dur(c, o, path, "from", 0, 0, &e->from_ms);
    if (hfrom < 0)
        return -1;
    huntil = get_dur(c, o, path, "until", 0, duration_ms, &e->until_ms);
    if (huntil < 0)
        return -1;
    hw = get_dur(c, o, path, "window", 0, 0, &e->window_ms);
    if (hw < 0)
        return -1;
    if (hat && hby)
        return fail(c, path, "give \"at\" or \"by\", not both");
    e->at_ms = hat ? at_ms : by_ms;
    if ((hat || hby) && (hth || hfrom || huntil))
        return fail(c, path, "\"%s\" does not combine with throughout/from/until",
                    hat ? "at" : "by");
    e->when = hat ? SIM_WHEN_AT : hby ? SIM_WHEN_BY : SIM_WHEN_THROUGHOUT;
    if (e->when == SIM_WHEN_THROUGHOUT && e->from_ms > e->until_ms) {
        char pk[SIM_PATH_MAX];
        path_key(pk, path, "from");
        return fail(c, pk, "must be <= until");
    }
    if (hw && e->kind != SIM_EXPECT_DIRECTION_CHANGES) {
        char pk[SIM_PATH_MAX];
        path_key(pk, path, "window");
        return fail(c, pk, "only for direction_changes");
    }
    switch (e->kind) {
    case SIM_EXPECT_IN_SERVICE:
    case SIM_EXPECT_DESIRED:
        return parse_bounds(c, v, p, e, 0);
    case SIM_EXPECT_FAILED_PCT:
    case SIM_EXPECT_P99_MS:
        if (hat || hby)
            return fail(c, path, "%s is checked over a span: use throughout/from/until",
                        e->kind == SIM_EXPECT_P99_MS ? "p99_ms" : "failed_pct");
        return parse_bounds(c, v, p, e, 1);
    case SIM_EXPECT_DIRECTION_CHANGES:
        if (hat || hby)
            return fail(c, path, "direction_changes is checked over a span: use window/from/until");
        if (!hw)
            e->window_ms = e->until_ms - e->from_ms;
        if (e->window_ms <= 0) {
            char pk[SIM_PATH_MAX];
            path_key(pk, path, "window");
            return fail(c, pk, "must be > 0");
        }
        return parse_bounds(c, v, p, e, 1);
    case SIM_EXPECT_SCALE_OUT:
        if (hat || hby || hth || hfrom || huntil)
            return fail(c, path, "scale_out carries its own times (after, within)");
        if (want_object(c, v, p) != 0 || check_keys(c, v, p, so_keys) != 0 ||
            get_dur(c, v, p, "after", 1, 0, &e->after_ms) < 0 ||
            get_dur(c, v, p, "within", 1, 0, &e->within_ms) < 0)
            return -1;
        return 0;
    }
    return 0;
}
