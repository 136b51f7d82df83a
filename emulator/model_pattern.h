/* emulator/model_pattern.h: the botocore models' `pattern` constraints (Java regular
 * expressions, matched as java.util.regex's matches(): the whole value) over UTF-8.
 *
 * Only the subset the carried models use is read (docs/models.md, "Patterns"): literals,
 * `.`, classes with ranges and negation, \d \w \s (and their negations), \p{L} \p{N}
 * \p{Z} (and \P), \uXXXX (a surrogate pair of escapes is one code point, as in Java),
 * \xXX, \t \n \r \f, escaped punctuation, groups `( )` and `(?: )`, `|`, the quantifiers
 * `* + ? {n} {n,} {n,m}` (a lazy `?` after one changes nothing for a whole match), `^`
 * and `$`. Matching is a Thompson NFA (Pike VM without captures): time linear in the
 * value's length times the program's size, so no pattern backtracks exponentially.
 * Compiled programs are cached per pattern string; one thread (the emulator's loop). */
#ifndef EMULATOR_MODEL_PATTERN_H
#define EMULATOR_MODEL_PATTERN_H

#include <stddef.h>
#include <stdint.h>

#define MODEL_PATTERN_ERR_LEN 128

/* Unicode general categories the patterns name (model_ucat.c, generated). */
#define MODEL_UCAT_L 1
#define MODEL_UCAT_N 2
#define MODEL_UCAT_Z 3

/* 1 when code point cp is in category cat (MODEL_UCAT_*), else 0. */
int model_ucat_has(int cat, uint32_t cp);
/* The Unicode version the category table was generated from ("14.0.0"). */
extern const char model_ucat_version[];

/* 1 when the whole of s[0..n) (valid UTF-8) matches pattern, 0 when it does not, -1 when
 * the pattern uses something outside the subset above (err, if not NULL, says what;
 * MODEL_PATTERN_ERR_LEN bytes). pattern is borrowed and must outlive the process (the model's
 * static strings: the cache keeps the pointer). */
int model_pattern_match(const char *pattern, const char *s, size_t n, char *err);

/* Compiles pattern only: 0, or -1 with err set as above (the unit test runs it over
 * every pattern in the models). */
int model_pattern_check(const char *pattern, char *err);

#endif
