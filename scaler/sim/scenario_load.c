/* scaler/sim/scenario_load.c: the scenario's load phases (rate, clients or a trace file,
 * and their shapes) and its faults. */
#include "scaler/sim/scenario.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/units.h"
#include "common/xalloc.h"
#include "scaler/sim/scenario_internal.h"

/* ---- load ---- */

static int read_trace(struct ctx *c, const char *path, const char *file, struct sim_phase *ph)
{
    char full[4096], line[512];
    const char *slash = c->file ? strrchr(c->file, '/') : NULL;
    FILE *f;
    int cap = 0, lineno = 0;

    if (file[0] == '/' || !slash)
        snprintf(full, sizeof(full), "%s", file);
    else
        snprintf(full, sizeof(full), "%.*s/%s", (int)(slash - c->file), c->file, file);
    f = fopen(full, "r");
    if (!f)
        return fail(c, path, "cannot read trace %s: %s", full, strerror(errno));
    while (fgets(line, sizeof(line), f)) {
        char *comma, *end, *s = line;
        double rate;
        int64_t t_ms;
        lineno++;
        while (*s == ' ' || *s == '\t')
            s++;
        if (*s == '#' || *s == '\n' || *s == '\r' || *s == '\0')
            continue;
        comma = strchr(s, ',');
        if (!comma)
            goto bad;
        *comma = '\0';
        {
            int64_t us;
            double secs = strtod(s, &end);
            if (end != s && (*end == '\0' || *end == ' ')) {
                if (!(secs >= 0))
                    goto bad;
                t_ms = (int64_t)llround(secs * 1000);
            } else if (cm_duration_parse_us(s, CM_UNIT_S, &us) == 0) {
                t_ms = us / 1000;
            } else if (ph->ntrace == 0 && lineno == 1) {
                continue; /* a header line */
            } else {
                goto bad;
            }
        }
        rate = strtod(comma + 1, &end);
        if (end == comma + 1 || !(rate >= 0) || !isfinite(rate))
            goto bad;
        if (ph->ntrace > 0 && t_ms <= ph->trace_t_ms[ph->ntrace - 1]) {
            fclose(f);
            return fail(c, path, "%s:%d: times must increase", full, lineno);
        }
        if (ph->ntrace == cap) {
            cap = cap ? cap * 2 : 64;
            ph->trace_t_ms = cm_xrealloc(ph->trace_t_ms, (size_t)cap * sizeof(int64_t));
            ph->trace_rate = cm_xrealloc(ph->trace_rate, (size_t)cap * sizeof(double));
        }
        ph->trace_t_ms[ph->ntrace] = t_ms;
        ph->trace_rate[ph->ntrace] = rate;
        ph->ntrace++;
    }
    fclose(f);
    if (ph->ntrace == 0)
        return fail(c, path, "trace %s has no rows (time,rate)", full);
    return 0;
bad:
    fclose(f);
    return fail(c, path, "%s:%d: expected time,rate with rate >= 0", full, lineno);
}

static int shape_values(struct ctx *c, const json_t *o, const char *path, struct sim_phase *ph,
                        const char *const *keys)
{
    static const char *const types[] = { "constant", "ramp",   "step", "spike",
                                         "diurnal",  "bursts", NULL };
    static const char *const allowed[][6] = {
        { NULL },
        { "to", NULL },
        { "to", "at", NULL },
        { "to", "at", "for", NULL },
        { "amplitude", "period", "peak_at", NULL },
        { "requests", "on", "gap", NULL },
    };
    char *type = NULL;
    int r, t = 0;
    double req;

    if (get_enum(c, o, path, "type", 1, NULL, types, &type) < 0)
        return -1;
    for (int i = 0; types[i]; i++)
        if (strcmp(types[i], type) == 0)
            t = i;
    free(type);
    ph->shape = (enum sim_shape)t;
    for (void *it = json_object_iter((json_t *)o); it;
         it = json_object_iter_next((json_t *)o, it)) {
        const char *key = json_object_iter_key(it);
        int ok = strcmp(key, "type") == 0, known = 0;

        for (const char *const *k = keys; *k; k++)
            known |= strcmp(*k, key) == 0;
        if (!known)
            continue; /* an unknown key: check_keys reported it */
        for (int i = 0; allowed[t][i]; i++)
            if (strcmp(allowed[t][i], key) == 0)
                ok = 1;
        if (!ok) {
            char p[SIM_PATH_MAX];
            path_key(p, path, key);
            return fail(c, p, "not a key of shape \"%s\"", types[t]);
        }
    }
    switch (ph->shape) {
    case SIM_SHAPE_CONSTANT:
        break;
    case SIM_SHAPE_RAMP:
        return get_num(c, o, path, "to", 1, 0, 0, 1e12, &ph->to) < 0 ? -1 : 0;
    case SIM_SHAPE_STEP:
    case SIM_SHAPE_SPIKE:
        if (get_num(c, o, path, "to", 1, 0, 0, 1e12, &ph->to) < 0 ||
            get_dur(c, o, path, "at", 1, 0, &ph->shape_at_ms) < 0)
            return -1;
        if (ph->shape == SIM_SHAPE_SPIKE && get_dur(c, o, path, "for", 1, 0, &ph->shape_for_ms) < 0)
            return -1;
        break;
    case SIM_SHAPE_DIURNAL:
        if (get_num(c, o, path, "amplitude", 1, 0, 0, 1, &ph->amplitude) < 0 ||
            get_dur(c, o, path, "period", 0, 86400000, &ph->period_ms) < 0 ||
            get_dur(c, o, path, "peak_at", 0, 14 * 3600000, &ph->peak_ms) < 0)
            return -1;
        if (ph->period_ms <= 0) {
            char p[SIM_PATH_MAX];
            path_key(p, path, "period");
            return fail(c, p, "must be > 0");
        }
        break;
    case SIM_SHAPE_BURSTS:
        r = get_num(c, o, path, "requests", 0, 0, 1, 1e12, &req);
        if (r < 0 || get_dur(c, o, path, "on", 0, 0, &ph->on_ms) < 0 ||
            get_dur(c, o, path, "gap", 1, 0, &ph->gap_ms) < 0)
            return -1;
        ph->burst_requests = r ? (int64_t)req : 0;
        if (r && json_object_get(o, "on"))
            return fail(c, path, "give \"requests\" or \"on\", not both");
        if (!r && !json_object_get(o, "on"))
            return fail(c, path, "bursts need \"requests\" (closed model) or \"on\"");
        if (r && !ph->closed) {
            char p[SIM_PATH_MAX];
            path_key(p, path, "requests");
            return fail(c, p, "only for closed-model phases (\"clients\"); use \"on\" with a rate");
        }
        if (!r && ph->on_ms <= 0) {
            char p[SIM_PATH_MAX];
            path_key(p, path, "on");
            return fail(c, p, "must be > 0");
        }
        break;
    }
    return 0;
}

/* An unknown key is reported beside the values' errors, not instead of them. */
static int parse_shape(struct ctx *c, const json_t *o, const char *path, struct sim_phase *ph)
{
    static const char *const keys[] = { "type",    "to",       "at", "for", "amplitude", "period",
                                        "peak_at", "requests", "on", "gap", NULL };
    int unknown;

    if (want_object(c, o, path) != 0)
        return -1;
    unknown = check_keys(c, o, path, keys) != 0;
    return (shape_values(c, o, path, ph, keys) != 0) | unknown ? -1 : 0;
}

int parse_phase(struct ctx *c, const json_t *o, const char *path, struct sim_phase *ph,
                int64_t duration_ms)
{
    static const char *const keys[] = { "at",    "until",    "for",           "target",
                                        "rate",  "clients",  "think",         "trace",
                                        "shape", "requests", "listener_port", NULL };
    char p[SIM_PATH_MAX];
    char *trace = NULL;
    json_t *v;
    int hr, hc, ht, hu, hf;
    int64_t for_ms;

    path_join(ph->path, path, "");
    {
        int unknown = check_keys(c, o, path, keys) != 0;

        if ((get_dur(c, o, path, "at", 0, 0, &ph->at_ms) < 0) | unknown)
            return -1;
    }
    hu = get_dur(c, o, path, "until", 0, duration_ms, &ph->until_ms);
    if (hu < 0)
        return -1;
    hf = get_dur(c, o, path, "for", 0, 0, &for_ms);
    if (hf < 0 || get_str(c, o, path, "target", 0, NULL, &ph->target) < 0)
        return -1;
    if (parse_requests(c, o, path, ph) < 0)
        return -1;
    hr = get_num(c, o, path, "rate", 0, 0, 0, 1e9, &ph->value);
    if (hr < 0)
        return -1;
    if (hu && hf)
        return fail(c, path, "give \"until\" or \"for\", not both");
    if (hf)
        ph->until_ms = ph->at_ms + for_ms;
    if (ph->until_ms <= ph->at_ms) {
        path_key(p, path, hu ? "until" : "at");
        return fail(c, p, "the phase must end after it starts");
    }
    if (!hr) {
        hc = get_num(c, o, path, "clients", 0, 0, 0, 1e7, &ph->value);
        if (hc < 0)
            return -1;
    } else {
        hc = json_object_get(o, "clients") != NULL;
    }
    ht = get_str(c, o, path, "trace", 0, NULL, &trace);
    if (ht < 0)
        return -1;
    if (hr + hc + ht != 1) {
        free(trace);
        return fail(c, path, "give exactly one of \"rate\", \"clients\", \"trace\"");
    }
    ph->closed = hc;
    if (hc) {
        int64_t think;
        if (get_dur(c, o, path, "think", 0, 0, &think) < 0)
            return -1;
        ph->think_ms = (double)think;
        if (ph->value != floor(ph->value)) {
            path_key(p, path, "clients");
            return fail(c, p, "must be a whole number");
        }
    } else if (json_object_get(o, "think")) {
        path_key(p, path, "think");
        return fail(c, p, "only for closed-model phases (\"clients\")");
    }
    if (ht) {
        path_key(p, path, "trace");
        if (read_trace(c, p, trace, ph) != 0) {
            free(trace);
            return -1;
        }
        free(trace);
        if (json_object_get(o, "shape")) {
            path_key(p, path, "shape");
            return fail(c, p, "a trace phase takes no shape");
        }
    }
    ph->shape = SIM_SHAPE_CONSTANT;
    if (lookup(c, o, path, "shape", 0, &v, p) > 0 && parse_shape(c, v, p, ph) != 0)
        return -1;
    if (ph->closed && ph->shape != SIM_SHAPE_CONSTANT && ph->shape != SIM_SHAPE_BURSTS &&
        ph->to != floor(ph->to)) {
        path_key(p, path, "shape");
        return fail(c, p, ".to: clients must be a whole number");
    }
    return 0;
}

/* ---- faults ---- */

int parse_fault(struct ctx *c, const json_t *o, const char *path, struct sim_fault *f)
{
    static const char *const keys[] = { "at", "kill", "hang", "slow", "az_outage", NULL };
    static const char *const kinds[] = { "kill", "hang", "slow", "az_outage", NULL };
    static const char *const inst_keys[] = { "group", "count", "factor", "for", NULL };
    static const char *const az_keys[] = { "zone", "for", NULL };
    char p[SIM_PATH_MAX];
    json_t *v = NULL;
    int found = 0;

    path_join(f->path, path, "");
    if (check_keys(c, o, path, keys) != 0 || get_dur(c, o, path, "at", 1, 0, &f->at_ms) < 0)
        return -1;
    for (int i = 0; kinds[i]; i++) {
        if (json_object_get(o, kinds[i])) {
            found++;
            f->kind = (enum sim_fault_kind)i;
            v = json_object_get(o, kinds[i]);
            path_key(p, path, kinds[i]);
        }
    }
    if (found != 1)
        return fail(c, path, "give exactly one of \"kill\", \"hang\", \"slow\", \"az_outage\"");
    if (want_object(c, v, p) != 0)
        return -1;
    if (f->kind == SIM_FAULT_AZ_OUTAGE) {
        if (check_keys(c, v, p, az_keys) != 0 || get_str(c, v, p, "zone", 1, NULL, &f->zone) < 0 ||
            get_dur(c, v, p, "for", 0, 0, &f->for_ms) < 0)
            return -1;
        return 0;
    }
    if (check_keys(c, v, p, inst_keys) != 0 || get_str(c, v, p, "group", 0, NULL, &f->group) < 0 ||
        get_int(c, v, p, "count", 0, 1, 1, 100000, &f->count) < 0)
        return -1;
    if (f->kind == SIM_FAULT_KILL && (json_object_get(v, "for") || json_object_get(v, "factor"))) {
        char pk[SIM_PATH_MAX];
        path_key(pk, p, json_object_get(v, "for") ? "for" : "factor");
        return fail(c, pk, "not a key of \"kill\"");
    }
    if (f->kind == SIM_FAULT_HANG && json_object_get(v, "factor")) {
        char pk[SIM_PATH_MAX];
        path_key(pk, p, "factor");
        return fail(c, pk, "only for \"slow\"");
    }
    if (get_dur(c, v, p, "for", 0, 0, &f->for_ms) < 0)
        return -1;
    if (f->kind == SIM_FAULT_SLOW && get_num(c, v, p, "factor", 1, 1, 1, 1e6, &f->factor) < 0)
        return -1;
    return 0;
}
