/* scaler/sim/output.c: see output.h. */
#include "scaler/sim/output.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "scaler/asg_launch.h"
#include "scaler/civil.h"
#include "scaler/decision.h"

void sim_out_elapsed(int64_t ms, char *out, size_t n)
{
    sim_elapsed_format(ms, out, n);
}

void sim_out_json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        switch (*p) {
        case '"':
            fputs("\\\"", f);
            break;
        case '\\':
            fputs("\\\\", f);
            break;
        case '\n':
            fputs("\\n", f);
            break;
        case '\r':
            fputs("\\r", f);
            break;
        case '\t':
            fputs("\\t", f);
            break;
        default:
            if (*p < 0x20)
                fprintf(f, "\\u%04x", *p);
            else
                fputc(*p, f);
        }
    }
    fputc('"', f);
}

void sim_out_json_num(FILE *f, double v)
{
    char buf[64];
    size_t n;

    if (!isfinite(v)) {
        fputs("null", f);
        return;
    }
    if (fabs(v) < 5e-5)
        v = 0;
    snprintf(buf, sizeof(buf), "%.4f", v);
    n = strlen(buf);
    while (n > 0 && buf[n - 1] == '0')
        buf[--n] = '\0';
    if (n > 0 && buf[n - 1] == '.')
        buf[--n] = '\0';
    fputs(buf, f);
}

void sim_out_bind(struct sim_out *o, const struct sim_timeline_config *tc)
{
    o->tc = tc;
    o->start_ms = tc->start_ms;
}

/* snprintf into out + *len, keeping *len within n */
static void app(char *out, size_t n, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void app(char *out, size_t n, size_t *len, const char *fmt, ...)
{
    va_list ap;
    int w;

    if (*len >= n)
        return;
    va_start(ap, fmt);
    w = vsnprintf(out + *len, n - *len, fmt, ap);
    va_end(ap);
    if (w > 0)
        *len += (size_t)w;
    if (*len >= n)
        *len = n - 1;
}

void sim_out_format_header(const struct sim_timeline_config *tc, char *out, size_t n)
{
    size_t len = 0;

    out[0] = '\0';
    app(out, n, &len, "%-10s %8s", "time", "load");
    for (int g = 0; g < tc->ngroups; g++)
        app(out, n, &len, "  %-11s %5s", tc->ngroups > 1 ? tc->group_names[g] : "des/ins/pen",
            "cpu%");
    app(out, n, &len, " %8s %8s %6s", "p50ms", "p99ms", "err%");
    for (int a = 0; a < tc->nalarms; a++)
        app(out, n, &len, "  %s", tc->alarms[a].name);
}

void sim_out_format_row(const struct sim_timeline_config *tc, int64_t start_ms,
                        const struct sim_sample *s, char *out, size_t n)
{
    size_t len = 0;
    char t[32];

    out[0] = '\0';
    sim_out_elapsed(s->t_ms - start_ms, t, sizeof(t));
    app(out, n, &len, "%-10s %7.0f%c", t, s->load, s->load_is_clients ? 'c' : ' ');
    for (int g = 0; g < s->ngroups; g++) {
        char cap[48], cpu[16];
        snprintf(cap, sizeof(cap), "%d/%d/%d", s->groups[g].desired, s->groups[g].in_service,
                 s->groups[g].pending);
        if (isnan(s->groups[g].cpu_pct))
            snprintf(cpu, sizeof(cpu), "-");
        else
            snprintf(cpu, sizeof(cpu), "%.1f", s->groups[g].cpu_pct);
        app(out, n, &len, "  %-11s %5s", cap, cpu);
    }
    if (s->completed > 0)
        app(out, n, &len, " %8.1f %8.1f", s->p50_ms, s->p99_ms);
    else
        app(out, n, &len, " %8s %8s", "-", "-");
    app(out, n, &len, " %6.2f", s->error_pct);
    for (int a = 0; a < s->nalarms; a++) {
        const char *st = s->alarms[a] == SIM_ALARM_ALARM ? "ALARM"
                         : s->alarms[a] == SIM_ALARM_OK  ? "ok"
                                                         : "--";
        app(out, n, &len, "  %*s", (int)strlen(tc->alarms[a].name), st);
    }
}

void sim_out_on_sample(const struct sim_sample *s, void *ud)
{
    struct sim_out *o = ud;
    char line[4096];

    if (o->json) {
        FILE *f = o->f;
        fputs(o->first_entry ? "\n" : ",\n", f);
        o->first_entry = 0;
        fprintf(f, "{\"t_s\":%lld,\"type\":\"sample\",\"load\":",
                (long long)((s->t_ms - o->start_ms) / 1000));
        sim_out_json_num(f, s->load);
        fprintf(f,
                ",\"load_unit\":\"%s\",\"offered_rps\":", s->load_is_clients ? "clients" : "req/s");
        sim_out_json_num(f, s->offered_rps);
        fprintf(f,
                ",\"completed\":%llu,\"failed\":%llu,\"p50_ms\":", (unsigned long long)s->completed,
                (unsigned long long)s->failed);
        sim_out_json_num(f, s->p50_ms);
        fputs(",\"p99_ms\":", f);
        sim_out_json_num(f, s->p99_ms);
        fputs(",\"error_pct\":", f);
        sim_out_json_num(f, s->error_pct);
        fputs(",\"groups\":[", f);
        for (int g = 0; g < s->ngroups; g++) {
            const struct sim_group_sample *gs = &s->groups[g];
            fprintf(f,
                    "%s{\"desired\":%d,\"in_service\":%d,\"pending\":%d,\"terminating\":%d,"
                    "\"cpu_pct\":",
                    g ? "," : "", gs->desired, gs->in_service, gs->pending, gs->terminating);
            sim_out_json_num(f, gs->cpu_pct);
            fprintf(f, ",\"demand\":%d}", gs->demand);
        }
        fputs("],\"alarms\":[", f);
        for (int a = 0; a < s->nalarms; a++)
            fprintf(f, "%s\"%s\"", a ? "," : "", sim_alarm_state_str(s->alarms[a]));
        fputs("]}", f);
        return;
    }
    if (!o->table)
        return;
    if (o->rows % 40 == 0) {
        sim_out_format_header(o->tc, line, sizeof(line));
        fputs(line, o->f);
        fputc('\n', o->f);
    }
    o->rows++;
    sim_out_format_row(o->tc, o->start_ms, s, line, sizeof(line));
    fputs(line, o->f);
    fputc('\n', o->f);
}

static const char *event_type(enum sim_event_kind k)
{
    switch (k) {
    case SIM_EVENT_ACTIVITY:
        return "activity";
    case SIM_EVENT_ALARM:
        return "alarm";
    case SIM_EVENT_DECISION:
        return "decision";
    case SIM_EVENT_HOOK:
        return "hook";
    case SIM_EVENT_NOTIFICATION:
        return "notification";
    case SIM_EVENT_FORECAST:
        return "forecast";
    case SIM_EVENT_LAUNCH:
        return "launch";
    default:
        return "fault";
    }
}

static void json_int_member(FILE *f, const char *key, int64_t v)
{
    fprintf(f, ",\"%s\":%lld", key, (long long)v);
}

/* A LaunchInstances reply's items (docs/scenarios.md, launch_instances), after the common
 * members: "instances" and "errors", the reply's Instances and Errors in our key names. */
static void json_launch(FILE *f, const struct sc_asg_launch_info *rep)
{
    for (int e = 0; e < 2; e++) {
        const struct sc_asg_launch_item *v = e ? rep->errors : rep->instances;
        int n = e ? rep->nerrors : rep->ninstances;

        fputs(e ? ",\"errors\":[" : ",\"instances\":[", f);
        for (int i = 0; i < n; i++) {
            fputs(i ? ",{\"instance_type\":" : "{\"instance_type\":", f);
            sim_out_json_str(f, v[i].instance_type);
            fputs(",\"market_type\":", f);
            sim_out_json_str(f, v[i].market_type);
            fputs(",\"availability_zone\":", f);
            sim_out_json_str(f, v[i].availability_zone);
            if (e) {
                fputs(",\"error_code\":", f);
                sim_out_json_str(f, v[i].error_code ? v[i].error_code : "");
                fputs(",\"error_message\":", f);
                sim_out_json_str(f, v[i].error_message ? v[i].error_message : "");
            } else {
                fputs(",\"instance_ids\":[", f);
                for (int k = 0; k < v[i].ninstance_ids; k++) {
                    fputs(k ? "," : "", f);
                    sim_out_json_str(f, v[i].instance_ids[k]);
                }
                fputc(']', f);
            }
            fputc('}', f);
        }
        fputc(']', f);
    }
}

/* A decision's figures as numbers (docs/decisions.md 3), after the common members. */
static void json_decision(FILE *f, const struct sc_decision *d)
{
    fputs(",\"policy_type\":", f);
    sim_out_json_str(f, d->policy_type ? d->policy_type : "");
    fputs(",\"trigger\":", f);
    sim_out_json_str(f, d->trigger ? d->trigger : "");
    if (d->alarm[0]) {
        fputs(",\"alarm\":", f);
        sim_out_json_str(f, d->alarm);
    }
    if (d->has_metric) {
        fputs(",\"metric\":", f);
        sim_out_json_num(f, d->metric);
    }
    if (d->has_threshold) {
        fputs(",\"threshold\":", f);
        sim_out_json_num(f, d->threshold);
    }
    if (d->has_target) {
        fputs(",\"target\":", f);
        sim_out_json_num(f, d->target);
    }
    fputs(",\"direction\":", f);
    sim_out_json_str(f, sc_decision_direction_name(d->direction));
    json_int_member(f, "current", d->current);
    json_int_member(f, "counted", d->counted);
    json_int_member(f, "warming", d->warming);
    json_int_member(f, "computed", d->computed);
    json_int_member(f, "desired", d->desired);
    json_int_member(f, "min", d->min_size);
    json_int_member(f, "max", d->max_size);
    fputs(",\"result\":", f);
    sim_out_json_str(f, sc_decision_result(d));
    if (d->reason != SC_DECISION_CHANGED) {
        fputs(",\"reason\":", f);
        sim_out_json_str(f, sc_decision_reason_name(d->reason));
    }
    if (d->process) {
        fputs(",\"process\":", f);
        sim_out_json_str(f, d->process);
    }
    if (d->reason == SC_DECISION_COOLDOWN)
        json_int_member(f, "cooldown_left_s", d->cooldown_left_s);
    if (d->capped) {
        fputs(",\"capped\":", f);
        sim_out_json_str(f, d->capped > 0 ? "max" : "min");
    }
}

void sim_out_on_event(const struct sim_event *e, void *ud)
{
    struct sim_out *o = ud;
    char t[32];

    if (o->json) {
        FILE *f = o->f;
        fputs(o->first_entry ? "\n" : ",\n", f);
        o->first_entry = 0;
        fprintf(f, "{\"t_s\":%lld,\"type\":\"%s\"", (long long)((e->t_ms - o->start_ms) / 1000),
                event_type(e->kind));
        if (e->kind == SIM_EVENT_ACTIVITY) {
            fputs(",\"end_s\":", f);
            if (e->end_ms)
                fprintf(f, "%lld", (long long)((e->end_ms - o->start_ms) / 1000));
            else
                fputs("null", f);
        }
        if (e->group) {
            fputs(",\"group\":", f);
            sim_out_json_str(f, e->group);
        }
        if (e->name) {
            fputs(",\"name\":", f);
            sim_out_json_str(f, e->name);
        }
        fputs(",\"status\":", f);
        sim_out_json_str(f, e->status);
        fputs(",\"cause\":", f);
        sim_out_json_str(f, e->cause);
        fputs(",\"description\":", f);
        sim_out_json_str(f, e->description);
        if (e->decision)
            json_decision(f, e->decision);
        if (e->launch)
            json_launch(f, e->launch);
        if (e->hook) {
            fputs(",\"instance_id\":", f);
            sim_out_json_str(f, e->hook->instance_id);
            fputs(",\"transition\":", f);
            sim_out_json_str(f, e->hook->launching ? "launching" : "terminating");
        }
        fputc('}', f);
        return;
    }
    if (!o->table)
        return;
    sim_out_elapsed(e->t_ms - o->start_ms, t, sizeof(t));
    if (e->kind == SIM_EVENT_ACTIVITY)
        fprintf(o->f, "  ^ %s %s: %s (%s)\n", t, e->group ? e->group : "", e->description,
                e->status);
    else if (e->kind == SIM_EVENT_ALARM)
        fprintf(o->f, "  ^ %s alarm %s %s\n", t, e->name ? e->name : "", e->cause);
    else if (e->kind == SIM_EVENT_DECISION)
        fprintf(o->f, "  ^ %s decision %s\n", t, e->description);
    else if (e->kind == SIM_EVENT_HOOK)
        fprintf(o->f, "  ^ %s hook %s\n", t, e->description);
    else if (e->kind == SIM_EVENT_NOTIFICATION)
        fprintf(o->f, "  ^ %s notification %s to %s: %s\n", t, e->name ? e->name : "", e->status,
                e->cause);
    else if (e->kind == SIM_EVENT_LAUNCH)
        fprintf(o->f, "  ^ %s launch %s: LaunchInstances %s, ClientToken %s: %s (%s)\n", t,
                e->group ? e->group : "", e->cause, e->name ? e->name : "", e->description,
                e->status);
    else if (e->kind == SIM_EVENT_FORECAST)
        fprintf(o->f, "  ^ %s forecast %s %s: %s\n", t, e->group ? e->group : "",
                e->name ? e->name : "", e->description);
    else
        fprintf(o->f, "  ^ %s fault %s %s%s%s\n", t, e->cause, e->group ? e->group : "",
                e->group ? ": " : "", e->description);
}

void sim_out_json_head(struct sim_out *o, const char *scenario, uint64_t seed, const char *mode)
{
    const struct sim_timeline_config *tc = o->tc;
    FILE *f = o->f;
    char iso[32];

    sc_civil_format_iso(tc->start_ms, iso, sizeof(iso));
    fputs("{\"scenario\":", f);
    sim_out_json_str(f, scenario);
    fprintf(f, ",\"seed\":%llu,\"mode\":\"%s\",\"start\":\"%s\",\"duration_s\":%lld,\"sample_s\":",
            (unsigned long long)seed, mode, iso, (long long)((tc->end_ms - tc->start_ms) / 1000));
    sim_out_json_num(f, (double)tc->interval_ms / 1000.0);
    fputs(",\"groups\":[", f);
    for (int g = 0; g < tc->ngroups; g++) {
        fputs(g ? "," : "", f);
        sim_out_json_str(f, tc->group_names[g]);
    }
    fputs("],\"alarms\":[", f);
    for (int a = 0; a < tc->nalarms; a++) {
        fputs(a ? ",{\"name\":" : "{\"name\":", f);
        sim_out_json_str(f, tc->alarms[a].name);
        if (tc->alarms[a].alarm_rule) { /* a composite: its rule, no metric */
            fputs(",\"alarm_rule\":", f);
            sim_out_json_str(f, tc->alarms[a].alarm_rule);
            fputc('}', f);
            continue;
        }
        fputs(",\"metric\":", f);
        sim_out_json_str(f, tc->alarms[a].metric);
        fputs(",\"comparison\":", f);
        sim_out_json_str(f, tc->alarms[a].comparison);
        fputs(",\"threshold\":", f);
        sim_out_json_num(f, tc->alarms[a].threshold);
        fputc('}', f);
    }
    fputs("],\n\"timeline\":[", f);
    o->first_entry = 1;
}

/* A group's "demand_basis": a CPU basis keeps the form it always had ({"cpu_pct",
 * "source"}); a request basis says its kind, value and unit (docs/elasticity.md). */
static void json_basis(FILE *f, const struct sim_demand_basis *b)
{
    if (b->kind == SIM_DEMAND_REQUESTS) {
        fputs(",\"demand_basis\":{\"kind\":\"ALBRequestCountPerTarget\",\"value\":", f);
        sim_out_json_num(f, b->requests_per_target);
        fputs(",\"unit\":\"requests/target/min\",\"target_group\":", f);
        sim_out_json_str(f, b->target_group);
        fprintf(f, ",\"groups_sharing\":%d", b->groups_sharing);
    } else {
        fputs(",\"demand_basis\":{\"cpu_pct\":", f);
        sim_out_json_num(f, b->cpu_pct);
    }
    fputs(",\"source\":", f);
    sim_out_json_str(f, b->source);
    fputc('}', f);
}

void sim_out_json_tail(FILE *f, const struct sim_elastic_sink *elastic,
                       const struct sim_checker *checker, const struct sim_run_result *r,
                       const struct sim_timeline_config *tc, const char *extra, int exit_code)
{
    int n = checker ? sim_checker_count(checker) : 0;

    fputs("\n],\n\"summary\":{\"completed\":", f);
    sim_out_json_num(f, floor(r->completed + 0.5));
    fputs(",\"failed\":", f);
    sim_out_json_num(f, floor(r->failed + 0.5));
    fputs(",\"failed_pct\":", f);
    sim_out_json_num(f, sim_run_result_failed_pct(r));
    fputs(",\"p50_ms\":", f);
    sim_out_json_num(f, r->p50_ms);
    fputs(",\"p99_ms\":", f);
    sim_out_json_num(f, r->p99_ms);
    fputs(",\"groups\":[", f);
    for (int g = 0; g < tc->ngroups; g++) {
        struct sim_elastic_result er;
        sim_elastic_result(&elastic->groups[g], r->end_ms, &er);
        fputs(g ? ",{\"name\":" : "{\"name\":", f);
        sim_out_json_str(f, tc->group_names[g]);
        fprintf(f, ",\"final_desired\":%d,\"final_in_service\":%d,\"instance_hours\":",
                r->final_desired[g], r->final_in_service[g]);
        sim_out_json_num(f, er.cost_instance_hours);
        if (er.warm_instance_hours > 0) { /* a group with a warm pool (docs/autoscaling.md 7.4) */
            fputs(",\"warm_instance_hours\":", f);
            sim_out_json_num(f, er.warm_instance_hours);
        }
        fputs(",\"theta_u_pct\":", f);
        sim_out_json_num(f, er.theta_u_pct);
        fputs(",\"theta_o_pct\":", f);
        sim_out_json_num(f, er.theta_o_pct);
        fputs(",\"tau_u_pct\":", f);
        sim_out_json_num(f, er.tau_u_pct);
        fputs(",\"tau_o_pct\":", f);
        sim_out_json_num(f, er.tau_o_pct);
        fputs(",\"instability_pct\":", f);
        sim_out_json_num(f, er.instability_pct);
        fputs(",\"jitter_per_h\":", f);
        sim_out_json_num(f, er.jitter_per_h);
        if (tc->group_basis)
            json_basis(f, &tc->group_basis[g]);
        fputc('}', f);
    }
    fputs("]},\n\"expectations\":[", f);
    for (int i = 0; i < n; i++) {
        const struct sim_check_result *c = sim_checker_result(checker, i);
        double lo, hi;
        fputs(i ? ",\n{\"path\":" : "\n{\"path\":", f);
        sim_out_json_str(f, c->e->path);
        fputs(",\"what\":", f);
        sim_out_json_str(f, c->what);
        fprintf(f, ",\"ok\":%s,\"when_s\":%lld,\"observed\":", c->ok ? "true" : "false",
                (long long)(c->when_ms / 1000));
        sim_out_json_str(f, c->observed);
        /* the same figures as numbers (null: none), for CI to read without parsing text */
        fputs(",\"value\":", f);
        sim_out_json_num(f, c->value);
        sim_check_limits(c->e, &lo, &hi);
        if (!isnan(lo)) {
            fputs(",\"min\":", f);
            sim_out_json_num(f, lo);
        }
        if (!isnan(hi)) {
            fputs(",\"max\":", f);
            sim_out_json_num(f, hi);
        }
        fputc('}', f);
    }
    fprintf(f, "]%s,\n\"exit\":%d}\n", extra ? extra : "", exit_code);
}

void sim_out_print_summary(FILE *f, const char *scenario, const char *how, const char *what,
                           const struct sim_elastic_sink *elastic, const struct sim_run_result *r,
                           const struct sim_timeline_config *tc)
{
    char req[256];

    fprintf(f, "\nscenario %s: %s, %.1f h %s\n", scenario, how,
            (double)(r->end_ms - r->start_ms) / 3600000.0, what);
    sim_run_result_format_requests(r, req, sizeof(req));
    fprintf(f, "requests: %s\n", req);
    for (int g = 0; g < tc->ngroups; g++) {
        struct sim_elastic_result er;
        sim_elastic_result(&elastic->groups[g], r->end_ms, &er);
        fprintf(f,
                "group %s: final desired %d, InService %d; cost %.2f instance-hours\n"
                "  elasticity: under-provisioning accuracy %.2f%%, over-provisioning accuracy "
                "%.2f%%,\n  timeshare under %.2f%% / over %.2f%%, instability %.2f%%, jitter "
                "%.3f/h (mean demand %.2f, supply %.2f)\n",
                tc->group_names[g], r->final_desired[g], r->final_in_service[g],
                er.cost_instance_hours, er.theta_u_pct, er.theta_o_pct, er.tau_u_pct, er.tau_o_pct,
                er.instability_pct, er.jitter_per_h, er.mean_demand, er.mean_supply);
        if (er.warm_instance_hours > 0)
            fprintf(f,
                    "  of which %.2f instance-hours are the warm pool's instances while running "
                    "(stopped or hibernated ones are not billed: EBS storage only)\n",
                    er.warm_instance_hours);
        if (tc->group_basis) {
            char basis[2 * SIM_PATH_MAX + 160];
            sim_elastic_basis_format(&tc->group_basis[g], basis, sizeof(basis));
            fprintf(f, "  demand basis: %s\n", basis);
        }
    }
}

void sim_out_print_expectations(FILE *f, const struct sim_checker *ch)
{
    int n = sim_checker_count(ch);

    if (n == 0)
        return;
    fprintf(f, "expectations:\n");
    for (int i = 0; i < n; i++) {
        const struct sim_check_result *r = sim_checker_result(ch, i);
        char when[32];
        sim_out_elapsed(r->when_ms, when, sizeof(when));
        fprintf(f, "  %s %s: %s (%s at %s)\n", r->ok ? "ok  " : "FAIL", r->e->path, r->what,
                r->observed, when);
    }
}

void sim_out_format_failure(const char *prog, const char *file, const struct sim_check_result *c,
                            char *out, size_t n)
{
    char when[32];

    sim_out_elapsed(c->when_ms, when, sizeof(when));
    snprintf(out, n, "%s: %s: expectation %s failed: %s; %s at %s", prog, file, c->e->path, c->what,
             c->observed, when);
}

void sim_out_print_failures(FILE *f, const char *prog, const char *file,
                            const struct sim_checker *ch)
{
    for (int i = 0; i < sim_checker_count(ch); i++) {
        const struct sim_check_result *c = sim_checker_result(ch, i);
        char line[1024];
        if (c->ok)
            continue;
        sim_out_format_failure(prog, file, c, line, sizeof(line));
        fprintf(f, "%s\n", line);
    }
}

static void xml_text(struct cm_buf *b, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<':
            cm_buf_puts(b, "&lt;");
            break;
        case '>':
            cm_buf_puts(b, "&gt;");
            break;
        case '&':
            cm_buf_puts(b, "&amp;");
            break;
        case '"':
            cm_buf_puts(b, "&quot;");
            break;
        default:
            if ((unsigned char)*s >= 0x20 || *s == '\n' || *s == '\t')
                cm_buf_append(b, s, 1);
        }
    }
}

int sim_out_write_junit(const char *path, const char *suite, const char *prog, const char *file,
                        const struct sim_checker *ch, double time_s)
{
    struct cm_buf b;
    char tmp[4096], line[1024];
    int n = ch ? sim_checker_count(ch) : 0, failed = 0, rc = -1;
    FILE *f = NULL;

    for (int i = 0; i < n; i++)
        failed += !sim_checker_result(ch, i)->ok;
    cm_buf_init(&b, 0);
    cm_buf_puts(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n<testsuite name=\"");
    xml_text(&b, suite);
    cm_buf_printf(&b, "\" tests=\"%d\" failures=\"%d\" errors=\"0\" skipped=\"0\" time=\"%.3f\">\n",
                  n, failed, time_s);
    for (int i = 0; i < n; i++) {
        const struct sim_check_result *c = sim_checker_result(ch, i);
        cm_buf_puts(&b, "  <testcase classname=\"");
        xml_text(&b, suite);
        cm_buf_puts(&b, "\" name=\"");
        xml_text(&b, c->e->path);
        cm_buf_puts(&b, ": ");
        xml_text(&b, c->what);
        cm_buf_puts(&b, "\" time=\"0\"");
        if (c->ok) {
            cm_buf_puts(&b, "/>\n");
            continue;
        }
        sim_out_format_failure(prog, file, c, line, sizeof(line));
        cm_buf_puts(&b, ">\n    <failure type=\"expectation\" message=\"");
        xml_text(&b, line);
        cm_buf_puts(&b, "\">");
        xml_text(&b, line);
        cm_buf_puts(&b, "</failure>\n  </testcase>\n");
    }
    cm_buf_puts(&b, "</testsuite>\n</testsuites>\n");
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    f = fopen(tmp, "w");
    if (!f)
        goto out;
    if (fwrite(b.data, 1, b.len, f) != b.len) {
        fclose(f);
        goto out_unlink;
    }
    if (fclose(f) != 0)
        goto out_unlink;
    if (rename(tmp, path) != 0)
        goto out_unlink;
    rc = 0;
    goto out;
out_unlink:
    unlink(tmp);
out:
    cm_buf_cleanup(&b);
    return rc;
}

int sim_out_report_expects(const struct sim_checker *ch, struct sim_report_expect *ex,
                           char (*details)[256], int max)
{
    int n = sim_checker_count(ch);

    if (n > max)
        n = max;
    for (int i = 0; i < n; i++) {
        const struct sim_check_result *c = sim_checker_result(ch, i);
        char when[32];
        sim_out_elapsed(c->when_ms, when, sizeof(when));
        snprintf(details[i], 256, "%s at %s", c->observed, when);
        ex[i].text = c->what;
        ex[i].passed = c->ok;
        ex[i].detail = details[i];
    }
    return n;
}
