/* scaler/lint.c: JSON paths, every error of a file kept, unknown keys with a "did you
 * mean" (see lint.h). */
#include "scaler/lint.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Room kept at the end of the error buffer for sc_lint_finish()'s line. */
#define TAIL_ROOM 48
/* Longest word sc_lint_distance() compares (longer: as far as can be). */
#define WORD_MAX 64

void sc_lint_init(struct sc_lint *l, char *err, size_t errlen, char *warn, size_t warnlen)
{
    memset(l, 0, sizeof(*l));
    l->err = err;
    l->errlen = err ? errlen : 0;
    l->warn = warn;
    l->warnlen = warn ? warnlen : 0;
    if (l->errlen)
        err[0] = '\0';
    if (l->warnlen)
        warn[0] = '\0';
}

/* Appends one line to buf (used bytes so far in *used, cap in total, keep bytes left
 * free). Returns 0, or -1 when it did not fit (buf unchanged). */
static int append_line(char *buf, size_t cap, size_t *used, size_t keep, const char *path,
                       const char *fmt, va_list ap)
{
    size_t at = *used;
    size_t limit;
    int n;

    if (!buf || cap <= keep + 1)
        return -1;
    limit = cap - keep;
    if (at > 0) {
        if (at + 1 >= limit)
            return -1;
        buf[at++] = '\n';
    }
    if (path && path[0]) {
        n = snprintf(buf + at, limit - at, "%s: ", path);
        if (n < 0 || (size_t)n >= limit - at)
            goto full;
        at += (size_t)n;
    }
    n = vsnprintf(buf + at, limit - at, fmt, ap);
    if (n < 0 || (size_t)n >= limit - at)
        goto full;
    *used = at + (size_t)n;
    return 0;
full:
    buf[*used] = '\0';
    return -1;
}

int sc_lint_vfail(struct sc_lint *l, const char *path, const char *fmt, va_list ap)
{
    l->nerrors++;
    if (append_line(l->err, l->errlen, &l->used, TAIL_ROOM, path, fmt, ap) != 0)
        l->ndropped++;
    return -1;
}

int sc_lint_fail(struct sc_lint *l, const char *path, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    sc_lint_vfail(l, path, fmt, ap);
    va_end(ap);
    return -1;
}

int sc_lint_warn(struct sc_lint *l, const char *path, const char *fmt, ...)
{
    va_list ap;

    l->nwarnings++;
    va_start(ap, fmt);
    append_line(l->warn, l->warnlen, &l->warnused, 0, path, fmt, ap);
    va_end(ap);
    return 0;
}

int sc_lint_errors(const struct sc_lint *l)
{
    return l->nerrors;
}

void sc_lint_finish(struct sc_lint *l)
{
    size_t at = l->used;

    if (l->ndropped == 0 || !l->err || l->errlen <= at + 2)
        return;
    if (at > 0)
        l->err[at++] = '\n';
    snprintf(l->err + at, l->errlen - at, "(%d more error%s not shown)", l->ndropped,
             l->ndropped == 1 ? "" : "s");
    l->used = strlen(l->err);
    l->ndropped = 0;
}

void sc_lint_path_key(char *out, size_t cap, const char *base, const char *key)
{
    size_t n = 0;

    if (cap == 0)
        return;
    for (const char *s = base; *s && n < cap - 1; s++)
        out[n++] = *s;
    if (base[0] && n < cap - 1)
        out[n++] = '.';
    for (const char *s = key; *s && n < cap - 1; s++)
        out[n++] = *s;
    out[n] = '\0';
}

void sc_lint_path_idx(char *out, size_t cap, const char *base, size_t i)
{
    char tail[32];
    size_t n = 0;

    if (cap == 0)
        return;
    snprintf(tail, sizeof(tail), "[%zu]", i);
    for (const char *s = base; *s && n < cap - 1; s++)
        out[n++] = *s;
    for (const char *s = tail; *s && n < cap - 1; s++)
        out[n++] = *s;
    out[n] = '\0';
}

int sc_lint_distance(const char *a, const char *b)
{
    int d[WORD_MAX + 1][WORD_MAX + 1];
    size_t na = strlen(a), nb = strlen(b);

    if (na > WORD_MAX || nb > WORD_MAX)
        return WORD_MAX * 2;
    for (size_t i = 0; i <= na; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= nb; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= na; i++) {
        for (size_t j = 1; j <= nb; j++) {
            int cost = a[i - 1] != b[j - 1];
            int best = d[i - 1][j] + 1;

            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < best)
                best = d[i - 1][j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    }
    return d[na][nb];
}

const char *sc_lint_suggest_n(const char *word, const char *const *candidates, int n)
{
    size_t len = strlen(word);
    int limit = len <= 4 ? 1 : len <= 8 ? 2 : 3;
    const char *best = NULL;
    int best_d = limit + 1;

    if (limit >= (int)len)
        limit = (int)len - 1;
    for (int i = 0; i < n; i++) {
        int d;

        if (!candidates[i])
            continue;
        d = sc_lint_distance(word, candidates[i]);
        if (d == 0)
            return NULL;
        if (d <= limit && d < best_d) {
            best = candidates[i];
            best_d = d;
        }
    }
    return best;
}

const char *sc_lint_suggest(const char *word, const char *const *candidates)
{
    int n = 0;

    while (candidates[n])
        n++;
    return sc_lint_suggest_n(word, candidates, n);
}

int sc_lint_check_keys(struct sc_lint *l, const json_t *obj, const char *path,
                       const char *const *allowed)
{
    int unknown = 0;

    /* keys only: json_object_foreach's order without its value variable */
    for (void *it = json_object_iter((json_t *)obj); it;
         it = json_object_iter_next((json_t *)obj, it)) {
        const char *key = json_object_iter_key(it);
        const char *near;
        char p[256];
        int ok = 0;

        for (const char *const *k = allowed; *k; k++)
            ok |= strcmp(*k, key) == 0;
        if (ok)
            continue;
        unknown++;
        sc_lint_path_key(p, sizeof(p), path, key);
        near = sc_lint_suggest(key, allowed);
        if (near)
            sc_lint_fail(l, p, "unknown key (did you mean \"%s\"?)", near);
        else
            sc_lint_fail(l, p, "unknown key");
    }
    return unknown;
}
