/* scaler/elbv2_rule.c: see elbv2.h. Actions and conditions: their checks (docs/elbv2.md
 * 5-6), stored copies, and evaluation of a request against a listener's rules (the data
 * plane's hot path: no allocation, no clock). */
#include "scaler/elbv2.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scaler/elbv2_internal.h"

static const char *const field_names[] = {
    "path-pattern",        "host-header",  "http-header",
    "http-request-method", "query-string", "source-ip",
};

const char *sc_elbv2_field_name(enum sc_elbv2_field f)
{
    return (unsigned)f < 6 ? field_names[f] : NULL;
}

int sc_elbv2_field_parse(const char *name)
{
    for (int i = 0; name && i < 6; i++) {
        if (strcmp(field_names[i], name) == 0)
            return i;
    }
    return -1;
}

/* --- checks ----------------------------------------------------------------------------------- */

static int tg_protocol_ok(const struct lbrec *b, const char *p)
{
    if (v2_is_alb(b))
        return strcmp(p, "HTTP") == 0 || strcmp(p, "HTTPS") == 0;
    return strcmp(p, "TCP") == 0 || strcmp(p, "TLS") == 0 || strcmp(p, "UDP") == 0 ||
           strcmp(p, "TCP_UDP") == 0;
}

/* The target group may be used by b: exists, protocol, VPC, no other load balancer. */
static enum sc_status check_tg(const struct sc_elbv2 *v2, const struct lbrec *b, const char *arn,
                               struct sc_error *err)
{
    const struct tgrec *g = v2_tg(v2, arn);

    if (!g)
        return v2_not_found_tg(err);
    if (!tg_protocol_ok(b, g->v.protocol))
        return sc_fail(err, SC_ERR_INCOMPATIBLE_PROTOCOLS,
                       "The target group '%s' uses the protocol '%s', which is not compatible "
                       "with a load balancer of type '%s'",
                       arn, g->v.protocol, b->v.type);
    if (strcmp(g->v.vpc_id, b->v.vpc_id) != 0)
        return sc_fail(err, SC_ERR_V2_INVALID_CONFIGURATION_REQUEST,
                       "The target group '%s' is not in the same VPC as the load balancer", arn);
    for (int i = 0; i < g->v.nload_balancer_arns; i++) {
        if (strcmp(g->v.load_balancer_arns[i], b->v.arn) != 0)
            return sc_fail(err, SC_ERR_TARGET_GROUP_ASSOCIATION_LIMIT,
                           "The following target groups cannot be associated with more than "
                           "one load balancer: %s",
                           arn);
    }
    return SC_OK;
}

static int all_digits(const char *s, size_t n)
{
    if (!s || strlen(s) != n)
        return 0;
    for (size_t i = 0; i < n; i++) {
        if (!isdigit((unsigned char)s[i]))
            return 0;
    }
    return 1;
}

static enum sc_status check_forward(const struct sc_elbv2 *v2, const struct lbrec *b,
                                    const struct sc_elbv2_action *a, struct sc_error *err)
{
    int max = v2_is_alb(b) ? SC_ELBV2_MAX_FORWARD : 1;
    enum sc_status st;

    if (!a->target_group_arn && (!a->has_forward_config || a->nforward < 1))
        return sc_fail(err, SC_ERR_VALIDATION,
                       "A target group ARN must be specified for forward actions");
    if (a->has_forward_config && a->nforward > max)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "You cannot specify more than %d target groups in a forward action", max);
    if (a->target_group_arn && a->has_forward_config &&
        (a->nforward != 1 || !a->forward[0].target_group_arn ||
         strcmp(a->forward[0].target_group_arn, a->target_group_arn) != 0))
        return sc_fail(err, SC_ERR_VALIDATION,
                       "You cannot specify both a target group ARN and a forward config with a "
                       "different target group");
    if (a->target_group_arn) {
        st = check_tg(v2, b, a->target_group_arn, err);
        if (st != SC_OK)
            return st;
    }
    for (int i = 0; a->has_forward_config && i < a->nforward; i++) {
        if (a->forward[i].weight < 0 || a->forward[i].weight > 999)
            return sc_fail(err, SC_ERR_VALIDATION,
                           "Target group weight '%d' must be between 0 "
                           "and 999",
                           a->forward[i].weight);
        for (int k = 0; k < i; k++) {
            if (a->forward[k].target_group_arn && a->forward[i].target_group_arn &&
                strcmp(a->forward[k].target_group_arn, a->forward[i].target_group_arn) == 0)
                return sc_fail(err, SC_ERR_VALIDATION,
                               "Target group '%s' is specified more than once",
                               a->forward[i].target_group_arn);
        }
        st = check_tg(v2, b, a->forward[i].target_group_arn, err);
        if (st != SC_OK)
            return st;
    }
    if (a->stickiness_duration_s < 0 || a->stickiness_duration_s > 604800)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "Target group stickiness duration must be between 1 and 604800 seconds");
    return SC_OK;
}

static int is_default_part(const char *v, const char *keyword)
{
    return !v || strcmp(v, keyword) == 0;
}

enum sc_status v2_check_actions(const struct sc_elbv2 *v2, const struct lbrec *b,
                                const char *protocol, const struct sc_elbv2_action *a, int n,
                                struct sc_error *err)
{
    (void)protocol;
    if (n < 1)
        return sc_fail(err, SC_ERR_VALIDATION, "At least one action must be specified");
    if (n > 1)
        return sc_fail(err, SC_ERR_INVALID_LOAD_BALANCER_ACTION,
                       "Only one routing action (forward, redirect or fixed-response) can be "
                       "specified; authentication actions are not supported");
    if (a->type == SC_ELBV2_ACTION_FORWARD)
        return check_forward(v2, b, a, err);
    if (!v2_is_alb(b))
        return sc_fail(err, SC_ERR_INVALID_LOAD_BALANCER_ACTION,
                       "The action type '%s' is not valid for a Network Load Balancer",
                       a->type == SC_ELBV2_ACTION_REDIRECT ? "redirect" : "fixed-response");
    if (a->type == SC_ELBV2_ACTION_REDIRECT) {
        const char *p = a->redirect_protocol;

        if (!a->redirect_status || (strcmp(a->redirect_status, "HTTP_301") != 0 &&
                                    strcmp(a->redirect_status, "HTTP_302") != 0))
            return sc_fail(err, SC_ERR_VALIDATION,
                           "A redirect status code of 'HTTP_301' or 'HTTP_302' must be "
                           "specified");
        if (p && strcmp(p, "HTTP") != 0 && strcmp(p, "HTTPS") != 0 && strcmp(p, "#{protocol}") != 0)
            return sc_fail(err, SC_ERR_VALIDATION, "Redirect protocol '%s' is not valid", p);
        if (a->redirect_path && a->redirect_path[0] != '/')
            return sc_fail(err, SC_ERR_VALIDATION,
                           "The redirect path must start with a '/' character");
        if (is_default_part(a->redirect_protocol, "#{protocol}") &&
            is_default_part(a->redirect_port, "#{port}") &&
            is_default_part(a->redirect_host, "#{host}") &&
            is_default_part(a->redirect_path, "/#{path}"))
            return sc_fail(err, SC_ERR_INVALID_LOAD_BALANCER_ACTION,
                           "The redirect must modify at least one of: protocol, hostname, port, "
                           "or path");
        return SC_OK;
    }
    if (!a->fixed_status || !all_digits(a->fixed_status, 3) ||
        (a->fixed_status[0] != '2' && a->fixed_status[0] != '4' && a->fixed_status[0] != '5'))
        return sc_fail(err, SC_ERR_VALIDATION,
                       "The fixed response status code must be a 2XX, 4XX or 5XX code");
    if (a->fixed_content_type && strcmp(a->fixed_content_type, "text/plain") != 0 &&
        strcmp(a->fixed_content_type, "text/css") != 0 &&
        strcmp(a->fixed_content_type, "text/html") != 0 &&
        strcmp(a->fixed_content_type, "application/javascript") != 0 &&
        strcmp(a->fixed_content_type, "application/json") != 0)
        return sc_fail(err, SC_ERR_VALIDATION, "Content type '%s' is not valid",
                       a->fixed_content_type);
    if (a->fixed_body && strlen(a->fixed_body) > 1024)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "The fixed response message body cannot be longer than 1024 characters");
    return SC_OK;
}

int v2_copy_actions(struct sc_elbv2_action *dst, struct sarena *s,
                    const struct sc_elbv2_action *src, int n)
{
    for (int i = 0; i < n; i++) {
        const struct sc_elbv2_action *a = &src[i];
        struct sc_elbv2_action *d = &dst[i];

        memset(d, 0, sizeof(*d));
        d->type = a->type;
        d->order = a->order ? a->order : i + 1;
        if (a->type == SC_ELBV2_ACTION_FORWARD) {
            /* both forms are kept: a single group shows as TargetGroupArn and ForwardConfig */
            if (a->has_forward_config) {
                for (int k = 0; k < a->nforward; k++) {
                    d->forward[k].target_group_arn = sa_keep(s, a->forward[k].target_group_arn);
                    d->forward[k].weight = a->forward[k].weight;
                }
                d->nforward = a->nforward;
            } else {
                d->forward[0].target_group_arn = sa_keep(s, a->target_group_arn);
                d->forward[0].weight = 1;
                d->nforward = 1;
            }
            d->has_forward_config = 1;
            d->target_group_arn = d->nforward == 1 ? d->forward[0].target_group_arn : NULL;
            d->stickiness_enabled = a->stickiness_enabled;
            d->stickiness_duration_s = a->stickiness_duration_s;
        } else if (a->type == SC_ELBV2_ACTION_REDIRECT) {
            d->redirect_protocol =
                sa_keep(s, a->redirect_protocol ? a->redirect_protocol : "#{protocol}");
            d->redirect_port = sa_keep(s, a->redirect_port ? a->redirect_port : "#{port}");
            d->redirect_host = sa_keep(s, a->redirect_host ? a->redirect_host : "#{host}");
            d->redirect_path = sa_keep(s, a->redirect_path ? a->redirect_path : "/#{path}");
            d->redirect_query = sa_keep(s, a->redirect_query ? a->redirect_query : "#{query}");
            d->redirect_status = sa_keep(s, a->redirect_status);
        } else {
            d->fixed_status = sa_keep(s, a->fixed_status);
            d->fixed_content_type = sa_keep(s, a->fixed_content_type);
            d->fixed_body = sa_keep(s, a->fixed_body);
        }
    }
    return s->oom ? -1 : 0;
}

int v2_actions_forward_to(const struct sc_elbv2_action *a, int n, const char *arn)
{
    for (int i = 0; i < n; i++) {
        if (a[i].type != SC_ELBV2_ACTION_FORWARD)
            continue;
        if (a[i].target_group_arn && strcmp(a[i].target_group_arn, arn) == 0)
            return 1;
        for (int k = 0; k < a[i].nforward; k++) {
            if (a[i].forward[k].target_group_arn &&
                strcmp(a[i].forward[k].target_group_arn, arn) == 0)
                return 1;
        }
    }
    return 0;
}

int v2_cidr_parse(const char *s, struct sc_elbv2_cidr *out)
{
    char buf[64];
    const char *slash = s ? strchr(s, '/') : NULL;
    char *end;
    long p;

    if (!slash || (size_t)(slash - s) >= sizeof(buf))
        return -1;
    memcpy(buf, s, (size_t)(slash - s));
    buf[slash - s] = '\0';
    memset(out, 0, sizeof(*out));
    p = strtol(slash + 1, &end, 10);
    if (*end || slash[1] == '\0')
        return -1;
    if (inet_pton(AF_INET, buf, out->addr) == 1) {
        out->family = 4;
        if (p < 0 || p > 32)
            return -1;
    } else if (inet_pton(AF_INET6, buf, out->addr) == 1) {
        out->family = 6;
        if (p < 0 || p > 128)
            return -1;
    } else {
        return -1;
    }
    out->prefix = (int)p;
    return 0;
}

static int chars_ok(const char *v, const char *allowed)
{
    for (const char *c = v; *c; c++) {
        if (!isalnum((unsigned char)*c) && !strchr(allowed, *c))
            return 0;
    }
    return 1;
}

static int wildcards(const char *v)
{
    int n = 0;

    for (const char *c = v; c && *c; c++)
        n += *c == '*' || *c == '?';
    return n > 0;
}

enum sc_status v2_check_conditions(const struct sc_elbv2_condition *c, int n, struct sc_error *err)
{
    int seen[6] = { 0 }, total = 0, wild = 0;

    if (n < 1)
        return sc_fail(err, SC_ERR_VALIDATION, "A rule must have at least one condition");
    if (n > SC_ELBV2_MAX_CONDITIONS)
        return sc_fail(err, SC_ERR_VALIDATION, "Too many conditions");
    for (int i = 0; i < n; i++) {
        const struct sc_elbv2_condition *x = &c[i];
        const char *fname = sc_elbv2_field_name(x->field);

        if (!fname)
            return sc_fail(err, SC_ERR_VALIDATION, "Condition field is not valid");
        if (x->field != SC_ELBV2_HTTP_HEADER && x->field != SC_ELBV2_QUERY_STRING &&
            seen[x->field]++)
            return sc_fail(err, SC_ERR_VALIDATION, "A rule can only have one '%s' condition",
                           fname);
        if (x->nvalues < 1)
            return sc_fail(err, SC_ERR_VALIDATION,
                           "A condition value must be specified for the '%s' field", fname);
        if (x->field == SC_ELBV2_HTTP_HEADER) {
            const char *h = x->header_name;

            if (!h || !*h || strlen(h) > 40 || !chars_ok(h, "-_"))
                return sc_fail(err, SC_ERR_VALIDATION, "The HTTP header name '%s' is not valid",
                               h ? h : "");
            if (strcasecmp(h, "host") == 0)
                return sc_fail(err, SC_ERR_VALIDATION,
                               "Use a 'host-header' condition to match the Host header");
        }
        total += x->nvalues;
        for (int k = 0; k < x->nvalues; k++) {
            const char *v = x->values[k];
            const char *key = x->field == SC_ELBV2_QUERY_STRING ? x->query_keys[k] : NULL;
            struct sc_elbv2_cidr cidr;
            int ok = v && *v && strlen(v) <= 128;

            if (ok && x->field == SC_ELBV2_PATH_PATTERN)
                ok = chars_ok(v, "_-.$/~\"'@:+&*?");
            else if (ok && x->field == SC_ELBV2_HOST_HEADER)
                ok = chars_ok(v, "-.*?");
            else if (ok && x->field == SC_ELBV2_HTTP_REQUEST_METHOD)
                ok = strlen(v) <= 40 && chars_ok(v, "_-") &&
                     !strpbrk(v, "abcdefghijklmnopqrstuvwxyz");
            else if (ok && x->field == SC_ELBV2_SOURCE_IP)
                ok = v2_cidr_parse(v, &cidr) == 0;
            if (!ok || (key && strlen(key) > 128))
                return sc_fail(err, SC_ERR_VALIDATION,
                               "The condition value '%s' is not valid for the '%s' field",
                               v ? v : "", fname);
            wild += wildcards(v) + wildcards(key);
        }
    }
    if (total > SC_ELBV2_MAX_VALUES)
        return sc_fail(err, SC_ERR_VALIDATION, "A rule can only have '%d' condition values",
                       SC_ELBV2_MAX_VALUES);
    if (wild > SC_ELBV2_MAX_VALUES)
        return sc_fail(err, SC_ERR_VALIDATION, "A rule can only have '%d' wildcards",
                       SC_ELBV2_MAX_VALUES);
    return SC_OK;
}

int v2_copy_conditions(struct sc_elbv2_condition *dst, struct sarena *s,
                       const struct sc_elbv2_condition *src, int n)
{
    for (int i = 0; i < n; i++) {
        const struct sc_elbv2_condition *x = &src[i];
        struct sc_elbv2_condition *d = &dst[i];

        memset(d, 0, sizeof(*d));
        d->field = x->field;
        d->header_name = sa_keep(s, x->header_name);
        d->nvalues = x->nvalues;
        d->legacy_values = x->legacy_values;
        for (int k = 0; k < x->nvalues; k++) {
            d->values[k] = sa_keep(s, x->values[k]);
            d->query_keys[k] = sa_keep(s, x->query_keys[k]);
            if (x->field == SC_ELBV2_SOURCE_IP)
                v2_cidr_parse(x->values[k], &d->cidrs[k]);
        }
    }
    return s->oom ? -1 : 0;
}

/* --- evaluation ------------------------------------------------------------------------------- */

static int fold(int c, int icase)
{
    return icase ? tolower((unsigned char)c) : (unsigned char)c;
}

int sc_elbv2_glob(const char *p, const char *s, size_t len, int icase)
{
    size_t si = 0, star_s = 0;
    const char *star_p = NULL;

    while (si < len) {
        if (*p == '*') {
            star_p = p++;
            star_s = si;
        } else if (*p && (*p == '?' || fold(*p, icase) == fold(s[si], icase))) {
            p++;
            si++;
        } else if (star_p) {
            p = star_p + 1;
            si = ++star_s;
        } else {
            return 0;
        }
    }
    while (*p == '*')
        p++;
    return *p == '\0';
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = tolower(c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* URL-decodes s[0..n) into out (cap bytes); returns the length, or -1 when it does not fit. */
static long url_decode(const char *s, size_t n, char *out, size_t cap)
{
    size_t o = 0;

    for (size_t i = 0; i < n; i++) {
        int c = (unsigned char)s[i];

        if (c == '+') {
            c = ' ';
        } else if (c == '%' && i + 2 < n + 0 && hexval(s[i + 1]) >= 0 && hexval(s[i + 2]) >= 0) {
            c = hexval(s[i + 1]) * 16 + hexval(s[i + 2]);
            i += 2;
        }
        if (o >= cap)
            return -1;
        out[o++] = (char)c;
    }
    return (long)o;
}

/* One key/value pair of the condition matches one pair of the query string. */
static int query_match(const struct sc_elbv2_condition *c, const char *q, size_t qn)
{
    size_t i = 0;

    while (i <= qn && qn > 0) {
        size_t end = i, eq;
        char kbuf[1024], vbuf[2048];
        long kl, vl;

        while (end < qn && q[end] != '&')
            end++;
        eq = i;
        while (eq < end && q[eq] != '=')
            eq++;
        kl = url_decode(q + i, eq - i, kbuf, sizeof(kbuf));
        vl = eq < end ? url_decode(q + eq + 1, end - eq - 1, vbuf, sizeof(vbuf)) : 0;
        for (int k = 0; kl >= 0 && vl >= 0 && k < c->nvalues; k++) {
            if ((!c->query_keys[k] || sc_elbv2_glob(c->query_keys[k], kbuf, (size_t)kl, 1)) &&
                sc_elbv2_glob(c->values[k], vbuf, (size_t)vl, 1))
                return 1;
        }
        i = end + 1;
    }
    return 0;
}

static int cidr_match(const struct sc_elbv2_cidr *c, const struct sc_elbv2_cidr *ip)
{
    int full, rest;

    if (c->family != ip->family)
        return 0;
    full = c->prefix / 8;
    rest = c->prefix % 8;
    if (memcmp(c->addr, ip->addr, (size_t)full) != 0)
        return 0;
    if (rest) {
        uint8_t mask = (uint8_t)(0xff << (8 - rest));

        return (c->addr[full] & mask) == (ip->addr[full] & mask);
    }
    return 1;
}

static int any_value(const struct sc_elbv2_condition *c, const char *s, size_t n, int icase)
{
    for (int k = 0; k < c->nvalues; k++) {
        if (sc_elbv2_glob(c->values[k], s, n, icase))
            return 1;
    }
    return 0;
}

static int condition_match(const struct sc_elbv2_condition *c,
                           const struct sc_elbv2_http_request *q)
{
    size_t hn;

    switch (c->field) {
    case SC_ELBV2_PATH_PATTERN:
        return any_value(c, q->path, q->path_len, 0);
    case SC_ELBV2_HOST_HEADER:
        hn = q->host_len;
        /* the host without its port (an IPv6 literal keeps its brackets) */
        for (size_t i = q->host_len; i > 0; i--) {
            if (q->host[i - 1] == ':') {
                hn = i - 1;
                break;
            }
            if (q->host[i - 1] == ']' || !isdigit((unsigned char)q->host[i - 1]))
                break;
        }
        return any_value(c, q->host, hn, 1);
    case SC_ELBV2_HTTP_HEADER:
        for (int h = 0; h < q->nheaders; h++) {
            const struct sc_elbv2_http_header *x = &q->headers[h];

            if (strlen(c->header_name) == x->name_len &&
                strncasecmp(c->header_name, x->name, x->name_len) == 0 &&
                any_value(c, x->value, x->value_len, 1))
                return 1;
        }
        return 0;
    case SC_ELBV2_HTTP_REQUEST_METHOD:
        for (int k = 0; k < c->nvalues; k++) {
            if (strlen(c->values[k]) == q->method_len &&
                memcmp(c->values[k], q->method, q->method_len) == 0)
                return 1;
        }
        return 0;
    case SC_ELBV2_QUERY_STRING:
        return query_match(c, q->query, q->query_len);
    case SC_ELBV2_SOURCE_IP:
        for (int k = 0; k < c->nvalues; k++) {
            if (cidr_match(&c->cidrs[k], &q->source))
                return 1;
        }
        return 0;
    }
    return 0;
}

int sc_elbv2_conditions_match(const struct sc_elbv2_condition *c, int n,
                              const struct sc_elbv2_http_request *q)
{
    for (int i = 0; i < n; i++) {
        if (!condition_match(&c[i], q))
            return 0;
    }
    return 1;
}

const struct sc_elbv2_rule *sc_elbv2_listener_match(const struct sc_elbv2_listener *l,
                                                    const struct sc_elbv2_http_request *q)
{
    if (!l)
        return NULL;
    for (int i = 0; i < l->nrules; i++) {
        const struct sc_elbv2_rule *r = l->rules[i];

        if (r->is_default || sc_elbv2_conditions_match(r->conditions, r->nconditions, q))
            return r;
    }
    return NULL;
}

const struct sc_elbv2_action *sc_elbv2_rule_action(const struct sc_elbv2_rule *r)
{
    const struct sc_elbv2_action *best = NULL;

    for (int i = 0; r && i < r->nactions; i++) {
        if (!best || r->actions[i].order > best->order)
            best = &r->actions[i];
    }
    return best;
}

int sc_elbv2_forward_pick(const struct sc_elbv2_action *a, uint64_t draw)
{
    uint64_t total = 0;

    for (int i = 0; i < a->nforward; i++)
        total += (uint64_t)a->forward[i].weight;
    if (total == 0)
        return -1;
    draw %= total;
    for (int i = 0; i < a->nforward; i++) {
        if (draw < (uint64_t)a->forward[i].weight)
            return i;
        draw -= (uint64_t)a->forward[i].weight;
    }
    return -1;
}
