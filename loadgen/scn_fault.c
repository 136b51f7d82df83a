/* loadgen/scn_fault.c: the scenario's faults played for real: a zone outage, or kill,
 * hang and slow on a group's instances, through the emulator's fault API, or on AWS
 * TerminateInstances and SetInstanceHealth (see scn_run.h). */
#include "loadgen/scn_run.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>
#include <libxml/tree.h>

#include "common/buf.h"
#include "loadgen/awsapi.h"
#include "loadgen/scn_emu.h"
#include "loadgen/scn_internal.h"
#include "loadgen/scn_reply.h"
#include "scaler/sim/timeline.h"

/* ---- faults ---- */

/* An emulator that can take a zone down answers az_recover for a zone that is up with
 * 200; one that cannot asks for an instance id. Returns 1 when supported. */
int scn_emu_has_az_outage(const struct run *r, const char *zone)
{
    char url[300], body[256], err[256];
    struct cm_buf b;
    int st;

    snprintf(url, sizeof(url), "%s/_scalelab/fault", r->base);
    snprintf(body, sizeof(body), "{\"zone\":\"%s\",\"fault\":\"az_recover\"}", zone);
    cm_buf_init(&b, 1 << 16);
    st = scn_http(url, body, &b, 5000, err, sizeof(err));
    cm_buf_cleanup(&b);
    return st == 200;
}

/* Takes the fault's zone down; the dead instances' ids into desc. */
static int emu_az_outage(struct run *r, const struct sim_fault *f, char *desc, size_t n)
{
    char url[300], body[256], err[256];
    struct cm_buf b;
    json_t *o, *insts, *it;
    size_t i, len;
    int st;

    snprintf(url, sizeof(url), "%s/_scalelab/fault", r->base);
    if (f->for_ms > 0)
        snprintf(body, sizeof(body), "{\"zone\":\"%s\",\"fault\":\"az_outage\",\"for_s\":%lld}",
                 f->zone, (long long)(f->for_ms / 1000));
    else
        snprintf(body, sizeof(body), "{\"zone\":\"%s\",\"fault\":\"az_outage\"}", f->zone);
    cm_buf_init(&b, 1 << 20);
    st = scn_http(url, body, &b, 5000, err, sizeof(err));
    if (st != 200) {
        scn_fail_msg("fault az_outage on %s: %s", f->zone, st < 0 ? err : (b.data ? b.data : ""));
        cm_buf_cleanup(&b);
        return -1;
    }
    o = json_loadb(b.data ? b.data : "", b.len, 0, NULL);
    cm_buf_cleanup(&b);
    /* the dead instances, as the simulator's event lists them */
    desc[0] = '\0';
    len = 0;
    insts = json_object_get(o, "instances");
    json_array_foreach(insts, i, it)
    {
        if (len < n && json_is_string(it))
            len += (size_t)snprintf(desc + len, n - len, "%s%s", len ? " " : "",
                                    json_string_value(it));
    }
    if (len == 0)
        snprintf(desc, n, "no running instance in %s", f->zone);
    json_decref(o);
    return 0;
}

static const char *const fault_causes[] = { "kill", "hang", "slow", "az-outage" };

/* The group's running instances in launch order (the emulator's process list), at most
 * max, into ids. */
static int fault_targets(struct run *r, const struct sim_fault *f, char (*ids)[SCN_ID_MAX], int max)
{
    struct scn_group_state st;
    struct aws_params p;
    struct aws_error err;
    xmlDoc *doc = NULL;
    char name[256];
    int n = 0;

    snprintf(name, sizeof(name), "%s-%s", r->prefix, f->group);
    aws_params_init(&p);
    aws_params_add(&p, "AutoScalingGroupNames.member.1", name);
    if (scn_aws_call(r, AWS_AUTOSCALING, "DescribeAutoScalingGroups", &p, &doc, &err) != 0) {
        scn_fail_msg("DescribeAutoScalingGroups: %s: %s", err.code, err.message);
        aws_params_cleanup(&p);
        return -1;
    }
    scn_reply_group(doc, name, &st);
    xmlFreeDoc(doc);
    aws_params_cleanup(&p);
    if (r->is_emulator) {
        char url[300], herr[256];
        struct cm_buf b;
        json_t *o = NULL, *insts;
        size_t i;
        json_t *it;

        snprintf(url, sizeof(url), "%s/_scalelab/dataplane", r->base);
        cm_buf_init(&b, 1 << 22);
        if (scn_http(url, NULL, &b, 5000, herr, sizeof(herr)) == 200)
            o = json_loadb(b.data ? b.data : "", b.len, 0, NULL);
        cm_buf_cleanup(&b);
        insts = json_object_get(o, "instances");
        json_array_foreach(insts, i, it)
        {
            const char *id = json_string_value(json_object_get(it, "id"));
            const char *state = json_string_value(json_object_get(it, "state"));
            int member = 0;

            if (!id || !state || strcmp(state, "listening") != 0 || n >= max)
                continue;
            for (int k = 0; k < st.ninstances; k++)
                if (strcmp(st.inst[k].id, id) == 0 &&
                    strncmp(st.inst[k].lifecycle, "Terminating", 11) != 0)
                    member = 1;
            if (member)
                snprintf(ids[n++], SCN_ID_MAX, "%s", id);
        }
        json_decref(o);
        return n;
    }
    for (int k = 0; k < st.ninstances && n < max; k++)
        if (strcmp(st.inst[k].lifecycle, "InService") == 0)
            snprintf(ids[n++], SCN_ID_MAX, "%s", st.inst[k].id);
    return n;
}

static int emu_fault(struct run *r, const char *id, const char *what)
{
    char url[300], body[256], err[256];
    struct cm_buf b;
    int st;

    snprintf(url, sizeof(url), "%s/_scalelab/fault", r->base);
    snprintf(body, sizeof(body), "{\"instance_id\":\"%s\",\"fault\":\"%s\"}", id, what);
    cm_buf_init(&b, 1 << 16);
    st = scn_http(url, body, &b, 5000, err, sizeof(err));
    if (st != 200)
        scn_fail_msg("fault %s on %s: %s", what, id, st < 0 ? err : (b.data ? b.data : ""));
    cm_buf_cleanup(&b);
    return st == 200 ? 0 : -1;
}

static int aws_fault(struct run *r, const char *id, enum sim_fault_kind kind)
{
    struct aws_params p;
    struct aws_error err;
    int rc;

    aws_params_init(&p);
    if (kind == SIM_FAULT_KILL) {
        aws_params_add(&p, "InstanceId.1", id);
        rc = scn_aws_call(r, AWS_EC2, "TerminateInstances", &p, NULL, &err);
    } else {
        aws_params_add(&p, "InstanceId", id);
        aws_params_add(&p, "HealthStatus", "Unhealthy");
        aws_params_add(&p, "ShouldRespectGracePeriod", "false");
        rc = scn_aws_call(r, AWS_AUTOSCALING, "SetInstanceHealth", &p, NULL, &err);
    }
    if (rc != 0)
        scn_fail_msg("fault %s on %s: %s: %s", fault_causes[kind], id, err.code, err.message);
    aws_params_cleanup(&p);
    return rc;
}

static void fault_start(struct run *r, struct fault_track *ft, int64_t t)
{
    const struct sim_fault *f = ft->f;
    int max = f->count < 64 ? f->count : 64, n;
    char desc[SIM_EVENT_TEXT_MAX], what[64];
    char ids[64][SCN_ID_MAX];
    size_t len = 0;

    ft->started = 1;
    if (f->kind == SIM_FAULT_AZ_OUTAGE) {
        if (emu_az_outage(r, f, desc, sizeof(desc)) == 0)
            ft->nids = 1;
        else
            snprintf(desc, sizeof(desc), "%s: the emulator refused the outage", f->zone);
        scn_push_event(r, SIM_EVENT_FAULT, r->sc->start_ms + t, r->sc->start_ms + t, NULL, NULL,
                       "az-outage", desc, "");
        if (f->for_ms == 0)
            ft->ended = 1;
        return;
    }
    n = fault_targets(r, f, ids, max);
    desc[0] = '\0';
    if (f->kind == SIM_FAULT_SLOW)
        snprintf(what, sizeof(what), "slow=%g", f->factor);
    else
        snprintf(what, sizeof(what), "%s", fault_causes[f->kind]);
    for (int i = 0; i < n; i++) {
        int rc = r->is_emulator ? emu_fault(r, ids[i], what) : aws_fault(r, ids[i], f->kind);
        if (rc != 0)
            continue;
        snprintf(ft->ids[ft->nids++], SCN_ID_MAX, "%.63s", ids[i]);
        len += (size_t)snprintf(desc + len, len < sizeof(desc) ? sizeof(desc) - len : 0, "%s%s",
                                len ? " " : "", ids[i]);
        if (len >= sizeof(desc))
            len = sizeof(desc) - 1;
    }
    if (ft->nids == 0)
        snprintf(desc, sizeof(desc), "no running instance to act on");
    scn_push_event(r, SIM_EVENT_FAULT, r->sc->start_ms + t, r->sc->start_ms + t, f->group, NULL,
                   fault_causes[f->kind], desc, "");
    if (f->for_ms == 0 || f->kind == SIM_FAULT_KILL)
        ft->ended = 1;
}

static void fault_end(struct run *r, struct fault_track *ft, int64_t t)
{
    const struct sim_fault *f = ft->f;

    ft->ended = 1;
    if (f->kind == SIM_FAULT_AZ_OUTAGE) {
        /* the emulator brings the zone back by itself at for_s */
        scn_push_event(r, SIM_EVENT_FAULT, r->sc->start_ms + t, r->sc->start_ms + t, NULL, NULL,
                       "az-outage-end", f->zone, "");
        return;
    }
    if (r->is_emulator)
        for (int i = 0; i < ft->nids; i++)
            emu_fault(r, ft->ids[i], f->kind == SIM_FAULT_HANG ? "resume" : "slow=1");
    scn_push_event(r, SIM_EVENT_FAULT, r->sc->start_ms + t, r->sc->start_ms + t, f->group, NULL,
                   f->kind == SIM_FAULT_HANG ? "hang-end" : "slow-end", "", "");
}

/* Acts on the faults due by scenario time t; returns the next due time (or INT64_MAX). */
int64_t scn_faults_step(struct run *r, int64_t t)
{
    int64_t next = INT64_MAX;

    for (int i = 0; i < r->nfaults; i++) {
        struct fault_track *ft = &r->faults[i];
        if (!ft->started && ft->f->at_ms <= t)
            fault_start(r, ft, t);
        if (ft->started && !ft->ended && ft->f->at_ms + ft->f->for_ms <= t)
            fault_end(r, ft, t);
        if (!ft->started && ft->f->at_ms < next)
            next = ft->f->at_ms;
        else if (ft->started && !ft->ended && ft->f->at_ms + ft->f->for_ms < next)
            next = ft->f->at_ms + ft->f->for_ms;
    }
    return next;
}
