/* loadgen/scn_reply.c: see scn_reply.h. */
#include "loadgen/scn_reply.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "loadgen/awsapi.h"
#include "scaler/asg_launch.h"
#include "scaler/civil.h"

/* ---- placeholders ---- */

int scn_arn_substitute(const char *value, scn_arn_lookup_fn lookup, void *ud, char *out, size_t n)
{
    size_t len = 0;
    const char *p = value;

    if (n == 0)
        return -1;
    out[0] = '\0';
    while (*p) {
        const char *open = strstr(p, "{arn:");
        const char *close, *arn;
        char name[256];
        size_t k;

        if (!open) {
            k = strlen(p);
            if (len + k >= n)
                return -1;
            memcpy(out + len, p, k);
            len += k;
            break;
        }
        close = strchr(open, '}');
        if (!close) {
            k = strlen(p);
            if (len + k >= n)
                return -1;
            memcpy(out + len, p, k);
            len += k;
            break;
        }
        k = (size_t)(open - p);
        if (len + k >= n)
            return -1;
        memcpy(out + len, p, k);
        len += k;
        k = (size_t)(close - open - 5);
        if (k >= sizeof(name)) {
            snprintf(out, n, "policy name too long");
            return -1;
        }
        memcpy(name, open + 5, k);
        name[k] = '\0';
        arn = lookup(name, ud);
        if (!arn) {
            snprintf(out, n, "no PolicyARN for %s", name);
            return -1;
        }
        k = strlen(arn);
        if (len + k >= n)
            return -1;
        memcpy(out + len, arn, k);
        len += k;
        p = close + 1;
    }
    out[len] = '\0';
    return 0;
}

int scn_ref_substitute(const char *value, scn_arn_lookup_fn lookup, void *ud, char *out, size_t n)
{
    static const char *const kinds[] = { "tg:",     "alb:", "listener:", "rule:",
                                         "subnet:", "vpc:", "lbdim:",    "tgdim:" };
    size_t len = 0;
    const char *p = value;

    if (n == 0)
        return -1;
    while (*p) {
        const char *close = NULL, *v;
        char key[300];
        size_t k;
        int known = 0;

        if (*p == '{') {
            for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
                known |= strncmp(p + 1, kinds[i], strlen(kinds[i])) == 0;
            close = known ? strchr(p, '}') : NULL;
        }
        if (!close) {
            if (len + 1 >= n)
                return -1;
            out[len++] = *p++;
            continue;
        }
        k = (size_t)(close - p - 1);
        if (k >= sizeof(key))
            return -1;
        memcpy(key, p + 1, k);
        key[k] = '\0';
        v = lookup(key, ud);
        if (!v) {
            snprintf(out, n, "nothing made for %s", key);
            return -1;
        }
        k = strlen(v);
        if (len + k >= n)
            return -1;
        memcpy(out + len, v, k);
        len += k;
        p = close + 1;
    }
    out[len] = '\0';
    return 0;
}

int scn_at_substitute(const char *value, int64_t t0_ms, char *out, size_t n)
{
    char *end;
    long long ms;

    if (strncmp(value, "{at:", 4) != 0)
        return 0;
    ms = strtoll(value + 4, &end, 10);
    if (end == value + 4 || strcmp(end, "}") != 0)
        return 0;
    sc_civil_format_iso(t0_ms + ms, out, n);
    return 1;
}

/* ---- XML helpers: direct children only ---- */

static int is_elem(const xmlNode *n, const char *name)
{
    return n && n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

static xmlNode *child(xmlNode *node, const char *name)
{
    for (xmlNode *c = node ? node->children : NULL; c; c = c->next)
        if (is_elem(c, name))
            return c;
    return NULL;
}

static void child_text(xmlNode *node, const char *name, char *out, size_t n)
{
    xmlNode *c = child(node, name);
    xmlChar *t = c ? xmlNodeGetContent(c) : NULL;

    snprintf(out, n, "%s", t ? (const char *)t : "");
    xmlFree(t);
}

static double child_num(xmlNode *node, const char *name, double dflt)
{
    char b[64], *end;
    double v;

    child_text(node, name, b, sizeof(b));
    if (!b[0])
        return dflt;
    v = strtod(b, &end);
    return end == b ? dflt : v;
}

static int64_t child_time(xmlNode *node, const char *name)
{
    char b[64];
    int64_t ms;

    child_text(node, name, b, sizeof(b));
    return b[0] && sc_civil_parse_iso(b, &ms) == 0 ? ms : 0;
}

/* The first <member> of the list element named list under doc (depth first). */
static xmlNode *first_member(xmlDoc *doc, const char *list)
{
    xmlNode *l = doc ? aws_xml_find(xmlDocGetRootElement(doc), list) : NULL;

    return l ? child(l, "member") : NULL;
}

/* ---- replies ---- */

void scn_reply_group(xmlDoc *doc, const char *name, struct scn_group_state *st)
{
    memset(st, 0, sizeof(*st));
    for (xmlNode *m = first_member(doc, "AutoScalingGroups"); m; m = aws_xml_next(m)) {
        char gname[256];

        child_text(m, "AutoScalingGroupName", gname, sizeof(gname));
        if (strcmp(gname, name) != 0)
            continue;
        st->found = 1;
        st->desired = (int)child_num(m, "DesiredCapacity", 0);
        st->min = (int)child_num(m, "MinSize", 0);
        st->max = (int)child_num(m, "MaxSize", 0);
        for (xmlNode *i = child(child(m, "Instances"), "member"); i; i = aws_xml_next(i)) {
            char lc[32];

            child_text(i, "LifecycleState", lc, sizeof(lc));
            if (strcmp(lc, "InService") == 0)
                st->in_service++;
            else if (strncmp(lc, "Pending", 7) == 0)
                st->pending++;
            else if (strncmp(lc, "Terminating", 11) == 0)
                st->terminating++;
            else
                st->other++;
            if (st->ninstances < SCN_MAX_INSTANCES) {
                child_text(i, "InstanceId", st->inst[st->ninstances].id, SCN_ID_MAX);
                snprintf(st->inst[st->ninstances].lifecycle,
                         sizeof(st->inst[st->ninstances].lifecycle), "%s", lc);
                child_text(i, "HealthStatus", st->inst[st->ninstances].health,
                           sizeof(st->inst[st->ninstances].health));
                st->ninstances++;
            }
        }
        return;
    }
}

void scn_reply_warm_pool(xmlDoc *doc, struct scn_group_state *st, char *next, size_t n)
{
    xmlNode *root = doc ? xmlDocGetRootElement(doc) : NULL;

    memset(st, 0, sizeof(*st));
    st->found = root && aws_xml_find(root, "WarmPoolConfiguration") != NULL;
    if (st->found)
        child_text(aws_xml_find(root, "WarmPoolConfiguration"), "PoolState", st->pool_state,
                   sizeof(st->pool_state));
    for (xmlNode *i = first_member(doc, "Instances"); i && st->ninstances < SCN_MAX_INSTANCES;
         i = aws_xml_next(i)) {
        child_text(i, "InstanceId", st->inst[st->ninstances].id, SCN_ID_MAX);
        child_text(i, "LifecycleState", st->inst[st->ninstances].lifecycle,
                   sizeof(st->inst[st->ninstances].lifecycle));
        child_text(i, "HealthStatus", st->inst[st->ninstances].health,
                   sizeof(st->inst[st->ninstances].health));
        st->ninstances++;
    }
    if (next && n > 0) {
        xmlNode *t = root ? aws_xml_find(root, "NextToken") : NULL;
        xmlChar *s = t ? xmlNodeGetContent(t) : NULL;

        snprintf(next, n, "%s", s ? (const char *)s : "");
        xmlFree(s);
    }
}

double scn_reply_metric_average(xmlDoc *doc, int *ndatapoints)
{
    double sum = 0, weight = 0;
    int n = 0;

    for (xmlNode *m = first_member(doc, "Datapoints"); m; m = aws_xml_next(m)) {
        double avg = child_num(m, "Average", NAN);
        double cnt = child_num(m, "SampleCount", 1);

        if (!isfinite(avg))
            continue;
        if (!(cnt > 0))
            cnt = 1;
        sum += avg * cnt;
        weight += cnt;
        n++;
    }
    if (ndatapoints)
        *ndatapoints = n;
    return n > 0 ? sum / weight : NAN;
}

double scn_reply_metric_latest(xmlDoc *doc, int64_t *t_ms)
{
    double v = NAN;
    int64_t best = INT64_MIN;

    for (xmlNode *m = first_member(doc, "Datapoints"); m; m = aws_xml_next(m)) {
        double avg = child_num(m, "Average", NAN);
        int64_t t = child_time(m, "Timestamp");

        if (isfinite(avg) && t > best) {
            best = t;
            v = avg;
        }
    }
    if (t_ms)
        *t_ms = isfinite(v) ? best : 0;
    return v;
}

/* The member of doc's list (MetricAlarms, CompositeAlarms) named name, or NULL. */
static xmlNode *alarm_member(xmlDoc *doc, const char *list, const char *name)
{
    for (xmlNode *m = first_member(doc, list); m; m = aws_xml_next(m)) {
        char aname[256];

        child_text(m, "AlarmName", aname, sizeof(aname));
        if (strcmp(aname, name) == 0)
            return m;
    }
    return NULL;
}

void scn_reply_alarm(xmlDoc *doc, const char *name, struct scn_alarm_state *st)
{
    xmlNode *m = alarm_member(doc, "MetricAlarms", name);
    int metric = m != NULL;

    memset(st, 0, sizeof(*st));
    if (!m && !(m = alarm_member(doc, "CompositeAlarms", name)))
        return;
    st->found = 1;
    child_text(m, "StateValue", st->state, sizeof(st->state));
    child_text(m, "StateReason", st->reason, sizeof(st->reason));
    st->updated_ms = child_time(m, "StateUpdatedTimestamp");
    if (metric) {
        child_text(m, "MetricName", st->metric, sizeof(st->metric));
        child_text(m, "ComparisonOperator", st->comparison, sizeof(st->comparison));
        st->threshold = child_num(m, "Threshold", 0);
    }
}

int scn_reply_history(xmlDoc *doc, void (*fn)(int64_t t_ms, const char *summary, void *ud),
                      void *ud)
{
    int n = 0;

    for (xmlNode *m = first_member(doc, "AlarmHistoryItems"); m; m = aws_xml_next(m)) {
        char summary[SCN_TEXT_MAX];

        child_text(m, "HistorySummary", summary, sizeof(summary));
        fn(child_time(m, "Timestamp"), summary, ud);
        n++;
    }
    return n;
}

int scn_reply_alarm_names(xmlDoc *doc, void (*fn)(const char *name, void *ud), void *ud)
{
    int n = 0;

    for (xmlNode *m = first_member(doc, "MetricAlarms"); m; m = aws_xml_next(m)) {
        char aname[256];

        child_text(m, "AlarmName", aname, sizeof(aname));
        fn(aname, ud);
        n++;
    }
    return n;
}

int scn_activity_done(const char *status)
{
    return strcmp(status, "Successful") == 0 || strcmp(status, "Failed") == 0 ||
           strcmp(status, "Cancelled") == 0;
}

int scn_reply_activities(xmlDoc *doc, void (*fn)(const struct scn_activity *a, void *ud), void *ud)
{
    xmlNode *v[1024];
    int n = 0;

    for (xmlNode *m = first_member(doc, "Activities"); m && n < 1024; m = aws_xml_next(m))
        v[n++] = m;
    for (int i = n - 1; i >= 0; i--) {
        struct scn_activity a;

        memset(&a, 0, sizeof(a));
        child_text(v[i], "ActivityId", a.id, sizeof(a.id));
        child_text(v[i], "AutoScalingGroupName", a.group, sizeof(a.group));
        child_text(v[i], "StatusCode", a.status, sizeof(a.status));
        child_text(v[i], "Cause", a.cause, sizeof(a.cause));
        child_text(v[i], "Description", a.description, sizeof(a.description));
        a.start_ms = child_time(v[i], "StartTime");
        a.end_ms = child_time(v[i], "EndTime");
        fn(&a, ud);
    }
    return n;
}

void scn_reply_instance_health(xmlDoc *doc, int *in_service, int *out_of_service)
{
    *in_service = 0;
    *out_of_service = 0;
    for (xmlNode *m = first_member(doc, "InstanceStates"); m; m = aws_xml_next(m)) {
        char st[32];

        child_text(m, "State", st, sizeof(st));
        if (strcmp(st, "InService") == 0)
            (*in_service)++;
        else
            (*out_of_service)++;
    }
}

void scn_reply_target_health(xmlDoc *doc, int *healthy, int *other)
{
    *healthy = 0;
    *other = 0;
    for (xmlNode *m = first_member(doc, "TargetHealthDescriptions"); m; m = aws_xml_next(m)) {
        char st[32];

        child_text(child(m, "TargetHealth"), "State", st, sizeof(st));
        if (strcmp(st, "healthy") == 0)
            (*healthy)++;
        else
            (*other)++;
    }
}

int scn_reply_metric_sum_max(xmlDoc *doc, double *sum, double *max)
{
    int n = 0;

    *sum = 0;
    *max = NAN;
    for (xmlNode *m = first_member(doc, "Datapoints"); m; m = aws_xml_next(m)) {
        double s = child_num(m, "Sum", NAN), x = child_num(m, "Maximum", NAN);

        if (isfinite(s))
            *sum += s;
        if (isfinite(x) && !(x <= *max))
            *max = x;
        n++;
    }
    return n;
}

/* The members of the reply's list element named list (Instances or Errors). */
static struct sc_asg_launch_item *launch_items(xmlDoc *doc, const char *list, int error, int *n)
{
    struct sc_asg_launch_item *v = NULL;

    *n = 0;
    for (xmlNode *m = first_member(doc, list); m; m = m->next) {
        struct sc_asg_launch_item *it;
        char b[SCN_TEXT_MAX];

        if (!is_elem(m, "member"))
            continue;
        v = cm_xrealloc(v, (size_t)(*n + 1) * sizeof(*v));
        it = &v[(*n)++];
        memset(it, 0, sizeof(*it));
        child_text(m, "InstanceType", it->instance_type, sizeof(it->instance_type));
        child_text(m, "MarketType", it->market_type, sizeof(it->market_type));
        child_text(m, "SubnetId", it->subnet_id, sizeof(it->subnet_id));
        child_text(m, "AvailabilityZone", it->availability_zone, sizeof(it->availability_zone));
        child_text(m, "AvailabilityZoneId", it->availability_zone_id,
                   sizeof(it->availability_zone_id));
        if (error) {
            child_text(m, "ErrorCode", b, sizeof(b));
            it->error_code = cm_xstrdup(b);
            child_text(m, "ErrorMessage", b, sizeof(b));
            it->error_message = cm_xstrdup(b);
            continue;
        }
        for (xmlNode *id = child(child(m, "InstanceIds"), "member"); id; id = id->next) {
            xmlChar *t;

            if (!is_elem(id, "member"))
                continue;
            t = xmlNodeGetContent(id);
            it->instance_ids = cm_xrealloc(it->instance_ids, (size_t)(it->ninstance_ids + 1) *
                                                                 sizeof(*it->instance_ids));
            snprintf(it->instance_ids[it->ninstance_ids++], SC_ASG_ID_LEN, "%s",
                     t ? (const char *)t : "");
            xmlFree(t);
        }
    }
    return v;
}

void scn_reply_launch(xmlDoc *doc, struct sc_asg_launch_info *rep)
{
    memset(rep, 0, sizeof(*rep));
    scn_reply_text(doc, "AutoScalingGroupName", rep->auto_scaling_group_name,
                   sizeof(rep->auto_scaling_group_name));
    scn_reply_text(doc, "ClientToken", rep->client_token, sizeof(rep->client_token));
    rep->instances = launch_items(doc, "Instances", 0, &rep->ninstances);
    rep->errors = launch_items(doc, "Errors", 1, &rep->nerrors);
}

void scn_reply_launch_free(struct sc_asg_launch_info *rep)
{
    for (int e = 0; e < 2; e++) {
        struct sc_asg_launch_item *v = e ? rep->errors : rep->instances;
        int n = e ? rep->nerrors : rep->ninstances;

        for (int i = 0; i < n; i++) {
            free(v[i].instance_ids);
            free(v[i].error_code);
            free(v[i].error_message);
        }
        free(v);
    }
    memset(rep, 0, sizeof(*rep));
}

int scn_reply_text(xmlDoc *doc, const char *name, char *out, size_t n)
{
    if (!doc) {
        if (n)
            out[0] = '\0';
        return -1;
    }
    return aws_xml_text(xmlDocGetRootElement(doc), name, out, n);
}
