/* loadgen/scn_events.c: see scn_events.h. One curl multi handle in the follower's thread,
 * woken by curl_multi_wakeup to stop; a ring of parsed events behind a mutex. */
#include "loadgen/scn_events.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>

#include "common/xalloc.h"
#include "loadgen/scn_emu.h"
#include "loadgen/sse.h"

struct scn_events {
    char url[512]; /* base/_scalelab/events */
    char **groups;
    int ngroups;
    pthread_t thread;
    int started;
    CURLM *multi;
    struct sse *sse; /* the thread's */
    uint64_t last_seq;

    pthread_mutex_t mu; /* guards what follows */
    int stop;
    json_t *queue[SCN_EVENTS_QUEUE_MAX];
    int head, count;
    struct scn_events_stats st;
};

static int wanted_group(const struct scn_events *s, const char *g)
{
    for (int i = 0; g && i < s->ngroups; i++)
        if (strcmp(s->groups[i], g) == 0)
            return 1;
    return 0;
}

/* One event of the stream (the follower's thread). */
static void on_event(const char *id, const char *type, const char *data, size_t len, void *ud)
{
    struct scn_events *s = ud;
    uint64_t seq = strtoull(id, NULL, 10), missed = 0;
    json_t *o = NULL;
    int keep = strcmp(type, "decision") == 0 || strcmp(type, "hook") == 0;

    if (seq > 0) {
        if (s->last_seq > 0 && seq > s->last_seq + 1)
            missed = seq - s->last_seq - 1;
        if (seq > s->last_seq)
            s->last_seq = seq;
    }
    if (keep) {
        o = json_loadb(data, len, 0, NULL);
        if (!o || !wanted_group(s, json_string_value(json_object_get(o, "group")))) {
            json_decref(o);
            o = NULL;
        }
    }
    pthread_mutex_lock(&s->mu);
    s->st.received++;
    s->st.missed += missed;
    if (o) {
        if (s->count == SCN_EVENTS_QUEUE_MAX) {
            s->st.dropped++;
            json_decref(o);
        } else {
            s->queue[(s->head + s->count) % SCN_EVENTS_QUEUE_MAX] = o;
            s->count++;
            s->st.kept++;
        }
    }
    pthread_mutex_unlock(&s->mu);
}

static size_t on_body(char *p, size_t sz, size_t nm, void *ud)
{
    struct scn_events *s = ud;

    uint64_t before = sse_dropped(s->sse);

    sse_feed(s->sse, p, sz * nm);
    if (sse_dropped(s->sse) != before) {
        pthread_mutex_lock(&s->mu);
        s->st.dropped += sse_dropped(s->sse) - before;
        pthread_mutex_unlock(&s->mu);
    }
    return sz * nm;
}

static int stopping(struct scn_events *s)
{
    int v;

    pthread_mutex_lock(&s->mu);
    v = s->stop;
    pthread_mutex_unlock(&s->mu);
    return v;
}

static void set_error(struct scn_events *s, const char *msg)
{
    pthread_mutex_lock(&s->mu);
    snprintf(s->st.error, sizeof(s->st.error), "%s", msg);
    pthread_mutex_unlock(&s->mu);
}

/* One connection, until it ends or the follower stops. Returns 0 when the stream was
 * answered (200), -1 otherwise (the error set). */
static int follow_once(struct scn_events *s)
{
    CURL *c = curl_easy_init();
    struct curl_slist *hdr = NULL;
    char url[600];
    int running = 1, rc = -1;
    long status = 0;
    CURLcode cc = CURLE_OK;
    CURLMsg *m;
    int left;

    if (!c) {
        set_error(s, "curl_easy_init failed");
        return -1;
    }
    snprintf(url, sizeof(url), "%s?since=%llu", s->url, (unsigned long long)s->last_seq);
    sse_reset(s->sse);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, s);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
    /* the emulator sends a keepalive every 15 s: silence past 40 s is a dead stream */
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, 40L);
    curl_easy_setopt(c, CURLOPT_FAILONERROR, 1L);
    scn_http_auth(c, &hdr);
    hdr = curl_slist_append(hdr, "Accept: text/event-stream");
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
    curl_multi_add_handle(s->multi, c);
    while (running && !stopping(s)) {
        if (curl_multi_perform(s->multi, &running) != CURLM_OK)
            break;
        if (running)
            curl_multi_poll(s->multi, NULL, 0, 200, NULL);
    }
    while ((m = curl_multi_info_read(s->multi, &left)))
        if (m->msg == CURLMSG_DONE && m->easy_handle == c)
            cc = m->data.result;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    if (stopping(s) || (cc == CURLE_OK && status == 200))
        rc = 0;
    else if (cc == CURLE_HTTP_RETURNED_ERROR || (cc == CURLE_OK && status != 200)) {
        char msg[64];

        snprintf(msg, sizeof(msg), "HTTP %ld", status);
        set_error(s, msg);
    } else {
        set_error(s, curl_easy_strerror(cc));
    }
    curl_multi_remove_handle(s->multi, c);
    curl_easy_cleanup(c);
    curl_slist_free_all(hdr);
    return rc;
}

static void *follow(void *arg)
{
    struct scn_events *s = arg;
    int attempts = 0;

    while (!stopping(s)) {
        int rc = follow_once(s);

        if (stopping(s))
            break;
        /* the stream ended (the emulator dropped a slow reader, or restarted) or failed:
         * again after the last event seen, a bounded number of times */
        if (++attempts > SCN_EVENTS_RECONNECTS)
            break;
        pthread_mutex_lock(&s->mu);
        s->st.reconnects++;
        pthread_mutex_unlock(&s->mu);
        curl_multi_poll(s->multi, NULL, 0, rc == 0 ? 100 : 500, NULL);
    }
    return NULL;
}

struct scn_events *scn_events_start(const char *base, const char *const *groups, int ngroups,
                                    char *err, size_t n)
{
    struct scn_events *s = cm_xcalloc(1, sizeof(*s));

    snprintf(s->url, sizeof(s->url), "%.480s/_scalelab/events", base);
    s->groups = cm_xcalloc((size_t)ngroups + 1, sizeof(*s->groups));
    for (int i = 0; i < ngroups; i++)
        s->groups[i] = cm_xstrdup(groups[i]);
    s->ngroups = ngroups;
    pthread_mutex_init(&s->mu, NULL);
    s->sse = sse_create(on_event, s);
    s->multi = curl_multi_init();
    if (!s->sse || !s->multi) {
        snprintf(err, n, "out of memory for the event stream");
        scn_events_stop(s);
        return NULL;
    }
    if (pthread_create(&s->thread, NULL, follow, s) != 0) {
        snprintf(err, n, "cannot start the event stream's thread");
        scn_events_stop(s);
        return NULL;
    }
    s->started = 1;
    return s;
}

int scn_events_drain(struct scn_events *s, void (*fn)(const json_t *ev, void *ud), void *ud)
{
    json_t *batch[256];
    int total = 0;

    for (;;) {
        int k = 0;

        pthread_mutex_lock(&s->mu);
        while (s->count > 0 && k < (int)(sizeof(batch) / sizeof(batch[0]))) {
            batch[k++] = s->queue[s->head];
            s->head = (s->head + 1) % SCN_EVENTS_QUEUE_MAX;
            s->count--;
        }
        pthread_mutex_unlock(&s->mu);
        if (k == 0)
            return total;
        for (int i = 0; i < k; i++) {
            fn(batch[i], ud);
            json_decref(batch[i]);
        }
        total += k;
    }
}

void scn_events_stats(struct scn_events *s, struct scn_events_stats *out)
{
    pthread_mutex_lock(&s->mu);
    *out = s->st;
    pthread_mutex_unlock(&s->mu);
}

void scn_events_stop(struct scn_events *s)
{
    if (!s)
        return;
    pthread_mutex_lock(&s->mu);
    s->stop = 1;
    pthread_mutex_unlock(&s->mu);
    if (s->started) {
        curl_multi_wakeup(s->multi);
        pthread_join(s->thread, NULL);
    }
    while (s->count > 0) {
        json_decref(s->queue[s->head]);
        s->head = (s->head + 1) % SCN_EVENTS_QUEUE_MAX;
        s->count--;
    }
    if (s->multi)
        curl_multi_cleanup(s->multi);
    sse_destroy(s->sse);
    for (int i = 0; i < s->ngroups; i++)
        free(s->groups[i]);
    free(s->groups);
    pthread_mutex_destroy(&s->mu);
    free(s);
}
