/* emulator/emu.c: the clock, the registry of account+region worlds, the step loop with
 * its records-only data plane, the real data plane's handle, faults and reset (see
 * emu.h). */
#include "emulator/emu.h"
#include "emulator/webhook.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "common/log.h"
#include "common/tz.h"
#include "common/xalloc.h"
#include "emulator/autoscale.h"
#include "emulator/events.h"
#include "emulator/metric_journal.h"
#include "emulator/region.h"
#include "emulator/state.h"
#include "scaler/alarm.h"
#include "scaler/dashboard.h"
#include "scaler/ec2.h"
#include "scaler/elb.h"
#include "scaler/hash.h"
#include "scaler/observe.h"
#include "scaler/stall.h"
#include "scaler/world.h"

/* every AWS region (emulator/region.c: 46) and --region, for one account and a few more
 * (the admin API's zone fault names accounts); the metric journal attaches as many */
#define MAX_REGIONS EMU_MAX_WORLDS
_Static_assert(MAX_REGIONS <= METRIC_JOURNAL_MAX_WORLDS, "the journal attaches every world");

struct region_state {
    char account[EMU_ACCOUNT_LEN];
    char region[EMU_REGION_LEN];
    struct sc_world *w;
    struct sc_observer *obs; /* the world's story for the event log */
};

/* What an account holds across its regions (AWS: global, not regional): its CloudWatch
 * dashboards, one set per account and partition, shared by the account's worlds. */
struct account_state {
    char account[EMU_ACCOUNT_LEN];
    char partition[EMU_PARTITION_LEN];
    struct sc_dashboards *dashboards;
};

struct emu {
    struct emu_config cfg;
    struct cm_ev *ev;        /* set by emu_start() */
    struct webhook *webhook; /* --notify-webhook's, made by emu_start() */
    int64_t base_epoch_ms, base_mono_ms, manual_ms;
    struct region_state regions[MAX_REGIONS];
    int nregions;
    struct account_state accounts[MAX_REGIONS]; /* never more than worlds (and state files) */
    int naccounts;
    long step_timer;
    int64_t step_due_ms;            /* monotonic: when the step timer should run next */
    struct sc_stall_ring loop_late; /* the step timer's stalls (GET /_scalelab/health) */
    struct autoscale *as; /* the real data plane (processes, proxies); NULL: records only */
    struct state *st;     /* --state FILE; NULL: memory only */
    struct metric_journal *journal; /* FILE.metrics beside --state; NULL: none */
    struct events *events;          /* the event log (/_scalelab/events, stderr) */
};

void emu_config_defaults(struct emu_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->time_scale = 1.0;
}

/* ---- clock ------------------------------------------------------------------------------ */

static int64_t wall_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t emu_now_ms(const struct emu *e)
{
    if (e->cfg.clock_manual)
        return e->manual_ms;
    return e->base_epoch_ms +
           (int64_t)((double)(cm_ev_now_ms() - e->base_mono_ms) * e->cfg.time_scale);
}

int emu_clock_is_manual(const struct emu *e)
{
    return e->cfg.clock_manual;
}

double emu_time_scale(const struct emu *e)
{
    return e->cfg.time_scale;
}

int emu_clock_advance(struct emu *e, int64_t ms)
{
    if (!e->cfg.clock_manual || ms < 0)
        return -1;
    e->manual_ms += ms;
    return 0;
}

void emu_clock_restore(struct emu *e, int64_t now_ms)
{
    /* the emulated clock goes on from where it stopped, never backwards */
    if (e->cfg.clock_manual) {
        if (!e->cfg.start_ms || now_ms > e->manual_ms)
            e->manual_ms = now_ms;
    } else if (now_ms > e->base_epoch_ms) {
        e->base_epoch_ms = now_ms;
    }
}

/* ---- the registry of worlds -------------------------------------------------------------- */

static void regions_free(struct emu *e)
{
    for (int i = 0; i < e->nregions; i++) {
        autoscale_forget_world(e->as, e->regions[i].w);
        sc_world_destroy(e->regions[i].w);
        sc_observer_destroy(e->regions[i].obs);
    }
    e->nregions = 0;
    /* after the worlds, which borrow them */
    for (int i = 0; i < e->naccounts; i++)
        sc_dashboards_destroy(e->accounts[i].dashboards);
    e->naccounts = 0;
}

void emu_reset(struct emu *e)
{
    regions_free(e);
    if (e->st)
        state_reset_writers(e->st);
    log_info("admin: state reset");
}

static int region_name_ok(const char *r)
{
    size_t n = strlen(r);

    return n > 0 && n < 32 && strspn(r, "abcdefghijklmnopqrstuvwxyz0123456789-") == n;
}

/* A world's RNG seed: FNV-1a of account and region, so the same pair always draws the same
 * ids (a restored world continues from its saved RNG state instead). */
static uint64_t seed_of(const char *account, const char *region)
{
    return sc_hash_fnv1a_str(sc_hash_fnv1a_str(SC_HASH_FNV1A_BASIS, account), region);
}

struct sc_world *emu_world_find(const struct emu *e, const char *account, const char *region)
{
    for (int i = 0; i < e->nregions; i++) {
        if (strcmp(e->regions[i].account, account) == 0 &&
            strcmp(e->regions[i].region, region) == 0)
            return e->regions[i].w;
    }
    return NULL;
}

struct sc_dashboards *emu_dashboards_find(const struct emu *e, const char *account,
                                          const char *partition)
{
    for (int i = 0; i < e->naccounts; i++) {
        if (strcmp(e->accounts[i].account, account) == 0 &&
            strcmp(e->accounts[i].partition, partition) == 0)
            return e->accounts[i].dashboards;
    }
    return NULL;
}

struct sc_dashboards *emu_dashboards(struct emu *e, const char *account, const char *partition)
{
    struct sc_dashboards *d = emu_dashboards_find(e, account, partition);
    struct account_state *as;

    if (d)
        return d;
    if (e->naccounts == MAX_REGIONS || strlen(account) >= EMU_ACCOUNT_LEN ||
        strlen(partition) >= EMU_PARTITION_LEN)
        return NULL;
    as = &e->accounts[e->naccounts];
    as->dashboards = sc_dashboards_create(account, partition);
    if (!as->dashboards) {
        log_error("out of memory");
        abort();
    }
    snprintf(as->account, sizeof(as->account), "%s", account);
    snprintf(as->partition, sizeof(as->partition), "%s", partition);
    e->naccounts++;
    return as->dashboards;
}

int emu_dashboards_count(const struct emu *e)
{
    return e->naccounts;
}

struct sc_dashboards *emu_dashboards_at(const struct emu *e, int i)
{
    return i >= 0 && i < e->naccounts ? e->accounts[i].dashboards : NULL;
}

int emu_default_max_instances(uint64_t mem_bytes, long nofile, long ncpu)
{
    uint64_t by_mem = mem_bytes / (8u << 20);
    long by_fd = nofile > 256 ? (nofile - 256) / 8 : 0;
    long by_cpu = ncpu > 0 ? 256 * ncpu : 256;
    uint64_t n = by_mem;

    if ((uint64_t)by_fd < n)
        n = (uint64_t)by_fd;
    if ((uint64_t)by_cpu < n)
        n = (uint64_t)by_cpu;
    if (n > 2000)
        n = 2000;
    return n < 1 ? 1 : (int)n;
}

/* sc_world_config.host_room: --max-instances less the live instances of every world. */
static int host_room(void *ud)
{
    const struct emu *e = ud;
    int used = 0;

    for (int i = 0; i < e->nregions; i++)
        used += sc_ec2_live_count(sc_world_ec2(e->regions[i].w));
    return e->cfg.max_instances - used;
}

int emu_region_ok(const struct emu *e, const char *region)
{
    return region_is_aws(region) || (e->cfg.region && strcmp(region, e->cfg.region) == 0);
}

static void world_config(struct emu *e, const char *account, const char *region,
                         struct sc_world_config *wc)
{
    sc_world_config_defaults(wc);
    wc->account_id = account;
    wc->region = region;
    wc->seed = seed_of(account, region);
    wc->start_ms = emu_now_ms(e);
    wc->max_metric_series = e->cfg.max_metric_series;
    wc->max_vcpus = e->cfg.max_vcpus;
    wc->tz_offset = cm_tz_offset; /* scheduled actions' TimeZone from Debian's tzdata */
    if (e->cfg.max_instances > 0) {
        wc->host_room = host_room;
        wc->host_ud = e;
    }
}

struct sc_world *emu_world_scratch(struct emu *e, const char *account, const char *region)
{
    struct sc_world_config wc;

    if (!emu_region_ok(e, region))
        return NULL;
    world_config(e, account, region, &wc);
    /* the account's dashboards, seen from a region it has no world in (NULL: it has none) */
    wc.dashboards = emu_dashboards_find(e, account, sc_alarm_partition(region));
    return sc_world_create(&wc);
}

static struct sc_world *world_make(struct emu *e, const char *account, const char *region,
                                   int restoring)
{
    struct region_state *rs;
    struct sc_world_config wc;
    struct sc_world *found = emu_world_find(e, account, region);

    if (found)
        return found;
    if (!region_name_ok(region) || (!restoring && !emu_region_ok(e, region)) ||
        e->nregions == MAX_REGIONS)
        return NULL;
    world_config(e, account, region, &wc);
    wc.dashboards = emu_dashboards(e, account, sc_alarm_partition(region));
    if (!wc.dashboards)
        return NULL;
    rs = &e->regions[e->nregions];
    rs->w = sc_world_create(&wc);
    if (!rs->w)
        return NULL;
    rs->obs = sc_observer_create();
    if (!rs->obs) {
        log_error("out of memory");
        abort();
    }
    sc_observer_sync(rs->obs, rs->w, wc.start_ms);
    snprintf(rs->account, sizeof(rs->account), "%s", account);
    snprintf(rs->region, sizeof(rs->region), "%s", region);
    e->nregions++;
    log_info("state: new world account=%s region=%s", account, region);
    if (e->journal && metric_journal_attach(e->journal, sc_world_cw(rs->w), account, region) < 0)
        log_warn("state: metric journal: too many worlds: %s/%s is not journaled", account, region);
    return rs->w;
}

struct sc_world *emu_world(struct emu *e, const char *account, const char *region)
{
    return world_make(e, account, region, 0);
}

struct sc_world *emu_world_restore(struct emu *e, const char *account, const char *region)
{
    return world_make(e, account, region, 1);
}

int emu_world_count(const struct emu *e)
{
    return e->nregions;
}

struct sc_world *emu_world_at(const struct emu *e, int i, const char **account, const char **region)
{
    if (i < 0 || i >= e->nregions)
        return NULL;
    if (account)
        *account = e->regions[i].account;
    if (region)
        *region = e->regions[i].region;
    return e->regions[i].w;
}

/* ---- the step ---------------------------------------------------------------------------- */

/* The control-plane data plane: instances are records only until they become processes
 * (the "real instances" issue): pending ones are up at once, shutting-down / stopping
 * ones are gone at once, and every health check a load balancer asks for passes. */
static int data_plane(struct sc_world *w, int64_t now)
{
    struct sc_ec2 *ec2 = sc_world_ec2(w);
    struct sc_elb *elb = sc_world_elb(w);
    int n = sc_ec2_instance_count(ec2), changed = 0;

    for (int k = 0; k < n; k++) {
        const struct sc_ec2_instance *in = sc_ec2_instance_at(ec2, k);
        char id[SC_EC2_ID_LEN];
        enum sc_ec2_state st = in->state;

        snprintf(id, sizeof(id), "%s", in->instance_id);
        /* each call may invalidate `in`: keep the id only */
        if (st == SC_EC2_PENDING)
            changed |= sc_ec2_instance_running(ec2, id, now) == SC_OK;
        else if (st == SC_EC2_SHUTTING_DOWN)
            changed |= sc_ec2_instance_terminated(ec2, id, now) == SC_OK;
        else if (st == SC_EC2_STOPPING)
            changed |= sc_ec2_instance_stopped(ec2, id, now) == SC_OK;
    }
    for (int i = 0; i < sc_elb_lb_count(elb); i++) {
        char name[SC_ELB_NAME_LEN];
        int nt;

        snprintf(name, sizeof(name), "%s", sc_elb_lb_at(elb, i)->load_balancer_name);
        nt = sc_elb_target_count(elb, name);
        for (int t = 0; t < nt; t++) {
            struct sc_elb_target tg;
            char id[SC_EC2_ID_LEN];

            if (sc_elb_target_at(elb, name, t, &tg) < 0 || !tg.checked)
                continue;
            if (tg.state == SC_ELB_IN_SERVICE)
                continue;
            snprintf(id, sizeof(id), "%s", tg.instance_id);
            if (sc_elb_health_result(elb, name, id, 1, now) == 1)
                changed = 1;
        }
    }
    return changed;
}

struct observe_ctx {
    struct emu *e;
    const struct region_state *rs;
};

static void on_world_event(const struct sc_event *ev, void *ud)
{
    struct observe_ctx *c = ud;

    events_add_world(c->e->events, c->rs->account, c->rs->region, ev);
    if (ev->kind == SC_EVENT_NOTIFICATION && ev->notification && c->e->webhook)
        webhook_post(c->e->webhook, ev->notification, ev->time_ms);
}

/* The world's changes since the last step go to the event log. */
static void observe(struct emu *e, struct region_state *rs, int64_t now)
{
    struct observe_ctx c = { e, rs };

    sc_observer_step(rs->obs, rs->w, now, on_world_event, &c);
}

void emu_step(struct emu *e)
{
    int64_t now = emu_now_ms(e);

    /* the clock may have changed the worlds: written within a second when it did */
    if (e->st)
        state_touch(e->st);
    for (int i = 0; i < e->nregions; i++) {
        struct sc_world *w = e->regions[i].w;

        /* step, let the data plane follow, step again so groups see it (bounded) */
        for (int round = 0; round < 4; round++) {
            sc_world_step(w, now);
            if (!(e->as ? autoscale_step(e->as, w, now) : data_plane(w, now)))
                break;
        }
        observe(e, &e->regions[i], now);
    }
}

void emu_observe_sync(struct emu *e)
{
    for (int i = 0; i < e->nregions; i++)
        sc_observer_sync(e->regions[i].obs, e->regions[i].w, emu_now_ms(e));
}

struct events *emu_events(struct emu *e)
{
    return e->events;
}

/* The step timer's period: the emulated clock may run fast, so a step at least every
 * emulated second, at most every 20 real ms. */
static int64_t step_period_ms(const struct emu *e)
{
    double period = 1000.0 / e->cfg.time_scale;

    return period > 1000 ? 1000 : period < 20 ? 20 : (int64_t)period;
}

static int64_t on_step_timer(struct cm_ev *ev, int64_t now_ms, void *ud)
{
    (void)ev;
    struct emu *e = ud;
    int64_t next = step_period_ms(e);

    /* how late the loop ran its timer: the host (or the loop's own work) kept it off for
     * that long, which at a high scale empties emulated minutes (scaler/stall.h) */
    if (e->step_due_ms > 0 && !e->cfg.clock_manual)
        sc_stall_ring_note(&e->loop_late, e->cfg.time_scale, emu_now_ms(e),
                           (double)(now_ms - e->step_due_ms));
    emu_step(e);
    e->step_due_ms = now_ms + next; /* as the loop sets it (common/ev.c) */
    return next;
}

const struct sc_stall_ring *emu_loop_stalls(const struct emu *e)
{
    return e->cfg.clock_manual ? NULL : &e->loop_late;
}

/* ---- the real data plane ----------------------------------------------------------------- */

/* autoscale's hooks into its owner (autoscale.h) */
static int64_t hook_now_ms(void *ud)
{
    return emu_now_ms(ud);
}

static void hook_step(void *ud)
{
    emu_step(ud);
}

/* Instances as processes and load balancers as proxies (emulator/autoscale.c); without it
 * (no child watcher) the records-only data plane above stands in. */
static void start_autoscale(struct emu *e)
{
    struct autoscale_config ac;
    char err[256];

    memset(&ac, 0, sizeof(ac));
    ac.ev = e->ev;
    ac.now_ms = hook_now_ms;
    ac.step = hook_step;
    ac.ud = e;
    ac.events = e->events;
    ac.time_scale = e->cfg.clock_manual ? 1.0 : e->cfg.time_scale;
    ac.clock_manual = e->cfg.clock_manual;
    ac.instance_exe = e->cfg.instance_exe;
    ac.tls_cert = e->cfg.tls_cert;
    ac.tls_key = e->cfg.tls_key;
    ac.cert_map = e->cfg.cert_map;
    ac.ncert_map = e->cfg.ncert_map;
    ac.launch_rate = e->cfg.launch_rate;
    e->as = autoscale_create(&ac, err, sizeof(err));
    if (!e->as)
        log_warn("server: instances stay records: %s", err);
}

struct autoscale *emu_autoscale(struct emu *e)
{
    return e->as;
}

int emu_instance_fault(struct emu *e, const char *instance_id, const char *what, char *err,
                       size_t errlen)
{
    if (!e->as) {
        snprintf(err, errlen, "no real data plane (instances are records only)");
        return -1;
    }
    return autoscale_fault(e->as, instance_id, what, err, errlen);
}

int emu_zone_fault(struct emu *e, const char *zone, int down, int64_t for_ms, int64_t now_ms,
                   const char *region, const char *account, struct cm_buf *ids_json, char *err,
                   size_t errlen)
{
    struct autoscale *as = e->as;
    int hits = 0;

    if (!as) {
        snprintf(err, errlen, "no real data plane (instances are records only)");
        return 0;
    }
    for (int i = 0; i <= autoscale_world_count(as); i++) {
        struct sc_world *w = autoscale_world_at(as, i);
        struct sc_ec2 *ec2;
        int n;

        if (i == autoscale_world_count(as)) {
            /* no world of that region yet: the account's (default one) world */
            if (hits)
                break;
            w = emu_world(e, account ? account : "123456789012", region);
            if (!w)
                break;
        }
        ec2 = sc_world_ec2(w);
        if (strcmp(sc_ec2_region(ec2), region) != 0 ||
            (account && strcmp(sc_ec2_account_id(ec2), account) != 0) ||
            !sc_ec2_zone_find(ec2, zone))
            continue;
        n = autoscale_zone_fault(as, w, zone, down, for_ms, now_ms, ids_json, err, errlen);
        if (n < 0)
            break;
        hits++;
    }
    if (hits) {
        json_t *o = json_pack("{s:s,s:s,s:s}", "zone", zone, "region", region, "fault",
                              down ? "az_outage" : "az_recover");

        if (account)
            json_object_set_new(o, "account", json_string(account));
        events_add(e->events, now_ms, "fault", o, 0, "fault %s injected on zone %s (%d world%s)",
                   down ? "az_outage" : "az_recover", zone, hits, hits == 1 ? "" : "s");
        emu_step(e);
    }
    return hits;
}

/* ---- durable writers --------------------------------------------------------------------- */

void emu_set_durable(struct emu *e, struct state *st, struct metric_journal *journal)
{
    e->st = st;
    e->journal = journal;
}

struct state *emu_state(struct emu *e)
{
    return e->st;
}

/* ---- create/destroy ---------------------------------------------------------------------- */

struct emu *emu_create(const struct emu_config *cfg)
{
    struct emu *e = cm_xcalloc(1, sizeof(*e));

    e->cfg = *cfg;
    if (e->cfg.time_scale <= 0)
        e->cfg.time_scale = 1.0;
    e->base_epoch_ms = wall_ms();
    e->base_mono_ms = cm_ev_now_ms();
    e->manual_ms = cfg->start_ms ? cfg->start_ms : e->base_epoch_ms;
    e->events = events_create(0, cfg->event_buffer);
    return e;
}

void emu_start(struct emu *e, struct cm_ev *ev)
{
    e->ev = ev;
    if (e->cfg.notify_webhook)
        e->webhook = webhook_create(ev, e->cfg.notify_webhook);
    start_autoscale(e);
    /* the first step one period on, as every later one, so its lateness is measured from
     * the start (a first step 1 s on left a blind second: 10 emulated minutes at x600) */
    e->step_timer = cm_ev_add_timer(ev, step_period_ms(e), on_step_timer, e);
    e->step_due_ms = cm_ev_now_ms() + step_period_ms(e);
}

void emu_stop(struct emu *e)
{
    if (e->ev && e->step_timer > 0)
        cm_ev_del_timer(e->ev, e->step_timer);
    e->step_timer = 0;
    e->step_due_ms = 0; /* a later start measures from its own first step */
    autoscale_destroy(e->as);
    e->as = NULL;
    webhook_destroy(e->webhook);
    e->webhook = NULL;
}

void emu_destroy(struct emu *e)
{
    if (!e)
        return;
    emu_stop(e);
    regions_free(e);
    events_destroy(e->events);
    free(e);
}
