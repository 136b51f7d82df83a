/* loadgen/scn_load.c: the scenario's load: where each load balancer listens, and the
 * player (loadgen/player.h) started and stopped (see scn_run.h). */
#include "loadgen/scn_run.h"

#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <jansson.h>
#include <libxml/tree.h>

#include "common/buf.h"
#include "common/xalloc.h"
#include "loadgen/awsapi.h"
#include "loadgen/player.h"
#include "loadgen/scn_emu.h"
#include "loadgen/scn_internal.h"
#include "loadgen/scn_reply.h"
#include "loadgen/url.h"

/* ---- the load ---- */

/* Resolves host:port into the target's address; -1 reported. */
static int target_addr(struct player_target *tg, const char *name, const char *host, int port)
{
    struct addrinfo hints = { 0 }, *ai = NULL;
    char ports[16];

    snprintf(ports, sizeof(ports), "%d", port);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(host, ports, &hints, &ai) != 0 || !ai) {
        scn_fail_msg("load balancer %s: cannot resolve %s", name, host);
        return -1;
    }
    url_pick_addr(ai, &tg->addr, &tg->addrlen);
    freeaddrinfo(ai);
    return 0;
}

/* Where each listener of ALB b listens (targets from tg, hosts from host): on the
 * emulator its real port in the listener map's `alb_listeners` (127.0.0.1), on AWS the
 * load balancer's DNSName and the listener's Port. The Host the requests name is the
 * DNSName (both worlds: the simulator routes a kind with no `host` by it). -1 reported. */
static int alb_targets(struct run *r, const struct sim_alb *b, json_t *map,
                       struct player_target *tg, char (*host)[300])
{
    char key[300], dns[256], name[256];
    const char *arn;
    struct aws_params p;
    struct aws_error err;
    xmlDoc *doc = NULL;

    snprintf(key, sizeof(key), "alb:%s", b->name);
    snprintf(name, sizeof(name), "%s-%s", r->prefix, b->name);
    arn = scn_ref(r, key);
    if (!arn) {
        scn_fail_msg("load balancer %s: no LoadBalancerArn from the setup", name);
        return -1;
    }
    aws_params_init(&p);
    aws_params_add(&p, "LoadBalancerArns.member.1", arn);
    if (scn_aws_call(r, AWS_ELBV2, "DescribeLoadBalancers", &p, &doc, &err) != 0 ||
        scn_reply_text(doc, "DNSName", dns, sizeof(dns)) != 0) {
        scn_fail_msg("DescribeLoadBalancers %s: no DNSName", name);
        xmlFreeDoc(doc);
        aws_params_cleanup(&p);
        return -1;
    }
    xmlFreeDoc(doc);
    aws_params_cleanup(&p);
    for (int l = 0; l < b->nlisteners; l++) {
        const struct sim_alb_listener *li = &b->listeners[l];
        int port = 0;

        tg[l].lb = b->name;
        tg[l].listener_port = li->port;
        if (map) {
            size_t k;
            json_t *it;

            json_array_foreach(json_object_get(map, "alb_listeners"), k, it)
            {
                const char *a = json_string_value(json_object_get(it, "load_balancer_arn"));
                if (a && strcmp(a, arn) == 0 &&
                    json_integer_value(json_object_get(it, "listener_port")) == li->port)
                    port = (int)json_integer_value(json_object_get(it, "port"));
            }
            if (port <= 0) {
                scn_fail_msg("load balancer %s: no address for listener %d in the listener map",
                             name, li->port);
                return -1;
            }
            if (target_addr(&tg[l], name, "127.0.0.1", port) != 0)
                return -1;
        } else if (target_addr(&tg[l], name, dns, li->port) != 0) {
            return -1;
        }
        if (li->port == 80)
            snprintf(host[l], sizeof(host[l]), "%s", dns);
        else
            snprintf(host[l], sizeof(host[l]), "%s:%d", dns, li->port);
        tg[l].host = host[l];
        tg[l].path = "/";
    }
    return 0;
}

/* Where each load balancer listens: the emulator's listener map, or AWS's DNSName. The
 * classic ones first (one target each, in the scenario's order), then each ALB's
 * listeners. */
static int targets_find(struct run *r)
{
    json_t *o = NULL;
    int ntargets = r->sc->nlbs, at;

    for (int i = 0; i < r->sc->nalbs; i++)
        ntargets += r->sc->albs[i].nlisteners;
    r->ntargets = ntargets;
    r->targets = cm_xcalloc((size_t)ntargets + 1, sizeof(*r->targets));
    r->hosts = cm_xcalloc((size_t)ntargets + 1, sizeof(*r->hosts));
    if (r->is_emulator) {
        char url[300], herr[256];
        struct cm_buf b;

        snprintf(url, sizeof(url), "%s/_scalelab/dataplane", r->base);
        cm_buf_init(&b, 1 << 22);
        if (scn_http(url, NULL, &b, 5000, herr, sizeof(herr)) == 200)
            o = json_loadb(b.data ? b.data : "", b.len, 0, NULL);
        cm_buf_cleanup(&b);
        if (!o) {
            scn_fail_msg("%s: no listener map (GET /_scalelab/dataplane)", r->base);
            return -1;
        }
    }
    for (int i = 0; i < r->sc->nlbs; i++) {
        const struct sim_lb *lb = &r->sc->lbs[i];
        struct player_target *tg = &r->targets[i];
        char name[256], host[256];
        int port = 0, lb_port = 0;

        for (int l = 0; l < lb->nlisteners && !lb_port; l++)
            if (strcmp(lb->listeners[l].protocol, "HTTP") == 0 ||
                strcmp(lb->listeners[l].protocol, "TCP") == 0)
                lb_port = lb->listeners[l].lb_port;
        snprintf(name, sizeof(name), "%s-%s", r->prefix, lb->name);
        tg->lb = lb->name;
        if (!lb_port)
            continue; /* no plain listener: the player refuses phases aimed at it */
        if (r->is_emulator) {
            size_t k;
            json_t *it;

            json_array_foreach(json_object_get(o, "listeners"), k, it)
            {
                const char *n = json_string_value(json_object_get(it, "load_balancer"));
                if (n && strcmp(n, name) == 0 &&
                    json_integer_value(json_object_get(it, "load_balancer_port")) == lb_port)
                    port = (int)json_integer_value(json_object_get(it, "port"));
            }
            snprintf(host, sizeof(host), "127.0.0.1");
        } else {
            struct aws_params p;
            struct aws_error err;
            xmlDoc *doc = NULL;

            aws_params_init(&p);
            aws_params_add(&p, "LoadBalancerNames.member.1", name);
            if (scn_aws_call(r, AWS_ELB, "DescribeLoadBalancers", &p, &doc, &err) != 0 ||
                scn_reply_text(doc, "DNSName", host, sizeof(host)) != 0) {
                scn_fail_msg("DescribeLoadBalancers %s: no DNSName", name);
                xmlFreeDoc(doc);
                aws_params_cleanup(&p);
                json_decref(o);
                return -1;
            }
            xmlFreeDoc(doc);
            aws_params_cleanup(&p);
            port = lb_port;
        }
        if (port <= 0) {
            scn_fail_msg("load balancer %s: no listener address for port %d", name, lb_port);
            json_decref(o);
            return -1;
        }
        if (target_addr(tg, name, host, port) != 0) {
            json_decref(o);
            return -1;
        }
        snprintf(r->hosts[i], sizeof(r->hosts[i]), "%s:%d", host, port);
        tg->host = r->hosts[i];
        tg->path = "/";
    }
    at = r->sc->nlbs;
    for (int i = 0; i < r->sc->nalbs; i++) {
        const struct sim_alb *b = &r->sc->albs[i];
        int aimed = 0;

        /* only ALBs a phase aims at: the others need no address */
        for (int k = 0; k < r->sc->nphases && !aimed; k++)
            aimed = r->sc->phases[k].target && strcmp(r->sc->phases[k].target, b->name) == 0;
        if (aimed && alb_targets(r, b, o, &r->targets[at], &r->hosts[at]) != 0) {
            json_decref(o);
            return -1;
        }
        at += b->nlisteners;
    }
    json_decref(o);
    return 0;
}

int scn_load_start(struct run *r)
{
    struct player_config pc = { 0 };
    char err[512];
    sigset_t block, old;
    int rc;

    if (r->sc->nphases == 0)
        return 0;
    if (targets_find(r) != 0)
        return -1;
    pc.sc = r->sc;
    pc.targets = r->targets;
    pc.ntargets = r->ntargets;
    pc.time_scale = r->scale;
    pc.threads = 1;
    pc.scaled = r->svc.scaled;
    pc.weight = r->svc.weight;
    pc.on_late = scn_stall_on_late;
    pc.late_ud = r;
    pc.late_min_us = (int64_t)(r->stalls.threshold_ms * 1000.0);
    r->player = player_create(&pc, err, sizeof(err));
    if (!r->player) {
        scn_fail_msg("load: %s", err);
        return -1;
    }
    /* the load threads inherit a mask without SIGINT/SIGTERM: signals reach this thread */
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    rc = player_start(r->player, err, sizeof(err));
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        scn_fail_msg("load: %s", err);
        return -1;
    }
    return 0;
}

void scn_load_stop(struct run *r)
{
    if (r->player)
        player_stop(r->player);
}
