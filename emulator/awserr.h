/* emulator/awserr.h: an AWS error as the wire layer carries it (code, message, HTTP
 * status, fault type). Parsers and handlers fill one; only dispatch.c renders it, in the
 * protocol the request came in (xml.c, awsjson.c, acbor.c write the bodies). */
#ifndef EMULATOR_AWSERR_H
#define EMULATOR_AWSERR_H

#include "scaler/status.h"

#define AWSERR_CODE_LEN 96
#define AWSERR_MSG_LEN  1024

struct awserr {
    int http;                     /* 0 while no error is set */
    int sender;                   /* 1 "Sender", 0 "Receiver" */
    char code[AWSERR_CODE_LEN];   /* "ValidationError" */
    char message[AWSERR_MSG_LEN]; /* may be empty (ResourceNotFound has none) */
};

/* Sets e and returns -1, so failures read `return awserr_set(...)`. */
int awserr_set(struct awserr *e, int http, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Copies a libscaler error (code, HTTP status and fault from scaler/status.c). */
int awserr_from_sc(struct awserr *e, const struct sc_error *se);
int awserr_is_set(const struct awserr *e);

#endif
