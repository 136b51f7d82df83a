/* emulator/persist.c: the --state file and the metric journal beside it: the state
 * document, loading it at start, opening and closing both writers (see persist.h). */
#include "emulator/persist.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/ev.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "emulator/emu.h"
#include "emulator/metric_journal.h"
#include "emulator/state.h"
#include "scaler/alarm.h"
#include "scaler/asg.h"
#include "scaler/civil.h"
#include "scaler/dashboard.h"
#include "scaler/ec2.h"
#include "scaler/world.h"

struct persist {
    struct emu *emu;
    struct state *st;               /* --state FILE */
    struct metric_journal *journal; /* FILE.metrics beside it */
};

/* ---- durable state (--state FILE) ---------------------------------------------------- */

json_t *persist_state_json(struct emu *e)
{
    json_t *doc = json_object();
    json_t *worlds = json_array(), *accounts = NULL;
    char iso[40];
    int64_t now = emu_now_ms(e);

    if (!doc || !worlds)
        goto fail;
    sc_civil_format_iso_ms(now, iso, sizeof(iso));
    if (json_object_set_new(doc, "version", json_integer(STATE_VERSION)) ||
        json_object_set_new(doc, "saved_at", json_string(iso)) ||
        json_object_set_new(doc, "now_ms", json_integer((json_int_t)now)) ||
        json_object_set_new(doc, "clock", json_string(emu_clock_is_manual(e) ? "manual" : "real")))
        goto fail;
    for (int i = 0; i < emu_world_count(e); i++) {
        json_t *w = sc_world_save(emu_world_at(e, i, NULL, NULL));

        if (!w || json_array_append_new(worlds, w) != 0)
            goto fail;
    }
    if (json_object_set_new(doc, "worlds", worlds) != 0) {
        worlds = NULL;
        goto fail;
    }
    accounts = json_array();
    for (int i = 0; accounts && i < emu_dashboards_count(e); i++) {
        const struct sc_dashboards *d = emu_dashboards_at(e, i);

        if (sc_dashboards_count(d) == 0)
            continue; /* an account with none adds nothing (and no write) */
        if (json_array_append_new(accounts,
                                  json_pack("{s:s,s:s,s:o*}", "account", sc_dashboards_account(d),
                                            "partition", sc_dashboards_partition(d), "dashboards",
                                            sc_dashboards_save(d))) != 0)
            goto fail;
    }
    if (!accounts || json_object_set_new(doc, "accounts", accounts) != 0) {
        accounts = NULL;
        goto fail;
    }
    return doc;

fail:
    json_decref(accounts);
    json_decref(worlds);
    json_decref(doc);
    return NULL;
}

static json_t *snapshot(void *ud)
{
    return persist_state_json(ud);
}

/* Every pending or running instance was a process of the old emulator, which died with it
 * (PR_SET_PDEATHSIG), so each is lost as a host failure is on AWS; its group replaces it.
 * A pending one is lost too: the record may be older than what a client was last shown
 * (running, InService) while its write was in flight, and bringing back that id as a new
 * boot would contradict it. Returns how many were lost. */
static int lose_old_instances(struct sc_ec2 *ec2, int64_t now_ms)
{
    int lost = 0;

    for (int k = 0; k < sc_ec2_instance_count(ec2); k++) {
        const struct sc_ec2_instance *in = sc_ec2_instance_at(ec2, k);
        char id[SC_EC2_ID_LEN];

        if (in->state != SC_EC2_PENDING && in->state != SC_EC2_RUNNING)
            continue;
        snprintf(id, sizeof(id), "%s", in->instance_id);
        lost += sc_ec2_instance_lost(ec2, id, now_ms) == SC_OK;
    }
    return lost;
}

static int partition_ok(const char *p)
{
    return p && (strcmp(p, "aws") == 0 || strcmp(p, "aws-cn") == 0 || strcmp(p, "aws-us-gov") == 0);
}

/* Version 2's "accounts": each account's dashboards. Returns 0, or -1 with err. */
static int load_accounts(struct emu *e, const json_t *accounts, char *err, size_t errlen)
{
    const json_t *x;
    size_t k;

    if (!accounts)
        return 0;
    if (!json_is_array(accounts)) {
        snprintf(err, errlen, "\"accounts\" must be a list");
        return -1;
    }
    json_array_foreach(accounts, k, x)
    {
        const char *account = json_string_value(json_object_get(x, "account"));
        const char *partition = json_string_value(json_object_get(x, "partition"));
        struct sc_dashboards *d;
        struct sc_error se = { 0 };

        if (!account || !*account || strlen(account) >= EMU_ACCOUNT_LEN ||
            !partition_ok(partition)) {
            snprintf(err, errlen,
                     "accounts[%zu]: account and partition (aws, aws-cn, aws-us-gov) are "
                     "required",
                     k);
            return -1;
        }
        if (emu_dashboards_find(e, account, partition)) {
            snprintf(err, errlen, "accounts[%zu]: %s/%s appears twice", k, account, partition);
            return -1;
        }
        d = emu_dashboards(e, account, partition);
        if (!d) {
            snprintf(err, errlen, "accounts[%zu]: too many accounts", k);
            return -1;
        }
        if (sc_dashboards_load(d, json_object_get(x, "dashboards"), &se) != SC_OK) {
            snprintf(err, errlen, "accounts[%zu] (%.16s/%s): %.400s", k, account, partition,
                     se.message);
            return -1;
        }
    }
    return 0;
}

struct clash_ctx {
    const char *account, *region;
};

/* sc_dashboards_merge's report: a name two regions' worlds of an older file both held. */
static void on_clash(const struct sc_dashboard_clash *c, void *ud)
{
    const struct clash_ctx *x = ud;
    char kept[40], dropped[40], here[64];
    const char *earlier = "an earlier world";

    sc_civil_format_iso_ms(c->kept_ms, kept, sizeof(kept));
    sc_civil_format_iso_ms(c->dropped_ms, dropped, sizeof(dropped));
    snprintf(here, sizeof(here), "region %s", x->region);
    log_warn("state: dashboard %s of account %s is in more than one region (a version 1 "
             "state file): kept the one of %s (last modified %s), dropped the one of %s (last "
             "modified %s)",
             c->name, x->account, c->kept_new ? here : earlier, kept, c->kept_new ? earlier : here,
             dropped);
}

/* A world of a version 1 file keeps its dashboards in its cloudwatch member: they join the
 * account's (sc_dashboards_merge's rule for a name two regions hold). 0, or -1 with err. */
static int merge_world_dashboards(struct emu *e, const json_t *x, const char *account,
                                  const char *region, char *err, size_t errlen)
{
    const json_t *list = json_object_get(json_object_get(x, "cloudwatch"), "dashboards");
    struct sc_dashboards *d;
    struct clash_ctx c = { account, region };
    struct sc_error se = { 0 };

    if (!list)
        return 0;
    d = emu_dashboards_find(e, account, sc_alarm_partition(region));
    if (!d) {
        snprintf(err, errlen, "no dashboards of account %s", account);
        return -1;
    }
    if (sc_dashboards_merge(d, list, on_clash, &c, &se) != SC_OK) {
        snprintf(err, errlen, "%.400s", se.message);
        return -1;
    }
    return 0;
}

/* Loads a state document (state_read checked its version): every account's dashboards,
 * every world, the clock. Returns 0, or -1 with err ("<what>: <problem>"). */
static int load_state(struct emu *e, const json_t *doc, char *err, size_t errlen)
{
    const json_t *worlds = json_object_get(doc, "worlds");
    const json_t *now = json_object_get(doc, "now_ms");
    const json_t *x;
    size_t k;

    if (!json_is_array(worlds) || !json_is_integer(now)) {
        snprintf(err, errlen, "\"worlds\" (array) and \"now_ms\" (integer) are required");
        return -1;
    }
    emu_clock_restore(e, json_integer_value(now));
    if (load_accounts(e, json_object_get(doc, "accounts"), err, errlen) < 0)
        return -1;
    json_array_foreach(worlds, k, x)
    {
        const char *account = json_string_value(json_object_get(x, "account"));
        const char *region = json_string_value(json_object_get(x, "region"));
        struct sc_world *w;
        struct sc_error se = { 0 };
        char m[512];
        int lost;

        if (!account || !region || strlen(account) >= EMU_ACCOUNT_LEN) {
            snprintf(err, errlen, "worlds[%zu]: account and region are required", k);
            return -1;
        }
        if (emu_world_find(e, account, region)) {
            snprintf(err, errlen, "worlds[%zu]: %s/%s appears twice", k, account, region);
            return -1;
        }
        w = emu_world_restore(e, account, region);
        if (!w) {
            snprintf(err, errlen, "worlds[%zu]: bad region %s (or too many regions)", k, region);
            return -1;
        }
        if (merge_world_dashboards(e, x, account, region, m, sizeof(m)) < 0) {
            snprintf(err, errlen, "worlds[%zu] (%.16s/%.40s): %.400s", k, account, region, m);
            return -1;
        }
        if (sc_world_load(w, x, &se) != SC_OK) {
            snprintf(err, errlen, "worlds[%zu] (%.16s/%.40s): %.400s", k, account, region,
                     se.message);
            return -1;
        }
        lost = lose_old_instances(sc_world_ec2(w), emu_now_ms(e));
        log_info("state: loaded world account=%s region=%s groups=%d instances=%d (%d lost with "
                 "the old emulator's processes)",
                 account, region, sc_asg_group_count(sc_world_asg(w)),
                 sc_ec2_instance_count(sc_world_ec2(w)), lost);
    }
    return 0;
}

static struct sc_cw *journal_world(const char *account, const char *region, void *ud)
{
    struct sc_world *w = emu_world_restore(ud, account, region);

    return w ? sc_world_cw(w) : NULL;
}

/* The metric journal (FILE.metrics): replayed into the worlds, then every world's
 * CloudWatch puts are appended to it and its fdatasync joins the group commit. */
static int open_journal(struct persist *p, char *err, size_t errlen)
{
    struct metric_journal_replay_stats rs;
    struct state_writer w = { "metric journal", metric_journal_sync, metric_journal_reset, NULL };
    size_t n = strlen(state_path(p->st)) + sizeof(".metrics");
    char *path = cm_xmalloc(n);
    char e[512];

    snprintf(path, n, "%s.metrics", state_path(p->st));
    p->journal = metric_journal_open(path, err, errlen);
    if (!p->journal) {
        free(path);
        return -1;
    }
    emu_set_durable(p->emu, p->st, p->journal);
    if (metric_journal_replay(p->journal, journal_world, p->emu, emu_now_ms(p->emu), &rs, e,
                              sizeof(e)) < 0) {
        snprintf(err, errlen, "%.800s (the file is left as it is)", e);
        free(path);
        return -1;
    }
    log_info("state: replayed %s: %llu datapoints, %llu series images, %llu expired, %llu "
             "skipped, %llu bytes dropped",
             path, (unsigned long long)rs.records, (unsigned long long)rs.images,
             (unsigned long long)rs.expired, (unsigned long long)rs.skipped,
             (unsigned long long)rs.truncated);
    free(path);
    for (int i = 0; i < emu_world_count(p->emu); i++) {
        const char *account, *region;
        struct sc_world *wd = emu_world_at(p->emu, i, &account, &region);

        metric_journal_attach(p->journal, sc_world_cw(wd), account, region);
    }
    w.ud = p->journal;
    if (state_add_writer(p->st, &w) < 0) {
        snprintf(err, errlen, "state: cannot register the metric journal");
        return -1;
    }
    return 0;
}

/* --state FILE: load it when present (a bad file is an error: it is never overwritten),
 * then open its writer. */
static int open_state(struct persist *p, const char *path, char *err, size_t errlen)
{
    json_t *doc = NULL;
    char e[1024];
    int rc = state_read(path, &doc, e, sizeof(e));

    if (rc < 0) {
        snprintf(err, errlen, "%.800s (the file is left as it is)", e);
        return -1;
    }
    if (rc == 1) {
        if (load_state(p->emu, doc, e, sizeof(e)) < 0) {
            snprintf(err, errlen, "%.200s: %.600s (the file is left as it is)", path, e);
            json_decref(doc);
            return -1;
        }
        json_decref(doc);
        emu_observe_sync(p->emu); /* the loaded records are the story's start, not events */
        log_info("state: loaded %s (%d worlds)", path, emu_world_count(p->emu));
    } else {
        log_info("state: %s does not exist: starting empty", path);
    }
    p->st = state_create(path, snapshot, p->emu, err, errlen);
    if (!p->st)
        return -1;
    emu_set_durable(p->emu, p->st, NULL);
    return open_journal(p, err, errlen);
}

struct persist *persist_open(struct emu *e, const char *path, char *err, size_t errlen)
{
    struct persist *p = cm_xcalloc(1, sizeof(*p));

    p->emu = e;
    if (open_state(p, path, err, errlen) < 0) {
        persist_close(p);
        return NULL;
    }
    return p;
}

void persist_close(struct persist *p)
{
    if (!p)
        return;
    emu_set_durable(p->emu, NULL, NULL);
    if (p->st) {
        /* the last clock-driven changes (nothing acknowledged waits on them) */
        state_drain(p->st);
        if (state_next_due_ms(p->st, cm_ev_now_ms()) >= 0)
            state_commit(p->st, INT64_MAX / 2);
        state_drain(p->st);
        state_destroy(p->st);
    }
    metric_journal_close(p->journal); /* detaches from the worlds before they go */
    free(p);
}

struct state *persist_state(const struct persist *p)
{
    return p->st;
}
