/* scaler/alarm_rule.c: a composite alarm's AlarmRule (alarm_composite.h, docs/cloudwatch.md
 * "AlarmRule grammar"): the parser into a small tree of nodes and its evaluation against the
 * referenced alarms' states. ALARM/OK/INSUFFICIENT_DATA of one alarm, TRUE, FALSE, NOT, AND,
 * OR, parentheses, and AT_LEAST(M, STATE_CONDITION, (alarm, ...)). */
#include "scaler/alarm_composite.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 256
#define MAX_NODES (SC_ALARM_RULE_MAX / 2 + 8)

enum rn_kind { RN_TRUE, RN_FALSE, RN_FN, RN_NOT, RN_AND, RN_OR, RN_AT_LEAST };

struct rnode {
    enum rn_kind kind;
    enum sc_alarm_state want; /* RN_FN, RN_AT_LEAST: the state asked for */
    int ref;                  /* RN_FN: index into refs; RN_AT_LEAST: the list's first */
    int l, r;                 /* RN_NOT: l; RN_AND, RN_OR: l and r */
    int nlist;                /* RN_AT_LEAST: the list's length (refs ref..ref+nlist-1) */
    int m, pct, negate;       /* RN_AT_LEAST: M, M is a percentage, NOT STATE */
};

struct sc_alarm_rule {
    struct rnode *node;
    int nnode, root;
    char **ref;
    size_t *span; /* ref i is text[span[2i], span[2i+1]) (inside its quotes when quoted) */
    int nref;
};

struct parser {
    const char *s;
    size_t pos;
    struct sc_alarm_rule *r;
    int depth;
    struct sc_error *err;
    int failed;
};

static int perr(struct parser *p, const char *what)
{
    if (!p->failed)
        sc_fail(p->err, SC_ERR_VALIDATION, "Invalid alarm rule: %s at position %zu", what,
                p->pos + 1);
    p->failed = 1;
    return -1;
}

static void skip_ws(struct parser *p)
{
    while (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' || p->s[p->pos] == '\n' ||
           p->s[p->pos] == '\r')
        p->pos++;
}

static int ident_char(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

/* 1 when the keyword kw starts at the current position (not as a prefix of a longer word). */
static int at_kw(struct parser *p, const char *kw)
{
    size_t n = strlen(kw);

    return strncmp(p->s + p->pos, kw, n) == 0 && !ident_char(p->s[p->pos + n]);
}

static int new_node(struct parser *p, enum rn_kind k, int l, int r)
{
    struct rnode *n;

    if (p->r->nnode >= MAX_NODES)
        return perr(p, "too many terms");
    n = &p->r->node[p->r->nnode];
    memset(n, 0, sizeof(*n));
    n->kind = k;
    n->l = l;
    n->r = r;
    return p->r->nnode++;
}

static int parse_or(struct parser *p);

/* Appends text[start, end) to the references; its index, or -1. */
static int add_ref(struct parser *p, size_t start, size_t end)
{
    char *name, **refs;
    size_t *span;

    if (end == start)
        return perr(p, "empty alarm name");
    name = malloc(end - start + 1);
    refs = realloc(p->r->ref, (size_t)(p->r->nref + 1) * sizeof(*refs));
    if (refs)
        p->r->ref = refs;
    span = realloc(p->r->span, (size_t)(p->r->nref + 1) * 2 * sizeof(*span));
    if (span)
        p->r->span = span;
    if (!name || !refs || !span) {
        free(name);
        return perr(p, "out of memory");
    }
    span[2 * p->r->nref] = start;
    span[2 * p->r->nref + 1] = end;
    memcpy(name, p->s + start, end - start);
    name[end - start] = 0;
    p->r->ref[p->r->nref] = name;
    return p->r->nref++;
}

/* One alarm reference: '"' name '"', or a bare name up to one of `stops` (trailing blanks
 * dropped). Its index in refs, or -1. */
static int read_ref(struct parser *p, const char *stops)
{
    size_t start, end;

    skip_ws(p);
    if (p->s[p->pos] == '"') {
        start = ++p->pos;
        while (p->s[p->pos] && p->s[p->pos] != '"')
            p->pos++;
        if (p->s[p->pos] != '"')
            return perr(p, "unterminated alarm name");
        end = p->pos++;
        return add_ref(p, start, end);
    }
    start = p->pos;
    while (p->s[p->pos] && !strchr(stops, p->s[p->pos]))
        p->pos++;
    end = p->pos;
    while (end > start && (p->s[end - 1] == ' ' || p->s[end - 1] == '\t'))
        end--;
    return add_ref(p, start, end);
}

/* FN "(" ref ")" after the function name. */
static int parse_fn(struct parser *p, enum sc_alarm_state want)
{
    int ref, idx;

    skip_ws(p);
    if (p->s[p->pos] != '(')
        return perr(p, "expected (");
    p->pos++;
    ref = read_ref(p, ")");
    if (ref < 0)
        return -1;
    skip_ws(p);
    if (p->s[p->pos] != ')')
        return perr(p, "expected )");
    p->pos++;
    idx = new_node(p, RN_FN, -1, -1);
    if (idx < 0)
        return -1;
    p->r->node[idx].want = want;
    p->r->node[idx].ref = ref;
    return idx;
}

/* A state keyword at the current position (consumed): 1 found, 0 not. */
static int state_kw(struct parser *p, enum sc_alarm_state *st)
{
    static const struct {
        const char *kw;
        enum sc_alarm_state st;
    } kws[] = { { "ALARM", SC_ALARM_ALARM },
                { "OK", SC_ALARM_OK },
                { "INSUFFICIENT_DATA", SC_ALARM_INSUFFICIENT_DATA } };

    for (size_t i = 0; i < sizeof(kws) / sizeof(kws[0]); i++)
        if (at_kw(p, kws[i].kw)) {
            p->pos += strlen(kws[i].kw);
            *st = kws[i].st;
            return 1;
        }
    return 0;
}

/* "(" M "," STATE_CONDITION "," "(" ref ("," ref)* ")" ")" after AT_LEAST. M is a count
 * (1 up to the list's length) or a percentage N% (1..100), bare or in quotes;
 * STATE_CONDITION is ALARM, OK, INSUFFICIENT_DATA or NOT one of them. */
static int parse_at_least(struct parser *p)
{
    int quoted = 0, idx, first = -1, n = 0, negate = 0, pct = 0;
    long m = 0;
    enum sc_alarm_state want;

    skip_ws(p);
    if (p->s[p->pos] != '(')
        return perr(p, "expected (");
    p->pos++;
    skip_ws(p);
    if (p->s[p->pos] == '"') {
        quoted = 1;
        p->pos++;
    }
    if (p->s[p->pos] < '0' || p->s[p->pos] > '9')
        return perr(p, "AT_LEAST expects a count or a percentage");
    while (p->s[p->pos] >= '0' && p->s[p->pos] <= '9') {
        m = m * 10 + (p->s[p->pos++] - '0');
        if (m > SC_ALARM_RULE_MAX)
            return perr(p, "AT_LEAST count too large");
    }
    if (p->s[p->pos] == '%') {
        pct = 1;
        p->pos++;
    }
    if (quoted && p->s[p->pos++] != '"')
        return perr(p, "unterminated AT_LEAST threshold");
    if (m < 1 || (pct && m > 100))
        return perr(p, pct ? "AT_LEAST percentage must be 1% to 100%"
                           : "AT_LEAST count must be at least 1");
    skip_ws(p);
    if (p->s[p->pos] != ',')
        return perr(p, "expected ,");
    p->pos++;
    skip_ws(p);
    if (at_kw(p, "NOT")) {
        p->pos += 3;
        negate = 1;
        skip_ws(p);
    }
    if (!state_kw(p, &want))
        return perr(p, "expected ALARM, OK or INSUFFICIENT_DATA");
    skip_ws(p);
    if (p->s[p->pos] != ',')
        return perr(p, "expected ,");
    p->pos++;
    skip_ws(p);
    if (p->s[p->pos] != '(')
        return perr(p, "expected ( before the alarm list");
    p->pos++;
    for (;;) {
        int ref = read_ref(p, ",) \t\r\n");

        if (ref < 0)
            return -1;
        if (first < 0)
            first = ref;
        n++;
        skip_ws(p);
        if (p->s[p->pos] == ',') {
            p->pos++;
            continue;
        }
        if (p->s[p->pos] != ')')
            return perr(p, "expected , or )");
        p->pos++;
        break;
    }
    if (!pct && m > n)
        return perr(p, "AT_LEAST count is more than the alarms listed");
    skip_ws(p);
    if (p->s[p->pos] != ')')
        return perr(p, "expected )");
    p->pos++;
    idx = new_node(p, RN_AT_LEAST, -1, -1);
    if (idx < 0)
        return -1;
    p->r->node[idx].want = want;
    p->r->node[idx].negate = negate;
    p->r->node[idx].ref = first;
    p->r->node[idx].nlist = n;
    p->r->node[idx].m = (int)m;
    p->r->node[idx].pct = pct;
    return idx;
}

static int parse_primary(struct parser *p)
{
    int n;

    skip_ws(p);
    if (p->s[p->pos] == '(') {
        if (++p->depth > MAX_DEPTH)
            return perr(p, "nesting deeper than 256 levels");
        p->pos++;
        n = parse_or(p);
        if (n < 0)
            return -1;
        skip_ws(p);
        if (p->s[p->pos] != ')')
            return perr(p, "expected )");
        p->pos++;
        p->depth--;
        return n;
    }
    if (at_kw(p, "TRUE")) {
        p->pos += 4;
        return new_node(p, RN_TRUE, -1, -1);
    }
    if (at_kw(p, "FALSE")) {
        p->pos += 5;
        return new_node(p, RN_FALSE, -1, -1);
    }
    if (at_kw(p, "AT_LEAST")) {
        p->pos += 8;
        return parse_at_least(p);
    }
    {
        enum sc_alarm_state want;

        if (state_kw(p, &want))
            return parse_fn(p, want);
    }
    if (!p->s[p->pos])
        return perr(p, "unexpected end");
    return perr(p, "expected ALARM, OK, INSUFFICIENT_DATA, AT_LEAST, TRUE, FALSE, NOT or (");
}

static int parse_not(struct parser *p)
{
    int n;

    skip_ws(p);
    if (!at_kw(p, "NOT"))
        return parse_primary(p);
    p->pos += 3;
    if (++p->depth > MAX_DEPTH)
        return perr(p, "nesting deeper than 256 levels");
    n = parse_not(p);
    p->depth--;
    return n < 0 ? -1 : new_node(p, RN_NOT, n, -1);
}

static int parse_and(struct parser *p)
{
    int l = parse_not(p);

    while (l >= 0) {
        int r;
        skip_ws(p);
        if (!at_kw(p, "AND"))
            break;
        p->pos += 3;
        r = parse_not(p);
        if (r < 0)
            return -1;
        l = new_node(p, RN_AND, l, r);
    }
    return l;
}

static int parse_or(struct parser *p)
{
    int l = parse_and(p);

    while (l >= 0) {
        int r;
        skip_ws(p);
        if (!at_kw(p, "OR"))
            break;
        p->pos += 2;
        r = parse_and(p);
        if (r < 0)
            return -1;
        l = new_node(p, RN_OR, l, r);
    }
    return l;
}

void sc_alarm_rule_destroy(struct sc_alarm_rule *r)
{
    if (!r)
        return;
    for (int i = 0; i < r->nref; i++)
        free(r->ref[i]);
    free(r->ref);
    free(r->span);
    free(r->node);
    free(r);
}

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

enum sc_status sc_alarm_rule_parse(const char *text, struct sc_alarm_rule **out,
                                   struct sc_error *err)
{
    struct parser p = { 0 };
    size_t len;

    *out = NULL;
    if (!text || !*text)
        return sc_fail(err, SC_ERR_MISSING_PARAMETER, "The parameter AlarmRule is required.");
    len = strlen(text);
    if (len > SC_ALARM_RULE_MAX)
        return sc_fail(err, SC_ERR_VALIDATION,
                       "1 validation error detected: Value at 'alarmRule' failed to satisfy "
                       "constraint: Member must have length less than or equal to 10240");
    if (is_blank(text[0]) || is_blank(text[len - 1]))
        return sc_fail(err, SC_ERR_VALIDATION,
                       "AlarmRule must not contain leading or trailing whitespace or be null");
    p.s = text;
    p.err = err;
    p.r = calloc(1, sizeof(*p.r));
    if (!p.r)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    p.r->node = calloc(MAX_NODES, sizeof(*p.r->node));
    if (!p.r->node) {
        sc_alarm_rule_destroy(p.r);
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    }
    p.r->root = parse_or(&p);
    if (p.r->root >= 0) {
        skip_ws(&p);
        if (p.s[p.pos])
            perr(&p, "expected AND or OR");
    }
    if (p.failed || p.r->root < 0) {
        sc_alarm_rule_destroy(p.r);
        return err ? err->status : SC_ERR_VALIDATION;
    }
    *out = p.r;
    return SC_OK;
}

int sc_alarm_rule_nrefs(const struct sc_alarm_rule *r)
{
    return r->nref;
}

const char *sc_alarm_rule_ref(const struct sc_alarm_rule *r, int i)
{
    return i >= 0 && i < r->nref ? r->ref[i] : NULL;
}

enum sc_status sc_alarm_rule_rename(const char *text, sc_alarm_rule_rename_fn fn, void *ud,
                                    char *out, size_t outlen, struct sc_error *err)
{
    struct sc_alarm_rule *r = NULL;
    struct sc_error local = { 0 };
    enum sc_status s = sc_alarm_rule_parse(text, &r, err ? err : &local);
    size_t at = 0, o = 0;

    if (s != SC_OK)
        return s;
    /* references are in order of appearance, so their spans increase */
    for (int i = 0; i <= r->nref; i++) {
        size_t start = i < r->nref ? r->span[2 * i] : strlen(text);
        const char *to = i < r->nref ? fn(r->ref[i], ud) : NULL;
        size_t keep = start - at, tn;

        if (i < r->nref && !to)
            continue; /* kept as written: copied with the text around it */
        tn = to ? strlen(to) : 0;
        if (o + keep + tn >= outlen) {
            sc_alarm_rule_destroy(r);
            return sc_fail(err, SC_ERR_VALIDATION, "the renamed alarm rule is over %zu bytes",
                           outlen ? outlen - 1 : 0);
        }
        memcpy(out + o, text + at, keep);
        o += keep;
        memcpy(out + o, to ? to : "", tn);
        o += tn;
        if (i < r->nref)
            at = r->span[2 * i + 1];
    }
    out[o] = 0;
    sc_alarm_rule_destroy(r);
    return SC_OK;
}

static int eval_node(const struct sc_alarm_rule *r, int i, const enum sc_alarm_state *st)
{
    const struct rnode *n = &r->node[i];

    switch (n->kind) {
    case RN_TRUE:
        return 1;
    case RN_FALSE:
        return 0;
    case RN_FN:
        return st[n->ref] == n->want;
    case RN_NOT:
        return !eval_node(r, n->l, st);
    case RN_AND:
        return eval_node(r, n->l, st) && eval_node(r, n->r, st);
    case RN_OR:
        return eval_node(r, n->l, st) || eval_node(r, n->r, st);
    case RN_AT_LEAST: {
        int k = 0;

        for (int j = n->ref; j < n->ref + n->nlist; j++)
            k += (st[j] == n->want) != n->negate;
        /* "a minimum number or percentage of specified alarms are in the required state" */
        return n->pct ? k * 100 >= n->m * n->nlist : k >= n->m;
    }
    }
    return 0;
}

int sc_alarm_rule_eval(const struct sc_alarm_rule *r, const enum sc_alarm_state *states)
{
    return eval_node(r, r->root, states);
}
