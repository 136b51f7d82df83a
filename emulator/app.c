/* emulator/app.c: see app.h. */
#include "emulator/app.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

void app_profile_defaults(struct app_profile *p)
{
    memset(p, 0, sizeof(*p));
    p->boot_s = 0;
    p->workers = 8;
    p->queue = 1024;
    p->dist = APP_DIST_LOGNORMAL;
    p->service_ms = 10;
    p->sigma = 0.5;
    p->cpu_ms = 0;
    p->error_rate = 0;
    p->slow = 1;
    snprintf(p->health_path, sizeof(p->health_path), "/health");
    p->seed = 1;
}

static int fail(char *err, size_t errlen, const char *msg, const char *key)
{
    if (err && errlen)
        snprintf(err, errlen, "%s%s%s", msg, key ? ": " : "", key ? key : "");
    return -1;
}

static int num(json_t *v, double lo, double hi, double *out)
{
    double d;

    if (!json_is_number(v))
        return -1;
    d = json_number_value(v);
    if (!isfinite(d) || d < lo || d > hi)
        return -1;
    *out = d;
    return 0;
}

static int parse_service(json_t *v, struct app_profile *p, char *err, size_t errlen)
{
    const char *key;
    json_t *x;
    double d;

    if (json_is_number(v)) {
        if (num(v, 0, 3600000, &p->service_ms) < 0)
            return fail(err, errlen, "service_ms out of range", NULL);
        p->dist = APP_DIST_FIXED;
        return 0;
    }
    if (!json_is_object(v))
        return fail(err, errlen, "service_ms must be a number or an object", NULL);
    json_object_foreach(v, key, x)
    {
        if (strcmp(key, "dist") == 0) {
            const char *s = json_string_value(x);

            if (!s)
                return fail(err, errlen, "dist must be a string", NULL);
            if (strcmp(s, "fixed") == 0)
                p->dist = APP_DIST_FIXED;
            else if (strcmp(s, "exponential") == 0 || strcmp(s, "exp") == 0)
                p->dist = APP_DIST_EXPONENTIAL;
            else if (strcmp(s, "lognormal") == 0)
                p->dist = APP_DIST_LOGNORMAL;
            else
                return fail(err, errlen, "unknown dist", s);
        } else if (strcmp(key, "value") == 0 || strcmp(key, "mean") == 0 ||
                   strcmp(key, "median") == 0) {
            if (num(x, 0, 3600000, &p->service_ms) < 0)
                return fail(err, errlen, "service time out of range", key);
        } else if (strcmp(key, "sigma") == 0) {
            if (num(x, 0, 10, &d) < 0)
                return fail(err, errlen, "sigma out of range", NULL);
            p->sigma = d;
        } else {
            return fail(err, errlen, "unknown service_ms key", key);
        }
    }
    return 0;
}

int app_profile_parse(const char *json, struct app_profile *p, char *err, size_t errlen)
{
    json_error_t jerr;
    json_t *root = json_loads(json, 0, &jerr);
    const char *key;
    json_t *v;
    double d;
    int rc = -1;

    if (!root)
        return fail(err, errlen, "profile is not JSON", jerr.text);
    if (!json_is_object(root)) {
        fail(err, errlen, "profile must be a JSON object", NULL);
        goto out;
    }
    json_object_foreach(root, key, v)
    {
        if (strcmp(key, "boot_s") == 0) {
            if (num(v, 0, 86400, &p->boot_s) < 0) {
                fail(err, errlen, "boot_s out of range (0..86400)", NULL);
                goto out;
            }
        } else if (strcmp(key, "workers") == 0 || strcmp(key, "queue") == 0) {
            double lo = strcmp(key, "workers") == 0 ? 1 : 0;

            if (num(v, lo, 100000, &d) < 0 || d != floor(d)) {
                fail(err, errlen, "must be an integer in range", key);
                goto out;
            }
            if (lo == 1)
                p->workers = (int)d;
            else
                p->queue = (int)d;
        } else if (strcmp(key, "service_ms") == 0) {
            if (parse_service(v, p, err, errlen) < 0)
                goto out;
        } else if (strcmp(key, "cpu_ms") == 0) {
            if (num(v, 0, 60000, &p->cpu_ms) < 0) {
                fail(err, errlen, "cpu_ms out of range", NULL);
                goto out;
            }
        } else if (strcmp(key, "error_rate") == 0) {
            if (num(v, 0, 1, &p->error_rate) < 0) {
                fail(err, errlen, "error_rate out of range (0..1)", NULL);
                goto out;
            }
        } else if (strcmp(key, "slow") == 0) {
            if (num(v, 0, 1000, &p->slow) < 0) {
                fail(err, errlen, "slow out of range (0..1000)", NULL);
                goto out;
            }
        } else if (strcmp(key, "health_path") == 0) {
            const char *s = json_string_value(v);

            if (!s || s[0] != '/' || strlen(s) >= sizeof(p->health_path)) {
                fail(err, errlen, "health_path must be a path starting with /", NULL);
                goto out;
            }
            snprintf(p->health_path, sizeof(p->health_path), "%s", s);
        } else if (strcmp(key, "seed") == 0) {
            if (!json_is_integer(v) || json_integer_value(v) < 0) {
                fail(err, errlen, "seed must be a non-negative integer", NULL);
                goto out;
            }
            p->seed = (uint64_t)json_integer_value(v);
        } else {
            fail(err, errlen, "unknown profile key", key);
            goto out;
        }
    }
    rc = 0;
out:
    json_decref(root);
    return rc;
}

int app_profile_format(const struct app_profile *p, char *out, size_t cap)
{
    static const char *const dists[] = { "fixed", "exponential", "lognormal" };
    int n = snprintf(out, cap,
                     "{\"boot_s\":%g,\"workers\":%d,\"queue\":%d,\"service_ms\":{\"dist\":\"%s\","
                     "\"%s\":%g,\"sigma\":%g},\"cpu_ms\":%g,\"error_rate\":%g,\"slow\":%g,"
                     "\"health_path\":\"%s\",\"seed\":%llu}",
                     p->boot_s, p->workers, p->queue, dists[p->dist],
                     p->dist == APP_DIST_FIXED         ? "value"
                     : p->dist == APP_DIST_EXPONENTIAL ? "mean"
                                                       : "median",
                     p->service_ms, p->sigma, p->cpu_ms, p->error_rate, p->slow, p->health_path,
                     (unsigned long long)p->seed);

    return n < 0 || (size_t)n >= cap ? -1 : n;
}

double app_service_ms(const struct app_profile *p, struct sc_rng *rng)
{
    double u, u2;

    switch (p->dist) {
    case APP_DIST_EXPONENTIAL:
        u = sc_rng_double(rng);
        return -p->service_ms * log(1.0 - u);
    case APP_DIST_LOGNORMAL:
        /* Box-Muller: one standard normal */
        u = sc_rng_double(rng);
        u2 = sc_rng_double(rng);
        if (u <= 0)
            u = 1e-12;
        return p->service_ms * exp(p->sigma * sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * u2));
    case APP_DIST_FIXED:
    default:
        return p->service_ms;
    }
}

/* Next standalone number between tags: ">  -12.5 <". Returns 0 and advances *pos. */
static int next_number(const char *b, size_t len, size_t *pos, double *out)
{
    for (size_t i = *pos; i < len; i++) {
        size_t s, e;
        char tmp[64];
        char *end;

        if (b[i] != '>')
            continue;
        s = i + 1;
        e = s;
        while (e < len && b[e] != '<')
            e++;
        if (e >= len)
            return -1;
        while (s < e && (b[s] == ' ' || b[s] == '\n' || b[s] == '\r' || b[s] == '\t'))
            s++;
        while (e > s &&
               (b[e - 1] == ' ' || b[e - 1] == '\n' || b[e - 1] == '\r' || b[e - 1] == '\t'))
            e--;
        if (e > s && e - s < sizeof(tmp)) {
            memcpy(tmp, b + s, e - s);
            tmp[e - s] = '\0';
            *out = strtod(tmp, &end);
            if (end == tmp + (e - s) && isfinite(*out)) {
                *pos = e;
                return 0;
            }
        }
        i = e - 1;
    }
    return -1;
}

int app_soap_add(const char *body, size_t len, char *out, size_t cap)
{
    static const char head[] =
        "<?xml version='1.0' encoding='UTF-8'?><soapenv:Envelope xmlns:soapenv=\""
        "http://www.w3.org/2003/05/soap-envelope\"><soapenv:Body><ns:addResponse "
        "xmlns:ns=\"http://service.wso2\"><ns:return>";
    static const char tail[] = "</ns:return></ns:addResponse></soapenv:Body></soapenv:Envelope>";
    size_t pos = 0;
    double a, b;
    int n;

    if (cap < APP_SOAP_REPLY_LEN + 1)
        return -1;
    if (next_number(body, len, &pos, &a) < 0 || next_number(body, len, &pos, &b) < 0)
        return -1;
    n = snprintf(out, cap, "%s%.15g%s", head, a + b, tail);
    if (n < 0 || n > APP_SOAP_REPLY_LEN)
        return -1;
    /* whitespace after the root element is allowed: pad to the seed's 260 bytes */
    memset(out + n, ' ', (size_t)(APP_SOAP_REPLY_LEN - n));
    out[APP_SOAP_REPLY_LEN - 1] = '\n';
    out[APP_SOAP_REPLY_LEN] = '\0';
    return APP_SOAP_REPLY_LEN;
}

void app_busy_change(struct app_busy *b, int64_t now_ms, int delta)
{
    if (now_ms > b->last_ms) {
        b->busy_ms_total += (double)b->busy * (double)(now_ms - b->last_ms);
        b->last_ms = now_ms;
    }
    b->busy += delta;
    if (b->busy < 0)
        b->busy = 0;
}

double app_busy_total_ms(const struct app_busy *b, int64_t now_ms)
{
    double t = b->busy_ms_total;

    if (now_ms > b->last_ms)
        t += (double)b->busy * (double)(now_ms - b->last_ms);
    return t;
}

double app_cpu_pct(double busy_ms_delta, int workers, int64_t elapsed_ms)
{
    double pct;

    if (workers <= 0 || elapsed_ms <= 0)
        return 0;
    pct = 100.0 * busy_ms_delta / ((double)workers * (double)elapsed_ms);
    if (pct < 0)
        pct = 0;
    if (pct > 100)
        pct = 100;
    return pct;
}
