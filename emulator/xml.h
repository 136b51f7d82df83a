/* emulator/xml.h: XML replies of the Query protocol (`<Op>Response`/`<Op>Result`,
 * `member` lists, `entry` maps, ResponseMetadata) and of EC2's dialect (no Result
 * wrapper, `requestId`, `item` lists), and their error bodies; written from the IR (see
 * model_coerce) by walking the operation's output shape. */
#ifndef EMULATOR_XML_H
#define EMULATOR_XML_H

#include <jansson.h>

#include "common/buf.h"
#include "emulator/awserr.h"
#include "emulator/model.h"

/* Appends op's reply for the IR `out` (borrowed; NULL or {} for an empty result).
 * Members absent from the IR are omitted; an empty array is written as an empty list
 * element, so handlers make AWS's always-present lists by setting []. */
void xml_write_reply(struct cm_buf *b, const struct model_service *svc, const struct model_op *op,
                     json_t *out, const char *request_id);
/* Appends AWS's error body: `<ErrorResponse>` for query services, EC2's `<Response>`
 * when svc is EC2. svc may be NULL (request not routed). */
void xml_write_error(struct cm_buf *b, const struct model_service *svc, const struct awserr *e,
                     const char *request_id);
/* Appends s with XML's five special characters escaped. */
void xml_escape(struct cm_buf *b, const char *s, size_t n);
/* Formats d as AWS's Java services do for whole numbers ("70.0"), else as the shortest
 * text that reads back as d ("0.1"). */
void xml_format_double(double d, char *out, size_t n);

#endif
