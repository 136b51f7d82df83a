/* scaler/elb_health.c: health checks (ConfigureHealthCheck), effective health
 * (DescribeInstanceHealth), registration, health bookkeeping and routing, draining. */
#include "scaler/elb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scaler/elb_internal.h"
#include "scaler/rec.h"

#define DESC_REGISTERING "Instance registration is still in progress."
#define DESC_FAILED                                                                                \
    "Instance has failed at least the UnhealthyThreshold number of health checks "                 \
    "consecutively."
#define DESC_RECOVERING                                                                            \
    "Instance has not passed the configured HealthyThreshold number of health checks "             \
    "consecutively."
#define DESC_DEREGISTERING  "Instance deregistration currently in progress."
#define DESC_NOT_REGISTERED "Instance is not currently registered with the LoadBalancer."
#define DESC_ZONE_OFF                                                                              \
    "Instance is in the EC2 Availability Zone for which LoadBalancer is not configured to "        \
    "route traffic to."
#define DESC_ZONE_DISABLING "Disable Availability Zone is currently in progress."

/* --- health check ----------------------------------------------------------------------------- */

int sc_elb_hc_target_parse(const char *target, struct sc_elb_hc_target *out)
{
    const char *colon, *p;
    long port = 0;
    int digits = 0;
    struct sc_elb_hc_target t = { 0 };

    if (!target || strlen(target) > 1024)
        return -1;
    colon = strchr(target, ':');
    if (!colon)
        return -1;
    if ((size_t)(colon - target) == 3 && strncmp(target, "TCP", 3) == 0)
        t.protocol = SC_ELB_HC_TCP;
    else if ((size_t)(colon - target) == 3 && strncmp(target, "SSL", 3) == 0)
        t.protocol = SC_ELB_HC_SSL;
    else if ((size_t)(colon - target) == 4 && strncmp(target, "HTTP", 4) == 0)
        t.protocol = SC_ELB_HC_HTTP;
    else if ((size_t)(colon - target) == 5 && strncmp(target, "HTTPS", 5) == 0)
        t.protocol = SC_ELB_HC_HTTPS;
    else
        return -1;
    for (p = colon + 1; *p >= '0' && *p <= '9'; p++) {
        port = port * 10 + (*p - '0');
        if (++digits > 5)
            return -1;
    }
    if (!digits || port < 1 || port > 65535)
        return -1;
    t.port = (int)port;
    if (t.protocol == SC_ELB_HC_TCP || t.protocol == SC_ELB_HC_SSL) {
        if (*p)
            return -1;
    } else {
        if (*p != '/')
            return -1;
        t.path = p;
    }
    if (out)
        *out = t;
    return 0;
}

static enum sc_status range_error(const char *field, int v, int lo, int hi, struct sc_error *err)
{
    return sc_fail(err, SC_ERR_VALIDATION,
                   "1 validation error detected: Value '%d' at 'healthCheck.%s' failed to satisfy "
                   "constraint: Member must have value %s than or equal to %d",
                   v, field, v < lo ? "greater" : "less", v < lo ? lo : hi);
}

enum sc_status sc_elb_configure_health_check(struct sc_elb *elb, const char *name,
                                             const struct sc_elb_health_check *hc, int64_t now_ms,
                                             const struct sc_elb_health_check **out,
                                             struct sc_error *err)
{
    struct lb *b;
    enum sc_status st;
    char *target;

    (void)now_ms;
    st = elb_lb_lookup(elb, name, &b, err);
    if (st != SC_OK)
        return st;
    if (!hc->target || !*hc->target)
        return elb_null_member("healthCheck.target", err);
    if (strlen(hc->target) > 1024)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "1 validation error detected: Value at 'healthCheck.target' failed to "
                       "satisfy constraint: Member must have length less than or equal to 1024");
    if (sc_elb_hc_target_parse(hc->target, NULL) < 0) {
        if ((strncmp(hc->target, "HTTP:", 5) == 0 || strncmp(hc->target, "HTTPS:", 6) == 0) &&
            !strchr(strchr(hc->target, ':'), '/'))
            return sc_fail(err, SC_ERR_VALIDATION,
                           "Ping path is required for HTTP and HTTPS health checks: %s",
                           hc->target);
        return sc_fail(err, SC_ERR_VALIDATION,
                       "Invalid health check target: %s. The target must be TCP:port, SSL:port, "
                       "HTTP:port/path or HTTPS:port/path with a port from 1 to 65535.",
                       hc->target);
    }
    if (hc->interval_s < 5 || hc->interval_s > 300)
        return range_error("interval", hc->interval_s, 5, 300, err);
    if (hc->timeout_s < 2 || hc->timeout_s > 60)
        return range_error("timeout", hc->timeout_s, 2, 60, err);
    if (hc->unhealthy_threshold < 2 || hc->unhealthy_threshold > 10)
        return range_error("unhealthyThreshold", hc->unhealthy_threshold, 2, 10, err);
    if (hc->healthy_threshold < 2 || hc->healthy_threshold > 10)
        return range_error("healthyThreshold", hc->healthy_threshold, 2, 10, err);
    if (hc->timeout_s >= hc->interval_s)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "Health check interval must be greater than the timeout.");
    target = sc_strdup(hc->target);
    if (!target)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    free(b->hc_target);
    b->hc_target = target;
    b->v.health_check.interval_s = hc->interval_s;
    b->v.health_check.timeout_s = hc->timeout_s;
    b->v.health_check.unhealthy_threshold = hc->unhealthy_threshold;
    b->v.health_check.healthy_threshold = hc->healthy_threshold;
    elb_lb_sync(b);
    if (out)
        *out = &b->v.health_check;
    return SC_OK;
}

/* --- draining helpers ------------------------------------------------------------------------- */

void elb_reg_remove(struct lb *b, int i)
{
    if (b->regs[i]->drain != DRAIN_NONE)
        b->ndrain--;
    free(b->regs[i]);
    memmove(&b->regs[i], &b->regs[i + 1], (size_t)(b->nregs - i - 1) * sizeof(b->regs[0]));
    b->nregs--;
}

/* Registration r (of an InService instance) starts draining for the LB's draining timeout. */
void elb_drain_start(struct lb *b, struct reg *r, enum drain_kind kind, int64_t now_ms)
{
    r->drain = kind;
    b->ndrain++;
    r->drain_deadline_ms = now_ms + (int64_t)b->v.attributes.connection_draining_timeout_s * 1000;
}

/* Registration r stays, no longer draining. */
static void drain_stop(struct lb *b, struct reg *r)
{
    if (r->drain != DRAIN_NONE)
        b->ndrain--;
    r->drain = DRAIN_NONE;
    r->drain_deadline_ms = 0;
}

/* Ends the drain of registration i; returns 1 when the registration was removed. */
int elb_drain_end(struct lb *b, int i)
{
    if (b->regs[i]->drain == DRAIN_DEREGISTER) {
        elb_reg_remove(b, i);
        return 1;
    }
    drain_stop(b, b->regs[i]);
    return 0;
}

void elb_reset_health(struct reg *r)
{
    memset(&r->health, 0, sizeof(r->health));
}

int elb_zone_enabled(const struct lb *b, const char *zone)
{
    for (int i = 0; zone && i < b->nzones; i++) {
        if (strcmp(b->zones[i], zone) == 0)
            return 1;
    }
    return 0;
}

/* --- effective health ------------------------------------------------------------------------- */

struct row {
    enum sc_elb_state state;
    const char *reason;
    const char *desc;
};

static const char *ec2_state_desc(enum sc_ec2_state s)
{
    switch (s) {
    case SC_EC2_PENDING:
        return "Instance is in pending state.";
    case SC_EC2_SHUTTING_DOWN:
        return "Instance is in shutting-down state.";
    case SC_EC2_STOPPING:
        return "Instance is in stopping state.";
    case SC_EC2_STOPPED:
        return "Instance is in stopped state.";
    case SC_EC2_RUNNING:
        break;
    case SC_EC2_TERMINATED:
        return "Instance is in terminated state.";
    }
    return "Instance is in terminated state.";
}

/* DescribeInstanceHealth's row for registration r (NULL: not registered). */
static struct row health_row(const struct sc_elb *elb, const struct lb *b, const struct reg *r,
                             const char *id)
{
    const struct sc_ec2_instance *in = sc_ec2_instance_find(elb->ec2, id);

    if (!r)
        return (struct row){ SC_ELB_OUT_OF_SERVICE, "N/A", DESC_NOT_REGISTERED };
    if (r->drain == DRAIN_DEREGISTER)
        return (struct row){ SC_ELB_IN_SERVICE, "N/A", DESC_DEREGISTERING };
    if (r->drain == DRAIN_ZONE)
        return (struct row){ SC_ELB_OUT_OF_SERVICE, "ELB", DESC_ZONE_DISABLING };
    if (!in || in->state != SC_EC2_RUNNING)
        return (struct row){ SC_ELB_OUT_OF_SERVICE, "Instance",
                             ec2_state_desc(in ? in->state : SC_EC2_TERMINATED) };
    if (!elb_zone_enabled(b, in->availability_zone))
        return (struct row){ SC_ELB_OUT_OF_SERVICE, "ELB", DESC_ZONE_OFF };
    if (r->health.in_service)
        return (struct row){ SC_ELB_IN_SERVICE, "N/A", "N/A" };
    if (!r->health.ever_in_service && !r->health.failed_out)
        return (struct row){ SC_ELB_OUT_OF_SERVICE, "ELB", DESC_REGISTERING };
    if (r->health.consec_ok > 0)
        return (struct row){ SC_ELB_OUT_OF_SERVICE, "Instance", DESC_RECOVERING };
    return (struct row){ SC_ELB_OUT_OF_SERVICE, "Instance", DESC_FAILED };
}

int elb_reg_routable(const struct sc_elb *elb, const struct lb *b, const struct reg *r)
{
    return r->drain == DRAIN_NONE && health_row(elb, b, r, r->id).state == SC_ELB_IN_SERVICE;
}

const char *sc_elb_state_name(enum sc_elb_state s)
{
    switch (s) {
    case SC_ELB_IN_SERVICE:
        return "InService";
    case SC_ELB_OUT_OF_SERVICE:
        return "OutOfService";
    case SC_ELB_UNKNOWN:
        return "Unknown";
    }
    return "Unknown";
}

/* --- registration ----------------------------------------------------------------------------- */

static enum sc_status invalid_instance(const char *id, struct sc_error *err)
{
    return sc_fail(err, SC_ERR_INVALID_INSTANCE, "Could not find EC2 instance %s.", id ? id : "");
}

enum sc_status sc_elb_register_instances(struct sc_elb *elb, const char *name,
                                         const char *const *ids, int nids, int64_t now_ms,
                                         struct sc_error *err)
{
    struct lb *b;
    enum sc_status st;
    int add = 0;

    st = elb_lb_lookup(elb, name, &b, err);
    if (st != SC_OK)
        return st;
    for (int i = 0; i < nids; i++) {
        const struct sc_ec2_instance *in = sc_ec2_instance_find(elb->ec2, ids[i]);

        if (!in || in->state == SC_EC2_TERMINATED || in->state == SC_EC2_SHUTTING_DOWN)
            return invalid_instance(ids[i], err);
        if (b->v.vpc_id && in->vpc_id && strcmp(b->v.vpc_id, in->vpc_id) != 0)
            return sc_fail(err, SC_ERR_INVALID_INSTANCE,
                           "EC2 instance %s is not in the same VPC as ELB.", ids[i]);
        if (!elb_lb_reg_find(b, ids[i], NULL))
            add++;
    }
    /* room first, so the additions cannot fail half-way */
    while (b->nregs + add > b->capregs) {
        int nc = b->capregs ? b->capregs * 2 : 8;
        struct reg **nr = realloc(b->regs, (size_t)nc * sizeof(*nr));
        const char **nv;

        if (!nr)
            return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
        b->regs = nr;
        nv = realloc(b->inst_view, (size_t)nc * sizeof(*nv));
        if (!nv)
            return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
        b->inst_view = nv;
        b->capregs = nc;
    }
    for (int i = 0; i < nids; i++) {
        struct reg *r = elb_lb_reg_find(b, ids[i], NULL);

        if (r) {
            if (r->drain == DRAIN_DEREGISTER)
                drain_stop(b, r);
            continue;
        }
        r = calloc(1, sizeof(*r));
        if (!r) {
            elb_lb_sync(b);
            return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
        }
        snprintf(r->id, sizeof(r->id), "%s", ids[i]);
        r->registered_ms = now_ms;
        b->regs[b->nregs++] = r;
    }
    elb_lb_sync(b);
    return SC_OK;
}

enum sc_status sc_elb_deregister_instances(struct sc_elb *elb, const char *name,
                                           const char *const *ids, int nids, int64_t now_ms,
                                           struct sc_error *err)
{
    struct lb *b;
    enum sc_status st;

    st = elb_lb_lookup(elb, name, &b, err);
    if (st != SC_OK)
        return st;
    for (int i = 0; i < nids; i++) {
        if (!sc_ec2_instance_find(elb->ec2, ids[i]) && !elb_lb_reg_find(b, ids[i], NULL))
            return invalid_instance(ids[i], err);
    }
    for (int i = 0; i < nids; i++) {
        int k;
        struct reg *r = elb_lb_reg_find(b, ids[i], &k);

        if (!r || r->drain == DRAIN_DEREGISTER)
            continue;
        if (b->v.attributes.connection_draining_enabled && r->drain == DRAIN_NONE &&
            elb_reg_routable(elb, b, r)) {
            elb_drain_start(b, r, DRAIN_DEREGISTER, now_ms);
            continue;
        }
        elb_reg_remove(b, k);
    }
    elb_lb_sync(b);
    return SC_OK;
}

enum sc_status sc_elb_describe_instance_health(const struct sc_elb *elb, const char *name,
                                               const char *const *ids, int nids,
                                               struct sc_elb_instance_health *out, int *nout,
                                               struct sc_error *err)
{
    struct lb *b;
    enum sc_status st;
    int n = 0;

    *nout = 0;
    st = elb_lb_lookup(elb, name, &b, err);
    if (st != SC_OK)
        return st;
    for (int i = 0; i < nids; i++) {
        if (!sc_ec2_instance_find(elb->ec2, ids[i]))
            return invalid_instance(ids[i], err);
    }
    for (int i = 0; i < (nids ? nids : b->nregs); i++) {
        const struct reg *r = nids ? elb_lb_reg_find(b, ids[i], NULL) : b->regs[i];
        const char *id = nids ? ids[i] : r->id;
        struct row row = health_row(elb, b, r, id);

        out[n].instance_id = r ? r->id : id;
        out[n].state = row.state;
        out[n].state_name = sc_elb_state_name(row.state);
        out[n].reason_code = row.reason;
        out[n].description = row.desc;
        n++;
    }
    *nout = n;
    return SC_OK;
}

/* --- health bookkeeping and routing ----------------------------------------------------------- */

int sc_elb_health_step(struct sc_elb_health *h, int ok, int healthy_threshold,
                       int unhealthy_threshold)
{
    if (ok) {
        h->consec_ok++;
        h->consec_fail = 0;
        if (!h->in_service &&
            ((!h->ever_in_service && !h->failed_out) || h->consec_ok >= healthy_threshold)) {
            h->in_service = 1;
            h->ever_in_service = 1;
            h->failed_out = 0;
        }
    } else {
        h->consec_fail++;
        h->consec_ok = 0;
        if (h->consec_fail >= unhealthy_threshold) {
            if (h->in_service || !h->ever_in_service)
                h->failed_out = 1;
            h->in_service = 0;
        }
    }
    return h->in_service;
}

/* Registration k's drain ends if its timeout has passed by now_ms, as sc_elb_step(now_ms)
 * would end it, so a report sees the registration as it stands at now_ms. Returns 1 when
 * the drain ended; *removed tells whether the registration went with it. */
static int drain_expire(struct lb *b, int k, int64_t now_ms, int *removed)
{
    *removed = 0;
    if (b->regs[k]->drain == DRAIN_NONE || now_ms < b->regs[k]->drain_deadline_ms)
        return 0;
    *removed = elb_drain_end(b, k);
    elb_lb_sync(b);
    return 1;
}

int sc_elb_health_result(struct sc_elb *elb, const char *name, const char *instance_id, int ok,
                         int64_t now_ms)
{
    struct lb *b = elb_lb_find(elb, name);
    struct reg *r;
    int k, removed;

    if (!b)
        return -1;
    r = elb_lb_reg_find(b, instance_id, &k);
    if (!r)
        return -1;
    drain_expire(b, k, now_ms, &removed);
    if (removed)
        return -1; /* deregistered by its drain's timeout */
    sc_elb_health_step(&r->health, ok, b->v.health_check.healthy_threshold,
                       b->v.health_check.unhealthy_threshold);
    /* draining does not hold an unhealthy instance */
    if (!ok && !r->health.in_service && r->drain != DRAIN_NONE) {
        removed = elb_drain_end(b, k);
        elb_lb_sync(b);
        if (removed)
            return 0;
    }
    return r->health.in_service;
}

int sc_elb_target_count(const struct sc_elb *elb, const char *name)
{
    const struct lb *b = elb_lb_find(elb, name);

    return b ? b->nregs : -1;
}

int sc_elb_target_at(const struct sc_elb *elb, const char *name, int i, struct sc_elb_target *out)
{
    const struct lb *b = elb_lb_find(elb, name);
    const struct reg *r;
    const struct sc_ec2_instance *in;

    if (!b || i < 0 || i >= b->nregs)
        return -1;
    r = b->regs[i];
    in = sc_ec2_instance_find(elb->ec2, r->id);
    memset(out, 0, sizeof(*out));
    out->instance_id = r->id;
    out->availability_zone = in ? in->availability_zone : NULL;
    out->state = health_row(elb, b, r, r->id).state;
    out->routable = elb_reg_routable(elb, b, r);
    out->draining = r->drain != DRAIN_NONE;
    out->checked = in && in->state == SC_EC2_RUNNING;
    out->registered_ms = r->registered_ms;
    out->drain_deadline_ms = r->drain_deadline_ms;
    return 0;
}

int sc_elb_instance_in_service(const struct sc_elb *elb, const char *name, const char *instance_id)
{
    struct lb *b;
    const struct reg *r = elb_reg_find(elb, name, instance_id, &b);

    return r && health_row(elb, b, r, r->id).state == SC_ELB_IN_SERVICE;
}

int sc_elb_routable(const struct sc_elb *elb, const char *name, const char *instance_id)
{
    struct lb *b;
    const struct reg *r = elb_reg_find(elb, name, instance_id, &b);

    return r && elb_reg_routable(elb, b, r);
}

/* Instance of registration r is in zone (any zone when NULL). */
static int reg_in_zone(const struct sc_elb *elb, const struct reg *r, const char *zone)
{
    const struct sc_ec2_instance *in = zone ? sc_ec2_instance_find(elb->ec2, r->id) : NULL;

    return !zone || (in && strcmp(in->availability_zone, zone) == 0);
}

int sc_elb_route_set(const struct sc_elb *elb, const char *name, const char *zone, const char **ids,
                     int cap)
{
    const struct lb *b = elb_lb_find(elb, name);
    int n = 0;
    int all;

    if (!b)
        return -1;
    all = !zone || b->v.attributes.cross_zone_enabled;
    for (int i = 0; i < b->nregs; i++) {
        const struct reg *r = b->regs[i];

        if (!elb_reg_routable(elb, b, r) || (!all && !reg_in_zone(elb, r, zone)))
            continue;
        if (n < cap && ids)
            ids[n] = r->id;
        n++;
    }
    return n;
}

int sc_elb_drain_done(struct sc_elb *elb, const char *name, const char *instance_id, int64_t now_ms)
{
    struct lb *b = elb_lb_find(elb, name);
    struct reg *r;
    int k, removed;

    if (!b)
        return -1;
    r = elb_lb_reg_find(b, instance_id, &k);
    if (!r || r->drain == DRAIN_NONE)
        return 0;
    /* it ends now, as its timeout would have ended it had that passed by now_ms */
    if (!drain_expire(b, k, now_ms, &removed)) {
        elb_drain_end(b, k);
        elb_lb_sync(b);
    }
    return 1;
}

int sc_elb_instance_draining(const struct sc_elb *elb, const char *name, const char *instance_id)
{
    struct lb *b;
    const struct reg *r = elb_reg_find(elb, name, instance_id, &b);

    return r && r->drain != DRAIN_NONE;
}

int sc_elb_draining_anywhere(const struct sc_elb *elb, const char *instance_id)
{
    for (int i = 0; i < elb->nlbs; i++) {
        const struct reg *r = elb_lb_reg_find(elb->lbs[i], instance_id, NULL);

        if (r && r->drain == DRAIN_DEREGISTER)
            return 1;
    }
    return 0;
}

int sc_elb_registered_anywhere(const struct sc_elb *elb, const char *instance_id)
{
    for (int i = 0; i < elb->nlbs; i++) {
        if (elb_lb_reg_find(elb->lbs[i], instance_id, NULL))
            return 1;
    }
    return 0;
}

int sc_elb_instance_registered(const struct sc_elb *elb, const char *name, const char *instance_id)
{
    struct lb *b;

    return elb_reg_find(elb, name, instance_id, &b) != NULL;
}

enum sc_elb_membership sc_elb_instance_membership(const struct sc_elb *elb, const char *name,
                                                  const char *instance_id)
{
    struct lb *b;
    const struct reg *r = elb_reg_find(elb, name, instance_id, &b);
    struct row row;

    if (!r)
        return SC_ELB_MEMBER_NONE;
    if (r->drain == DRAIN_DEREGISTER)
        return SC_ELB_MEMBER_DRAINING;
    row = health_row(elb, b, r, r->id);
    if (row.state == SC_ELB_IN_SERVICE)
        return SC_ELB_MEMBER_IN_SERVICE;
    if (strcmp(row.desc, DESC_REGISTERING) == 0)
        return SC_ELB_MEMBER_REGISTERING;
    return SC_ELB_MEMBER_OUT_OF_SERVICE;
}

int sc_elb_host_counts(const struct sc_elb *elb, const char *name, const char *zone, int *healthy,
                       int *unhealthy)
{
    const struct lb *b = elb_lb_find(elb, name);
    int h = 0, u = 0;

    if (!b)
        return -1;
    for (int i = 0; i < b->nregs; i++) {
        const struct reg *r = b->regs[i];

        if (r->drain == DRAIN_DEREGISTER || !reg_in_zone(elb, r, zone))
            continue;
        if (health_row(elb, b, r, r->id).state == SC_ELB_IN_SERVICE)
            h++;
        else
            u++;
    }
    if (healthy)
        *healthy = h;
    if (unhealthy)
        *unhealthy = u;
    return 0;
}
