/* emulator/webhook.c: notifications POSTed to a loopback URL over libcurl's multi socket
 * interface on the emulator's loop (see webhook.h). */
#include "emulator/webhook.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include <curl/curl.h>
#include <jansson.h>

#include "common/ev.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "scaler/asg_notify.h"
#include "scaler/civil.h"

struct post {
    char *body;   /* the SNS envelope */
    char *topic;  /* x-amz-sns-topic-arn */
    char *msg_id; /* x-amz-sns-message-id */
};

struct xfer {
    CURL *easy;
    struct curl_slist *headers;
    struct post p;
    struct webhook *w;
};

struct webhook {
    struct cm_ev *ev;
    CURLM *multi;
    char *url;
    long timer;
    struct post queue[WEBHOOK_QUEUE]; /* a ring */
    int qhead, qlen;
    struct xfer *fly[WEBHOOK_INFLIGHT]; /* the transfers out */
    int inflight;
    uint64_t seq;
    uint64_t delivered, failed, dropped;
    uint64_t warned_failed, warned_dropped; /* the counts at the last warning */
    int64_t next_warn_ms;                   /* monotonic */
};

static void xfer_free(struct xfer *x)
{
    struct webhook *w = x->w;

    for (int i = 0; i < WEBHOOK_INFLIGHT; i++)
        if (w->fly[i] == x) {
            w->fly[i] = NULL;
            w->inflight--;
        }
    curl_multi_remove_handle(w->multi, x->easy);
    curl_easy_cleanup(x->easy);
    curl_slist_free_all(x->headers);
    free(x->p.body);
    free(x->p.topic);
    free(x->p.msg_id);
    free(x);
}

static void post_free(struct post *p)
{
    free(p->body);
    free(p->topic);
    free(p->msg_id);
    memset(p, 0, sizeof(*p));
}

int webhook_url_check(const char *url, char *err, size_t errlen)
{
    CURLU *u = curl_url();
    char *scheme = NULL, *host = NULL;
    int rc = -1;

    if (!u || curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK) {
        snprintf(err, errlen, "not a URL");
        goto out;
    }
    if (curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK || strcmp(scheme, "http") != 0) {
        snprintf(err, errlen, "only http:// URLs");
        goto out;
    }
    if (curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK ||
        (strcmp(host, "127.0.0.1") != 0 && strcmp(host, "[::1]") != 0 &&
         strcmp(host, "localhost") != 0)) {
        snprintf(err, errlen, "the host must be loopback (127.0.0.1, [::1] or localhost)");
        goto out;
    }
    rc = 0;
out:
    curl_free(scheme);
    curl_free(host);
    curl_url_cleanup(u);
    return rc;
}

/* One warning per WEBHOOK_WARN_MS when posts failed or were dropped since the last. */
static void maybe_warn(struct webhook *w)
{
    int64_t now = cm_ev_now_ms();

    if (w->failed == w->warned_failed && w->dropped == w->warned_dropped)
        return;
    if (now < w->next_warn_ms)
        return;
    log_warn("webhook: %llu posts failed and %llu dropped (queue full) since the last warning, "
             "url %s",
             (unsigned long long)(w->failed - w->warned_failed),
             (unsigned long long)(w->dropped - w->warned_dropped), w->url);
    w->warned_failed = w->failed;
    w->warned_dropped = w->dropped;
    w->next_warn_ms = now + WEBHOOK_WARN_MS;
}

static void start_next(struct webhook *w);

/* Finished transfers: counted, freed, the next ones started. */
static void reap(struct webhook *w)
{
    CURLMsg *m;
    int left;

    while ((m = curl_multi_info_read(w->multi, &left))) {
        struct xfer *x = NULL;
        long code = 0;

        if (m->msg != CURLMSG_DONE)
            continue;
        curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&x);
        curl_easy_getinfo(m->easy_handle, CURLINFO_RESPONSE_CODE, &code);
        if (m->data.result == CURLE_OK && code >= 200 && code < 300)
            w->delivered++;
        else
            w->failed++;
        xfer_free(x);
    }
    maybe_warn(w);
    start_next(w);
}

static void on_fd(struct cm_ev *ev, int fd, uint32_t events, void *ud)
{
    struct webhook *w = ud;
    int running, flags = 0;

    (void)ev;
    if (events & EPOLLIN)
        flags |= CURL_CSELECT_IN;
    if (events & EPOLLOUT)
        flags |= CURL_CSELECT_OUT;
    if (events & (EPOLLERR | EPOLLHUP))
        flags |= CURL_CSELECT_ERR;
    curl_multi_socket_action(w->multi, fd, flags, &running);
    reap(w);
}

static int64_t on_timer(struct cm_ev *ev, int64_t now_ms, void *ud)
{
    struct webhook *w = ud;
    int running;

    (void)ev;
    (void)now_ms;
    w->timer = 0;
    curl_multi_socket_action(w->multi, CURL_SOCKET_TIMEOUT, 0, &running);
    reap(w);
    return -1;
}

/* libcurl's CURLMOPT_SOCKETFUNCTION: which fds to watch for what. */
static int on_socket(CURL *easy, curl_socket_t s, int what, void *ud, void *sockp)
{
    struct webhook *w = ud;
    uint32_t events = (what == CURL_POLL_IN || what == CURL_POLL_INOUT ? EPOLLIN : 0) |
                      (what == CURL_POLL_OUT || what == CURL_POLL_INOUT ? EPOLLOUT : 0);

    (void)easy;
    if (what == CURL_POLL_REMOVE) {
        if (sockp)
            cm_ev_del_fd(w->ev, s);
        curl_multi_assign(w->multi, s, NULL);
        return 0;
    }
    if (!sockp) {
        if (cm_ev_add_fd(w->ev, s, events, on_fd, w) == 0)
            curl_multi_assign(w->multi, s, w);
    } else {
        cm_ev_mod_fd(w->ev, s, events);
    }
    return 0;
}

/* libcurl's CURLMOPT_TIMERFUNCTION: one loop timer, or none (-1). */
static int on_curl_timer(CURLM *multi, long timeout_ms, void *ud)
{
    struct webhook *w = ud;

    (void)multi;
    if (w->timer > 0)
        cm_ev_del_timer(w->ev, w->timer);
    w->timer = 0;
    if (timeout_ms >= 0)
        w->timer = cm_ev_add_timer(w->ev, timeout_ms, on_timer, w);
    return 0;
}

static size_t discard(char *p, size_t size, size_t n, void *ud)
{
    (void)p;
    (void)ud;
    return size * n;
}

static void start_next(struct webhook *w)
{
    while (w->qlen > 0 && w->inflight < WEBHOOK_INFLIGHT) {
        struct xfer *x = cm_xcalloc(1, sizeof(*x));
        char h[512];

        x->p = w->queue[w->qhead];
        memset(&w->queue[w->qhead], 0, sizeof(w->queue[0]));
        w->qhead = (w->qhead + 1) % WEBHOOK_QUEUE;
        w->qlen--;
        x->w = w;
        x->easy = curl_easy_init();
        if (!x->easy) {
            w->failed++;
            post_free(&x->p);
            free(x);
            continue;
        }
        x->headers = curl_slist_append(x->headers, "Content-Type: text/plain; charset=UTF-8");
        x->headers = curl_slist_append(x->headers, "x-amz-sns-message-type: Notification");
        snprintf(h, sizeof(h), "x-amz-sns-message-id: %s", x->p.msg_id);
        x->headers = curl_slist_append(x->headers, h);
        snprintf(h, sizeof(h), "x-amz-sns-topic-arn: %s", x->p.topic);
        x->headers = curl_slist_append(x->headers, h);
        x->headers =
            curl_slist_append(x->headers, "User-Agent: Amazon Simple Notification Service Agent");
        x->headers = curl_slist_append(x->headers, "Expect:");
        curl_easy_setopt(x->easy, CURLOPT_URL, w->url);
        curl_easy_setopt(x->easy, CURLOPT_PROTOCOLS_STR, "http");
        curl_easy_setopt(x->easy, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(x->easy, CURLOPT_NOPROXY, "*");
        curl_easy_setopt(x->easy, CURLOPT_TIMEOUT_MS, (long)WEBHOOK_TIMEOUT_MS);
        curl_easy_setopt(x->easy, CURLOPT_CONNECTTIMEOUT_MS, (long)WEBHOOK_TIMEOUT_MS);
        curl_easy_setopt(x->easy, CURLOPT_HTTPHEADER, x->headers);
        curl_easy_setopt(x->easy, CURLOPT_POSTFIELDS, x->p.body);
        curl_easy_setopt(x->easy, CURLOPT_WRITEFUNCTION, discard);
        curl_easy_setopt(x->easy, CURLOPT_PRIVATE, (char *)x);
        if (curl_multi_add_handle(w->multi, x->easy) != CURLM_OK) {
            w->failed++;
            curl_easy_cleanup(x->easy);
            curl_slist_free_all(x->headers);
            post_free(&x->p);
            free(x);
            continue;
        }
        for (int i = 0; i < WEBHOOK_INFLIGHT; i++)
            if (!w->fly[i]) {
                w->fly[i] = x;
                break;
            }
        w->inflight++;
    }
}

struct webhook *webhook_create(struct cm_ev *ev, const char *url)
{
    struct webhook *w;

    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        log_error("webhook: cannot initialise libcurl");
        return NULL;
    }
    w = cm_xcalloc(1, sizeof(*w));
    w->ev = ev;
    w->url = cm_xstrdup(url);
    w->multi = curl_multi_init();
    if (!w->multi) {
        log_error("webhook: cannot initialise libcurl");
        webhook_destroy(w);
        return NULL;
    }
    curl_multi_setopt(w->multi, CURLMOPT_SOCKETFUNCTION, on_socket);
    curl_multi_setopt(w->multi, CURLMOPT_SOCKETDATA, w);
    curl_multi_setopt(w->multi, CURLMOPT_TIMERFUNCTION, on_curl_timer);
    curl_multi_setopt(w->multi, CURLMOPT_TIMERDATA, w);
    log_info("webhook: notifications are posted to %s", url);
    return w;
}

void webhook_destroy(struct webhook *w)
{
    if (!w)
        return;
    for (int i = 0; i < WEBHOOK_INFLIGHT; i++)
        if (w->fly[i])
            xfer_free(w->fly[i]);
    if (w->multi)
        curl_multi_cleanup(w->multi);
    if (w->timer > 0)
        cm_ev_del_timer(w->ev, w->timer);
    for (int i = 0; i < WEBHOOK_QUEUE; i++)
        post_free(&w->queue[i]);
    free(w->url);
    free(w);
    curl_global_cleanup();
}

/* A MessageId in UUID form from the post's sequence number (unique per emulator run). */
static void message_id(struct webhook *w, char out[40])
{
    uint64_t a = 0x9e3779b97f4a7c15ULL * (w->seq + 1), b = a ^ (a >> 29) ^ (uint64_t)w->seq << 17;

    snprintf(out, 40, "%08x-%04x-4%03x-8%03x-%012llx", (unsigned)(a >> 32), (unsigned)(a & 0xffff),
             (unsigned)(b >> 52) & 0xfff, (unsigned)(b >> 40) & 0xfff,
             (unsigned long long)(b & 0xffffffffffffULL));
}

void webhook_post(struct webhook *w, const struct sc_asg_notification *n, int64_t now_ms)
{
    char id[40], ts[SC_CIVIL_TIME_LEN];
    struct post *p;
    json_t *env;

    if (w->qlen == WEBHOOK_QUEUE) {
        w->dropped++;
        maybe_warn(w);
        return;
    }
    w->seq++;
    message_id(w, id);
    sc_civil_format_iso_ms(now_ms, ts, sizeof(ts));
    env =
        json_pack("{s:s,s:s,s:s,s:s,s:s,s:s}", "Type", "Notification", "MessageId", id, "TopicArn",
                  n->topic_arn, "Subject", n->subject, "Message", n->message, "Timestamp", ts);
    p = &w->queue[(w->qhead + w->qlen) % WEBHOOK_QUEUE];
    p->body = env ? json_dumps(env, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(env);
    if (!p->body) {
        w->failed++;
        return;
    }
    p->topic = cm_xstrdup(n->topic_arn);
    p->msg_id = cm_xstrdup(id);
    w->qlen++;
    start_next(w);
}

void webhook_counts(const struct webhook *w, uint64_t *delivered, uint64_t *failed,
                    uint64_t *dropped)
{
    *delivered = w->delivered;
    *failed = w->failed;
    *dropped = w->dropped;
}
