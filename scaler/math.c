/* scaler/math.c: metric math expressions to trees (docs/metric-math.md 1, 2), and the
 * series helpers every math file uses. A recursive-descent parser, one function per
 * precedence level, depth bounded by SC_MATH_MAX_DEPTH. */
#include "scaler/math.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scaler/math_internal.h"
#include "scaler/str.h"

/* The functions the evaluator knows, and those AWS has that it does not serve. */
static const char *const known_fns[] = { "ANOMALY_DETECTION_BAND",
                                         "ABS",
                                         "AVG",
                                         "CEIL",
                                         "DATAPOINT_COUNT",
                                         "DATE",
                                         "DAY",
                                         "DIFF",
                                         "DIFF_TIME",
                                         "EPOCH",
                                         "FILL",
                                         "FIRST",
                                         "FLOOR",
                                         "HOUR",
                                         "IF",
                                         "LAST",
                                         "LOG",
                                         "LOG10",
                                         "MAX",
                                         "METRICS",
                                         "METRIC_COUNT",
                                         "MIN",
                                         "MINUTE",
                                         "MONTH",
                                         "PERIOD",
                                         "RATE",
                                         "REMOVE_EMPTY",
                                         "RUNNING_SUM",
                                         "SEARCH",
                                         "SLICE",
                                         "SORT",
                                         "SQRT",
                                         "STDDEV",
                                         "SUM",
                                         "TIME_SERIES",
                                         "YEAR",
                                         NULL };
static const char *const unserved_fns[] = { "INSIGHT_RULE_METRIC", "SERVICE_QUOTA", "LAMBDA",
                                            NULL };

static int in_list(const char *const *l, const char *s)
{
    for (; *l; l++)
        if (strcmp(*l, s) == 0)
            return 1;
    return 0;
}

/* --- series ------------------------------------------------------------------------- */

void sc_math_series_cleanup(struct sc_math_series *s)
{
    if (!s)
        return;
    free(s->ts);
    free(s->v);
    free(s->label);
    free(s->namespace);
    free(s->metric_name);
    free(s->stat);
    for (int i = 0; i < s->ndims; i++) {
        free((char *)s->dims[i].name);
        free((char *)s->dims[i].value);
    }
    free(s->dims);
    memset(s, 0, sizeof(*s));
}

int sc_math_series_push(struct sc_math_series *s, int64_t ts, double v)
{
    if (s->n == s->cap) {
        int cap = s->cap ? s->cap * 2 : 16;
        int64_t *nt = realloc(s->ts, (size_t)cap * sizeof(*nt));
        double *nv;

        if (!nt)
            return -1;
        s->ts = nt;
        nv = realloc(s->v, (size_t)cap * sizeof(*nv));
        if (!nv)
            return -1;
        s->v = nv;
        s->cap = cap;
    }
    s->ts[s->n] = ts;
    s->v[s->n] = v;
    s->n++;
    return 0;
}

int sc_math_series_copy(struct sc_math_series *dst, const struct sc_math_series *src)
{
    memset(dst, 0, sizeof(*dst));
    dst->period_s = src->period_s;
    if (src->n > 0) {
        dst->ts = malloc((size_t)src->n * sizeof(*dst->ts));
        dst->v = malloc((size_t)src->n * sizeof(*dst->v));
        if (!dst->ts || !dst->v)
            goto oom;
        memcpy(dst->ts, src->ts, (size_t)src->n * sizeof(*dst->ts));
        memcpy(dst->v, src->v, (size_t)src->n * sizeof(*dst->v));
        dst->n = dst->cap = src->n;
    }
    if (sc_strdup_opt(&dst->label, src->label) || sc_strdup_opt(&dst->namespace, src->namespace) ||
        sc_strdup_opt(&dst->metric_name, src->metric_name) || sc_strdup_opt(&dst->stat, src->stat))
        goto oom;
    if (src->ndims > 0) {
        dst->dims = calloc((size_t)src->ndims, sizeof(*dst->dims));
        if (!dst->dims)
            goto oom;
        dst->ndims = src->ndims;
        for (int i = 0; i < src->ndims; i++) {
            dst->dims[i].name = sc_strdup(src->dims[i].name);
            dst->dims[i].value = sc_strdup(src->dims[i].value);
            if (!dst->dims[i].name || !dst->dims[i].value)
                goto oom;
        }
    }
    return 0;
oom:
    sc_math_series_cleanup(dst);
    return -1;
}

void sc_math_value_cleanup(struct sc_math_value *v)
{
    if (!v)
        return;
    for (int i = 0; i < v->n; i++)
        sc_math_series_cleanup(&v->list[i]);
    free(v->list);
    memset(v, 0, sizeof(*v));
}

/* --- tree --------------------------------------------------------------------------- */

static void node_free(struct math_node *n)
{
    if (!n)
        return;
    for (int i = 0; i < n->nargs; i++)
        node_free(n->args[i]);
    free(n->args);
    free(n->str);
    free(n);
}

void sc_math_expr_destroy(struct sc_math_expr *e)
{
    if (!e)
        return;
    node_free(e->root);
    free(e);
}

static int ids_walk(const struct math_node *n, sc_math_id_fn fn, void *ud)
{
    int r;

    if (n->kind == MN_ID)
        return fn(n->str, n->pos, ud);
    for (int i = 0; i < n->nargs; i++) {
        r = ids_walk(n->args[i], fn, ud);
        if (r)
            return r;
    }
    return 0;
}

int sc_math_expr_ids(const struct sc_math_expr *e, sc_math_id_fn fn, void *ud)
{
    return ids_walk(e->root, fn, ud);
}

static int calls_walk(const struct math_node *n, const char *name)
{
    if (n->kind == MN_CALL && strcmp(n->str, name) == 0)
        return 1;
    for (int i = 0; i < n->nargs; i++)
        if (calls_walk(n->args[i], name))
            return 1;
    return 0;
}

int sc_math_expr_calls(const struct sc_math_expr *e, const char *name)
{
    return calls_walk(e->root, name);
}

int sc_math_expr_uses_metrics(const struct sc_math_expr *e)
{
    return calls_walk(e->root, "METRICS");
}

/* --- lexer -------------------------------------------------------------------------- */

enum tok {
    T_END,
    T_NUM,
    T_STR,
    T_ID,   /* starts lower case */
    T_WORD, /* starts upper case: a function or keyword */
    T_LP,
    T_RP,
    T_LB,
    T_RB,
    T_COMMA,
    T_OP /* op in .op */
};

struct parser {
    const char *s;
    size_t i;
    /* current token */
    enum tok t;
    int tpos;
    double num;
    char text[SC_MATH_MAX_LEN + 1];
    enum math_op op;
    int depth;
    /* error */
    int err_pos;
    char *msg;
    size_t msglen;
    int failed;
};

static int fail(struct parser *p, int pos, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(struct parser *p, int pos, const char *fmt, ...)
{
    va_list ap;

    if (!p->failed) {
        p->failed = 1;
        p->err_pos = pos;
        va_start(ap, fmt);
        vsnprintf(p->msg, p->msglen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static int next(struct parser *p)
{
    const char *s = p->s;
    char c;

    while (s[p->i] == ' ' || s[p->i] == '\t' || s[p->i] == '\n' || s[p->i] == '\r')
        p->i++;
    p->tpos = (int)p->i + 1;
    c = s[p->i];
    if (!c) {
        p->t = T_END;
        return 0;
    }
    if (isdigit((unsigned char)c) || (c == '.' && isdigit((unsigned char)s[p->i + 1]))) {
        char *end;
        p->num = strtod(s + p->i, &end);
        p->i = (size_t)(end - s);
        if (isalpha((unsigned char)s[p->i]) || s[p->i] == '_')
            return fail(p, p->tpos, "Syntax error%s", "");
        p->t = T_NUM;
        return 0;
    }
    if (isalpha((unsigned char)c) || c == '_') {
        size_t n = 0;
        while (isalnum((unsigned char)s[p->i]) || s[p->i] == '_') {
            if (n < SC_MATH_MAX_LEN)
                p->text[n++] = s[p->i];
            p->i++;
        }
        p->text[n] = 0;
        if (strcmp(p->text, "AND") == 0 || strcmp(p->text, "OR") == 0) {
            p->t = T_OP;
            p->op = p->text[0] == 'A' ? MO_AND : MO_OR;
            return 0;
        }
        p->t = islower((unsigned char)c) ? T_ID : T_WORD;
        return 0;
    }
    if (c == '"' || c == '\'') {
        size_t n = 0;
        p->i++;
        while (s[p->i] && s[p->i] != c) {
            if (n < SC_MATH_MAX_LEN)
                p->text[n++] = s[p->i];
            p->i++;
        }
        if (!s[p->i])
            return fail(p, p->tpos, "Unterminated string%s", "");
        p->i++;
        p->text[n] = 0;
        p->t = T_STR;
        return 0;
    }
    p->i++;
    switch (c) {
    case '(':
        p->t = T_LP;
        return 0;
    case ')':
        p->t = T_RP;
        return 0;
    case '[':
        p->t = T_LB;
        return 0;
    case ']':
        p->t = T_RB;
        return 0;
    case ',':
        p->t = T_COMMA;
        return 0;
    case '+':
    case '-':
    case '*':
    case '/':
    case '^':
        p->t = T_OP;
        p->op = c == '+'   ? MO_ADD
                : c == '-' ? MO_SUB
                : c == '*' ? MO_MUL
                : c == '/' ? MO_DIV
                           : MO_POW;
        return 0;
    case '=':
    case '!':
        if (s[p->i] != '=')
            break;
        p->i++;
        p->t = T_OP;
        p->op = c == '=' ? MO_EQ : MO_NE;
        return 0;
    case '<':
    case '>':
        p->t = T_OP;
        if (s[p->i] == '=') {
            p->i++;
            p->op = c == '<' ? MO_LE : MO_GE;
        } else {
            p->op = c == '<' ? MO_LT : MO_GT;
        }
        return 0;
    case '&':
    case '|':
        if (s[p->i] != c)
            break;
        p->i++;
        p->t = T_OP;
        p->op = c == '&' ? MO_AND : MO_OR;
        return 0;
    default:
        break;
    }
    return fail(p, p->tpos, "Syntax error%s", "");
}

/* --- parser ------------------------------------------------------------------------- */

static struct math_node *mk(struct parser *p, enum math_node_kind k, int pos)
{
    struct math_node *n = calloc(1, sizeof(*n));

    if (!n) {
        fail(p, pos, "out of memory%s", "");
        return NULL;
    }
    n->kind = k;
    n->pos = pos;
    return n;
}

static int add_arg(struct parser *p, struct math_node *n, struct math_node *a)
{
    struct math_node **g = realloc(n->args, (size_t)(n->nargs + 1) * sizeof(*g));

    if (!g) {
        node_free(a);
        return fail(p, n->pos, "out of memory%s", "");
    }
    n->args = g;
    n->args[n->nargs++] = a;
    return 0;
}

static struct math_node *parse_or(struct parser *p);

static struct math_node *binary(struct parser *p, enum math_op op, int pos, struct math_node *l,
                                struct math_node *r)
{
    struct math_node *n;

    if (!l || !r) {
        node_free(l);
        node_free(r);
        return NULL;
    }
    n = mk(p, MN_BIN, pos);
    if (!n) {
        node_free(l);
        node_free(r);
        return NULL;
    }
    n->op = op;
    if (add_arg(p, n, l) || add_arg(p, n, r)) {
        node_free(n);
        return NULL;
    }
    return n;
}

/* Comma-separated items up to the closing token `close`, into n's args. */
static int parse_list(struct parser *p, struct math_node *n, enum tok close)
{
    if (p->t == close)
        return next(p);
    for (;;) {
        struct math_node *a = parse_or(p);
        if (!a || add_arg(p, n, a))
            return -1;
        if (p->t == T_COMMA) {
            if (next(p))
                return -1;
            continue;
        }
        if (p->t != close)
            return fail(p, p->tpos, "Syntax error%s", "");
        return next(p);
    }
}

static struct math_node *parse_primary(struct parser *p)
{
    struct math_node *n = NULL;
    int pos = p->tpos;

    if (++p->depth > SC_MATH_MAX_DEPTH) {
        fail(p, pos, "Expression too deep%s", "");
        return NULL;
    }
    switch (p->t) {
    case T_NUM:
        n = mk(p, MN_NUM, pos);
        if (n)
            n->num = p->num;
        if (n && next(p))
            goto fail;
        break;
    case T_STR:
    case T_ID:
        n = mk(p, p->t == T_STR ? MN_STR : MN_ID, pos);
        if (n)
            n->str = sc_strdup(p->text);
        if (n && !n->str) {
            fail(p, pos, "out of memory%s", "");
            goto fail;
        }
        if (n && next(p))
            goto fail;
        break;
    case T_WORD: {
        char name[64];
        snprintf(name, sizeof(name), "%.63s", p->text);
        if (next(p))
            return NULL;
        if (p->t != T_LP) {
            n = mk(p, MN_KW, pos);
            if (n)
                n->str = sc_strdup(name);
            if (n && !n->str) {
                fail(p, pos, "out of memory%s", "");
                goto fail;
            }
            break;
        }
        if (in_list(unserved_fns, name)) {
            fail(p, pos, "The function %s is not supported by scalelab", name);
            return NULL;
        }
        if (!in_list(known_fns, name)) {
            fail(p, pos, "Unknown function %s", name);
            return NULL;
        }
        n = mk(p, MN_CALL, pos);
        if (!n)
            return NULL;
        n->str = sc_strdup(name);
        if (!n->str) {
            fail(p, pos, "out of memory%s", "");
            goto fail;
        }
        if (next(p) || parse_list(p, n, T_RP))
            goto fail;
        break;
    }
    case T_LP:
        if (next(p))
            return NULL;
        n = parse_or(p);
        if (!n)
            return NULL;
        if (p->t != T_RP) {
            fail(p, p->tpos, "Syntax error%s", "");
            goto fail;
        }
        if (next(p))
            goto fail;
        break;
    case T_LB:
        n = mk(p, MN_ARRAY, pos);
        if (!n || next(p) || parse_list(p, n, T_RB))
            goto fail;
        break;
    default:
        fail(p, pos, "Syntax error%s", "");
        return NULL;
    }
    p->depth--;
    return n;
fail:
    node_free(n);
    return NULL;
}

/* ^ binds tighter than unary minus and associates to the right: -2^2 = -4, 2^3^2 = 512. */
static struct math_node *parse_unary(struct parser *p);

static struct math_node *parse_pow(struct parser *p)
{
    struct math_node *l = parse_primary(p);
    int pos;

    if (!l || p->t != T_OP || p->op != MO_POW)
        return l;
    pos = p->tpos;
    if (next(p)) {
        node_free(l);
        return NULL;
    }
    return binary(p, MO_POW, pos, l, parse_unary(p));
}

static struct math_node *parse_unary(struct parser *p)
{
    struct math_node *n, *a;
    int pos = p->tpos;

    if (p->t == T_OP && (p->op == MO_SUB || p->op == MO_ADD)) {
        int neg = p->op == MO_SUB;
        if (++p->depth > SC_MATH_MAX_DEPTH) {
            fail(p, pos, "Expression too deep%s", "");
            return NULL;
        }
        if (next(p))
            return NULL;
        a = parse_unary(p);
        p->depth--;
        if (!a || !neg)
            return a;
        n = mk(p, MN_NEG, pos);
        if (!n) {
            node_free(a);
            return NULL;
        }
        if (add_arg(p, n, a)) {
            node_free(n);
            return NULL;
        }
        return n;
    }
    return parse_pow(p);
}

static int op_level(enum math_op op)
{
    switch (op) {
    case MO_MUL:
    case MO_DIV:
        return 3;
    case MO_ADD:
    case MO_SUB:
        return 4;
    case MO_AND:
        return 6;
    case MO_OR:
        return 7;
    case MO_POW:
        return 1;
    default:
        return 5; /* comparisons */
    }
}

/* Left-associative binary levels 3 (* /) to 7 (OR). */
static struct math_node *parse_level(struct parser *p, int level)
{
    struct math_node *l = level == 3 ? parse_unary(p) : parse_level(p, level - 1);

    while (l && p->t == T_OP && op_level(p->op) == level) {
        enum math_op op = p->op;
        int pos = p->tpos;
        if (next(p)) {
            node_free(l);
            return NULL;
        }
        l = binary(p, op, pos, l, level == 3 ? parse_unary(p) : parse_level(p, level - 1));
    }
    return l;
}

static struct math_node *parse_or(struct parser *p)
{
    struct math_node *n;

    if (++p->depth > SC_MATH_MAX_DEPTH) {
        fail(p, p->tpos, "Expression too deep%s", "");
        return NULL;
    }
    n = parse_level(p, 7);
    p->depth--;
    return n;
}

struct sc_math_expr *sc_math_parse(const char *text, int *pos, char *msg, size_t msglen)
{
    struct parser *p;
    struct sc_math_expr *e = NULL;
    struct math_node *root = NULL;

    *pos = 1;
    if (!text || !*text) {
        snprintf(msg, msglen, "Empty expression");
        return NULL;
    }
    if (strlen(text) > SC_MATH_MAX_LEN) {
        snprintf(msg, msglen, "Expression longer than %d characters", SC_MATH_MAX_LEN);
        return NULL;
    }
    p = calloc(1, sizeof(*p));
    if (!p) {
        snprintf(msg, msglen, "out of memory");
        return NULL;
    }
    p->s = text;
    p->msg = msg;
    p->msglen = msglen;
    if (next(p) == 0)
        root = parse_or(p);
    if (root && p->t != T_END) {
        fail(p, p->tpos, "Syntax error%s", "");
        node_free(root);
        root = NULL;
    }
    if (root) {
        e = calloc(1, sizeof(*e));
        if (!e) {
            node_free(root);
            fail(p, 1, "out of memory%s", "");
        } else {
            e->root = root;
        }
    }
    if (!e)
        *pos = p->err_pos;
    free(p);
    return e;
}
