/* scaler/json_tags.h: the Tags list ([{"Key","Value"}]) a JSON-kept CloudWatch record holds
 * (metric streams, Contributor Insights rules): TagResource, UntagResource and
 * ListTagsForResource on it, with the rules the alarms' tags follow (scaler/alarm.c: a new key
 * is appended, an existing key's value replaced, unknown keys to remove ignored). */
#ifndef SCALER_JSON_TAGS_H
#define SCALER_JSON_TAGS_H

#include <jansson.h>

#include "scaler/alarm.h"
#include "scaler/status.h"

/* Adds or replaces tags[0..n) in rec's "Tags". A tag without a key or a value is
 * MissingParameter naming it (Tags.member.N.Key / .Value) and nothing changes. */
enum sc_status sc_json_tags_add(json_t *rec, const struct sc_tag *tags, int n,
                                struct sc_error *err);
/* Removes the named keys from rec's "Tags". */
void sc_json_tags_remove(json_t *rec, const char *const *keys, int n);
/* Calls fn for each tag of rec in order (stops when fn returns non-zero). */
void sc_json_tags_visit(const json_t *rec, sc_tag_visit_fn fn, void *ud);

#endif
