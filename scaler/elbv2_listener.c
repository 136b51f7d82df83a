/* scaler/elbv2_listener.c: see elbv2.h. Listeners (protocols, ports, certificates, SSL
 * policies, default actions kept as each listener's default rule) and rules (priorities,
 * conditions and actions as elbv2_rule.c checks them). */
#include "scaler/elbv2.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scaler/elbv2_internal.h"
#include "scaler/elbv2_trust.h"

/* --- listeners -------------------------------------------------------------------------------- */

static int protocol_for(const struct lbrec *b, const char *p)
{
    if (!p)
        return 0;
    if (v2_is_alb(b))
        return strcmp(p, "HTTP") == 0 || strcmp(p, "HTTPS") == 0;
    return strcmp(p, "TCP") == 0 || strcmp(p, "TLS") == 0 || strcmp(p, "UDP") == 0 ||
           strcmp(p, "TCP_UDP") == 0;
}

static int secure(const char *p)
{
    return p && (strcmp(p, "HTTPS") == 0 || strcmp(p, "TLS") == 0);
}

static enum sc_status check_listener(const struct sc_elbv2 *v2, const struct lbrec *b,
                                     const struct lisrec *self, const char *protocol, int port,
                                     const struct sc_elbv2_listener_req *r, struct sc_error *err)
{
    if (!protocol_for(b, protocol))
        return sc_fail(err, SC_ERR_UNSUPPORTED_PROTOCOL,
                       "Protocol '%s' is not supported for load balancer type '%s'",
                       protocol ? protocol : "", b->v.type);
    if (port < 1 || port > 65535)
        return sc_fail(err, SC_ERR_VALIDATION, "Listener port '%d' is not valid", port);
    for (int i = 0; i < v2->nlis; i++) {
        const struct lisrec *l = v2->lis[i];

        if (l != self && strcmp(l->v.load_balancer_arn, b->v.arn) == 0 && l->v.port == port)
            return sc_fail(err, SC_ERR_DUPLICATE_LISTENER,
                           "A listener already exists on this port for this load balancer '%s'",
                           b->v.arn);
    }
    if (secure(protocol) && r->ncertificates == 0 && !(self && self->v.ncertificates > 0))
        return sc_fail(err, SC_ERR_CERTIFICATE_NOT_FOUND,
                       "A certificate must be specified for %s listeners", protocol);
    if (r->ssl_policy && !sc_elbv2_ssl_policy_find(r->ssl_policy))
        return sc_fail(err, SC_ERR_SSL_POLICY_NOT_FOUND, "SSL policy '%s' not found",
                       r->ssl_policy);
    if (r->ncertificates >= V2_MAX_CERTS)
        return sc_fail(err, SC_ERR_VALIDATION, "Too many certificates");
    return SC_OK;
}

static struct rulerec *new_rule(struct sc_elbv2 *v2, const struct lisrec *l, int is_default)
{
    struct rulerec *r = calloc(1, sizeof(*r));
    const struct lbrec *b = v2_lb(v2, l->v.load_balancer_arn);
    char arn[SC_ELBV2_ARN_LEN], id[17];
    const char *tail = strstr(l->v.arn, ":listener/");

    if (!r || !b || !tail)
        goto fail;
    v2_hex_id(v2, id);
    snprintf(arn, sizeof(arn), "%.*s:listener-rule/%s/%s", (int)(tail - l->v.arn), l->v.arn,
             tail + strlen(":listener/"), id);
    r->v.arn = sa_keep(&r->a, arn);
    r->v.listener_arn = sa_keep(&r->a, l->v.arn);
    r->v.is_default = is_default;
    if (r->a.oom)
        goto fail;
    return r;

fail:
    v2_rule_free(r);
    return NULL;
}

static int set_rule_actions(struct rulerec *r, const struct sc_elbv2_action *a, int n)
{
    struct sarena fresh = { 0 };
    struct sc_elbv2_action acts[SC_ELBV2_MAX_ACTIONS];

    if (v2_copy_actions(acts, &fresh, a, n) != 0) {
        sa_free(&fresh);
        return -1;
    }
    sa_free(&r->aa);
    r->aa = fresh;
    memcpy(r->acts, acts, sizeof(acts[0]) * (size_t)n);
    r->v.actions = r->acts;
    r->v.nactions = n;
    return 0;
}

static int set_listener_policy(struct lisrec *l, const char *protocol,
                               const struct sc_elbv2_listener_req *r)
{
    struct sarena fresh = { 0 };
    const char *certv[V2_MAX_CERTS];
    int nc = l->v.ncertificates;

    if (r->ncertificates > 0) {
        for (int i = 0; i < r->ncertificates; i++)
            certv[i] = r->certificates[i];
        nc = r->ncertificates;
    } else {
        memcpy(certv, l->certv, sizeof(certv[0]) * (size_t)nc);
    }
    if (!secure(protocol))
        nc = 0;
    l->v.protocol = sa_keep(&fresh, protocol);
    l->v.ssl_policy = secure(protocol)
                          ? sa_keep(&fresh, r->ssl_policy     ? r->ssl_policy
                                            : l->v.ssl_policy ? l->v.ssl_policy
                                                              : "ELBSecurityPolicy-2016-08")
                          : NULL;
    l->v.alpn_policy = sa_keep(&fresh, r->alpn_policy ? r->alpn_policy : l->v.alpn_policy);
    for (int i = 0; i < nc; i++)
        certv[i] = sa_keep(&fresh, certv[i]);
    if (fresh.oom) {
        sa_free(&fresh);
        return -1;
    }
    sa_free(&l->pa);
    l->pa = fresh;
    memcpy(l->certv, certv, sizeof(certv[0]) * (size_t)nc);
    l->v.certificates = l->certv;
    l->v.ncertificates = nc;
    return 0;
}

enum sc_status sc_elbv2_create_listener(struct sc_elbv2 *v2, const struct sc_elbv2_listener_req *r,
                                        int64_t now_ms, const struct sc_elbv2_listener **out,
                                        struct sc_error *err)
{
    struct lbrec *b = v2_lb(v2, r->load_balancer_arn);
    struct lisrec *l = NULL;
    char arn[SC_ELBV2_ARN_LEN], id[17];
    enum sc_status st;
    int count = 0;

    (void)now_ms;
    if (!b)
        return v2_not_found_lb(err);
    st = check_listener(v2, b, NULL, r->protocol, r->port, r, err);
    if (st != SC_OK)
        return st;
    if (r->nactions < 1)
        return sc_fail(err, SC_ERR_VALIDATION, "A listener must have at least one default action");
    st = v2_check_actions(v2, b, r->protocol, r->actions, r->nactions, err);
    if (st != SC_OK)
        return st;
    st = v2_check_tags(r->tags, r->ntags, err);
    if (st != SC_OK)
        return st;
    st = sc_elbv2_check_mutual_auth(v2, b->v.arn, NULL, r->protocol, r->mutual_auth, err);
    if (st != SC_OK)
        return st;
    for (int i = 0; i < v2->nlis; i++)
        count += strcmp(v2->lis[i]->v.load_balancer_arn, b->v.arn) == 0;
    if (count >= SC_ELBV2_MAX_LISTENERS)
        return sc_fail(err, SC_ERR_TOO_MANY_LISTENERS,
                       "You've reached the limit on the number of listeners per load balancer");
    if (v2_grow(&v2->lis, v2->nlis, &v2->caplis, sizeof(*v2->lis)) != 0 ||
        v2_grow(&v2->rules, v2->nrules, &v2->caprules, sizeof(*v2->rules)) != 0)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    l = calloc(1, sizeof(*l));
    if (!l)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    v2_hex_id(v2, id);
    snprintf(arn, sizeof(arn), "arn:aws:elasticloadbalancing:%s:%s:listener/%s/%s/%s/%s",
             v2->region, v2->account, v2_is_alb(b) ? "app" : "net", b->v.name, b->id, id);
    l->v.arn = sa_keep(&l->a, arn);
    l->v.load_balancer_arn = sa_keep(&l->a, b->v.arn);
    l->v.port = r->port;
    if (l->a.oom || set_listener_policy(l, r->protocol, r) != 0 ||
        v2_lis_attr_defaults(l, b) != 0 || v2_tags_add(&l->tags, r->tags, r->ntags, err) != SC_OK)
        goto oom;
    l->def = new_rule(v2, l, 1);
    if (!l->def || set_rule_actions(l->def, r->actions, r->nactions) != 0)
        goto oom;
    l->v.attrs = l->attrs.v;
    l->v.nattrs = l->attrs.n;
    v2_set_mutual_auth(l, b, r->protocol, r->mutual_auth);
    v2->lis[v2->nlis++] = l;
    v2->rules[v2->nrules++] = l->def;
    v2_sync(v2);
    if (out)
        *out = &l->v;
    return SC_OK;

oom:
    if (l)
        v2_rule_free(l->def);
    v2_lis_free(l);
    return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
}

enum sc_status sc_elbv2_modify_listener(struct sc_elbv2 *v2, const char *arn,
                                        const struct sc_elbv2_listener_req *r, int64_t now_ms,
                                        const struct sc_elbv2_listener **out, struct sc_error *err)
{
    struct lisrec *l = v2_lis(v2, arn);
    struct lbrec *b = l ? v2_lb(v2, l->v.load_balancer_arn) : NULL;
    const char *protocol;
    enum sc_status st;
    int port;

    (void)now_ms;
    if (!l || !b)
        return v2_not_found_listener(err);
    protocol = r->protocol ? r->protocol : l->v.protocol;
    port = r->has_port ? r->port : l->v.port;
    st = check_listener(v2, b, l, protocol, port, r, err);
    if (st != SC_OK)
        return st;
    if (r->actions) {
        st = v2_check_actions(v2, b, protocol, r->actions, r->nactions, err);
        if (st != SC_OK)
            return st;
    } else {
        st = v2_check_actions(v2, b, protocol, l->def->v.actions, l->def->v.nactions, err);
        if (st != SC_OK)
            return st;
    }
    st = sc_elbv2_check_mutual_auth(v2, b->v.arn, l->v.arn, protocol, r->mutual_auth, err);
    if (st != SC_OK)
        return st;
    if (set_listener_policy(l, protocol, r) != 0 ||
        (r->actions && set_rule_actions(l->def, r->actions, r->nactions) != 0))
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    l->v.port = port;
    /* l->v.protocol, not protocol: that may point into the arena the update freed */
    v2_set_mutual_auth(l, b, l->v.protocol, r->mutual_auth);
    v2_sync(v2);
    if (out)
        *out = &l->v;
    return SC_OK;
}

enum sc_status sc_elbv2_delete_listener(struct sc_elbv2 *v2, const char *arn, int64_t now_ms,
                                        struct sc_error *err)
{
    (void)now_ms;
    for (int i = 0; i < v2->nlis; i++) {
        if (arn && strcmp(v2->lis[i]->v.arn, arn) == 0) {
            v2_remove_listener(v2, i);
            v2_sync(v2);
            return SC_OK;
        }
    }
    return v2_not_found_listener(err);
}

int sc_elbv2_listener_count(const struct sc_elbv2 *v2)
{
    return v2->nlis;
}

const struct sc_elbv2_listener *sc_elbv2_listener_at(const struct sc_elbv2 *v2, int i)
{
    return i >= 0 && i < v2->nlis ? &v2->lis[i]->v : NULL;
}

const struct sc_elbv2_listener *sc_elbv2_listener_find(const struct sc_elbv2 *v2, const char *arn)
{
    struct lisrec *l = v2_lis(v2, arn);

    return l ? &l->v : NULL;
}

enum sc_status sc_elbv2_describe_listeners(const struct sc_elbv2 *v2, const char *lb_arn,
                                           const char *const *arns, int narns,
                                           const struct sc_elbv2_listener **out, int *nout,
                                           struct sc_error *err)
{
    *nout = 0;
    if (lb_arn && narns > 0)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "Listener ARNs and a load balancer ARN cannot be specified at the same "
                       "time");
    if (!lb_arn && narns == 0)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "You must specify either listener ARNs or a load balancer ARN");
    if (lb_arn) {
        if (!v2_lb(v2, lb_arn))
            return v2_not_found_lb(err);
        for (int i = 0; i < v2->nlis; i++) {
            if (strcmp(v2->lis[i]->v.load_balancer_arn, lb_arn) == 0)
                out[(*nout)++] = &v2->lis[i]->v;
        }
        return SC_OK;
    }
    for (int i = 0; i < narns; i++) {
        const struct sc_elbv2_listener *l = sc_elbv2_listener_find(v2, arns[i]);

        if (!l)
            return v2_not_found_listener(err);
        out[(*nout)++] = l;
    }
    return SC_OK;
}

enum sc_status sc_elbv2_listener_certificates(struct sc_elbv2 *v2, const char *arn,
                                              const char *const *certs, int n, int remove,
                                              int64_t now_ms, struct sc_error *err)
{
    struct lisrec *l = v2_lis(v2, arn);
    const char *next[V2_MAX_CERTS];
    int nn;

    (void)now_ms;
    if (!l)
        return v2_not_found_listener(err);
    if (!secure(l->v.protocol))
        return sc_fail(err, SC_ERR_V2_INVALID_CONFIGURATION_REQUEST,
                       "Certificates can only be added to HTTPS and TLS listeners");
    nn = l->v.ncertificates;
    memcpy(next, l->certv, sizeof(next[0]) * (size_t)nn);
    for (int i = 0; i < n; i++) {
        int at = -1;

        for (int k = 0; k < nn; k++) {
            if (strcmp(next[k], certs[i]) == 0)
                at = k;
        }
        if (remove && at == 0)
            return sc_fail(err, SC_ERR_OPERATION_NOT_PERMITTED,
                           "The default certificate '%s' cannot be removed", certs[i]);
        if (remove && at > 0) {
            memmove(&next[at], &next[at + 1], sizeof(next[0]) * (size_t)(nn - at - 1));
            nn--;
        } else if (!remove && at < 0) {
            if (nn >= V2_MAX_CERTS)
                return sc_fail(err, SC_ERR_VALIDATION, "Too many certificates");
            next[nn++] = certs[i];
        }
    }
    for (int i = 0; i < nn; i++) {
        next[i] = sa_keep(&l->pa, next[i]);
        if (!next[i])
            return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    }
    memcpy(l->certv, next, sizeof(next[0]) * (size_t)nn);
    l->v.ncertificates = nn;
    return SC_OK;
}

/* --- rules ------------------------------------------------------------------------------------ */

static int rules_of_lb(const struct sc_elbv2 *v2, const char *lb_arn)
{
    int n = 0;

    for (int i = 0; i < v2->nrules; i++) {
        const struct lisrec *l = v2_lis(v2, v2->rules[i]->v.listener_arn);

        n += !v2->rules[i]->v.is_default && l && strcmp(l->v.load_balancer_arn, lb_arn) == 0;
    }
    return n;
}

static int priority_taken(const struct sc_elbv2 *v2, const char *listener_arn, int priority,
                          const struct rulerec *self)
{
    for (int i = 0; i < v2->nrules; i++) {
        const struct rulerec *r = v2->rules[i];

        if (r != self && !r->v.is_default && r->v.priority == priority &&
            strcmp(r->v.listener_arn, listener_arn) == 0)
            return 1;
    }
    return 0;
}

static int set_rule_conditions(struct rulerec *r, const struct sc_elbv2_condition *c, int n)
{
    struct sarena fresh = { 0 };
    struct sc_elbv2_condition conds[SC_ELBV2_MAX_CONDITIONS];

    if (v2_copy_conditions(conds, &fresh, c, n) != 0) {
        sa_free(&fresh);
        return -1;
    }
    sa_free(&r->ca);
    r->ca = fresh;
    memcpy(r->conds, conds, sizeof(conds[0]) * (size_t)n);
    r->v.conditions = r->conds;
    r->v.nconditions = n;
    return 0;
}

enum sc_status sc_elbv2_create_rule(struct sc_elbv2 *v2, const struct sc_elbv2_rule_req *r,
                                    int64_t now_ms, const struct sc_elbv2_rule **out,
                                    struct sc_error *err)
{
    struct lisrec *l = v2_lis(v2, r->listener_arn);
    struct lbrec *b = l ? v2_lb(v2, l->v.load_balancer_arn) : NULL;
    struct rulerec *rr;
    enum sc_status st;

    (void)now_ms;
    if (!l || !b)
        return v2_not_found_listener(err);
    if (!v2_is_alb(b))
        return sc_fail(err, SC_ERR_VALIDATION,
                       "Rules can only be created on listeners of Application Load Balancers");
    if (!r->has_priority || r->priority < 1 || r->priority > 50000)
        return sc_fail(err, SC_ERR_VALIDATION, "Priority '%d' must be between 1 and 50000",
                       r->has_priority ? r->priority : 0);
    st = v2_check_conditions(r->conditions, r->nconditions, err);
    if (st != SC_OK)
        return st;
    if (r->nactions < 1)
        return sc_fail(err, SC_ERR_VALIDATION, "A rule must have at least one action");
    st = v2_check_actions(v2, b, l->v.protocol, r->actions, r->nactions, err);
    if (st != SC_OK)
        return st;
    st = v2_check_tags(r->tags, r->ntags, err);
    if (st != SC_OK)
        return st;
    if (priority_taken(v2, l->v.arn, r->priority, NULL))
        return sc_fail(err, SC_ERR_PRIORITY_IN_USE, "Priority '%d' is currently in use",
                       r->priority);
    if (rules_of_lb(v2, b->v.arn) >= SC_ELBV2_MAX_RULES)
        return sc_fail(err, SC_ERR_TOO_MANY_RULES,
                       "You've reached the limit on the number of rules per load balancer");
    if (v2_grow(&v2->rules, v2->nrules, &v2->caprules, sizeof(*v2->rules)) != 0)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    rr = new_rule(v2, l, 0);
    if (!rr || set_rule_conditions(rr, r->conditions, r->nconditions) != 0 ||
        set_rule_actions(rr, r->actions, r->nactions) != 0 ||
        v2_tags_add(&rr->tags, r->tags, r->ntags, err) != SC_OK) {
        v2_rule_free(rr);
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    }
    rr->v.priority = r->priority;
    v2->rules[v2->nrules++] = rr;
    v2_sync(v2);
    if (out)
        *out = &rr->v;
    return SC_OK;
}

enum sc_status sc_elbv2_modify_rule(struct sc_elbv2 *v2, const char *arn,
                                    const struct sc_elbv2_rule_req *r, int64_t now_ms,
                                    const struct sc_elbv2_rule **out, struct sc_error *err)
{
    struct rulerec *rr = v2_rule(v2, arn);
    struct lisrec *l = rr ? v2_lis(v2, rr->v.listener_arn) : NULL;
    struct lbrec *b = l ? v2_lb(v2, l->v.load_balancer_arn) : NULL;
    enum sc_status st;

    (void)now_ms;
    if (!rr || !b)
        return v2_not_found_rule(err);
    if (r->conditions && rr->v.is_default)
        return sc_fail(err, SC_ERR_OPERATION_NOT_PERMITTED,
                       "Conditions cannot be set on the default rule '%s'", arn);
    if (r->conditions) {
        st = v2_check_conditions(r->conditions, r->nconditions, err);
        if (st != SC_OK)
            return st;
    }
    if (r->actions) {
        st = v2_check_actions(v2, b, l->v.protocol, r->actions, r->nactions, err);
        if (st != SC_OK)
            return st;
    }
    if ((r->conditions && set_rule_conditions(rr, r->conditions, r->nconditions) != 0) ||
        (r->actions && set_rule_actions(rr, r->actions, r->nactions) != 0))
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    v2_sync(v2);
    if (out)
        *out = &rr->v;
    return SC_OK;
}

enum sc_status sc_elbv2_delete_rule(struct sc_elbv2 *v2, const char *arn, int64_t now_ms,
                                    struct sc_error *err)
{
    (void)now_ms;
    for (int i = 0; i < v2->nrules; i++) {
        if (!arn || strcmp(v2->rules[i]->v.arn, arn) != 0)
            continue;
        if (v2->rules[i]->v.is_default)
            return sc_fail(err, SC_ERR_OPERATION_NOT_PERMITTED,
                           "Default rule '%s' cannot be deleted", arn);
        v2_rule_free(v2->rules[i]);
        memmove(&v2->rules[i], &v2->rules[i + 1],
                (size_t)(v2->nrules - i - 1) * sizeof(*v2->rules));
        v2->nrules--;
        v2_sync(v2);
        return SC_OK;
    }
    return v2_not_found_rule(err);
}

enum sc_status sc_elbv2_set_rule_priorities(struct sc_elbv2 *v2, const char *const *arns,
                                            const int *priorities, int n, int64_t now_ms,
                                            struct sc_error *err)
{
    int saved[64];

    (void)now_ms;
    if (n > 64)
        return sc_fail(err, SC_ERR_VALIDATION, "Too many rules in one call");
    for (int i = 0; i < n; i++) {
        struct rulerec *r = v2_rule(v2, arns[i]);

        if (!r)
            return v2_not_found_rule(err);
        if (r->v.is_default)
            return sc_fail(err, SC_ERR_OPERATION_NOT_PERMITTED,
                           "Default rule '%s' cannot be modified", arns[i]);
        if (priorities[i] < 1 || priorities[i] > 50000)
            return sc_fail(err, SC_ERR_VALIDATION, "Priority '%d' must be between 1 and 50000",
                           priorities[i]);
    }
    for (int i = 0; i < n; i++) {
        struct rulerec *r = v2_rule(v2, arns[i]);

        saved[i] = r->v.priority;
        r->v.priority = priorities[i];
    }
    for (int i = 0; i < n; i++) {
        struct rulerec *r = v2_rule(v2, arns[i]);

        if (priority_taken(v2, r->v.listener_arn, r->v.priority, r)) {
            int p = r->v.priority;

            for (int k = 0; k < n; k++)
                v2_rule(v2, arns[k])->v.priority = saved[k];
            return sc_fail(err, SC_ERR_PRIORITY_IN_USE, "Priority '%d' is currently in use", p);
        }
    }
    v2_sync(v2);
    return SC_OK;
}

const struct sc_elbv2_rule *sc_elbv2_rule_find(const struct sc_elbv2 *v2, const char *arn)
{
    struct rulerec *r = v2_rule(v2, arn);

    return r ? &r->v : NULL;
}

int sc_elbv2_rule_count(const struct sc_elbv2 *v2)
{
    return v2->nrules;
}

enum sc_status sc_elbv2_describe_rules(const struct sc_elbv2 *v2, const char *listener_arn,
                                       const char *const *arns, int narns,
                                       const struct sc_elbv2_rule **out, int *nout,
                                       struct sc_error *err)
{
    *nout = 0;
    if (listener_arn && narns > 0)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "Rule ARNs and a listener ARN cannot be specified at the same time");
    if (!listener_arn && narns == 0)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "You must specify either rule ARNs or a listener ARN");
    if (listener_arn) {
        const struct lisrec *l = v2_lis(v2, listener_arn);

        if (!l)
            return v2_not_found_listener(err);
        for (int i = 0; i < l->v.nrules; i++)
            out[(*nout)++] = l->v.rules[i];
        return SC_OK;
    }
    for (int i = 0; i < narns; i++) {
        const struct sc_elbv2_rule *r = sc_elbv2_rule_find(v2, arns[i]);

        if (!r)
            return v2_not_found_rule(err);
        out[(*nout)++] = r;
    }
    return SC_OK;
}
