/* emulator/awsjson.h: CloudWatch's awsJson1_0 protocol (X-Amz-Target, awsQueryCompatible):
 * request bodies to the IR and the IR to reply bodies, driven by the model (timestamps
 * are epoch seconds on the wire, epoch ms in the IR). Prefix awsjson_ rather than json_
 * so nothing collides with Jansson's json_* names. */
#ifndef EMULATOR_AWSJSON_H
#define EMULATOR_AWSJSON_H

#include <stddef.h>

#include <jansson.h>

#include "common/buf.h"
#include "emulator/awserr.h"
#include "emulator/model.h"

/* Parses body[0..len) (empty means {}) into op's input IR. Returns 0 and *out (new
 * reference), or -1 with err set: SerializationException for malformed JSON or a
 * non-object, validation errors as model_coerce(). */
int awsjson_parse_request(const struct model_service *svc, const struct model_op *op,
                          const char *body, size_t len, json_t **out, struct awserr *err);
/* Appends op's reply body for the IR `out` (borrowed; NULL means {}). */
void awsjson_write_reply(struct cm_buf *b, const struct model_service *svc,
                         const struct model_op *op, json_t *out);
/* Appends {"__type": ..., "message": ...}: __type is "com.amazonaws.<svc>#<ErrorShape>"
 * for a modelled code, else the code itself. */
void awsjson_write_error(struct cm_buf *b, const struct model_service *svc, const struct awserr *e);
/* The value of `__type` for e (into out). */
void awsjson_error_type(const struct model_service *svc, const struct awserr *e, char *out,
                        size_t n);
/* IR -> wire value for shape si (timestamps to epoch seconds); new reference. */
json_t *awsjson_to_wire(const struct model_service *svc, uint32_t si, json_t *v);

#endif
