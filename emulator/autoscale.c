/* emulator/autoscale.c: see autoscale.h. */
#include "emulator/autoscale_internal.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "common/base64.h"
#include "common/buf.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "emulator/balancer.h"
#include "emulator/events.h"
#include "emulator/health.h"
#include "emulator/instance.h"
#include "emulator/lb.h"
#include "emulator/lb_tls.h"
#include "scaler/app.h"
#include "scaler/asg.h"
#include "scaler/ec2.h"
#include "scaler/elb.h"
#include "scaler/elbv2.h"
#include "scaler/world.h"

/* --- small helpers ---------------------------------------------------------------------- */

int64_t as_scaled_ms(const struct autoscale *a, double emulated_ms, int64_t min_ms)
{
    double v = emulated_ms / a->cfg.time_scale;

    return v < (double)min_ms ? min_ms : (int64_t)(v + 0.5);
}

/* A one-shot timer that steps the worlds (the kick and the launch bucket's refill). */
static int64_t step_once(struct autoscale *a, long *timer)
{
    *timer = 0;
    a->cfg.step(a->cfg.ud);
    return -1;
}

static int64_t on_kick(struct cm_ev *ev, int64_t now, void *ud)
{
    return (void)ev, (void)now, step_once(ud, &((struct autoscale *)ud)->kick_timer);
}

/* Asks for a world step soon (coalesced). */
void as_kick(struct autoscale *a)
{
    if (a->kick_timer == 0)
        a->kick_timer = cm_ev_add_timer(a->cfg.ev, 0, on_kick, a);
}

static int64_t on_launch_timer(struct cm_ev *ev, int64_t now, void *ud)
{
    return (void)ev, (void)now, step_once(ud, &((struct autoscale *)ud)->launch_timer);
}

/* Takes a token for one process start (1), or arms the timer that steps again when the
 * next one is there (0): the bucket refills at launch_rate per real second and holds a
 * tenth of a second's worth, at least one. A start's own time earns nothing (spawn()
 * moves the refill mark past it), else slow starts would refill what they take. */
static int launch_token(struct autoscale *a)
{
    double rate = a->cfg.launch_rate, cap = rate / 10.0 < 1.0 ? 1.0 : rate / 10.0;
    int64_t now = cm_ev_now_ms();

    a->launch_tokens += (double)(now - a->launch_tokens_ms) * rate / 1000.0;
    a->launch_tokens_ms = now;
    if (a->launch_tokens > cap)
        a->launch_tokens = cap;
    if (a->launch_tokens >= 1.0) {
        a->launch_tokens -= 1.0;
        return 1;
    }
    if (a->launch_timer == 0) {
        int64_t wait = (int64_t)ceil((1.0 - a->launch_tokens) * 1000.0 / rate);

        a->launch_timer = cm_ev_add_timer(a->cfg.ev, wait < 1 ? 1 : wait, on_launch_timer, a);
    }
    return 0;
}

struct proc *as_proc_find(const struct autoscale *a, const struct sc_world *w, const char *id)
{
    for (int i = 0; i < a->nprocs; i++) {
        if (a->procs[i]->w == w && strcmp(a->procs[i]->id, id) == 0)
            return a->procs[i];
    }
    return NULL;
}

static struct proc *proc_by_id(const struct autoscale *a, const char *id)
{
    for (int i = 0; i < a->nprocs; i++) {
        if (strcmp(a->procs[i]->id, id) == 0)
            return a->procs[i];
    }
    return NULL;
}

static void proc_free(struct proc *p)
{
    as_fetch_end(p);
    free(p);
}

static void proc_drop(struct autoscale *a, struct proc *p)
{
    for (int i = 0; i < a->nprocs; i++) {
        if (a->procs[i] == p) {
            a->procs[i] = a->procs[--a->nprocs];
            proc_free(p);
            return;
        }
    }
}

/* The real port serving instance_port on p: made on first use (a listening socket handed
 * to the instance). 0 while the instance is not listening or the hand-over failed. */
int as_target_port(struct autoscale *a, const struct sc_world *w, const char *target_type,
                   const char *id, int port)
{
    struct in_addr ip;

    if (target_type && strcmp(target_type, "ip") == 0)
        return inet_pton(AF_INET, id, &ip) == 1 && (ntohl(ip.s_addr) >> 24) == 127 && port > 0 &&
                       port < 65536
                   ? port
                   : 0;
    return as_proc_port_for(a, as_proc_find(a, w, id), port);
}

int as_proc_port_for(struct autoscale *a, struct proc *p, int instance_port)
{
    char err[256];
    int port;

    if (!p || p->exited || p->port <= 0)
        return 0;
    for (int i = 0; i < p->nmap; i++) {
        if (p->map_iport[i] == instance_port)
            return p->map_port[i];
    }
    if (p->nmap == PMAP_MAX)
        return p->port; /* more InstancePorts than we map: they share the instance's own */
    port = inst_add_port(a->im, p->id, err, sizeof(err));
    if (port <= 0) {
        log_warn("autoscale: %s", err);
        return 0;
    }
    p->map_iport[p->nmap] = instance_port;
    p->map_port[p->nmap++] = port;
    log_debug("autoscale: instance %s InstancePort %d on 127.0.0.1:%d", p->id, instance_port, port);
    return port;
}

/* The scalelab:ports tag ("80=41234,8080=41235") when the map grew. */
static void proc_tag_ports(struct sc_world *w, struct proc *p, int64_t now)
{
    char v[256];
    size_t k = 0;
    const char *ids[1] = { p->id };
    struct sc_ec2_tag tag = { "scalelab:ports", v };
    struct sc_error err;

    if (p->map_tagged == p->nmap || p->exited)
        return;
    v[0] = '\0';
    for (int i = 0; i < p->nmap && k < sizeof(v); i++)
        k += (size_t)snprintf(v + k, sizeof(v) - k, "%s%d=%d", i ? "," : "", p->map_iport[i],
                              p->map_port[i]);
    if (sc_ec2_create_tags(sc_world_ec2(w), ids, 1, &tag, 1, now, &err) == SC_OK)
        p->map_tagged = p->nmap;
}

/* The profile JSON of an instance from its UserData (JSON or base64 JSON), validated;
 * NULL = the default profile. *prof gets the parsed profile. */
static char *profile_of(const char *user_data, struct sc_app *prof, const char *id)
{
    char err[256];
    char *json = NULL;

    sc_app_defaults(prof);
    if (!user_data || !*user_data)
        return NULL;
    if (user_data[strspn(user_data, " \t\r\n")] == '{')
        json = cm_xstrdup(user_data);
    else
        json = cm_base64_decode(user_data, NULL);
    if (!json || json[strspn(json, " \t\r\n")] != '{') {
        free(json);
        return NULL; /* UserData that is not a profile: an ordinary script */
    }
    if (sc_app_parse_text(prof, json, err, sizeof(err)) != SC_OK) {
        log_warn("autoscale: instance %s: UserData profile ignored: %s", id, err);
        free(json);
        sc_app_defaults(prof);
        return NULL;
    }
    return json;
}

/* --- the event log ------------------------------------------------------------------- */

/* The event's members every data-plane event has: the world, the instance, its group. */
static json_t *event_fields(const struct proc *p)
{
    json_t *o = json_object();
    const struct sc_asg_group_info *g = sc_asg_instance_group(sc_world_asg(p->w), p->id, NULL);

    json_object_set_new(o, "account", json_string(sc_world_account(p->w)));
    json_object_set_new(o, "region", json_string(sc_world_region(p->w)));
    json_object_set_new(o, "instance_id", json_string(p->id));
    if (g)
        json_object_set_new(o, "group", json_string(g->auto_scaling_group_name));
    return o;
}

/* A process that died without being asked to: "killed by signal 9 (SIGKILL)" or "exited
 * on its own (status N)", from its wait status. */
static void note_exit(struct autoscale *a, const struct proc *p, int status)
{
    json_t *o = event_fields(p);
    char how[96];

    if (WIFSIGNALED(status)) {
        const char *abbrev = sigabbrev_np(WTERMSIG(status));

        snprintf(how, sizeof(how), "killed by signal %d (SIG%s)", WTERMSIG(status),
                 abbrev ? abbrev : "?");
        json_object_set_new(o, "signal", json_integer(WTERMSIG(status)));
    } else {
        snprintf(how, sizeof(how), "exited on its own (status %d)",
                 WIFEXITED(status) ? WEXITSTATUS(status) : status);
        json_object_set_new(o, "exit_status",
                            json_integer(WIFEXITED(status) ? WEXITSTATUS(status) : status));
    }
    json_object_set_new(o, "how", json_string(how));
    events_add(a->cfg.events, a->cfg.now_ms(a->cfg.ud), "exit", o, 1, "instance %s %s", p->id, how);
}

static void note_fault(struct autoscale *a, const struct proc *p, const char *what)
{
    json_t *o = event_fields(p);

    json_object_set_new(o, "fault", json_string(what));
    events_add(a->cfg.events, a->cfg.now_ms(a->cfg.ud), "fault", o, 0,
               "fault %s injected on instance %s (pid %ld)",
               strcmp(what, "kill") == 0 ? "kill -9" : what, p->id, (long)inst_pid(a->im, p->id));
}

/* --- instance processes -------------------------------------------------------------- */

static void on_instance(void *ud, const char *id, enum inst_event event, int port, int status)
{
    struct autoscale *a = ud;
    struct proc *p = proc_by_id(a, id);

    if (!p)
        return;
    if (event == INST_READY) {
        p->port = port;
        log_debug("autoscale: instance %s listening on %d", id, port);
    } else {
        p->exited = 1;
        if (!p->stopping)
            note_exit(a, p, status);
    }
    as_kick(a);
}

/* Returns 1 when the instance has no boot time (it will listen within milliseconds). */
static int spawn(struct autoscale *a, struct sc_world *w, const char *id, const char *user_data)
{
    struct sc_app prof;
    char *json = profile_of(user_data, &prof, id);
    struct proc *p = cm_xcalloc(1, sizeof(*p));
    const struct sc_ec2_instance *in = sc_ec2_instance_find(sc_world_ec2(w), id);
    char err[256];
    /* a start of an instance that was up before (StartInstances; a warm pool's warm start)
     * skips the profile's boot: it models the first boot (docs/dataplane.md, warm pools) */
    int restart = sc_ec2_instance_restarting(in);
    double boot_s = restart ? 0.0 : prof.boot_s;

    p->a = a;
    p->w = w;
    p->f.fd = -1;
    snprintf(p->id, sizeof(p->id), "%s", id);
    p->app = prof;
    PUSH(a->procs, a->nprocs, a->cap_procs, p);
    /* a manual clock: the process listens at once, the boot time passes on the clock */
    p->up_at_ms = (in ? in->launch_time_ms : 0) + (int64_t)(boot_s * 1000.0 + 0.5);
    if (inst_spawn(a->im, id, in ? in->availability_zone : NULL, json,
                   a->cfg.clock_manual ? 0 : as_scaled_ms(a, boot_s * 1000.0, 0), err,
                   sizeof(err)) < 0) {
        a->launch_tokens_ms = cm_ev_now_ms();
        log_error("autoscale: %s", err);
        p->exited = 1; /* reported lost at the next step */
    } else {
        a->launch_tokens_ms = cm_ev_now_ms();
        log_info("autoscale: instance %s starting (boot %.0f s emulated%s%s)", id, boot_s,
                 restart ? ", a restart" : "", a->cfg.clock_manual ? ", on the manual clock" : "");
    }
    free(json);
    return !p->exited && (boot_s == 0 || a->cfg.clock_manual);
}

static int sync_instances(struct autoscale *a, struct sc_world *w, int64_t now)
{
    struct sc_ec2 *ec2 = sc_world_ec2(w);
    int n = sc_ec2_instance_count(ec2), changed = 0, quick = 0;

    for (int i = 0; i < a->nprocs; i++) {
        if (a->procs[i]->w == w)
            a->procs[i]->tagged &= ~2; /* bit 2: seen in this pass */
    }
    for (int k = 0; k < n; k++) {
        const struct sc_ec2_instance *in = sc_ec2_instance_at(ec2, k);
        char id[SC_EC2_ID_LEN];
        enum sc_ec2_state st = in->state;
        struct proc *p;

        snprintf(id, sizeof(id), "%s", in->instance_id);
        p = as_proc_find(a, w, id);
        if (p)
            p->tagged |= 2;
        switch (st) {
        case SC_EC2_PENDING:
            if (!p) {
                if (!launch_token(a))
                    break; /* stays pending without a process until the timer */
                quick += spawn(a, w, id, in->user_data);
                p = as_proc_find(a, w, id);
                if (p)
                    p->tagged |= 2;
            } else if (p->exited) {
                changed |= sc_ec2_instance_lost(ec2, id, now) == SC_OK;
                proc_drop(a, p);
            } else if (p->hibernated) {
                /* a hibernated instance resumes where it was: its memory, its listening
                 * process; no boot and no start-up (docs/dataplane.md, Warm pools) */
                inst_hang(a->im, id, 0);
                p->hibernated = 0;
                changed |= sc_ec2_instance_running(ec2, id, now) == SC_OK;
                log_info("autoscale: instance %s resumed from hibernation", id);
            } else if (p->port > 0 && (!a->cfg.clock_manual || now >= p->up_at_ms)) {
                changed |= sc_ec2_instance_running(ec2, id, now) == SC_OK;
                if (!(p->tagged & 1)) {
                    char port[16];
                    const char *ids[1] = { id };
                    struct sc_ec2_tag tag = { "scalelab:port", port };
                    struct sc_error err;

                    snprintf(port, sizeof(port), "%d", p->port);
                    sc_ec2_create_tags(ec2, ids, 1, &tag, 1, now, &err);
                    p->tagged |= 1;
                }
            }
            break;
        case SC_EC2_RUNNING:
            if (!p || p->exited) {
                changed |= sc_ec2_instance_lost(ec2, id, now) == SC_OK;
                if (p)
                    proc_drop(a, p);
            } else if (p->hung != p->impaired) {
                changed |= sc_ec2_instance_set_impaired(ec2, id, p->hung, now) == SC_OK;
                p->impaired = p->hung;
            }
            break;
        case SC_EC2_SHUTTING_DOWN:
        case SC_EC2_STOPPING:
            if (!p || p->exited) {
                if (st == SC_EC2_SHUTTING_DOWN)
                    changed |= sc_ec2_instance_terminated(ec2, id, now) == SC_OK;
                else
                    changed |= sc_ec2_instance_stopped(ec2, id, now) == SC_OK;
                if (p)
                    proc_drop(a, p);
            } else if (st == SC_EC2_STOPPING && in->hibernated && p->port > 0 && !p->stopping) {
                /* hibernation: the process is paused, not ended (SIGSTOP) */
                if (!p->hibernated && inst_hang(a->im, id, 1) == 0)
                    p->hibernated = 1;
                if (p->hibernated)
                    changed |= sc_ec2_instance_stopped(ec2, id, now) == SC_OK;
            } else if (!p->stopping) {
                p->stopping = 1;
                inst_terminate(a->im, id);
            }
            break;
        default: /* terminated, stopped: nothing may run but a hibernated one's paused process */
            if (p && p->hibernated && st == SC_EC2_STOPPED && !p->exited)
                break;
            if (p && !p->exited && !p->stopping) {
                p->stopping = 1;
                inst_kill(a->im, id);
            } else if (p && p->exited) {
                proc_drop(a, p);
            }
            break;
        }
    }
    if (quick > 0) {
        /* no boot time: let the call that launched them see them running (a few ms; at
         * most 100 ms of the loop), then another round marks them */
        inst_wait_ready(a->im, 100);
        changed = 1;
    }
    /* processes whose record is gone */
    for (int i = 0; i < a->nprocs; i++) {
        struct proc *p = a->procs[i];

        if (p->w != w || (p->tagged & 2))
            continue;
        if (p->exited) {
            proc_drop(a, p);
            i--;
        } else if (!p->stopping) {
            p->stopping = 1;
            inst_kill(a->im, p->id);
        }
    }
    return changed;
}

/* --- load balancers ------------------------------------------------------------------ */

/* The counters of (w, lb), made on the first call. */
struct lbstat *as_lbstat_ensure(struct autoscale *a, struct sc_world *w, const char *lb)
{
    struct lbstat *s;

    for (int i = 0; i < a->nst; i++) {
        if (a->st[i]->w == w && strcmp(a->st[i]->lb, lb) == 0)
            return a->st[i];
    }
    s = cm_xcalloc(1, sizeof(*s));
    s->w = w;
    snprintf(s->lb, sizeof(s->lb), "%s", lb);
    PUSH(a->st, a->nst, a->cap_st, s);
    return s;
}

static void listener_free(struct listener *x)
{
    lb_listener_destroy(x->l);
    lb_tls_ctx_free(x->ctx); /* after the listener that borrows it */
    free(x);
}

/* The TLS context of a classic HTTPS/SSL listener: its SSLCertificateId's certificate (the
 * id's --certificate files, else the emulator's --tls-cert, else a self-signed one naming
 * the id's last part in its OU; no SNI: classic serves one certificate), remade for new
 * connections when the id changes; -1 when there is none. */
static int listener_tls_sync(struct autoscale *a, struct listener *x, const char *cert)
{
    struct lb_tls_opts o = { 0 };
    struct lb_tls_cert c;
    struct ssl_ctx_st *ctx;
    char err[1024];

    cert = cert ? cert : "";
    if (x->ctx && strcmp(x->cert, cert) == 0)
        return 0;
    lb_tls_cert_for(cert, a->cfg.cert_map, a->cfg.ncert_map, a->cfg.tls_cert, a->cfg.tls_key, &c);
    o.cert_file = c.cert_file;
    o.key_file = c.key_file;
    o.label = c.label;
    ctx = lb_tls_ctx_create_opts(&o, err, sizeof(err));
    if (!ctx) {
        if (!a->tls_failed)
            log_error("autoscale: HTTPS/SSL listeners cannot start: %s", err);
        a->tls_failed = 1;
        return x->ctx ? 0 : -1;
    }
    snprintf(x->cert, sizeof(x->cert), "%s", cert);
    if (x->l) {
        lb_listener_set_tls(x->l, ctx, 0);
        log_info("autoscale: load balancer %s listener %d serves certificate %s", x->lb, x->lb_port,
                 cert);
    }
    lb_tls_ctx_free(x->ctx); /* sessions still open hold their own reference */
    x->ctx = ctx;
    return 0;
}

/* The proxy of listener li of (w, lb): the running one when its settings still match, else
 * a new one (an old one on the same port is replaced); NULL when it cannot start. */
static struct listener *listener_ensure(struct autoscale *a, struct sc_world *w, const char *lb,
                                        const struct sc_elb_listener *li)
{
    enum lb_mode mode = (strcmp(li->protocol, "TCP") == 0 || strcmp(li->protocol, "SSL") == 0)
                            ? LB_MODE_TCP
                            : LB_MODE_HTTP;
    int tls = strcmp(li->protocol, "HTTPS") == 0 || strcmp(li->protocol, "SSL") == 0;
    struct listener *x;
    struct lb_config cfg;
    char name[64], err[256];

    for (int i = 0; i < a->nls; i++) {
        x = a->ls[i];
        if (x->w != w || strcmp(x->lb, lb) != 0 || x->lb_port != li->load_balancer_port)
            continue;
        if (x->mode == mode && x->tls == tls && x->instance_port == li->instance_port) {
            if (tls)
                listener_tls_sync(a, x, li->ssl_certificate_id);
            return x;
        }
        /* same port, other settings: rebuild */
        a->ls[i] = a->ls[--a->nls];
        listener_free(x);
        break;
    }
    x = cm_xcalloc(1, sizeof(*x));
    x->w = w;
    snprintf(x->lb, sizeof(x->lb), "%s", lb);
    x->lb_port = li->load_balancer_port;
    x->instance_port = li->instance_port;
    x->mode = mode;
    x->tls = tls;
    if (tls && listener_tls_sync(a, x, li->ssl_certificate_id) < 0) {
        free(x);
        return NULL;
    }
    memset(&cfg, 0, sizeof(cfg));
    cfg.tls = x->ctx;
    snprintf(name, sizeof(name), "%s:%d", lb, li->load_balancer_port);
    cfg.name = name;
    cfg.mode = mode;
    cfg.port = li->load_balancer_port;
    cfg.forwarded_port = li->load_balancer_port;
    x->l = lb_listener_create(a->cfg.ev, &cfg, err, sizeof(err));
    if (!x->l) {
        /* privileged or taken: an ephemeral port, in the status JSON and the log */
        cfg.port = 0;
        x->l = lb_listener_create(a->cfg.ev, &cfg, err, sizeof(err));
    }
    if (!x->l) {
        log_error("autoscale: listener %s: %s", name, err);
        listener_free(x);
        return NULL;
    }
    log_info("autoscale: load balancer %s listener %d (%s) on 127.0.0.1:%d", lb,
             li->load_balancer_port, li->protocol, lb_listener_port(x->l));
    PUSH(a->ls, a->nls, a->cap_ls, x);
    return x;
}

static void on_health(void *ud, const char *key, const struct hc_result *res)
{
    struct autoscale *a = ud;
    struct hcref *r = NULL;

    for (int i = 0; i < a->nhr; i++) {
        if (strcmp(a->hr[i]->key, key) == 0)
            r = a->hr[i];
    }
    if (!r)
        return;
    if (r->tg[0]) {
        /* what the probe saw, judged by the group's matcher and load balancer type into
         * AWS's reason codes (docs/elbv2.md 7) */
        struct sc_elbv2 *v2 = sc_world_elbv2(r->w);
        const struct sc_elbv2_tg *tg = sc_elbv2_tg_find(v2, r->tg);
        static const enum sc_elbv2_probe probes[] = {
            [HC_PROBE_ANSWERED] = SC_ELBV2_PROBE_ANSWERED,
            [HC_PROBE_TIMEOUT] = SC_ELBV2_PROBE_TIMEOUT,
            [HC_PROBE_CONN_ERROR] = SC_ELBV2_PROBE_CONN_ERROR,
            [HC_PROBE_MALFORMED] = SC_ELBV2_PROBE_MALFORMED,
        };

        if (!tg)
            return;
        sc_elbv2_health_result(v2, r->tg, r->id, r->tg_port,
                               sc_elbv2_hc_judge(tg, probes[res->probe], res->status), res->status,
                               a->cfg.now_ms(a->cfg.ud));
        as_kick(a);
        return;
    }
    if (res->connect_failed)
        as_lbstat_ensure(a, r->w, r->lb)->hc_conn_errors++;
    sc_elb_health_result(sc_world_elb(r->w), r->lb, r->id, res->ok, a->cfg.now_ms(a->cfg.ud));
    as_kick(a);
}

/* The health-check handle of instance id behind (w, lb), made on the first call. */
static struct hcref *hcref_ensure(struct autoscale *a, struct sc_world *w, const char *lb,
                                  const char *id)
{
    struct hcref *r;

    for (int i = 0; i < a->nhr; i++) {
        r = a->hr[i];
        if (r->w == w && strcmp(r->lb, lb) == 0 && strcmp(r->id, id) == 0)
            return r;
    }
    r = cm_xcalloc(1, sizeof(*r));
    r->w = w;
    snprintf(r->lb, sizeof(r->lb), "%s", lb);
    snprintf(r->id, sizeof(r->id), "%.31s", id);
    snprintf(r->key, sizeof(r->key), "hc%llu", (unsigned long long)++a->key_seq);
    PUSH(a->hr, a->nhr, a->cap_hr, r);
    return r;
}

static int sync_lb(struct autoscale *a, struct sc_world *w, const char *name, int64_t now)
{
    struct sc_elb *elb = sc_world_elb(w);
    const struct sc_elb_lb *lb = sc_elb_lb_find(elb, name);
    struct listener *mine[16];
    int nmine = 0, nt, changed = 0;
    struct tcopy *tc = a->tc;
    struct hc_check chk;
    int64_t interval_ms, timeout_ms;
    const char *zones[LB_ZONES_MAX];
    char zbuf[LB_ZONES_MAX][32];
    int nz, cross, idle_s, hc_port;

    if (!lb)
        return 0;
    as_lbstat_ensure(a, w, name)->seen = 1;
    /* listeners */
    for (int i = 0; i < lb->nlisteners && nmine < 16; i++) {
        struct listener *x = listener_ensure(a, w, name, &lb->listeners[i]);

        lb = sc_elb_lb_find(elb, name); /* (no mutation happened; keep the view fresh) */
        if (x) {
            struct sc_sticky st;

            x->seen = 1;
            mine[nmine++] = x;
            /* LB- and app-cookie stickiness policies set on the listener */
            if (x->mode == LB_MODE_HTTP &&
                sc_elb_listener_stickiness(elb, name, x->lb_port, &st) == 0)
                lb_listener_set_group(x->l, -1, 0, &st);
        }
    }
    /* one node per enabled zone that is not down (az_outage): a node in a zone that is
     * out takes no client connections */
    nz = 0;
    for (int i = 0; i < lb->nzones && nz < LB_ZONES_MAX; i++) {
        const struct sc_ec2_zone *ez = sc_ec2_zone_find(sc_world_ec2(w), lb->availability_zones[i]);

        if (ez && strcmp(ez->state, "available") != 0)
            continue;
        snprintf(zbuf[nz], sizeof(zbuf[nz]), "%s", lb->availability_zones[i]);
        zones[nz] = zbuf[nz];
        nz++;
    }
    cross = lb->attributes.cross_zone_enabled;
    idle_s = lb->attributes.idle_timeout_s;
    chk.proto =
        (lb->hc_target.protocol == SC_ELB_HC_HTTP || lb->hc_target.protocol == SC_ELB_HC_HTTPS)
            ? HC_HTTP
            : HC_TCP;
    chk.path = lb->hc_target.path ? lb->hc_target.path : "/";
    hc_port = lb->hc_target.port;
    interval_ms = as_scaled_ms(a, lb->health_check.interval_s * 1000.0, 10);
    timeout_ms = as_scaled_ms(a, lb->health_check.timeout_s * 1000.0, 5);
    chk.timeout_ms = timeout_ms;
    for (int i = 0; i < nmine; i++) {
        /* requests are real time: the idle timeout is not scaled */
        lb_listener_set_idle_timeout(mine[i]->l, (int64_t)idle_s * 1000);
        lb_listener_set_zones(mine[i]->l, zones, nz, cross);
    }
    /* targets: copy first (health results and drain ends change the views) */
    nt = sc_elb_target_count(elb, name);
    if (nt > MAX_TARGETS)
        nt = MAX_TARGETS;
    for (int t = 0; t < nt; t++) {
        struct sc_elb_target tg;

        if (sc_elb_target_at(elb, name, t, &tg) < 0) {
            tc[t].id[0] = '\0';
            continue;
        }
        snprintf(tc[t].id, sizeof(tc[t].id), "%.31s", tg.instance_id);
        snprintf(tc[t].zone, sizeof(tc[t].zone), "%.31s",
                 tg.availability_zone ? tg.availability_zone : "");
        tc[t].routable = tg.routable;
        tc[t].draining = tg.draining;
        tc[t].checked = tg.checked;
    }
    for (int t = 0; t < nt; t++) {
        struct proc *p = tc[t].id[0] ? as_proc_find(a, w, tc[t].id) : NULL;
        int port;

        if (!tc[t].id[0])
            continue;
        /* each listener to its InstancePort's own port on the instance */
        for (int i = 0; i < nmine; i++) {
            port = as_proc_port_for(a, p, mine[i]->instance_port);
            lb_backend_set(mine[i]->l, tc[t].id, port > 0 ? port : 1, tc[t].zone,
                           tc[t].routable && port > 0);
        }
        /* the health check to its target's port */
        port = as_proc_port_for(a, p, hc_port);
        if (tc[t].checked && port > 0) {
            struct hcref *r = hcref_ensure(a, w, name, tc[t].id);

            r->seen = 1;
            chk.port = port;
            hc_target_set(a->hc, r->key, &chk, interval_ms, 0);
        }
        if (p)
            proc_tag_ports(w, p, now);
        if (tc[t].draining) {
            int out = 0;

            for (int i = 0; i < nmine; i++) {
                int o = lb_backend_outstanding(mine[i]->l, tc[t].id);

                out += o > 0 ? o : 0;
            }
            if (out == 0 && sc_elb_drain_done(elb, name, tc[t].id, now) == 1)
                changed = 1;
        }
    }
    /* backends no longer registered */
    for (int i = 0; i < nmine; i++) {
        for (int b = 0; b < lb_backend_count(mine[i]->l); b++) {
            const char *bid = lb_backend_id_at(mine[i]->l, b);
            int found = 0;

            for (int t = 0; t < nt && !found; t++)
                found = strcmp(tc[t].id, bid) == 0;
            if (!found) {
                lb_backend_remove(mine[i]->l, bid);
                b--;
            }
        }
    }
    return changed;
}

/* The health-check handle of target (id, port) of ELBv2 target group tg, made on the first
 * call. */
static struct hcref *hcref_ensure_tg(struct autoscale *a, struct sc_world *w, const char *tg,
                                     const char *id, int port)
{
    struct hcref *r;

    for (int i = 0; i < a->nhr; i++) {
        r = a->hr[i];
        if (r->w == w && strcmp(r->tg, tg) == 0 && strcmp(r->id, id) == 0 && r->tg_port == port)
            return r;
    }
    r = cm_xcalloc(1, sizeof(*r));
    r->w = w;
    snprintf(r->tg, sizeof(r->tg), "%s", tg);
    r->tg_port = port;
    snprintf(r->id, sizeof(r->id), "%.31s", id);
    snprintf(r->key, sizeof(r->key), "hc%llu", (unsigned long long)++a->key_seq);
    PUSH(a->hr, a->nhr, a->cap_hr, r);
    return r;
}

/* ELBv2 target groups: every target the library marks `checked` is probed on its port (or
 * the health check's), with the group's interval and timeout on the scaled clock. */
static void sync_tgs(struct autoscale *a, struct sc_world *w)
{
    struct sc_elbv2 *v2 = sc_world_elbv2(w);

    for (int g = 0; g < sc_elbv2_tg_count(v2); g++) {
        const struct sc_elbv2_tg *tg = sc_elbv2_tg_at(v2, g);
        struct hc_check chk;
        int64_t interval_ms = as_scaled_ms(a, tg->hc.interval_s * 1000.0, 10);

        chk.proto = strcmp(tg->hc.protocol, "TCP") == 0 ? HC_TCP : HC_HTTP;
        chk.path = tg->hc.path ? tg->hc.path : "/";
        chk.timeout_ms = as_scaled_ms(a, tg->hc.timeout_s * 1000.0, 5);
        for (int i = 0; i < sc_elbv2_target_count(v2, tg->arn); i++) {
            struct sc_elbv2_target_health t;
            struct hcref *r;
            int port;

            if (sc_elbv2_target_at(v2, tg->arn, i, &t) != 0 || !t.checked)
                continue;
            port = as_target_port(a, w, tg->target_type, t.id, atoi(t.health_check_port));
            if (port <= 0)
                continue;
            r = hcref_ensure_tg(a, w, tg->arn, t.id, t.port);
            r->seen = 1;
            chk.port = port;
            hc_target_set(a->hc, r->key, &chk, interval_ms, 0);
        }
    }
}

static int sync_lbs(struct autoscale *a, struct sc_world *w, int64_t now)
{
    struct sc_elb *elb = sc_world_elb(w);
    int n = sc_elb_lb_count(elb), changed = 0;
    char(*names)[SC_ELB_NAME_LEN] = NULL;

    for (int i = 0; i < a->nls; i++)
        a->ls[i]->seen = a->ls[i]->w != w;
    for (int i = 0; i < a->nhr; i++)
        a->hr[i]->seen = a->hr[i]->w != w;
    for (int i = 0; i < a->nst; i++)
        a->st[i]->seen = a->st[i]->w != w;
    if (n > 0) {
        names = cm_xcalloc((size_t)n, sizeof(*names));
        for (int i = 0; i < n; i++)
            snprintf(names[i], sizeof(names[i]), "%s", sc_elb_lb_at(elb, i)->load_balancer_name);
        for (int i = 0; i < n; i++)
            changed |= sync_lb(a, w, names[i], now);
        free(names);
    }
    sync_tgs(a, w);
    changed |= as_alb_sync(a, w, now);
    for (int i = 0; i < a->nls; i++) {
        if (!a->ls[i]->seen) {
            log_info("autoscale: load balancer %s listener %d closed", a->ls[i]->lb,
                     a->ls[i]->lb_port);
            listener_free(a->ls[i]);
            a->ls[i--] = a->ls[--a->nls];
        }
    }
    for (int i = 0; i < a->nhr; i++) {
        if (!a->hr[i]->seen) {
            hc_target_remove(a->hc, a->hr[i]->key);
            free(a->hr[i]);
            a->hr[i--] = a->hr[--a->nhr];
        }
    }
    for (int i = 0; i < a->nst; i++) {
        if (!a->st[i]->seen) {
            free(a->st[i]);
            a->st[i--] = a->st[--a->nst];
        }
    }
    return changed;
}

/* --- availability-zone outages ------------------------------------------------------------ */

static int64_t on_outage_timer(struct cm_ev *ev, int64_t now, void *ud)
{
    struct autoscale *a = ud;

    (void)ev;
    (void)now;
    a->outage_timer = 0;
    as_kick(a); /* the step ends the outage (outages_expire) */
    return -1;
}

/* Arms the real-time timer for the earliest outage end. */
static void outages_arm(struct autoscale *a, int64_t now)
{
    int64_t first = INT64_MAX;

    for (int i = 0; i < a->nout; i++) {
        if (a->out[i]->until_ms > 0 && a->out[i]->until_ms < first)
            first = a->out[i]->until_ms;
    }
    if (a->outage_timer)
        cm_ev_del_timer(a->cfg.ev, a->outage_timer);
    a->outage_timer = 0;
    if (first == INT64_MAX)
        return;
    a->outage_timer = cm_ev_add_timer(
        a->cfg.ev, first > now ? as_scaled_ms(a, (double)(first - now), 1) : 0, on_outage_timer, a);
}

static void outage_drop(struct autoscale *a, int i)
{
    free(a->out[i]);
    a->out[i] = a->out[--a->nout];
}

/* Brings back w's zones whose outage has ended. Returns 1 when one came back. */
static int outages_expire(struct autoscale *a, struct sc_world *w, int64_t now)
{
    int changed = 0;

    for (int i = 0; i < a->nout; i++) {
        struct outage *o = a->out[i];

        if (o->w != w || o->until_ms == 0 || now < o->until_ms)
            continue;
        sc_ec2_zone_set_available(sc_world_ec2(w), o->zone, 1);
        log_info("autoscale: availability zone %s is back (outage ended)", o->zone);
        outage_drop(a, i--);
        changed = 1;
    }
    if (changed)
        outages_arm(a, now);
    return changed;
}

int autoscale_zone_fault(struct autoscale *a, struct sc_world *w, const char *zone, int down,
                         int64_t for_ms, int64_t now_ms, struct cm_buf *ids_json, char *err,
                         size_t errlen)
{
    struct sc_ec2 *ec2 = sc_world_ec2(w);
    const char *dead[MAX_TARGETS];
    struct outage *o = NULL;
    int n;

    if (!sc_ec2_zone_find(ec2, zone)) {
        snprintf(err, errlen, "unknown availability zone %s", zone);
        return -1;
    }
    for (int i = 0; i < a->nout; i++) {
        if (a->out[i]->w == w && strcmp(a->out[i]->zone, zone) == 0)
            o = a->out[i];
    }
    if (!down) {
        sc_ec2_zone_set_available(ec2, zone, 1);
        for (int i = 0; o && i < a->nout; i++) {
            if (a->out[i] == o)
                outage_drop(a, i);
        }
        log_info("autoscale: availability zone %s is back", zone);
        outages_arm(a, now_ms);
        as_kick(a);
        return 0;
    }
    n = sc_ec2_zone_outage(ec2, zone, now_ms, dead, MAX_TARGETS);
    for (int i = 0; i < n && i < MAX_TARGETS; i++) {
        struct proc *p = as_proc_find(a, w, dead[i]);

        if (p && !p->exited && !p->stopping) {
            p->stopping = 1; /* no "exited on its own" warning: we killed it */
            inst_kill(a->im, p->id);
        }
        cm_buf_printf(ids_json, "%s\"%s\"", ids_json->len ? "," : "", dead[i]);
    }
    if (!o) {
        o = cm_xcalloc(1, sizeof(*o));
        o->w = w;
        snprintf(o->zone, sizeof(o->zone), "%s", zone);
        PUSH(a->out, a->nout, a->cap_out, o);
    }
    o->until_ms = for_ms > 0 ? now_ms + for_ms : 0;
    log_info("autoscale: availability zone %s is down (%d instances died, for %lld ms emulated)",
             zone, n, (long long)for_ms);
    outages_arm(a, now_ms);
    as_kick(a);
    return n;
}

/* --- public ---------------------------------------------------------------------------- */

struct autoscale *autoscale_create(const struct autoscale_config *cfg, char *err, size_t errlen)
{
    struct autoscale *a = cm_xcalloc(1, sizeof(*a));

    a->cfg = *cfg;
    if (!(a->cfg.time_scale > 0))
        a->cfg.time_scale = 1;
    if (!(a->cfg.launch_rate > 0))
        a->cfg.launch_rate = AUTOSCALE_DEFAULT_LAUNCH_RATE;
    a->launch_tokens = a->cfg.launch_rate / 10.0 < 1.0 ? 1.0 : a->cfg.launch_rate / 10.0;
    a->launch_tokens_ms = cm_ev_now_ms();
    a->im = inst_mgr_create(cfg->ev, cfg->instance_exe, on_instance, a);
    if (!a->im) {
        snprintf(err, errlen, "cannot watch child processes: %s", strerror(errno));
        free(a);
        return NULL;
    }
    /* a profile with "time_scaled" serves on the emulated clock (docs/dataplane.md, Time) */
    inst_mgr_set_time_scale(a->im, a->cfg.time_scale);
    a->hc = hc_set_create(cfg->ev, on_health, a);
    {
        const char *bf = getenv("SCALELAB_BLOCKING_CPU_FETCH");

        a->blocking_fetch = bf && strcmp(bf, "1") == 0;
    }
    /* on the manual clock the minute and the health checks follow that clock
     * (autoscale_step); on the real one they are timers */
    if (!a->cfg.clock_manual)
        a->minute_timer = cm_ev_add_timer(cfg->ev, as_scaled_ms(a, 60000.0, 50), as_on_minute, a);
    return a;
}

void autoscale_destroy(struct autoscale *a)
{
    if (!a)
        return;
    if (a->kick_timer)
        cm_ev_del_timer(a->cfg.ev, a->kick_timer);
    if (a->launch_timer)
        cm_ev_del_timer(a->cfg.ev, a->launch_timer);
    if (a->outage_timer)
        cm_ev_del_timer(a->cfg.ev, a->outage_timer);
    if (a->minute_timer)
        cm_ev_del_timer(a->cfg.ev, a->minute_timer);
    for (int i = 0; i < a->nout; i++)
        free(a->out[i]);
    free(a->out);
    inst_mgr_destroy(a->im, 2000);
    hc_set_destroy(a->hc);
    for (int i = 0; i < a->nls; i++)
        listener_free(a->ls[i]);
    as_alb_destroy_all(a);
    for (int i = 0; i < a->nprocs; i++)
        proc_free(a->procs[i]);
    for (int i = 0; i < a->nhr; i++)
        free(a->hr[i]);
    for (int i = 0; i < a->nst; i++)
        free(a->st[i]);
    free(a->ls);
    free(a->procs);
    free(a->hr);
    free(a->st);
    free(a->worlds);
    free(a);
}

int autoscale_step(struct autoscale *a, struct sc_world *w, int64_t now_ms)
{
    int known = 0, changed;

    for (int i = 0; i < a->nworlds && !known; i++)
        known = a->worlds[i] == w;
    if (!known)
        PUSH(a->worlds, a->nworlds, a->cap_worlds, w);
    if (a->cfg.clock_manual) {
        /* the manual clock drives the health checks and the metrics minute: what is due
         * up to now runs now (checks whose targets this step adds run below) */
        hc_set_manual(a->hc, now_ms);
        hc_set_advance(a->hc, now_ms);
        as_manual_minutes(a, now_ms);
    }
    changed = outages_expire(a, w, now_ms);
    changed |= sync_instances(a, w, now_ms);
    changed |= sync_lbs(a, w, now_ms);
    if (a->cfg.clock_manual)
        hc_set_advance(a->hc, now_ms);
    return changed;
}

void autoscale_forget_world(struct autoscale *a, struct sc_world *w)
{
    if (!a)
        return;
    for (int i = 0; i < a->nprocs; i++) {
        struct proc *p = a->procs[i];

        if (p->w != w)
            continue;
        if (!p->exited)
            inst_kill(a->im, p->id);
        proc_free(p);
        a->procs[i--] = a->procs[--a->nprocs];
    }
    for (int i = 0; i < a->nls; i++) {
        if (a->ls[i]->w == w) {
            listener_free(a->ls[i]);
            a->ls[i--] = a->ls[--a->nls];
        }
    }
    as_alb_forget_world(a, w);
    for (int i = 0; i < a->nhr; i++) {
        if (a->hr[i]->w == w) {
            hc_target_remove(a->hc, a->hr[i]->key);
            free(a->hr[i]);
            a->hr[i--] = a->hr[--a->nhr];
        }
    }
    for (int i = 0; i < a->nst; i++) {
        if (a->st[i]->w == w) {
            free(a->st[i]);
            a->st[i--] = a->st[--a->nst];
        }
    }
    for (int i = 0; i < a->nout; i++) {
        if (a->out[i]->w == w)
            outage_drop(a, i--);
    }
    for (int i = 0; i < a->nworlds; i++) {
        if (a->worlds[i] == w)
            a->worlds[i--] = a->worlds[--a->nworlds];
    }
}

int autoscale_fault(struct autoscale *a, const char *instance_id, const char *what, char *err,
                    size_t errlen)
{
    struct proc *p = proc_by_id(a, instance_id);
    int rc;

    if (!p || p->exited) {
        snprintf(err, errlen, "no running process for instance %s", instance_id);
        return -1;
    }
    if (strcmp(what, "kill") == 0) {
        rc = inst_kill(a->im, instance_id);
    } else if (strcmp(what, "hang") == 0 || strcmp(what, "resume") == 0) {
        p->hung = strcmp(what, "hang") == 0;
        rc = inst_hang(a->im, instance_id, p->hung);
    } else if (strncmp(what, "slow=", 5) == 0 || strncmp(what, "fail_health=", 12) == 0 ||
               strncmp(what, "error_rate=", 11) == 0) {
        rc = inst_fault(a->im, instance_id, what);
    } else {
        snprintf(err, errlen,
                 "unknown fault %s (kill, hang, resume, slow=K, fail_health=0|1, "
                 "error_rate=P)",
                 what);
        return -1;
    }
    if (rc < 0)
        snprintf(err, errlen, "fault %s on %s failed", what, instance_id);
    else
        note_fault(a, p, what);
    as_kick(a);
    return rc;
}

int autoscale_world_count(const struct autoscale *a)
{
    return a->nworlds;
}

struct sc_world *autoscale_world_at(const struct autoscale *a, int i)
{
    return i >= 0 && i < a->nworlds ? a->worlds[i] : NULL;
}

void as_traffic_json(struct cm_buf *b, const struct lb_listener *l,
                     const char (*tgs)[SC_ELBV2_ARN_LEN], int ntgs)
{
    struct lb_backend_traffic t;

    cm_buf_puts(b, "\"targets\":[");
    for (int i = 0; lb_backend_traffic_at(l, i, &t) == 0; i++) {
        char id[BAL_ID_LEN];
        int port = 0;

        snprintf(id, sizeof(id), "%s", t.id);
        if (tgs) {
            /* an ALB backend is "<group>/<instance>:<port>" (autoscale_alb.c) */
            const char *slash = strchr(t.id, '/');
            char *colon;

            snprintf(id, sizeof(id), "%s", slash ? slash + 1 : t.id);
            colon = strrchr(id, ':');
            if (colon) {
                port = atoi(colon + 1);
                *colon = '\0';
            }
        }
        cm_buf_printf(b, "%s{\"id\":\"%s\",", i ? "," : "", id);
        if (tgs)
            cm_buf_printf(b, "\"target_group_arn\":\"%s\",\"port\":%d,",
                          t.group >= 0 && t.group < ntgs ? tgs[t.group] : "", port);
        cm_buf_printf(b,
                      "\"routable\":%s,\"outstanding\":%d,\"responses\":%llu,\"errors_5xx\":%llu,"
                      "\"latency_mean_ms\":%.3f,\"request_rate\":%.3f,\"latency_ms\":%.3f}",
                      t.routable ? "true" : "false", t.outstanding, (unsigned long long)t.responses,
                      (unsigned long long)t.errors_5xx, t.latency_mean_ms, t.rate_per_s,
                      t.rate_latency_ms);
    }
    cm_buf_puts(b, "]");
}

char *autoscale_status_json(const struct autoscale *a)
{
    struct cm_buf b;

    cm_buf_init(&b, 0);
    cm_buf_puts(&b, "{\"instances\":[");
    for (int i = 0; i < a->nprocs; i++) {
        const struct proc *p = a->procs[i];

        cm_buf_printf(&b, "%s{\"id\":\"%s\",\"pid\":%ld,\"port\":%d,\"state\":\"%s\",\"ports\":{",
                      i ? "," : "", p->id, (long)inst_pid(a->im, p->id), p->port,
                      p->exited       ? "exited"
                      : p->hibernated ? "hibernated"
                      : p->hung       ? "hung"
                      : p->port       ? "listening"
                                      : "booting");
        for (int k = 0; k < p->nmap; k++)
            cm_buf_printf(&b, "%s\"%d\":%d", k ? "," : "", p->map_iport[k], p->map_port[k]);
        cm_buf_puts(&b, "}}");
    }
    cm_buf_puts(&b, "],\"listeners\":[");
    for (int i = 0; i < a->nls; i++) {
        const struct listener *x = a->ls[i];

        cm_buf_printf(&b,
                      "%s{\"load_balancer\":\"%s\",\"load_balancer_port\":%d,\"port\":%d,"
                      "\"protocol\":\"%s\",\"backends\":%d,",
                      i ? "," : "", x->lb, x->lb_port, lb_listener_port(x->l),
                      x->mode == LB_MODE_TCP ? (x->tls ? "SSL" : "TCP")
                                             : (x->tls ? "HTTPS" : "HTTP"),
                      lb_backend_count(x->l));
        as_traffic_json(&b, x->l, NULL, 0);
        cm_buf_puts(&b, "}");
    }
    cm_buf_puts(&b, "],\"alb_listeners\":[");
    as_alb_status_json(a, &b);
    cm_buf_puts(&b, "],\"zones_down\":[");
    for (int i = 0; i < a->nout; i++)
        cm_buf_printf(&b, "%s{\"zone\":\"%s\",\"account\":\"%s\",\"until_ms\":%lld}", i ? "," : "",
                      a->out[i]->zone, sc_ec2_account_id(sc_world_ec2(a->out[i]->w)),
                      (long long)a->out[i]->until_ms);
    cm_buf_puts(&b, "]}");
    return cm_buf_take(&b, NULL);
}
