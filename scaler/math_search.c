/* scaler/math_search.c: SEARCH's query over the metric store (docs/metric-math.md 5): the
 * schema {Namespace, DimName...}, terms joined by AND / OR / NOT / parentheses (implicit
 * AND), partial matches on camel-case tokens, exact matches in double quotes, property
 * designators (MetricName=, Namespace=, <DimName>=). */
#include "scaler/math.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scaler/str.h"

#define MAX_TERMS  64
#define MAX_SCHEMA 31
#define MAX_TOKENS 64
#define TOK_LEN    256

enum snode_kind { SN_TERM, SN_AND, SN_OR, SN_NOT };

struct snode {
    enum snode_kind kind;
    int a, b;   /* children (indexes), b unused for NOT */
    char *prop; /* property designator, NULL = any */
    char *text; /* the term */
    int exact;  /* "..." */
};

struct sc_math_search {
    char *schema[MAX_SCHEMA + 1]; /* [0] namespace, then dimension names */
    int nschema;                  /* 0 = no schema */
    struct snode nodes[MAX_TERMS * 2];
    int nnodes, root; /* root -1 = no terms */
};

struct sp {
    const char *s;
    size_t i;
    struct sc_math_search *q;
    int bad;
};

void sc_math_search_destroy(struct sc_math_search *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->nschema; i++)
        free(s->schema[i]);
    for (int i = 0; i < s->nnodes; i++) {
        free(s->nodes[i].prop);
        free(s->nodes[i].text);
    }
    free(s);
}

static void skip_ws(struct sp *p)
{
    while (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == ',')
        p->i++;
}

/* A word (up to a space, paren, brace, comma or '=') or a "quoted" string; *quoted says
 * which. Returns a malloc'd copy or NULL. */
static char *word(struct sp *p, int *quoted)
{
    size_t st;

    *quoted = 0;
    if (p->s[p->i] == '"') {
        st = ++p->i;
        while (p->s[p->i] && p->s[p->i] != '"')
            p->i++;
        if (!p->s[p->i]) {
            p->bad = 1;
            return NULL;
        }
        *quoted = 1;
        p->i++;
        return strndup(p->s + st, p->i - st - 1);
    }
    st = p->i;
    while (p->s[p->i] && !strchr(" \t(){},=\"", p->s[p->i]))
        p->i++;
    if (p->i == st) {
        p->bad = 1;
        return NULL;
    }
    return strndup(p->s + st, p->i - st);
}

static int new_node(struct sp *p, enum snode_kind k, int a, int b)
{
    struct snode *n;

    if (p->q->nnodes >= (int)(sizeof(p->q->nodes) / sizeof(p->q->nodes[0]))) {
        p->bad = 1;
        return -1;
    }
    n = &p->q->nodes[p->q->nnodes];
    memset(n, 0, sizeof(*n));
    n->kind = k;
    n->a = a;
    n->b = b;
    return p->q->nnodes++;
}

static int parse_or(struct sp *p);

static int at_kw(struct sp *p, const char *kw)
{
    size_t n = strlen(kw);

    return strncmp(p->s + p->i, kw, n) == 0 &&
           (p->s[p->i + n] == ' ' || p->s[p->i + n] == '(' || p->s[p->i + n] == 0);
}

static int parse_atom(struct sp *p)
{
    int q, k;
    char *w;

    skip_ws(p);
    if (p->s[p->i] == '(') {
        p->i++;
        k = parse_or(p);
        skip_ws(p);
        if (k < 0 || p->s[p->i] != ')') {
            p->bad = 1;
            return -1;
        }
        p->i++;
        return k;
    }
    if (at_kw(p, "NOT")) {
        p->i += 3;
        k = parse_atom(p);
        return k < 0 ? -1 : new_node(p, SN_NOT, k, -1);
    }
    w = word(p, &q);
    if (!w)
        return -1;
    k = new_node(p, SN_TERM, -1, -1);
    if (k < 0) {
        free(w);
        return -1;
    }
    if (!q && p->s[p->i] == '=') {
        p->i++;
        p->q->nodes[k].prop = w;
        w = word(p, &q);
        if (!w)
            return -1;
    }
    p->q->nodes[k].text = w;
    p->q->nodes[k].exact = q;
    return k;
}

static int parse_and(struct sp *p)
{
    int l = parse_atom(p);

    for (;;) {
        skip_ws(p);
        if (l < 0 || !p->s[p->i] || p->s[p->i] == ')' || at_kw(p, "OR"))
            return l;
        if (at_kw(p, "AND"))
            p->i += 3;
        l = new_node(p, SN_AND, l, parse_atom(p));
        if (l >= 0 && p->q->nodes[l].b < 0)
            return -1;
    }
}

static int parse_or(struct sp *p)
{
    int l = parse_and(p);

    for (;;) {
        skip_ws(p);
        if (l < 0 || !at_kw(p, "OR"))
            return l;
        p->i += 2;
        l = new_node(p, SN_OR, l, parse_and(p));
        if (l >= 0 && p->q->nodes[l].b < 0)
            return -1;
    }
}

struct sc_math_search *sc_math_search_create(const char *query, char *msg, size_t msglen)
{
    struct sc_math_search *q = calloc(1, sizeof(*q));
    struct sp p = { query, 0, q, 0 };

    if (!q) {
        snprintf(msg, msglen, "out of memory");
        return NULL;
    }
    q->root = -1;
    if (strlen(query) > 1024)
        goto bad;
    skip_ws(&p);
    if (query[p.i] == '{') {
        p.i++;
        for (;;) {
            int quoted;
            char *w;
            skip_ws(&p);
            if (query[p.i] == '}') {
                p.i++;
                break;
            }
            if (q->nschema >= MAX_SCHEMA)
                goto bad;
            w = word(&p, &quoted);
            if (!w)
                goto bad;
            q->schema[q->nschema++] = w;
        }
        if (q->nschema == 0)
            goto bad;
    }
    skip_ws(&p);
    if (query[p.i]) {
        q->root = parse_or(&p);
        skip_ws(&p);
        if (q->root < 0 || p.bad || query[p.i])
            goto bad;
    }
    if (q->nschema == 0 && q->root < 0)
        goto bad;
    return q;
bad:
    snprintf(msg, msglen, "Invalid search expression %s", query);
    sc_math_search_destroy(q);
    return NULL;
}

/* --- matching ---------------------------------------------------------------------------- */

/* Tokens of s in their own case: split at non-alphanumerics, lower-to-upper humps, the
 * last capital of a capital run before lower case, and digit/letter changes. */
static int tokenize(const char *s, char tok[][TOK_LEN], int max)
{
    int n = 0, len = 0;

    for (size_t i = 0;; i++) {
        char c = s[i];
        int split = 0;
        if (!isalnum((unsigned char)c)) {
            split = 1;
        } else if (len > 0) {
            char pc = tok[n][len - 1];
            char nc = s[i + 1];
            if (isdigit((unsigned char)c) != isdigit((unsigned char)pc))
                split = 1;
            else if (isupper((unsigned char)c) && islower((unsigned char)pc))
                split = 1;
            else if (isupper((unsigned char)c) && isupper((unsigned char)pc) &&
                     islower((unsigned char)nc))
                split = 1;
        }
        if (split && len > 0) {
            tok[n][len] = 0;
            if (++n >= max)
                return n;
            len = 0;
        }
        if (!c)
            return n;
        if (isalnum((unsigned char)c) && len < TOK_LEN - 1)
            tok[n][len++] = c;
    }
}

static int ieq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return 0;
    return *a == *b;
}

/* The partial-match rule of one term against one string. */
static int partial(const char *term, const char *s)
{
    char tt[MAX_TOKENS][TOK_LEN], st[MAX_TOKENS][TOK_LEN], whole[TOK_LEN];
    int nt = tokenize(term, tt, MAX_TOKENS), ns = tokenize(s, st, MAX_TOKENS), w = 0;

    if (nt == 0)
        return 0;
    if (nt == 1) {
        for (int i = 0; i < ns; i++)
            if (ieq(tt[0], st[i]))
                return 1;
        for (int i = 0; i < ns; i++)
            for (const char *c = st[i]; *c && w < TOK_LEN - 1; c++)
                whole[w++] = *c;
        whole[w] = 0;
        return ieq(tt[0], whole);
    }
    for (int i = 0; i + nt <= ns; i++) {
        int ok = 1;
        for (int j = 0; j < nt && ok; j++)
            ok = strcmp(tt[j], st[i + j]) == 0;
        if (ok)
            return 1;
    }
    return 0;
}

static int term_on(const struct snode *t, const char *s)
{
    return s && (t->exact ? strcmp(t->text, s) == 0 : partial(t->text, s));
}

static int term_matches(const struct snode *t, const struct sc_metric *m)
{
    int nd = sc_metric_dimension_count(m);

    if (t->prop) {
        if (strcmp(t->prop, "MetricName") == 0)
            return term_on(t, sc_metric_name(m));
        if (strcmp(t->prop, "Namespace") == 0)
            return term_on(t, sc_metric_namespace(m));
        for (int i = 0; i < nd; i++) {
            struct sc_dimension d = sc_metric_dimension_at(m, i);
            if (strcmp(d.name, t->prop) == 0 && term_on(t, d.value))
                return 1;
        }
        return 0;
    }
    if (term_on(t, sc_metric_name(m)) || term_on(t, sc_metric_namespace(m)))
        return 1;
    for (int i = 0; i < nd; i++) {
        struct sc_dimension d = sc_metric_dimension_at(m, i);
        if (term_on(t, d.name) || term_on(t, d.value))
            return 1;
    }
    return 0;
}

static int node_matches(const struct sc_math_search *q, int k, const struct sc_metric *m)
{
    const struct snode *n = &q->nodes[k];

    switch (n->kind) {
    case SN_TERM:
        return term_matches(n, m);
    case SN_AND:
        return node_matches(q, n->a, m) && node_matches(q, n->b, m);
    case SN_OR:
        return node_matches(q, n->a, m) || node_matches(q, n->b, m);
    case SN_NOT:
        return !node_matches(q, n->a, m);
    }
    return 0;
}

int sc_math_search_matches(const struct sc_math_search *q, const struct sc_metric *m)
{
    if (q->nschema > 0) {
        int nd = sc_metric_dimension_count(m);
        if (strcmp(q->schema[0], sc_metric_namespace(m)) != 0 || nd != q->nschema - 1)
            return 0;
        for (int i = 1; i < q->nschema; i++) {
            int found = 0;
            for (int j = 0; j < nd && !found; j++)
                found = strcmp(sc_metric_dimension_at(m, j).name, q->schema[i]) == 0;
            if (!found)
                return 0;
        }
    }
    return q->root < 0 || node_matches(q, q->root, m);
}
