/* scaler/json.h: what libscaler's Jansson-backed stores (insight, metric_stream) share about
 * reading a json_t. */
#ifndef SCALER_JSON_H
#define SCALER_JSON_H

#include <stddef.h>

#include <jansson.h>

/* The keys of object o in name order (strcmp, byte order), *n of them, NULL-terminated:
 * an array the caller free()s, of keys borrowed from o (valid until o changes). An
 * object with no keys (or o not an object) gives an array holding only the NULL. NULL on
 * OOM. */
const char **sc_json_keys_sorted(const json_t *o, size_t *n);

#endif
