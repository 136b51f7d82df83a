/* scaler/stall.c: see stall.h. */
#include "scaler/stall.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define LINE_WINDOWS 8 /* windows the line names; the rest are counted */

static const char *const source_names[SC_STALL_NSOURCES] = { "runner", "load", "emulator" };

double sc_stall_threshold_ms(double scale)
{
    double t;

    if (!(scale > 0))
        scale = 1;
    t = SC_STALL_SHARE * 60000.0 / scale;
    return t < SC_STALL_FLOOR_MS ? SC_STALL_FLOOR_MS : t;
}

double sc_stall_emulated_ms(double real_ms, double scale)
{
    return real_ms * (scale > 0 ? scale : 1);
}

void sc_stalls_init(struct sc_stalls *s, double scale)
{
    memset(s, 0, sizeof(*s));
    s->scale = scale > 0 ? scale : 1;
    s->threshold_ms = sc_stall_threshold_ms(s->scale);
}

/* Puts [from, to] into the disjoint ascending intervals, joining those it overlaps. */
static void place(struct sc_stalls *s, int64_t from, int64_t to)
{
    int i = 0, j;

    while (i < s->n && s->iv[i].to_ms < from)
        i++;
    /* i: the first interval that ends at or after from; j: past the last one it touches */
    j = i;
    while (j < s->n && s->iv[j].from_ms <= to) {
        if (s->iv[j].from_ms < from)
            from = s->iv[j].from_ms;
        if (s->iv[j].to_ms > to)
            to = s->iv[j].to_ms;
        j++;
    }
    if (j > i) {
        s->iv[i].from_ms = from;
        s->iv[i].to_ms = to;
        memmove(&s->iv[i + 1], &s->iv[j], (size_t)(s->n - j) * sizeof(s->iv[0]));
        s->n -= j - i - 1;
        return;
    }
    if (s->n == SC_STALL_MAX_INTERVALS) {
        /* full: the nearest neighbour grows to cover it */
        int k = i == 0                                               ? 0
                : i == s->n                                          ? s->n - 1
                : from - s->iv[i - 1].to_ms <= s->iv[i].from_ms - to ? i - 1
                                                                     : i;
        if (from < s->iv[k].from_ms)
            s->iv[k].from_ms = from;
        if (to > s->iv[k].to_ms)
            s->iv[k].to_ms = to;
        /* it may now reach its other neighbour */
        if (k + 1 < s->n && s->iv[k].to_ms >= s->iv[k + 1].from_ms) {
            if (s->iv[k + 1].to_ms > s->iv[k].to_ms)
                s->iv[k].to_ms = s->iv[k + 1].to_ms;
            memmove(&s->iv[k + 1], &s->iv[k + 2], (size_t)(s->n - k - 2) * sizeof(s->iv[0]));
            s->n--;
        }
        if (k > 0 && s->iv[k - 1].to_ms >= s->iv[k].from_ms) {
            if (s->iv[k].to_ms > s->iv[k - 1].to_ms)
                s->iv[k - 1].to_ms = s->iv[k].to_ms;
            memmove(&s->iv[k], &s->iv[k + 1], (size_t)(s->n - k - 1) * sizeof(s->iv[0]));
            s->n--;
        }
        return;
    }
    memmove(&s->iv[i + 1], &s->iv[i], (size_t)(s->n - i) * sizeof(s->iv[0]));
    s->iv[i].from_ms = from;
    s->iv[i].to_ms = to;
    s->n++;
}

int sc_stalls_add(struct sc_stalls *s, enum sc_stall_source src, int64_t end_ms, double late_ms)
{
    int64_t from;

    if (!(late_ms >= s->threshold_ms))
        return 0;
    s->count++;
    if ((int)src >= 0 && src < SC_STALL_NSOURCES)
        s->by_source[src]++;
    if (late_ms > s->longest_ms)
        s->longest_ms = late_ms;
    from = end_ms - llround(sc_stall_emulated_ms(late_ms, s->scale));
    place(s, from < 0 ? 0 : from, end_ms < 0 ? 0 : end_ms);
    return 1;
}

void sc_stalls_add_unplaced(struct sc_stalls *s, enum sc_stall_source src, uint64_t n)
{
    s->unplaced += n;
    s->count += (int)n;
    if ((int)src >= 0 && src < SC_STALL_NSOURCES)
        s->by_source[src] += (int)n;
}

int64_t sc_stalls_lost_ms(const struct sc_stalls *s)
{
    int64_t sum = 0;

    for (int i = 0; i < s->n; i++)
        sum += s->iv[i].to_ms - s->iv[i].from_ms;
    return sum;
}

int sc_stalls_windows(const struct sc_stalls *s, struct sc_stall_window *out, int max)
{
    int nw = 0;
    struct sc_stall_window w = { 0 };

    for (int i = 0; i < s->n; i++) {
        const struct sc_stall_interval *v = &s->iv[i];

        if (i > 0 && v->from_ms - w.to_ms < SC_STALL_JOIN_MS) {
            w.to_ms = v->to_ms;
            w.lost_ms += v->to_ms - v->from_ms;
            continue;
        }
        if (i > 0) {
            if (nw < max)
                out[nw] = w;
            nw++;
        }
        w.from_ms = v->from_ms;
        w.to_ms = v->to_ms;
        w.lost_ms = v->to_ms - v->from_ms;
    }
    if (s->n > 0) {
        if (nw < max)
            out[nw] = w;
        nw++;
    }
    return nw;
}

int sc_stalls_suspect(const struct sc_stalls *s, int64_t when_ms)
{
    if (s->count == 0)
        return 0;
    if (sc_stalls_lost_ms(s) >= SC_STALL_BLAME_LOST_MS)
        return 1;
    for (int i = 0; i < s->n; i++)
        if (s->iv[i].from_ms <= when_ms && s->iv[i].to_ms >= when_ms - SC_STALL_BLAME_LEAD_MS)
            return 1;
    return 0;
}

/* "HH:MM" of ms since the start; up: rounded up to the minute. */
static void hhmm(int64_t ms, int up, char *out, size_t n)
{
    int64_t m = up ? (ms + 59999) / 60000 : ms / 60000;

    snprintf(out, n, "%02lld:%02lld", (long long)(m / 60), (long long)(m % 60));
}

int sc_stalls_line(const struct sc_stalls *s, char *out, size_t n)
{
    struct sc_stall_window w[LINE_WINDOWS];
    int nw, k, srcs = 0;
    char watched[96] = "";

    for (int i = 0; i < SC_STALL_NSOURCES; i++)
        if (s->measured[i])
            snprintf(watched + strlen(watched), sizeof(watched) - strlen(watched), "%s%s",
                     srcs++ ? ", " : "", source_names[i]);
    if (s->count == 0)
        return snprintf(out, n,
                        "host: no stall (a timer %.1f real ms late = %.0f emulated s at x%g) "
                        "seen by %s",
                        s->threshold_ms, sc_stall_emulated_ms(s->threshold_ms, s->scale) / 1000,
                        s->scale, srcs ? watched : "nothing");
    nw = sc_stalls_windows(s, w, LINE_WINDOWS);
    k = snprintf(out, n,
                 "host: %d stall%s (a timer %.1f real ms late or more, seen by %s), longest "
                 "%.0f real ms = %.0f emulated s, %.0f emulated s lost, in emulated minutes",
                 s->count, s->count == 1 ? "" : "s", s->threshold_ms, srcs ? watched : "nothing",
                 s->longest_ms, sc_stall_emulated_ms(s->longest_ms, s->scale) / 1000,
                 (double)sc_stalls_lost_ms(s) / 1000);
    for (int i = 0; i < nw && i < LINE_WINDOWS; i++) {
        char a[48], b[48];

        hhmm(w[i].from_ms, 0, a, sizeof(a));
        hhmm(w[i].to_ms, 1, b, sizeof(b));
        if (strcmp(a, b) == 0) /* an interval on a minute's boundary */
            hhmm(w[i].to_ms + 1, 1, b, sizeof(b));
        k += snprintf(out + (k < (int)n ? k : (int)n), (size_t)(k < (int)n ? (int)n - k : 0),
                      "%s %s-%s", i ? "," : "", a, b);
    }
    if (nw > LINE_WINDOWS)
        k += snprintf(out + (k < (int)n ? k : (int)n), (size_t)(k < (int)n ? (int)n - k : 0),
                      " and %d more", nw - LINE_WINDOWS);
    if (s->unplaced > 0)
        k += snprintf(out + (k < (int)n ? k : (int)n), (size_t)(k < (int)n ? (int)n - k : 0),
                      " (%llu more not placed in time)", (unsigned long long)s->unplaced);
    return k;
}

int sc_stalls_note(const struct sc_stalls *s, char *out, size_t n)
{
    return snprintf(out, n,
                    "the host stalled for %.0f emulated s during this run (%d stall%s, longest "
                    "%.0f real ms at x%g): the failure may be the host's; rerun at a lower "
                    "--time-scale or on a quieter machine",
                    (double)sc_stalls_lost_ms(s) / 1000, s->count, s->count == 1 ? "" : "s",
                    s->longest_ms, s->scale);
}

int sc_stalls_json(const struct sc_stalls *s, int marked, char *out, size_t n)
{
    struct sc_stall_window w[SC_STALL_MAX_INTERVALS];
    int nw, k;

    nw = sc_stalls_windows(s, w, SC_STALL_MAX_INTERVALS);
    k = snprintf(out, n,
                 "\"host_stalls\":{\"time_scale\":%.17g,\"threshold_real_ms\":%.4f,"
                 "\"threshold_emulated_s\":%.4f,\"count\":%d,\"longest_real_ms\":%.4f,"
                 "\"longest_emulated_s\":%.4f,\"lost_emulated_s\":%.3f,\"unplaced\":%llu,"
                 "\"origin_epoch_ms\":%lld,\"sources\":{",
                 s->scale, s->threshold_ms, sc_stall_emulated_ms(s->threshold_ms, s->scale) / 1000,
                 s->count, s->longest_ms, sc_stall_emulated_ms(s->longest_ms, s->scale) / 1000,
                 (double)sc_stalls_lost_ms(s) / 1000, (unsigned long long)s->unplaced,
                 (long long)s->origin_ms);
    for (int i = 0, first = 1; i < SC_STALL_NSOURCES; i++) {
        if (!s->measured[i])
            continue;
        k += snprintf(out + (k < (int)n ? k : (int)n), (size_t)(k < (int)n ? (int)n - k : 0),
                      "%s\"%s\":%d", first ? "" : ",", source_names[i], s->by_source[i]);
        first = 0;
    }
    k += snprintf(out + (k < (int)n ? k : (int)n), (size_t)(k < (int)n ? (int)n - k : 0),
                  "},\"windows\":[");
    for (int i = 0; i < nw && i < SC_STALL_MAX_INTERVALS; i++)
        k += snprintf(out + (k < (int)n ? k : (int)n), (size_t)(k < (int)n ? (int)n - k : 0),
                      "%s{\"from_s\":%.3f,\"to_s\":%.3f,\"lost_emulated_s\":%.3f}", i ? "," : "",
                      (double)w[i].from_ms / 1000, (double)w[i].to_ms / 1000,
                      (double)w[i].lost_ms / 1000);
    k += snprintf(out + (k < (int)n ? k : (int)n), (size_t)(k < (int)n ? (int)n - k : 0), "]");
    if (marked >= 0)
        k += snprintf(out + (k < (int)n ? k : (int)n), (size_t)(k < (int)n ? (int)n - k : 0),
                      ",\"failures_marked\":%d", marked);
    k += snprintf(out + (k < (int)n ? k : (int)n), (size_t)(k < (int)n ? (int)n - k : 0), "}");
    return k >= 0 && (size_t)k < n ? k : -1;
}

int sc_stall_ring_note(struct sc_stall_ring *g, double scale, int64_t at_ms, double late_ms)
{
    if (!(late_ms >= sc_stall_threshold_ms(scale)))
        return 0;
    g->r[g->seq % SC_STALL_RING].at_ms = at_ms;
    g->r[g->seq % SC_STALL_RING].late_ms = late_ms;
    g->seq++;
    if (late_ms > g->longest_ms)
        g->longest_ms = late_ms;
    return 1;
}
