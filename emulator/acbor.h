/* emulator/acbor.h: Smithy RPC v2 CBOR for CloudWatch: a bounded CBOR decoder into the
 * IR and a model-driven encoder (timestamps as tag 1 + epoch seconds).
 *
 * Written here rather than on libcbor: requests go straight to Jansson values in one
 * pass with a depth cap (libcbor's cbor_load builds its own tree and frees it
 * recursively, so hostile nesting costs stack), and the encoder needs the model anyway
 * to tag timestamps. Prefix acbor_ so nothing collides with libcbor's cbor_* names. */
#ifndef EMULATOR_ACBOR_H
#define EMULATOR_ACBOR_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "common/buf.h"
#include "emulator/awserr.h"
#include "emulator/model.h"

#define ACBOR_MAX_DEPTH 64

/* Decodes one CBOR data item (the whole input) into JSON: maps with text keys ->
 * objects, arrays, text -> strings (checked UTF-8), integers, floats (non-finite ones
 * become the strings "NaN"/"Infinity"/"-Infinity"), tag 1 -> its number, other tags ->
 * their content, byte strings -> strings (base64 is not applied). Returns 0 and *out
 * (new reference), or -1 with err set (SerializationException) for truncated,
 * malformed, too deep or trailing input. Never reads past p[n). */
int acbor_decode(const uint8_t *p, size_t n, json_t **out, struct awserr *err);

/* acbor_decode + model_coerce for op's input (empty body means {}). */
int acbor_parse_request(const struct model_service *svc, const struct model_op *op,
                        const uint8_t *body, size_t len, json_t **out, struct awserr *err);

/* Appends op's reply (a CBOR map; {} when no output) for the IR `out` (borrowed). */
void acbor_write_reply(struct cm_buf *b, const struct model_service *svc, const struct model_op *op,
                       json_t *out);
/* Appends {"__type": ..., "message": ...} (see awsjson_error_type). */
void acbor_write_error(struct cm_buf *b, const struct model_service *svc, const struct awserr *e);

/* Low-level encoder pieces (tests build requests with them). */
void acbor_put_head(struct cm_buf *b, int major, uint64_t v);
void acbor_put_text(struct cm_buf *b, const char *s, size_t n);
void acbor_put_double(struct cm_buf *b, double d);
/* Encodes a plain JSON value (no model: numbers as ints/doubles). */
void acbor_put_json(struct cm_buf *b, json_t *v);

#endif
