/* scaler/lint.h: the error reporting every JSON reader of a user's file shares (the
 * scenario file, the application profile): JSON paths, every error of a file kept (not only
 * the first), unknown keys with a "did you mean" from the allowed keys, and warnings.
 *
 * A reader reports each problem with sc_lint_fail() ("PATH: message", one line each) and
 * goes on where it can; at the end, sc_lint_errors() > 0 means the file is rejected and
 * the buffer holds every line. Lines that do not fit are counted, and sc_lint_finish()
 * ends the buffer with "(N more errors not shown)".
 *
 * Plain data in the caller's storage; no allocation. */
#ifndef SCALER_LINT_H
#define SCALER_LINT_H

#include <stdarg.h>
#include <stddef.h>

#include <jansson.h>

struct sc_lint {
    char *err; /* the caller's buffer of error lines (may be NULL with errlen 0) */
    size_t errlen;
    size_t used;
    int nerrors;
    int ndropped; /* errors that did not fit */
    char *warn;   /* the caller's buffer of warning lines, or NULL (warnings dropped) */
    size_t warnlen;
    size_t warnused;
    int nwarnings;
};

/* Empties both buffers (warn may be NULL). */
void sc_lint_init(struct sc_lint *l, char *err, size_t errlen, char *warn, size_t warnlen);

/* Appends the line "PATH: message" (the message alone when path is NULL or empty) to the
 * errors. Returns -1, so a reader can `return sc_lint_fail(...)`. */
int sc_lint_fail(struct sc_lint *l, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int sc_lint_vfail(struct sc_lint *l, const char *path, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
/* The same into the warnings; returns 0. */
int sc_lint_warn(struct sc_lint *l, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

int sc_lint_errors(const struct sc_lint *l);
/* Adds the "(N more errors not shown)" line when some did not fit. */
void sc_lint_finish(struct sc_lint *l);

/* out (cap bytes) = base.key, or key alone when base is empty; cut to fit. out may not
 * alias base. */
void sc_lint_path_key(char *out, size_t cap, const char *base, const char *key);
/* out = base[i]. */
void sc_lint_path_idx(char *out, size_t cap, const char *base, size_t i);

/* Every key of obj not in allowed (NULL-terminated) is an error at PATH.KEY: "unknown key",
 * with " (did you mean \"K\"?)" when an allowed key is close (sc_lint_suggest). All of
 * them are reported. Returns how many (0: none). */
int sc_lint_check_keys(struct sc_lint *l, const json_t *obj, const char *path,
                       const char *const *allowed);

/* The optimal-string-alignment edit distance (insertions, deletions, substitutions and
 * swaps of two neighbours, each 1), capped: words longer than 63 bytes compare as far. */
int sc_lint_distance(const char *a, const char *b);
/* The candidate closest to word (a NULL-terminated list), if it
 * is close enough to be a typo: distance at most 1 for words up to 4 bytes, 2 up to 8, 3
 * beyond, and less than the word's length; NULL when none, or when word is itself a
 * candidate. sc_lint_suggest_n takes an array of n candidates (NULL entries skipped). */
const char *sc_lint_suggest(const char *word, const char *const *candidates);
const char *sc_lint_suggest_n(const char *word, const char *const *candidates, int n);

#endif
