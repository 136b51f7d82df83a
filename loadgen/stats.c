/* loadgen/stats.c: see stats.h. */
#include "loadgen/stats.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/xalloc.h"

void stats_init(struct stats *s)
{
    memset(s, 0, sizeof(*s));
    cm_hist_init(&s->lat, STATS_HIST_MAX_US, STATS_HIST_DIGITS);
    cm_hist_init(&s->lat_uncorr, STATS_HIST_MAX_US, STATS_HIST_DIGITS);
    cm_hist_init(&s->rps, INT64_C(100000000), STATS_HIST_DIGITS);
}

void stats_cleanup(struct stats *s)
{
    cm_hist_cleanup(&s->lat);
    cm_hist_cleanup(&s->lat_uncorr);
    cm_hist_cleanup(&s->rps);
    free(s->rec);
    s->rec = NULL;
    s->nrec = s->caprec = 0;
}

void stats_merge(struct stats *d, const struct stats *s)
{
    d->done += s->done;
    d->doneka += s->doneka;
    d->non2xx += s->non2xx;
    d->status_err += s->status_err;
    d->bytes_read += s->bytes_read;
    d->body_read += s->body_read;
    d->bytes_sent += s->bytes_sent;
    d->body_sent += s->body_sent;
    d->connects += s->connects;
    d->sent += s->sent;
    d->err_connect += s->err_connect;
    d->err_read += s->err_read;
    d->err_length += s->err_length;
    d->err_except += s->err_except;
    d->err_write += s->err_write;
    d->err_timeout += s->err_timeout;
    if (s->duration_us > d->duration_us)
        d->duration_us = s->duration_us;
    d->rate += s->rate;
    d->has_uncorr |= s->has_uncorr;
    cm_hist_merge(&d->lat, &s->lat);
    cm_hist_merge(&d->lat_uncorr, &s->lat_uncorr);
    cm_hist_merge(&d->rps, &s->rps);
    if (s->nrec) {
        if (d->nrec + s->nrec > d->caprec) {
            d->caprec = d->nrec + s->nrec;
            d->rec = cm_xrealloc(d->rec, d->caprec * sizeof(*d->rec));
        }
        memcpy(d->rec + d->nrec, s->rec, s->nrec * sizeof(*s->rec));
        d->nrec += s->nrec;
    }
}

uint64_t stats_failed(const struct stats *s)
{
    return s->err_connect + s->err_read + s->err_length + s->err_except + s->err_timeout;
}

double stats_rps(const struct stats *s)
{
    return s->duration_us > 0 ? (double)s->done * 1e6 / (double)s->duration_us : 0.0;
}

void stats_rec_add(struct stats *s, const struct stats_rec *r)
{
    if (s->nrec == s->caprec) {
        s->caprec = s->caprec ? s->caprec * 2 : 4096;
        s->rec = cm_xrealloc(s->rec, s->caprec * sizeof(*s->rec));
    }
    s->rec[s->nrec++] = *r;
}

/* --- JSON ------------------------------------------------------------------------- */

struct visit_ctx {
    const struct cm_hist *h;
    json_t *arr;
};

static void visit(int64_t value, uint64_t count, void *ud)
{
    struct visit_ctx *v = ud;
    json_t *pair = json_array();

    json_array_append_new(pair, json_integer(cm_hist_index_of(v->h, value)));
    json_array_append_new(pair, json_integer((json_int_t)count));
    json_array_append_new(v->arr, pair);
}

void *stats_hist_to_json(const struct cm_hist *h)
{
    json_t *o = json_object(), *arr = json_array();
    struct visit_ctx v = { h, arr };

    cm_hist_foreach(h, visit, &v);
    json_object_set_new(o, "highest", json_integer(h->highest));
    json_object_set_new(o, "digits", json_integer(h->digits));
    json_object_set_new(o, "total", json_integer((json_int_t)h->total));
    json_object_set_new(o, "clamped", json_integer((json_int_t)h->clamped));
    json_object_set_new(o, "min", json_integer(h->total ? h->min : 0));
    json_object_set_new(o, "max", json_integer(h->max));
    json_object_set_new(o, "sum", json_real(h->sum));
    json_object_set_new(o, "sum_sq", json_real(h->sum_sq));
    json_object_set_new(o, "counts", arr);
    return o;
}

static int64_t geti(const json_t *o, const char *k)
{
    const json_t *v = json_object_get(o, k);
    return json_is_integer(v) ? (int64_t)json_integer_value(v) : 0;
}

static double getd(const json_t *o, const char *k)
{
    const json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : 0.0;
}

int stats_hist_from_json(const void *json, struct cm_hist *h)
{
    const json_t *o = json, *arr;
    size_t i;
    json_t *pair;
    uint64_t total = 0;

    if (!json_is_object(o))
        return -1;
    if (cm_hist_init(h, geti(o, "highest"), (int)geti(o, "digits")) < 0)
        return -1;
    arr = json_object_get(o, "counts");
    if (!json_is_array(arr))
        goto bad;
    json_array_foreach(arr, i, pair)
    {
        int64_t idx = json_integer_value(json_array_get(pair, 0));
        int64_t cnt = json_integer_value(json_array_get(pair, 1));

        if (!json_is_array(pair) || idx < 0 || idx >= h->counts_len || cnt <= 0)
            goto bad;
        h->counts[idx] += (uint64_t)cnt;
        if ((int)idx < h->lo_idx)
            h->lo_idx = (int)idx;
        if ((int)idx > h->hi_idx)
            h->hi_idx = (int)idx;
        total += (uint64_t)cnt;
    }
    if (total != (uint64_t)geti(o, "total"))
        goto bad;
    h->total = total;
    h->clamped = (uint64_t)geti(o, "clamped");
    h->min = total ? geti(o, "min") : INT64_MAX;
    h->max = geti(o, "max");
    h->sum = getd(o, "sum");
    h->sum_sq = getd(o, "sum_sq");
    return 0;
bad:
    cm_hist_cleanup(h);
    return -1;
}

/* The counters, by name, as the JSON result spells them. */
static const struct {
    const char *name;
    size_t off;
} counters[] = {
    { "done", offsetof(struct stats, done) },
    { "doneka", offsetof(struct stats, doneka) },
    { "non2xx", offsetof(struct stats, non2xx) },
    { "status_err", offsetof(struct stats, status_err) },
    { "bytes_read", offsetof(struct stats, bytes_read) },
    { "body_read", offsetof(struct stats, body_read) },
    { "bytes_sent", offsetof(struct stats, bytes_sent) },
    { "body_sent", offsetof(struct stats, body_sent) },
    { "connects", offsetof(struct stats, connects) },
    { "sent", offsetof(struct stats, sent) },
    { "err_connect", offsetof(struct stats, err_connect) },
    { "err_read", offsetof(struct stats, err_read) },
    { "err_length", offsetof(struct stats, err_length) },
    { "err_except", offsetof(struct stats, err_except) },
    { "err_write", offsetof(struct stats, err_write) },
    { "err_timeout", offsetof(struct stats, err_timeout) },
};

static uint64_t *counter(struct stats *s, size_t i)
{
    return (uint64_t *)((char *)s + counters[i].off);
}

char *stats_to_json(const struct stats *s, const void *extra)
{
    json_t *o = extra ? json_deep_copy((const json_t *)extra) : json_object();
    char *text;

    json_object_set_new(o, "format", json_string("loadgen-result/1"));
    for (size_t i = 0; i < sizeof(counters) / sizeof(counters[0]); i++)
        json_object_set_new(o, counters[i].name,
                            json_integer((json_int_t)*counter((struct stats *)s, i)));
    json_object_set_new(o, "duration_us", json_integer(s->duration_us));
    json_object_set_new(o, "rate", json_real(s->rate));
    json_object_set_new(o, "requests_per_sec", json_real(stats_rps(s)));
    json_object_set_new(o, "latency", stats_hist_to_json(&s->lat));
    if (s->has_uncorr)
        json_object_set_new(o, "latency_uncorrected", stats_hist_to_json(&s->lat_uncorr));
    json_object_set_new(o, "rps_samples", stats_hist_to_json(&s->rps));
    text = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(17));
    json_decref(o);
    return text;
}

int stats_from_json(const char *text, struct stats *s, char *err, size_t errlen)
{
    json_error_t je;
    json_t *o = json_loads(text, 0, &je), *fmt;
    int rc = -1;

    memset(s, 0, sizeof(*s));
    if (!o) {
        snprintf(err, errlen, "invalid JSON: %s (line %d)", je.text, je.line);
        stats_init(s);
        return -1;
    }
    fmt = json_object_get(o, "format");
    if (!json_is_string(fmt) || strcmp(json_string_value(fmt), "loadgen-result/1") != 0) {
        snprintf(err, errlen, "not a loadgen result (format loadgen-result/1)");
        stats_init(s);
        goto out;
    }
    for (size_t i = 0; i < sizeof(counters) / sizeof(counters[0]); i++)
        *counter(s, i) = (uint64_t)geti(o, counters[i].name);
    s->duration_us = geti(o, "duration_us");
    s->rate = getd(o, "rate");
    if (stats_hist_from_json(json_object_get(o, "latency"), &s->lat) < 0) {
        snprintf(err, errlen, "bad latency histogram");
        cm_hist_init(&s->lat, STATS_HIST_MAX_US, STATS_HIST_DIGITS);
        cm_hist_init(&s->lat_uncorr, STATS_HIST_MAX_US, STATS_HIST_DIGITS);
        cm_hist_init(&s->rps, INT64_C(100000000), STATS_HIST_DIGITS);
        goto out;
    }
    if (json_object_get(o, "latency_uncorrected")) {
        if (stats_hist_from_json(json_object_get(o, "latency_uncorrected"), &s->lat_uncorr) < 0) {
            snprintf(err, errlen, "bad uncorrected latency histogram");
            cm_hist_init(&s->lat_uncorr, STATS_HIST_MAX_US, STATS_HIST_DIGITS);
            cm_hist_init(&s->rps, INT64_C(100000000), STATS_HIST_DIGITS);
            goto out;
        }
        s->has_uncorr = 1;
    } else {
        cm_hist_init(&s->lat_uncorr, STATS_HIST_MAX_US, STATS_HIST_DIGITS);
    }
    if (!json_object_get(o, "rps_samples") ||
        stats_hist_from_json(json_object_get(o, "rps_samples"), &s->rps) < 0)
        cm_hist_init(&s->rps, INT64_C(100000000), STATS_HIST_DIGITS);
    rc = 0;
out:
    json_decref(o);
    return rc;
}
