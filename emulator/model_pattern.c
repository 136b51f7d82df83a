/* emulator/model_pattern.c: a Thompson-NFA matcher for the models' patterns (see
 * model_pattern.h). A pattern is parsed into a small tree, the tree compiled into a
 * program (counted repetitions are unrolled), and the program run over the value's code
 * points with one list of states per position. */
#include "emulator/model_pattern.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NODES 2048
#define MAX_ITEMS 256
#define MAX_PROG  8192
#define MAX_CACHE 64
#define MAX_REP   1000

/* ---- the tree -------------------------------------------------------------------- */

enum node_kind { N_EMPTY, N_SET, N_ANY, N_BOL, N_EOL, N_CAT, N_ALT, N_REP };

struct node {
    enum node_kind kind;
    int a, b;      /* N_CAT/N_ALT: children a and b; N_REP: child a */
    int min, max;  /* N_REP: max -1 is unbounded */
    int item, nit; /* N_SET: its items */
    int neg;       /* N_SET: [^...] */
};

/* One member of a class: the range lo..hi, or a category (cat != 0), either negated. */
struct item {
    uint32_t lo, hi;
    int cat; /* 0 range; MODEL_UCAT_*; or CAT_DIGIT/WORD/SPACE */
    int neg;
};

#define CAT_DIGIT 10
#define CAT_WORD  11
#define CAT_SPACE 12

enum op { OP_SET, OP_ANY, OP_BOL, OP_EOL, OP_SPLIT, OP_JMP, OP_MATCH };

struct inst {
    uint8_t op;
    uint8_t neg;
    uint16_t nit;
    int x, y; /* OP_SPLIT: both; OP_JMP: x; OP_SET: x is the first item */
};

struct prog {
    const char *pattern;
    struct inst *code;
    int n;
    struct item *items;
    int nitems;
    int *mark; /* per instruction: the step that last added it */
};

struct parser {
    const char *p;
    struct node nodes[MAX_NODES];
    int nn;
    struct item items[MAX_ITEMS];
    int ni;
    char *err;
    int failed;
};

static void fail(struct parser *ps, const char *fmt, ...)
{
    va_list ap;

    if (ps->failed)
        return;
    ps->failed = 1;
    if (!ps->err)
        return;
    va_start(ap, fmt);
    vsnprintf(ps->err, MODEL_PATTERN_ERR_LEN, fmt, ap);
    va_end(ap);
}

static int node_new(struct parser *ps, enum node_kind kind)
{
    struct node *nd;

    if (ps->nn >= MAX_NODES) {
        fail(ps, "pattern too large");
        return 0;
    }
    nd = &ps->nodes[ps->nn];
    memset(nd, 0, sizeof(*nd));
    nd->kind = kind;
    return ps->nn++;
}

static int item_add(struct parser *ps, uint32_t lo, uint32_t hi, int cat, int neg)
{
    if (ps->ni >= MAX_ITEMS) {
        fail(ps, "character class too large");
        return -1;
    }
    ps->items[ps->ni].lo = lo;
    ps->items[ps->ni].hi = hi;
    ps->items[ps->ni].cat = cat;
    ps->items[ps->ni].neg = neg;
    return ps->ni++;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static int read_hex(struct parser *ps, int digits, uint32_t *out)
{
    uint32_t v = 0;

    for (int i = 0; i < digits; i++) {
        int h = hexval(ps->p[i]);

        if (h < 0) {
            fail(ps, "bad hex escape");
            return -1;
        }
        v = v * 16 + (uint32_t)h;
    }
    ps->p += digits;
    *out = v;
    return 0;
}

/* After a backslash: one code point (*cp, returns 0) or a category (*cat, *neg; returns
 * 1); -1 on error. \uD800-\uDBFF followed by \uDC00-\uDFFF is the pair's code point. */
static int read_escape(struct parser *ps, uint32_t *cp, int *cat, int *neg)
{
    char c = *ps->p;

    if (c == '\0') {
        fail(ps, "trailing backslash");
        return -1;
    }
    ps->p++;
    *neg = 0;
    switch (c) {
    case 'D':
    case 'W':
    case 'S':
        *neg = 1;
        /* fall through */
    case 'd':
    case 'w':
    case 's':
        *cat = c == 'd' || c == 'D' ? CAT_DIGIT : c == 'w' || c == 'W' ? CAT_WORD : CAT_SPACE;
        return 1;
    case 'P':
        *neg = 1;
        /* fall through */
    case 'p': {
        char k;

        if (ps->p[0] != '{' || !ps->p[1] || ps->p[2] != '}') {
            fail(ps, "unsupported \\p form");
            return -1;
        }
        k = ps->p[1];
        ps->p += 3;
        if (k == 'L')
            *cat = MODEL_UCAT_L;
        else if (k == 'N')
            *cat = MODEL_UCAT_N;
        else if (k == 'Z')
            *cat = MODEL_UCAT_Z;
        else {
            fail(ps, "unsupported category \\p{%c}", k);
            return -1;
        }
        return 1;
    }
    case 'u':
        if (read_hex(ps, 4, cp) < 0)
            return -1;
        if (*cp >= 0xd800 && *cp <= 0xdbff && ps->p[0] == '\\' && ps->p[1] == 'u') {
            const char *save = ps->p;
            uint32_t lo;

            ps->p += 2;
            if (read_hex(ps, 4, &lo) < 0)
                return -1;
            if (lo >= 0xdc00 && lo <= 0xdfff)
                *cp = 0x10000 + ((*cp - 0xd800) << 10) + (lo - 0xdc00);
            else
                ps->p = save;
        }
        return 0;
    case 'x':
        return read_hex(ps, 2, cp);
    case 't':
        *cp = '\t';
        return 0;
    case 'n':
        *cp = '\n';
        return 0;
    case 'r':
        *cp = '\r';
        return 0;
    case 'f':
        *cp = '\f';
        return 0;
    default:
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
            fail(ps, "unsupported escape \\%c", c);
            return -1;
        }
        *cp = (uint32_t)(unsigned char)c; /* escaped punctuation is itself */
        return 0;
    }
}

/* One code point of the pattern text (UTF-8; the models' patterns are ASCII). */
static uint32_t read_literal(struct parser *ps)
{
    const unsigned char *s = (const unsigned char *)ps->p;
    uint32_t cp = s[0];
    int len = 1;

    if (cp >= 0xf0) {
        cp &= 0x07;
        len = 4;
    } else if (cp >= 0xe0) {
        cp &= 0x0f;
        len = 3;
    } else if (cp >= 0xc0) {
        cp &= 0x1f;
        len = 2;
    }
    for (int i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80) {
            fail(ps, "pattern is not UTF-8");
            return 0;
        }
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    ps->p += len;
    return cp;
}

static int parse_class(struct parser *ps)
{
    int nd = node_new(ps, N_SET);
    int first = ps->ni;

    if (ps->failed)
        return 0;
    if (*ps->p == '^') {
        ps->nodes[nd].neg = 1;
        ps->p++;
    }
    /* a ']' first is a literal in Java too */
    if (*ps->p == ']') {
        item_add(ps, ']', ']', 0, 0);
        ps->p++;
    }
    while (!ps->failed && *ps->p != ']') {
        uint32_t lo, hi;
        int cat = 0, neg = 0, r = 0;

        if (*ps->p == '\0') {
            fail(ps, "unterminated class");
            break;
        }
        if (*ps->p == '[' || (ps->p[0] == '&' && ps->p[1] == '&')) {
            fail(ps, "nested classes and intersections are not supported");
            break;
        }
        if (*ps->p == '\\') {
            ps->p++;
            r = read_escape(ps, &lo, &cat, &neg);
            if (r < 0)
                break;
        } else {
            lo = read_literal(ps);
        }
        if (r == 1) {
            item_add(ps, 0, 0, cat, neg);
            continue;
        }
        hi = lo;
        if (ps->p[0] == '-' && ps->p[1] != ']' && ps->p[1] != '\0') {
            ps->p++;
            if (*ps->p == '\\') {
                ps->p++;
                r = read_escape(ps, &hi, &cat, &neg);
                if (r != 0) {
                    if (r == 1)
                        fail(ps, "a category cannot end a range");
                    break;
                }
            } else {
                hi = read_literal(ps);
            }
            if (hi < lo) {
                fail(ps, "range out of order");
                break;
            }
        }
        item_add(ps, lo, hi, 0, 0);
    }
    if (ps->failed)
        return 0;
    ps->p++; /* ']' */
    ps->nodes[nd].item = first;
    ps->nodes[nd].nit = ps->ni - first;
    return nd;
}

static int parse_alt(struct parser *ps, int depth);

static int parse_atom(struct parser *ps, int depth)
{
    char c = *ps->p;
    int nd;

    switch (c) {
    case '(':
        ps->p++;
        if (ps->p[0] == '?') {
            if (ps->p[1] != ':') {
                fail(ps, "only (?: ) groups are supported");
                return 0;
            }
            ps->p += 2;
        }
        nd = parse_alt(ps, depth + 1);
        if (!ps->failed && *ps->p != ')') {
            fail(ps, "unbalanced parenthesis");
            return 0;
        }
        ps->p++;
        return nd;
    case '[':
        ps->p++;
        return parse_class(ps);
    case '.':
        ps->p++;
        return node_new(ps, N_ANY);
    case '^':
        ps->p++;
        return node_new(ps, N_BOL);
    case '$':
        ps->p++;
        return node_new(ps, N_EOL);
    case '\\': {
        uint32_t cp;
        int cat = 0, neg = 0, r;

        ps->p++;
        r = read_escape(ps, &cp, &cat, &neg);
        if (r < 0)
            return 0;
        nd = node_new(ps, N_SET);
        if (ps->failed)
            return 0;
        ps->nodes[nd].item = ps->ni;
        ps->nodes[nd].nit = 1;
        if (r == 1)
            item_add(ps, 0, 0, cat, neg);
        else
            item_add(ps, cp, cp, 0, 0);
        return nd;
    }
    case '*':
    case '+':
    case '?':
    case '{':
        fail(ps, "quantifier without operand");
        return 0;
    default: {
        uint32_t cp = read_literal(ps);

        nd = node_new(ps, N_SET);
        if (ps->failed)
            return 0;
        ps->nodes[nd].item = ps->ni;
        ps->nodes[nd].nit = 1;
        item_add(ps, cp, cp, 0, 0);
        return nd;
    }
    }
}

static int read_int(struct parser *ps, int *out)
{
    int v = 0, any = 0;

    while (*ps->p >= '0' && *ps->p <= '9') {
        v = v * 10 + (*ps->p - '0');
        if (v > MAX_REP) {
            fail(ps, "repetition count too large");
            return -1;
        }
        ps->p++;
        any = 1;
    }
    if (!any)
        return -1;
    *out = v;
    return 0;
}

static int parse_repeat(struct parser *ps, int depth)
{
    int nd = parse_atom(ps, depth);

    while (!ps->failed) {
        int min, max, rep;
        char c = *ps->p;

        if (c == '*') {
            min = 0;
            max = -1;
            ps->p++;
        } else if (c == '+') {
            min = 1;
            max = -1;
            ps->p++;
        } else if (c == '?') {
            min = 0;
            max = 1;
            ps->p++;
        } else if (c == '{') {
            ps->p++;
            if (read_int(ps, &min) < 0) {
                fail(ps, "bad repetition");
                break;
            }
            max = min;
            if (*ps->p == ',') {
                ps->p++;
                max = -1;
                if (*ps->p != '}' && read_int(ps, &max) < 0) {
                    fail(ps, "bad repetition");
                    break;
                }
            }
            if (*ps->p != '}' || (max >= 0 && max < min)) {
                fail(ps, "bad repetition");
                break;
            }
            ps->p++;
        } else {
            break;
        }
        if (*ps->p == '+') {
            fail(ps, "possessive quantifiers are not supported");
            break;
        }
        if (*ps->p == '?') /* lazy: the same set of whole matches */
            ps->p++;
        rep = node_new(ps, N_REP);
        if (ps->failed)
            break;
        ps->nodes[rep].a = nd;
        ps->nodes[rep].min = min;
        ps->nodes[rep].max = max;
        nd = rep;
    }
    return nd;
}

static int parse_cat(struct parser *ps, int depth)
{
    int nd = -1;

    while (!ps->failed && *ps->p && *ps->p != '|' && *ps->p != ')') {
        int r = parse_repeat(ps, depth);

        if (nd < 0) {
            nd = r;
        } else {
            int c = node_new(ps, N_CAT);

            if (ps->failed)
                break;
            ps->nodes[c].a = nd;
            ps->nodes[c].b = r;
            nd = c;
        }
    }
    return nd < 0 ? node_new(ps, N_EMPTY) : nd;
}

static int parse_alt(struct parser *ps, int depth)
{
    int nd;

    if (depth > 32) {
        fail(ps, "pattern nested too deeply");
        return 0;
    }
    nd = parse_cat(ps, depth);
    while (!ps->failed && *ps->p == '|') {
        int r, a;

        ps->p++;
        r = parse_cat(ps, depth);
        a = node_new(ps, N_ALT);
        if (ps->failed)
            break;
        ps->nodes[a].a = nd;
        ps->nodes[a].b = r;
        nd = a;
    }
    return nd;
}

/* ---- the program ----------------------------------------------------------------- */

struct emitter {
    struct parser *ps;
    struct inst *code;
    int n;
};

static int emit(struct emitter *e, enum op op)
{
    if (e->n >= MAX_PROG) {
        fail(e->ps, "pattern compiles too large");
        return MAX_PROG - 1;
    }
    memset(&e->code[e->n], 0, sizeof(e->code[0]));
    e->code[e->n].op = (uint8_t)op;
    return e->n++;
}

static void gen(struct emitter *e, int ni, int depth)
{
    const struct node *nd = &e->ps->nodes[ni];
    int i, s, j;

    if (e->ps->failed)
        return;
    if (depth > 200) {
        fail(e->ps, "pattern nested too deeply");
        return;
    }
    switch (nd->kind) {
    case N_EMPTY:
        break;
    case N_SET:
        i = emit(e, OP_SET);
        e->code[i].x = nd->item;
        e->code[i].nit = (uint16_t)nd->nit;
        e->code[i].neg = (uint8_t)nd->neg;
        break;
    case N_ANY:
        emit(e, OP_ANY);
        break;
    case N_BOL:
        emit(e, OP_BOL);
        break;
    case N_EOL:
        emit(e, OP_EOL);
        break;
    case N_CAT:
        gen(e, nd->a, depth + 1);
        gen(e, nd->b, depth + 1);
        break;
    case N_ALT:
        s = emit(e, OP_SPLIT);
        e->code[s].x = e->n;
        gen(e, nd->a, depth + 1);
        j = emit(e, OP_JMP);
        e->code[s].y = e->n;
        gen(e, nd->b, depth + 1);
        e->code[j].x = e->n;
        break;
    case N_REP:
        for (i = 0; i < nd->min && !e->ps->failed; i++)
            gen(e, nd->a, depth + 1);
        if (nd->max < 0) {
            /* L: split body, out; body; jmp L */
            s = emit(e, OP_SPLIT);
            e->code[s].x = e->n;
            gen(e, nd->a, depth + 1);
            j = emit(e, OP_JMP);
            e->code[j].x = s;
            e->code[s].y = e->n;
        } else {
            /* each optional copy: split body, out (all outs patched to the end) */
            int first = e->n, nopt = nd->max - nd->min;

            for (i = 0; i < nopt && !e->ps->failed; i++) {
                s = emit(e, OP_SPLIT);
                e->code[s].x = e->n;
                e->code[s].y = -1; /* patched below */
                gen(e, nd->a, depth + 1);
            }
            for (i = first; i < e->n; i++) {
                if (e->code[i].op == OP_SPLIT && e->code[i].y == -1)
                    e->code[i].y = e->n;
            }
        }
        break;
    }
}

static void prog_free(struct prog *pg)
{
    if (!pg)
        return;
    free(pg->code);
    free(pg->items);
    free(pg->mark);
    free(pg);
}

static struct prog *compile(const char *pattern, char *err)
{
    struct parser *ps = calloc(1, sizeof(*ps));
    struct emitter e = { 0 };
    struct prog *pg = NULL;
    int root;

    if (!ps) {
        if (err)
            snprintf(err, MODEL_PATTERN_ERR_LEN, "out of memory");
        return NULL;
    }
    ps->p = pattern;
    ps->err = err;
    root = parse_alt(ps, 0);
    if (!ps->failed && *ps->p != '\0')
        fail(ps, "unbalanced parenthesis");
    if (ps->failed)
        goto out;
    e.ps = ps;
    e.code = calloc(MAX_PROG, sizeof(*e.code));
    if (!e.code) {
        fail(ps, "out of memory");
        goto out;
    }
    gen(&e, root, 0);
    emit(&e, OP_MATCH);
    if (ps->failed)
        goto out;
    pg = calloc(1, sizeof(*pg));
    if (!pg)
        goto out;
    pg->pattern = pattern;
    pg->n = e.n;
    pg->code = e.code;
    e.code = NULL;
    pg->nitems = ps->ni;
    pg->items = calloc((size_t)(ps->ni ? ps->ni : 1), sizeof(*pg->items));
    pg->mark = calloc((size_t)pg->n, sizeof(*pg->mark));
    if (!pg->items || !pg->mark) {
        prog_free(pg);
        pg = NULL;
        goto out;
    }
    memcpy(pg->items, ps->items, (size_t)ps->ni * sizeof(*pg->items));
out:
    free(e.code);
    free(ps);
    return pg;
}

/* ---- running it ------------------------------------------------------------------ */

static int item_has(const struct item *it, uint32_t cp)
{
    int in;

    switch (it->cat) {
    case 0:
        in = cp >= it->lo && cp <= it->hi;
        break;
    case CAT_DIGIT:
        in = cp >= '0' && cp <= '9';
        break;
    case CAT_WORD:
        in = (cp >= '0' && cp <= '9') || (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') ||
             cp == '_';
        break;
    case CAT_SPACE:
        in = cp == ' ' || cp == '\t' || cp == '\n' || cp == 0x0b || cp == '\f' || cp == '\r';
        break;
    default:
        in = model_ucat_has(it->cat, cp);
    }
    return it->neg ? !in : in;
}

static int set_has(const struct prog *pg, const struct inst *in, uint32_t cp)
{
    int hit = 0;

    for (int i = 0; i < in->nit && !hit; i++)
        hit = item_has(&pg->items[in->x + i], cp);
    return in->neg ? !hit : hit;
}

/* Java's `.` without DOTALL: anything but a line terminator. */
static int dot_has(uint32_t cp)
{
    return cp != '\n' && cp != '\r' && cp != 0x85 && cp != 0x2028 && cp != 0x2029;
}

struct run {
    struct prog *pg;
    int *stack;
    int step;
    size_t pos, len;
};

/* Adds pc and everything reachable from it without reading (the epsilon closure) to
 * list (of size *n). */
static void add_state(struct run *r, int *list, int *n, int pc)
{
    int sp = 0;

    r->stack[sp++] = pc;
    while (sp > 0) {
        int at = r->stack[--sp];
        const struct inst *in = &r->pg->code[at];

        if (r->pg->mark[at] == r->step)
            continue;
        r->pg->mark[at] = r->step;
        switch ((enum op)in->op) {
        case OP_JMP:
            r->stack[sp++] = in->x;
            break;
        case OP_SPLIT:
            r->stack[sp++] = in->y;
            r->stack[sp++] = in->x;
            break;
        case OP_BOL:
            if (r->pos == 0)
                r->stack[sp++] = at + 1;
            break;
        case OP_EOL:
            if (r->pos == r->len)
                r->stack[sp++] = at + 1;
            break;
        default:
            list[(*n)++] = at;
        }
    }
}

static uint32_t next_cp(const unsigned char *s, size_t n, size_t *i)
{
    uint32_t c = s[*i];
    int len = 1;

    if (c >= 0xf0) {
        c &= 0x07;
        len = 4;
    } else if (c >= 0xe0) {
        c &= 0x0f;
        len = 3;
    } else if (c >= 0xc0) {
        c &= 0x1f;
        len = 2;
    }
    for (int k = 1; k < len && *i + (size_t)k < n; k++)
        c = (c << 6) | (s[*i + (size_t)k] & 0x3f);
    *i += (size_t)len;
    return c;
}

static int run(struct prog *pg, const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    struct run r = { pg, NULL, 0, 0, n };
    int *cur = calloc((size_t)pg->n, sizeof(int));
    int *nxt = calloc((size_t)pg->n, sizeof(int));
    int ncur = 0, matched = 0;

    /* every instruction pushes at most two: the stack never exceeds 2 * n */
    r.stack = calloc((size_t)pg->n * 2 + 2, sizeof(int));
    if (!cur || !nxt || !r.stack) {
        matched = -1;
        goto out;
    }
    memset(pg->mark, 0, (size_t)pg->n * sizeof(int));
    r.step = 1;
    add_state(&r, cur, &ncur, 0);
    for (size_t i = 0;;) {
        int nnxt = 0;
        uint32_t cp;

        if (i >= n) {
            for (int k = 0; k < ncur; k++) {
                if (pg->code[cur[k]].op == OP_MATCH)
                    matched = 1;
            }
            break;
        }
        cp = next_cp(s, n, &i);
        r.pos = i;
        r.step++;
        for (int k = 0; k < ncur; k++) {
            const struct inst *in = &pg->code[cur[k]];
            int ok = 0;

            if (in->op == OP_SET)
                ok = set_has(pg, in, cp);
            else if (in->op == OP_ANY)
                ok = dot_has(cp);
            if (ok)
                add_state(&r, nxt, &nnxt, cur[k] + 1);
        }
        if (nnxt == 0)
            break;
        {
            int *t = cur;

            cur = nxt;
            nxt = t;
            ncur = nnxt;
        }
    }
out:
    free(cur);
    free(nxt);
    free(r.stack);
    return matched;
}

static struct prog *cache[MAX_CACHE];
static int ncache;

/* The compiled program of pattern, cached by its address; *owned 1 when the cache was full
 * and the caller must free it (not with the models' few dozen patterns). */
static struct prog *prog_get(const char *pattern, char *err, int *owned)
{
    struct prog *pg;

    *owned = 0;
    for (int i = 0; i < ncache; i++) {
        if (cache[i]->pattern == pattern)
            return cache[i];
    }
    pg = compile(pattern, err);
    if (pg && ncache < MAX_CACHE)
        cache[ncache++] = pg;
    else if (pg)
        *owned = 1;
    return pg;
}

int model_pattern_check(const char *pattern, char *err)
{
    struct prog *pg = compile(pattern, err);

    if (!pg)
        return -1;
    prog_free(pg);
    return 0;
}

int model_pattern_match(const char *pattern, const char *s, size_t n, char *err)
{
    int owned, rc;
    struct prog *pg = prog_get(pattern, err, &owned);

    if (!pg)
        return -1;
    rc = run(pg, s, n);
    if (owned)
        prog_free(pg);
    return rc;
}
