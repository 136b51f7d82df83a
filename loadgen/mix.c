/* loadgen/mix.c: see mix.h. */
#include "loadgen/mix.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/buf.h"
#include "common/xalloc.h"

static uint64_t gcd64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

uint32_t req_mix_weights(const double *weights, int n, uint32_t cap, uint32_t *out)
{
    double total = 0;
    int whole = 1;
    uint64_t g = 0, sum = 0;
    uint32_t given = 0;

    if (n <= 0 || cap == 0)
        return 0;
    for (int i = 0; i < n; i++) {
        if (!(weights[i] >= 0) || !isfinite(weights[i]))
            return 0;
        total += weights[i];
        if (weights[i] != floor(weights[i]) || weights[i] > 4e9)
            whole = 0;
    }
    if (!(total > 0))
        return 0;
    if (whole) {
        for (int i = 0; i < n; i++)
            g = gcd64(g, (uint64_t)weights[i]);
        for (int i = 0; i < n; i++)
            sum += (uint64_t)weights[i] / g;
        if (sum <= cap) {
            for (int i = 0; i < n; i++)
                out[i] = (uint32_t)((uint64_t)weights[i] / g);
            return (uint32_t)sum;
        }
    }
    /* shares of cap: floors first, then the largest remainders (ties: the earlier kind),
     * and a kind the scenario gives weight keeps at least one request per cycle */
    {
        double *rem = cm_xcalloc((size_t)n, sizeof(*rem));
        for (int i = 0; i < n; i++) {
            double exact = weights[i] / total * (double)cap;
            out[i] = (uint32_t)floor(exact);
            rem[i] = exact - floor(exact);
            if (weights[i] > 0 && out[i] == 0) {
                out[i] = 1;
                rem[i] = -1;
            }
            given += out[i];
        }
        while (given < cap) {
            int best = -1;
            for (int i = 0; i < n; i++)
                if (rem[i] >= 0 && (best < 0 || rem[i] > rem[best]))
                    best = i;
            if (best < 0)
                break;
            out[best]++;
            rem[best] = -1;
            given++;
        }
        free(rem);
    }
    return given;
}

void req_mix_order(const uint32_t *w, int n, uint32_t cycle, uint16_t *order)
{
    int64_t *cur = cm_xcalloc((size_t)n, sizeof(*cur));

    /* each step every kind gains its weight, the one furthest ahead of its share is sent
     * and pays the cycle back: over a cycle each is sent exactly w[i] times, spread out */
    for (uint32_t k = 0; k < cycle; k++) {
        int best = 0;
        for (int i = 0; i < n; i++) {
            cur[i] += w[i];
            if (cur[i] > cur[best])
                best = i;
        }
        cur[best] -= cycle;
        order[k] = (uint16_t)best;
    }
    free(cur);
}

static int has_body_method(const char *m)
{
    static const char *const none[] = { "GET", "HEAD", "DELETE", "OPTIONS", "TRACE", NULL };

    for (int i = 0; none[i]; i++)
        if (strcasecmp(m, none[i]) == 0)
            return 0;
    return 1;
}

char *req_mix_request(const struct sim_request *q, const char *default_host, int keepalive,
                      size_t *len)
{
    const char *method = q && q->method ? q->method : "GET";
    const char *path = q && q->path ? q->path : "/";
    const char *query = q && q->query ? q->query : "";
    const char *host = q && q->host ? q->host : default_host;
    int host_given = 0, ua_given = 0, accept_given = 0;
    struct cm_buf b;

    for (int h = 0; q && h < q->nheaders; h++) {
        const char *name = q->header_kv[2 * h];
        host_given |= strcasecmp(name, "Host") == 0;
        ua_given |= strcasecmp(name, "User-Agent") == 0;
        accept_given |= strcasecmp(name, "Accept") == 0;
    }
    cm_buf_init(&b, 1 << 16);
    cm_buf_printf(&b, "%s %s%s%s HTTP/1.1\r\n", method, path, query[0] ? "?" : "", query);
    if (!host_given)
        cm_buf_printf(&b, "Host: %s\r\n", host && host[0] ? host : "localhost");
    if (!ua_given)
        cm_buf_puts(&b, "User-Agent: loadgen-player\r\n");
    if (!accept_given)
        cm_buf_puts(&b, "Accept: */*\r\n");
    for (int h = 0; q && h < q->nheaders; h++)
        cm_buf_printf(&b, "%s: %s\r\n", q->header_kv[2 * h], q->header_kv[2 * h + 1]);
    if (has_body_method(method))
        cm_buf_puts(&b, "Content-Length: 0\r\n");
    if (!keepalive)
        cm_buf_puts(&b, "Connection: close\r\n");
    cm_buf_puts(&b, "\r\n");
    return cm_buf_take(&b, len);
}

int req_mix_build(struct req_mix *m, const struct sim_request *reqs, int n,
                  const char *default_host, int keepalive, char *err, size_t errlen)
{
    double *wd;
    uint32_t *wi;

    memset(m, 0, sizeof(*m));
    if (n < 1 || n > 65535) {
        snprintf(err, errlen, "a request mix has 1 to 65535 kinds, not %d", n);
        return -1;
    }
    wd = cm_xcalloc((size_t)n, sizeof(*wd));
    wi = cm_xcalloc((size_t)n, sizeof(*wi));
    for (int i = 0; i < n; i++)
        wd[i] = reqs[i].weight;
    m->norder = req_mix_weights(wd, n, REQ_MIX_MAX_CYCLE, wi);
    free(wd);
    if (m->norder == 0) {
        free(wi);
        snprintf(err, errlen, "the request weights add up to 0");
        return -1;
    }
    m->order = cm_xcalloc(m->norder, sizeof(*m->order));
    req_mix_order(wi, n, m->norder, m->order);
    free(wi);
    m->kinds = cm_xcalloc((size_t)n, sizeof(*m->kinds));
    m->nkinds = n;
    for (int i = 0; i < n; i++) {
        const char *meth = reqs[i].method ? reqs[i].method : "GET";
        m->kinds[i].req = req_mix_request(&reqs[i], default_host, keepalive, &m->kinds[i].len);
        m->kinds[i].head = strcasecmp(meth, "HEAD") == 0;
    }
    atomic_store(&m->next, 0);
    return 0;
}

void req_mix_cleanup(struct req_mix *m)
{
    if (!m)
        return;
    for (int i = 0; i < m->nkinds; i++)
        free(m->kinds[i].req);
    free(m->kinds);
    free(m->order);
    memset(m, 0, sizeof(*m));
}
