/* emulator/query.h: the Query protocol's request side (form bodies and GET query
 * strings), for Auto Scaling, ELB and CloudWatch (`Name.member.N`, maps
 * `Name.entry.N.key/value`, empty list `Name=`) and EC2's dialect (`Name.N`, capitalised
 * locationNames). Model-driven: one parser serves every operation. */
#ifndef EMULATOR_QUERY_H
#define EMULATOR_QUERY_H

#include <stddef.h>

#include <jansson.h>

#include "emulator/awserr.h"
#include "emulator/model.h"

#define QUERY_MAX_PAIRS 20000

struct query_pair {
    char *key;      /* percent-decoded, NUL-terminated (may hold invalid UTF-8) */
    size_t key_len; /* keys may hold NUL bytes (%00) too: such a key matches no name */
    char *value;
    size_t value_len; /* values may hold NUL bytes (%00) */
};

struct query_form {
    struct query_pair *pairs;
    size_t n;
    char *text; /* one block holding every pair's key and value */
};

/* Splits an application/x-www-form-urlencoded string (`a=1&b=%20`, '+' is a space).
 * Returns 0, or -1 with err set (more than QUERY_MAX_PAIRS pairs). The form owns its
 * strings; free with query_form_cleanup(). */
int query_form_parse(struct query_form *f, const char *s, size_t len, struct awserr *err);
void query_form_cleanup(struct query_form *f);
/* The first value of key, borrowed; NULL when absent. A key with a NUL byte in it
 * (`Action%00x=`) is never key. */
const char *query_form_find(const struct query_form *f, const char *key);
/* The first pair of key (as query_form_find), borrowed, or NULL: its value_len tells a
 * value cut by a NUL byte (`Action=DescribeAlarms%00Foo`) from a whole one. */
const struct query_pair *query_form_pair(const struct query_form *f, const char *key);

/* Builds the IR (see model_coerce) of op's input from the form; ec2 selects EC2's
 * dialect. Returns 0 and *out (new reference; `{}` for operations without input), or -1
 * with err set (validation errors in the service's style). */
int query_parse(const struct model_service *svc, const struct model_op *op,
                const struct query_form *f, int ec2, json_t **out, struct awserr *err);

#endif
