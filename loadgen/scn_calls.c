/* loadgen/scn_calls.c: the scenario runner's AWS calls: one call, the setup plan played
 * in order and the teardown of what it made (see scn_run.h). */
#include "loadgen/scn_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libxml/tree.h>

#include "common/xalloc.h"
#include "loadgen/awsapi.h"
#include "loadgen/scenario.h"
#include "loadgen/scn_internal.h"
#include "loadgen/scn_reply.h"

/* ---- AWS calls ---- */

static const char *param_get(const struct aws_params *p, const char *name)
{
    for (int i = 0; i < p->n; i++)
        if (strcmp(p->v[i].name, name) == 0)
            return p->v[i].value;
    return "";
}

static const char *arn_lookup(const char *policy, void *ud)
{
    struct run *r = ud;
    int i = sim_scenario_policy_index(r->sc, policy);

    return i >= 0 && r->arns[i] ? r->arns[i] : NULL;
}

static void ref_set(struct run *r, const char *key, const char *value)
{
    r->refk = cm_xrealloc(r->refk, (size_t)(r->nrefs + 1) * sizeof(*r->refk));
    r->refv = cm_xrealloc(r->refv, (size_t)(r->nrefs + 1) * sizeof(*r->refv));
    r->refk[r->nrefs] = cm_xstrdup(key);
    r->refv[r->nrefs++] = cm_xstrdup(value);
}

static const char *ref_get(struct run *r, const char *key)
{
    for (int i = r->nrefs - 1; i >= 0; i--)
        if (strcmp(r->refk[i], key) == 0)
            return r->refv[i];
    return NULL;
}

/* {lbdim:A}: the ALB ARN after "loadbalancer/"; {tgdim:T}: the target group ARN's last
 * part (targetgroup/NAME/ID); the rest as stored. */
static const char *ref_lookup(const char *key, void *ud)
{
    struct run *r = ud;
    char k[300];
    const char *v;

    if (strncmp(key, "lbdim:", 6) == 0) {
        snprintf(k, sizeof(k), "alb:%s", key + 6);
        v = ref_get(r, k);
        v = v ? strstr(v, ":loadbalancer/") : NULL;
        return v ? v + 14 : NULL;
    }
    if (strncmp(key, "tgdim:", 6) == 0) {
        snprintf(k, sizeof(k), "tg:%s", key + 6);
        v = ref_get(r, k);
        v = v ? strrchr(v, ':') : NULL;
        return v ? v + 1 : NULL;
    }
    return ref_get(r, key);
}

const char *scn_ref(struct run *r, const char *key)
{
    return ref_lookup(key, r);
}

/* The default VPC and each zone's default subnet (DescribeSubnets, defaultForAz), for the
 * ELBv2 calls' {vpc:default} and {subnet:ZONE}. */
static int subnets_find(struct run *r)
{
    struct aws_params p;
    struct aws_error err;
    xmlDoc *doc = NULL;
    xmlNode *set, *it;

    aws_params_init(&p);
    if (scn_aws_call(r, AWS_EC2, "DescribeSubnets", &p, &doc, &err) != 0) {
        scn_fail_msg("setup: DescribeSubnets refused: %s: %s", err.code[0] ? err.code : "error",
                     err.message);
        aws_params_cleanup(&p);
        return -1;
    }
    aws_params_cleanup(&p);
    set = aws_xml_find(xmlDocGetRootElement(doc), "subnetSet");
    for (it = set ? aws_xml_find(set, "item") : NULL; it; it = aws_xml_next(it)) {
        char id[128], az[64], vpc[128], def[16];

        if (aws_xml_text(it, "defaultForAz", def, sizeof(def)) != 0 || strcmp(def, "true") != 0 ||
            aws_xml_text(it, "subnetId", id, sizeof(id)) != 0 ||
            aws_xml_text(it, "availabilityZone", az, sizeof(az)) != 0)
            continue;
        if (!ref_get(r, "vpc:default") && aws_xml_text(it, "vpcId", vpc, sizeof(vpc)) == 0)
            ref_set(r, "vpc:default", vpc);
        snprintf(vpc, sizeof(vpc), "subnet:%s", az);
        ref_set(r, vpc, id);
    }
    xmlFreeDoc(doc);
    return 0;
}

/* One call; on an AWS error err is filled and -1 returned. */
int scn_aws_call(struct run *r, enum aws_service svc, const char *action,
                 const struct aws_params *p, xmlDoc **doc, struct aws_error *err)
{
    struct aws_reply rep = { 0 };

    if (aws_call(r->aws, svc, action, p, &rep, err) != 0)
        return -1;
    if (doc)
        *doc = rep.doc;
    else
        xmlFreeDoc(rep.doc);
    return 0;
}

static const char *call_name(const struct scn_call *c)
{
    static const char *const keys[] = {
        "LoadBalancerName",  "LaunchConfigurationName", "AlarmName",
        "PolicyName",        "AutoScalingGroupName",    "Name",
        "ListenerArn",       "LoadBalancerArn",         "TargetGroupArn",
        "LaunchTemplateName"
    };

    for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
        const char *v = param_get(&c->params, keys[k]);
        if (v[0])
            return v;
    }
    return "";
}

int scn_setup(struct run *r)
{
    if ((r->sc->nalbs || r->sc->ntgs) && subnets_find(r) != 0)
        return -1;
    for (int i = 0; i < r->plan.nsetup && !scn_g_stop; i++) {
        const struct scn_call *c = &r->plan.setup[i];
        struct aws_params p;
        struct aws_error err;
        xmlDoc *doc = NULL;
        char val[4096];
        int rc;

        aws_params_init(&p);
        for (int k = 0; k < c->params.n; k++) {
            if (scn_arn_substitute(c->params.v[k].value, arn_lookup, r, val, sizeof(val)) != 0) {
                scn_fail_msg("setup: %s %s: %s", c->action, call_name(c), val);
                aws_params_cleanup(&p);
                return -1;
            }
            if (c->svc == AWS_ELBV2 || strchr(val, '{')) {
                char v2[4096];

                if (scn_ref_substitute(val, ref_lookup, r, v2, sizeof(v2)) != 0) {
                    scn_fail_msg("setup: %s %s: %s", c->action, call_name(c), v2);
                    aws_params_cleanup(&p);
                    return -1;
                }
                snprintf(val, sizeof(val), "%s", v2);
            }
            scn_at_substitute(c->params.v[k].value, r->emu_t0, val, sizeof(val));
            aws_params_add(&p, c->params.v[k].name, val);
        }
        rc = scn_aws_call(r, c->svc, c->action, &p, &doc, &err);
        aws_params_cleanup(&p);
        if (rc != 0) {
            scn_fail_msg("setup: %s %s refused: %s: %s", c->action, call_name(c),
                         err.code[0] ? err.code : "error", err.message);
            return -1;
        }
        r->done[i] = 1;
        if (c->ref[0]) {
            char arn[2048];

            if (scn_reply_text(doc, c->ref_elem, arn, sizeof(arn)) != 0) {
                scn_fail_msg("setup: %s %s: no %s in the reply", c->action, call_name(c),
                             c->ref_elem);
                xmlFreeDoc(doc);
                return -1;
            }
            ref_set(r, c->ref, arn);
        }
        if (c->policy[0]) {
            char arn[2048];
            int pi = sim_scenario_policy_index(r->sc, c->policy);

            if (scn_reply_text(doc, "PolicyARN", arn, sizeof(arn)) != 0 || pi < 0) {
                scn_fail_msg("setup: PutScalingPolicy %s: no PolicyARN in the reply", c->policy);
                xmlFreeDoc(doc);
                return -1;
            }
            free(r->arns[pi]);
            r->arns[pi] = cm_xstrdup(arn);
        }
        xmlFreeDoc(doc);
    }
    return scn_g_stop ? -1 : 0;
}

static int gone_error(const struct aws_error *e)
{
    return strstr(e->code, "NotFound") || strstr(e->message, "not found") ||
           strstr(e->message, "does not exist");
}

static int busy_error(const struct aws_error *e)
{
    return strcmp(e->code, "ResourceInUse") == 0 ||
           strcmp(e->code, "ScalingActivityInProgress") == 0;
}

/* Deletes the composite alarms setup put, the last put first, one a call: AWS refuses to
 * delete an alarm a composite's rule names, so each goes before the alarms (and the
 * composites) it names. Returns the number of deletions that failed. */
static int teardown_composites(struct run *r)
{
    int failed = 0;

    for (int i = r->plan.nsetup - 1; i >= 0; i--) {
        const struct scn_call *c = &r->plan.setup[i];
        struct aws_params q;
        struct aws_error err;
        const char *name = param_get(&c->params, "AlarmName");

        if (!r->done[i] || strcmp(c->action, "PutCompositeAlarm") != 0 || !name)
            continue;
        aws_params_init(&q);
        aws_params_add(&q, "AlarmNames.member.1", name);
        if (scn_aws_call(r, AWS_CLOUDWATCH, "DeleteAlarms", &q, NULL, &err) != 0 &&
            !gone_error(&err)) {
            scn_fail_msg("teardown: DeleteAlarms %s: %s: %s", name, err.code, err.message);
            failed++;
        }
        aws_params_cleanup(&q);
    }
    return failed;
}

/* Deletes what setup created: composite alarms, alarms, groups (ForceDelete), launch
 * configurations (retried while a group still uses them), load balancers. Returns the
 * number of deletions that failed. */
int scn_teardown(struct run *r)
{
    struct aws_params p;
    int failed = 0, nal = 0;
    /* in use for up to 20 emulated minutes on an emulator; 10 real minutes on AWS */
    int64_t deadline =
        scn_mono_ms() + (r->is_emulator ? (int64_t)(1200000.0 / r->scale) + 2000 : 600000);

    failed += teardown_composites(r);
    aws_params_init(&p);
    for (int i = 0; i < r->plan.nsetup; i++) {
        const struct scn_call *c = &r->plan.setup[i];
        char k[64];

        if (!r->done[i] || strcmp(c->action, "PutMetricAlarm") != 0)
            continue;
        snprintf(k, sizeof(k), "AlarmNames.member.%d", ++nal);
        aws_params_add(&p, k, param_get(&c->params, "AlarmName"));
    }
    static const struct {
        const char *create, *del, *key;
        enum aws_service svc;
    } order[] = {
        { "PutMetricAlarm", "DeleteAlarms", NULL, AWS_CLOUDWATCH },
        { "CreateAutoScalingGroup", "DeleteAutoScalingGroup", "AutoScalingGroupName",
          AWS_AUTOSCALING },
        { "CreateLaunchConfiguration", "DeleteLaunchConfiguration", "LaunchConfigurationName",
          AWS_AUTOSCALING },
        { "CreateLaunchTemplate", "DeleteLaunchTemplate", "LaunchTemplateName", AWS_EC2 },
        { "CreateRule", "DeleteRule", "RuleArn", AWS_ELBV2 },
        { "CreateListener", "DeleteListener", "ListenerArn", AWS_ELBV2 },
        { "CreateLoadBalancer", "DeleteLoadBalancer", "LoadBalancerArn", AWS_ELBV2 },
        { "CreateTargetGroup", "DeleteTargetGroup", "TargetGroupArn", AWS_ELBV2 },
        { "CreateLoadBalancer", "DeleteLoadBalancer", "LoadBalancerName", AWS_ELB },
    };
    for (size_t s = 0; s < sizeof(order) / sizeof(order[0]); s++) {
        for (int i = 0; i < r->plan.nsetup; i++) {
            const struct scn_call *c = &r->plan.setup[i];
            struct aws_params q;
            struct aws_error err;
            const char *name;
            int rc;

            if (!r->done[i] || strcmp(c->action, order[s].create) != 0 || c->svc != order[s].svc)
                continue;
            if (!order[s].key) {
                if (nal > 0) {
                    rc = scn_aws_call(r, order[s].svc, order[s].del, &p, NULL, &err);
                    if (rc != 0 && !gone_error(&err)) {
                        scn_fail_msg("teardown: DeleteAlarms: %s: %s", err.code, err.message);
                        failed++;
                    }
                    nal = 0;
                }
                continue;
            }
            /* ELBv2: the ARN the create call returned (reverse order: rules, listeners, load
             * balancers, then target groups) */
            name = c->svc == AWS_ELBV2 ? ref_get(r, c->ref) : param_get(&c->params, order[s].key);
            if (!name)
                continue;
            aws_params_init(&q);
            aws_params_add(&q, order[s].key, name);
            if (strcmp(order[s].del, "DeleteAutoScalingGroup") == 0)
                aws_params_add(&q, "ForceDelete", "true");
            for (;;) {
                rc = scn_aws_call(r, order[s].svc, order[s].del, &q, NULL, &err);
                if (rc == 0 || gone_error(&err))
                    break;
                if (busy_error(&err) && scn_mono_ms() < deadline) {
                    struct timespec ts = { 0, 200000000L };
                    nanosleep(&ts, NULL);
                    continue;
                }
                scn_fail_msg("teardown: %s %s: %s: %s", order[s].del, name, err.code, err.message);
                failed++;
                break;
            }
            aws_params_cleanup(&q);
        }
    }
    aws_params_cleanup(&p);
    memset(r->done, 0, (size_t)r->plan.nsetup * sizeof(*r->done));
    return failed;
}
