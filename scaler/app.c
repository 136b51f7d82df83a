/* scaler/app.c: the application profile: defaults, parse and format, service-time
 * sampling and the busy-worker CPU model (see app.h). */
#include "scaler/app.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "scaler/lint.h"
#include "scaler/save.h"

/* Longest JSON path an error names (longer ones are cut). */
#define PATH_MAX_LEN 256

/* ---- defaults ---- */

void sc_app_defaults(struct sc_app *a)
{
    memset(a, 0, sizeof(*a));
    a->boot_s = 60;
    a->workers = 1;
    a->queue_limit = 1000;
    a->dist = SC_APP_DIST_EXPONENTIAL;
    a->service_mean_ms = 10;
    a->service_median_ms = 10 * log(2.0);
    a->service_sigma = 0;
    a->cpu_per_request = 1;
    a->cpu_ms = 0;
    a->error_rate = 0;
    a->slow = 1;
    snprintf(a->health_path, sizeof(a->health_path), "/health");
    a->seed = 1;
    a->time_scaled = 0;
    a->batch = 1;
}

/* ---- parse ---- */

/* Errors go through the shared reader's reporting (scaler/lint.h): every line "PATH:
 * message", every unknown key with its "did you mean". */
static void path_key(char out[PATH_MAX_LEN], const char *base, const char *key)
{
    sc_lint_path_key(out, PATH_MAX_LEN, base, key);
}

/* obj[key], NULL when absent or null; p gets its path. */
static json_t *member(const json_t *obj, const char *path, const char *key, char p[PATH_MAX_LEN])
{
    json_t *v = json_object_get(obj, key);

    path_key(p, path, key);
    return v && !json_is_null(v) ? v : NULL;
}

/* A number in lo..hi: 1 present (stored), 0 absent (*out kept), -1 error. */
static int get_num(struct sc_lint *r, const json_t *obj, const char *path, const char *key,
                   double lo, double hi, double *out)
{
    char p[PATH_MAX_LEN];
    json_t *v = member(obj, path, key, p);
    double d;

    if (!v)
        return 0;
    if (!json_is_number(v))
        return sc_lint_fail(r, p, "must be a number, not %s", sc_json_type_name(v));
    d = json_number_value(v);
    if (!isfinite(d))
        return sc_lint_fail(r, p, "must be finite");
    if (d < lo)
        return sc_lint_fail(r, p, "must be >= %g", lo);
    if (d > hi)
        return sc_lint_fail(r, p, "must be <= %g", hi);
    *out = d;
    return 1;
}

/* An integer in lo..hi, as get_num(). */
static int get_int(struct sc_lint *r, const json_t *obj, const char *path, const char *key,
                   json_int_t lo, json_int_t hi, json_int_t *out)
{
    char p[PATH_MAX_LEN];
    json_t *v = member(obj, path, key, p);
    json_int_t x;

    if (!v)
        return 0;
    if (!json_is_integer(v))
        return sc_lint_fail(r, p, "must be an integer, not %s",
                            json_is_real(v) ? "a fraction" : sc_json_type_name(v)),
               -1;
    x = json_integer_value(v);
    if (x < lo)
        return sc_lint_fail(r, p, "must be >= %lld", (long long)lo);
    if (x > hi)
        return sc_lint_fail(r, p, "must be <= %lld", (long long)hi);
    *out = x;
    return 1;
}

static int get_int32(struct sc_lint *r, const json_t *obj, const char *path, const char *key,
                     int lo, int hi, int *out)
{
    json_int_t x = 0;
    int rc = get_int(r, obj, path, key, lo, hi, &x);

    if (rc > 0)
        *out = (int)x;
    return rc;
}

static const char *const dist_names[] = { "fixed", "exponential", "lognormal", NULL };

/* service_ms: a number (fixed) or {dist, mean | median, sigma}. */
static int parse_service(struct sc_lint *r, struct sc_app *a, const json_t *v, const char *p)
{
    static const char *const keys[] = { "dist", "mean", "median", "sigma", NULL };
    char pk[PATH_MAX_LEN];
    json_t *d;
    double mean = 0, median = 0;
    int hm, hmed;

    if (json_is_number(v)) {
        double ms = json_number_value(v);

        if (!isfinite(ms) || ms < 0 || ms > 1e9)
            return sc_lint_fail(r, p, "must be >= 0 and <= 1e+09 (ms, fixed)");
        a->dist = SC_APP_DIST_FIXED;
        a->service_mean_ms = ms;
        a->service_median_ms = ms;
        a->service_sigma = 0;
        return 0;
    }
    if (!json_is_object(v))
        return sc_lint_fail(r, p, "must be an object (or a number of ms, fixed), not %s",
                            sc_json_type_name(v));
    sc_lint_check_keys(r, v, p, keys);
    a->dist = SC_APP_DIST_EXPONENTIAL;
    d = member(v, p, "dist", pk);
    if (d) {
        const char *s = json_string_value(d);
        int k;

        if (!s)
            return sc_lint_fail(r, pk, "must be a string, not %s", sc_json_type_name(d));
        if (!s[0])
            return sc_lint_fail(r, pk, "must not be empty");
        for (k = 0; dist_names[k] && strcmp(dist_names[k], s) != 0; k++)
            ;
        if (!dist_names[k])
            return sc_lint_fail(r, pk, "must be one of fixed, exponential, lognormal, not \"%s\"",
                                s);
        a->dist = (enum sc_app_dist)k;
    }
    if (a->dist == SC_APP_DIST_LOGNORMAL) {
        a->service_sigma = 0.5;
        if (get_num(r, v, p, "sigma", 0, 5, &a->service_sigma) < 0)
            return -1;
        hm = get_num(r, v, p, "mean", 0, 1e9, &mean);
        if (hm < 0)
            return -1;
        hmed = get_num(r, v, p, "median", 0, 1e9, &median);
        if (hmed < 0)
            return -1;
        if (hm && hmed)
            return sc_lint_fail(r, p, "give \"mean\" or \"median\", not both");
        if (!hm && !hmed)
            return sc_lint_fail(r, p, "missing required key \"median\" (or \"mean\")");
        if (hmed)
            mean = median * exp(a->service_sigma * a->service_sigma / 2);
        else
            median = mean / exp(a->service_sigma * a->service_sigma / 2);
        a->service_mean_ms = mean;
        a->service_median_ms = median;
        return 0;
    }
    a->service_sigma = 0;
    hm = get_num(r, v, p, "mean", 0, 1e9, &mean);
    if (hm < 0)
        return -1;
    if (!hm)
        return sc_lint_fail(r, p, "missing required key \"mean\"");
    if (json_object_get(v, "median") || json_object_get(v, "sigma")) {
        path_key(pk, p, json_object_get(v, "median") ? "median" : "sigma");
        return sc_lint_fail(r, pk, "only for dist \"lognormal\"");
    }
    a->service_mean_ms = mean;
    a->service_median_ms = a->dist == SC_APP_DIST_FIXED ? mean : mean * log(2.0);
    return 0;
}

/* The keys of obj over the defaults already in *a: 0 or -1. */
static int parse(struct sc_lint *r, struct sc_app *a, const json_t *obj, const char *path)
{
    static const char *const keys[] = {
        "boot_s",      "workers",    "queue_limit", "service_ms",  "cpu_per_request",
        "cpu_ms",      "error_rate", "slow",        "health_path", "seed",
        "time_scaled", "batch",      NULL
    };
    char p[PATH_MAX_LEN];
    json_int_t seed = 0;
    json_t *v;
    int rc, bad = 0;

    if (!json_is_object(obj))
        return sc_lint_fail(r, path, "must be an object, not %s",
                            obj ? sc_json_type_name(obj) : "nothing");
    sc_lint_check_keys(r, obj, path, keys);
    /* every value is read before giving up, so that each wrong one is reported */
    bad |= get_num(r, obj, path, "boot_s", 0, 86400, &a->boot_s) < 0;
    bad |= get_int32(r, obj, path, "workers", 1, 100000, &a->workers) < 0;
    rc = get_num(r, obj, path, "cpu_per_request", 0, 1, &a->cpu_per_request);
    bad |= rc < 0;
    if (rc > 0 && a->cpu_per_request <= 0) {
        path_key(p, path, "cpu_per_request");
        bad |= sc_lint_fail(r, p, "must be > 0") < 0;
    }
    bad |= get_int32(r, obj, path, "queue_limit", 0, 100000000, &a->queue_limit) < 0;
    v = member(obj, path, "service_ms", p);
    if (v)
        bad |= parse_service(r, a, v, p) < 0;
    bad |= get_num(r, obj, path, "cpu_ms", 0, 60000, &a->cpu_ms) < 0;
    bad |= get_num(r, obj, path, "error_rate", 0, 1, &a->error_rate) < 0;
    bad |= get_num(r, obj, path, "slow", 0, 1000, &a->slow) < 0;
    if (bad)
        return -1;
    v = member(obj, path, "health_path", p);
    if (v) {
        const char *s = json_string_value(v);
        size_t n = s ? strlen(s) : 0;

        if (!s)
            return sc_lint_fail(r, p, "must be a string, not %s", sc_json_type_name(v));
        if (s[0] != '/' || n >= sizeof(a->health_path))
            return sc_lint_fail(r, p, "must be a path starting with / (at most %d bytes)",
                                (int)sizeof(a->health_path) - 1);
        for (size_t i = 0; i < n; i++)
            if ((unsigned char)s[i] <= ' ' || (unsigned char)s[i] >= 0x7f)
                return sc_lint_fail(r, p, "must be printable ASCII without spaces");
        memcpy(a->health_path, s, n + 1);
    }
    rc = get_int(r, obj, path, "seed", 0, INT64_MAX, &seed);
    if (rc < 0)
        return -1;
    if (rc > 0)
        a->seed = (uint64_t)seed;
    v = member(obj, path, "time_scaled", p);
    if (v && !json_is_boolean(v))
        return sc_lint_fail(r, p, "must be true or false, not %s", sc_json_type_name(v));
    if (v)
        a->time_scaled = json_is_true(v);
    if (get_num(r, obj, path, "batch", 1, 100000, &a->batch) < 0)
        return -1;
    return 0;
}

enum sc_status sc_app_parse_lint(struct sc_app *a, const json_t *obj, const char *path,
                                 struct sc_lint *l)
{
    int before = sc_lint_errors(l);

    sc_app_defaults(a);
    parse(l, a, obj, path ? path : "");
    return sc_lint_errors(l) > before ? SC_ERR_VALIDATION : SC_OK;
}

enum sc_status sc_app_parse(struct sc_app *a, const json_t *obj, const char *path, char *err,
                            size_t errlen)
{
    struct sc_lint l;
    enum sc_status st;

    sc_lint_init(&l, err, errlen, NULL, 0);
    st = sc_app_parse_lint(a, obj, path, &l);
    sc_lint_finish(&l);
    return st;
}

enum sc_status sc_app_parse_text(struct sc_app *a, const char *text, char *err, size_t errlen)
{
    json_error_t jerr;
    json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
    enum sc_status st;

    if (!root) {
        struct sc_lint l;

        sc_app_defaults(a);
        sc_lint_init(&l, err, errlen, NULL, 0);
        sc_lint_fail(&l, "", "not JSON: %s (line %d column %d)", jerr.text, jerr.line, jerr.column);
        return SC_ERR_VALIDATION;
    }
    st = sc_app_parse(a, root, NULL, err, errlen);
    json_decref(root);
    return st;
}

/* ---- format ---- */

int sc_app_format(const struct sc_app *a, char *out, size_t cap)
{
    char svc[160];
    int n;

    if (a->dist == SC_APP_DIST_LOGNORMAL)
        n = snprintf(svc, sizeof(svc), "{\"dist\":\"lognormal\",\"median\":%.17g,\"sigma\":%.17g}",
                     a->service_median_ms, a->service_sigma);
    else
        n = snprintf(svc, sizeof(svc), "{\"dist\":\"%s\",\"mean\":%.17g}", dist_names[a->dist],
                     a->service_mean_ms);
    if (n < 0 || (size_t)n >= sizeof(svc))
        return -1;
    /* health_path is printable ASCII without spaces (the parser's rule): of its bytes
     * only " and \ need escaping in JSON */
    n = snprintf(out, cap,
                 "{\"boot_s\":%.17g,\"workers\":%d,\"queue_limit\":%d,\"service_ms\":%s,"
                 "\"cpu_per_request\":%.17g,\"cpu_ms\":%.17g,\"error_rate\":%.17g,"
                 "\"slow\":%.17g,\"health_path\":\"",
                 a->boot_s, a->workers, a->queue_limit, svc, a->cpu_per_request, a->cpu_ms,
                 a->error_rate, a->slow);
    if (n < 0 || (size_t)n >= cap)
        return -1;
    for (const char *s = a->health_path; *s; s++) {
        if (*s == '"' || *s == '\\') {
            if ((size_t)n + 2 >= cap)
                return -1;
            out[n++] = '\\';
        } else if ((size_t)n + 1 >= cap) {
            return -1;
        }
        out[n++] = *s;
    }
    out[n] = '\0';
    n += snprintf(out + n, cap - (size_t)n, "\",\"seed\":%llu", (unsigned long long)a->seed);
    if ((size_t)n >= cap)
        return -1;
    /* the run-time keys only when set: a scenario's profile formats as it always did */
    if (a->time_scaled || a->batch != 1)
        n += snprintf(out + n, cap - (size_t)n, ",\"time_scaled\":%s,\"batch\":%.17g",
                      a->time_scaled ? "true" : "false", a->batch);
    if ((size_t)n + 1 >= cap)
        return -1;
    out[n++] = '}';
    out[n] = '\0';
    return n;
}

int sc_app_sim_ignored(const struct sc_app *a, char *out, size_t cap)
{
    struct sc_app d;
    const char *names[7];
    int k = 0;
    size_t len = 0;

    sc_app_defaults(&d);
    if (a->cpu_ms != d.cpu_ms)
        names[k++] = "cpu_ms";
    if (a->error_rate != d.error_rate)
        names[k++] = "error_rate";
    if (a->slow != d.slow)
        names[k++] = "slow";
    if (strcmp(a->health_path, d.health_path) != 0)
        names[k++] = "health_path";
    if (a->seed != d.seed)
        names[k++] = "seed";
    if (a->time_scaled != d.time_scaled)
        names[k++] = "time_scaled";
    if (a->batch != d.batch)
        names[k++] = "batch";
    if (cap)
        out[0] = '\0';
    for (int i = 0; i < k && cap; i++) {
        int n = snprintf(out + len, cap - len, "%s%s", i ? ", " : "", names[i]);

        if (n < 0 || (size_t)n >= cap - len)
            break;
        len += (size_t)n;
    }
    return k;
}

/* ---- service time ---- */

/* Inverse of the standard normal CDF (Acklam's rational approximation, |rel err| < 1.2e-9). */
static double norm_inv(double p)
{
    static const double a[] = { -3.969683028665376e+01, 2.209460984245205e+02,
                                -2.759285104469687e+02, 1.383577518672690e+02,
                                -3.066479806614716e+01, 2.506628277459239e+00 };
    static const double b[] = { -5.447609879822406e+01, 1.615858368580409e+02,
                                -1.556989798598866e+02, 6.680131188771972e+01,
                                -1.328068155288572e+01 };
    static const double c[] = { -7.784894002430293e-03, -3.223964580411365e-01,
                                -2.400758277161838e+00, -2.549732539343734e+00,
                                4.374664141464968e+00,  2.938163982698783e+00 };
    static const double d[] = { 7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                                3.754408661907416e+00 };
    double q, r;

    if (p <= 0)
        return -INFINITY;
    if (p >= 1)
        return INFINITY;
    if (p < 0.02425) {
        q = sqrt(-2 * log(p));
        return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
               ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    }
    if (p > 1 - 0.02425) {
        q = sqrt(-2 * log(1 - p));
        return -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
               ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    }
    q = p - 0.5;
    r = q * q;
    return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
           (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

/* Both take the unit first into the scale (mean x per_ms x ...), as the simulator always
 * computed in us: the same arithmetic, so its runs stay bit for bit what they were. */
double sc_app_service_quantile(const struct sc_app *a, double p, double per_ms)
{
    switch (a->dist) {
    case SC_APP_DIST_FIXED:
        return a->service_mean_ms * per_ms;
    case SC_APP_DIST_EXPONENTIAL:
        return -a->service_mean_ms * per_ms * log(1 - p);
    case SC_APP_DIST_LOGNORMAL:
        return a->service_median_ms * per_ms * exp(a->service_sigma * norm_inv(p));
    }
    return 0;
}

double sc_app_service_time(const struct sc_app *a, struct sc_rng *rng, double per_ms)
{
    switch (a->dist) {
    case SC_APP_DIST_FIXED:
        return a->service_mean_ms * per_ms;
    case SC_APP_DIST_EXPONENTIAL:
        return -a->service_mean_ms * per_ms * log(1 - sc_rng_double(rng));
    case SC_APP_DIST_LOGNORMAL: {
        /* Box-Muller, one of the pair; 1 - u is in (0, 1], so the log is finite */
        double u1 = sc_rng_double(rng), u2 = sc_rng_double(rng);
        double z = sqrt(-2 * log(1 - u1)) * cos(2 * M_PI * u2);
        return a->service_median_ms * per_ms * exp(a->service_sigma * z);
    }
    }
    return 0;
}

double sc_app_batch_service_time(const struct sc_app *a, struct sc_rng *rng, double per_ms)
{
    double whole = floor(a->batch), frac = a->batch - whole, t = 0;

    for (double i = 0; i < whole; i++)
        t += sc_app_service_time(a, rng, per_ms);
    if (frac > 0)
        t += frac * sc_app_service_time(a, rng, per_ms);
    return t;
}

/* ---- the busy-worker CPU model ---- */

double sc_app_cpu_time(const struct sc_app *a, double busy_worker_time)
{
    return busy_worker_time * a->cpu_per_request;
}

double sc_app_cpu_pct(const struct sc_app *a, double busy_worker_time, double elapsed)
{
    double pct;

    if (a->workers <= 0 || !(elapsed > 0))
        return 0;
    pct = 100.0 * sc_app_cpu_time(a, busy_worker_time) / (elapsed * (double)a->workers);
    if (pct > 100)
        pct = 100;
    if (pct < 0)
        pct = 0;
    return pct;
}

void sc_app_busy_change(struct sc_app_busy *b, int64_t now_ms, int delta)
{
    if (now_ms > b->last_ms) {
        b->busy_ms_total += (double)b->busy * (double)(now_ms - b->last_ms);
        b->last_ms = now_ms;
    }
    b->busy += delta;
    if (b->busy < 0)
        b->busy = 0;
}

double sc_app_busy_total_ms(const struct sc_app_busy *b, int64_t now_ms)
{
    double t = b->busy_ms_total;

    if (now_ms > b->last_ms)
        t += (double)b->busy * (double)(now_ms - b->last_ms);
    return t;
}
