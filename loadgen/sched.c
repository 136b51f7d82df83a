/* loadgen/sched.c: see sched.h. */
#include "loadgen/sched.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/units.h"

void sched_init_const(struct sched *s, double rate, int64_t dur_us)
{
    s->n = 1;
    s->phase[0].dur_us = dur_us > 0 ? dur_us : -1;
    s->phase[0].r0 = s->phase[0].r1 = rate;
}

static int add(struct sched *s, int64_t dur, double r0, double r1, char *err, size_t errlen)
{
    if (s->n >= SCHED_MAX_PHASES) {
        snprintf(err, errlen, "too many phases (at most %d)", SCHED_MAX_PHASES);
        return -1;
    }
    s->phase[s->n].dur_us = dur;
    s->phase[s->n].r0 = r0;
    s->phase[s->n].r1 = r1;
    s->n++;
    return 0;
}

static int num(const char *t, double *out)
{
    char *end;
    double v;

    if (!t || !*t)
        return -1;
    v = strtod(t, &end);
    if (*end || !isfinite(v) || v < 0)
        return -1;
    *out = v;
    return 0;
}

static int dur(const char *t, int64_t *out)
{
    if (!t || cm_duration_parse_us(t, CM_UNIT_S, out) < 0 || *out <= 0)
        return -1;
    return 0;
}

int sched_parse(const char *spec, struct sched *s, char *err, size_t errlen)
{
    char buf[1024], *save = NULL, *tok;
    int rc = -1;

    s->n = 0;
    if (!spec || !*spec || strlen(spec) >= sizeof(buf)) {
        snprintf(err, errlen, "empty or too long schedule");
        return -1;
    }
    strcpy(buf, spec);
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *f[6] = { 0 }, *save2 = NULL;
        int nf = 0;
        double a, b, st;
        int64_t d, d2;

        for (char *x = strtok_r(tok, ":", &save2); x; x = strtok_r(NULL, ":", &save2)) {
            if (nf == 6)
                goto bad;
            f[nf++] = x;
        }
        if (nf == 1 && num(f[0], &a) == 0) {
            if (add(s, -1, a, a, err, errlen) < 0)
                return -1;
        } else if (nf == 3 && strcmp(f[0], "const") == 0) {
            if (num(f[1], &a) < 0 || dur(f[2], &d) < 0 || add(s, d, a, a, err, errlen) < 0)
                goto bad;
        } else if (nf == 4 && strcmp(f[0], "ramp") == 0) {
            if (num(f[1], &a) < 0 || num(f[2], &b) < 0 || dur(f[3], &d) < 0 ||
                add(s, d, a, b, err, errlen) < 0)
                goto bad;
        } else if (nf == 5 && strcmp(f[0], "step") == 0) {
            if (num(f[1], &a) < 0 || num(f[2], &b) < 0 || num(f[3], &st) < 0 || st <= 0 ||
                dur(f[4], &d) < 0)
                goto bad;
            if (b >= a) {
                for (double r = a; r <= b + 1e-9; r += st)
                    if (add(s, d, r, r, err, errlen) < 0)
                        return -1;
            } else {
                for (double r = a; r >= b - 1e-9; r -= st)
                    if (add(s, d, r, r, err, errlen) < 0)
                        return -1;
            }
        } else if (nf == 2 && strcmp(f[0], "gap") == 0) {
            if (dur(f[1], &d) < 0 || add(s, d, 0, 0, err, errlen) < 0)
                goto bad;
        } else if (nf == 5 && strcmp(f[0], "burst") == 0) {
            char *end;
            long count;

            if (num(f[1], &a) < 0 || dur(f[2], &d) < 0 || dur(f[3], &d2) < 0)
                goto bad;
            count = strtol(f[4], &end, 10);
            if (*end || count < 1 || count > SCHED_MAX_PHASES / 2)
                goto bad;
            for (long i = 0; i < count; i++)
                if (add(s, d, a, a, err, errlen) < 0 || add(s, d2, 0, 0, err, errlen) < 0)
                    return -1;
        } else {
            goto bad;
        }
        continue;
bad:
        snprintf(err, errlen, "bad schedule phase '%s' (see --help for the phase forms)",
                 f[0] ? f[0] : tok);
        s->n = 0;
        return -1;
    }
    for (int i = 0; i + 1 < s->n; i++) {
        if (s->phase[i].dur_us < 0) {
            snprintf(err, errlen, "an endless rate can only be the last phase");
            s->n = 0;
            return -1;
        }
    }
    rc = s->n > 0 ? 0 : -1;
    if (rc < 0)
        snprintf(err, errlen, "empty schedule");
    return rc;
}

int64_t sched_total_us(const struct sched *s)
{
    int64_t t = 0;

    for (int i = 0; i < s->n; i++) {
        if (s->phase[i].dur_us < 0)
            return -1;
        t += s->phase[i].dur_us;
    }
    return t;
}

/* Events in the first x µs of phase p. */
static double phase_count(const struct sched_phase *p, double x_us)
{
    double x = x_us / 1e6;

    if (p->dur_us <= 0)
        return p->r0 * x;
    return p->r0 * x + (p->r1 - p->r0) * x * x / (2.0 * ((double)p->dur_us / 1e6));
}

double sched_rate_at(const struct sched *s, int64_t t_us)
{
    int64_t start = 0;

    for (int i = 0; i < s->n; i++) {
        const struct sched_phase *p = &s->phase[i];
        if (p->dur_us < 0 || t_us < start + p->dur_us) {
            if (t_us < start)
                return 0;
            if (p->dur_us <= 0)
                return p->r0;
            return p->r0 + (p->r1 - p->r0) * (double)(t_us - start) / (double)p->dur_us;
        }
        start += p->dur_us;
    }
    return 0;
}

double sched_count_at(const struct sched *s, int64_t t_us)
{
    double c = 0;
    int64_t start = 0;

    for (int i = 0; i < s->n; i++) {
        const struct sched_phase *p = &s->phase[i];
        if (p->dur_us < 0 || t_us < start + p->dur_us)
            return c + phase_count(p, (double)(t_us - start));
        c += phase_count(p, (double)p->dur_us);
        start += p->dur_us;
    }
    return c;
}

int64_t sched_time_of(const struct sched *s, uint64_t k)
{
    double c = 0, target = (double)k;
    int64_t start = 0;

    for (int i = 0; i < s->n; i++) {
        const struct sched_phase *p = &s->phase[i];
        double in_phase = p->dur_us < 0 ? INFINITY : phase_count(p, (double)p->dur_us);

        if (c + in_phase > target && (p->r0 > 0 || p->r1 > 0)) {
            double need = target - c, x; /* seconds into the phase */
            double d = (double)p->dur_us / 1e6, a = (p->r1 - p->r0) / (2.0 * d);

            if (p->dur_us < 0 || fabs(p->r1 - p->r0) < 1e-12) {
                x = need / p->r0;
            } else {
                /* a x^2 + r0 x - need = 0, the root in [0, d] */
                double disc = p->r0 * p->r0 + 4.0 * a * need;
                x = (disc <= 0) ? 0 : (2.0 * need) / (p->r0 + sqrt(disc));
            }
            if (x < 0)
                x = 0;
            return start + (int64_t)llround(x * 1e6);
        }
        if (p->dur_us < 0)
            return -1;
        c += in_phase;
        start += p->dur_us;
    }
    return -1;
}

uint64_t sched_total_count(const struct sched *s)
{
    if (sched_total_us(s) < 0)
        return UINT64_MAX;
    return (uint64_t)floor(sched_count_at(s, sched_total_us(s)) + 1e-9);
}
