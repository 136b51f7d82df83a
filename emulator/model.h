/* emulator/model.h: the AWS service models (botocore service-2.json shapes) as C tables.
 *
 * The tables are generated at build time by scripts/gen-models.py into
 * $(BUILD)/gen/model_tables.c from the models carried in emulator/models/ (docs/models.md);
 * only the operations the emulator serves and the shapes reachable from them are kept.
 * Every parser and serializer walks these tables, so no operation has hand-written wire
 * code. All data is static and read-only. */
#ifndef EMULATOR_MODEL_H
#define EMULATOR_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

enum model_type {
    MODEL_STRUCTURE,
    MODEL_LIST,
    MODEL_MAP,
    MODEL_STRING,
    MODEL_INTEGER,
    MODEL_LONG,
    MODEL_DOUBLE,
    MODEL_FLOAT,
    MODEL_BOOLEAN,
    MODEL_TIMESTAMP,
    MODEL_BLOB,
};

/* shape flags */
#define MODEL_F_FLATTENED 0x01
#define MODEL_F_HAS_MIN   0x02
#define MODEL_F_HAS_MAX   0x04
#define MODEL_F_UNION     0x08
#define MODEL_F_ERROR     0x10
/* member flags */
#define MODEL_M_REQUIRED 0x01

/* protocols a service speaks */
#define MODEL_PROTO_QUERY 0x01
#define MODEL_PROTO_EC2   0x02
#define MODEL_PROTO_JSON  0x04
#define MODEL_PROTO_CBOR  0x08

struct model_member {
    const char *name;     /* the model's member name: JSON/CBOR key and IR key */
    const char *xml_name; /* query request / XML reply name: locationName, else name */
    const char *ec2_name; /* EC2 request name: queryName, else Capitalised locationName */
    uint32_t shape;       /* index into the service's shapes */
    uint8_t flags;        /* MODEL_M_* */
};

struct model_shape {
    const char *name;
    uint8_t type;      /* enum model_type */
    uint8_t flags;     /* MODEL_F_* */
    uint16_t nmembers; /* structure: its members; list: 1 (the member); map: 2 (key, value) */
    uint16_t nenums;
    uint32_t members;    /* first member, index into the service's members */
    uint32_t enums;      /* first enum value, index into the service's enums */
    double min, max;     /* length (string, list, map) or value range (numbers) */
    const char *pattern; /* the model's Java-style regular expression, NULL when none */
};

struct model_op {
    const char *name;
    int32_t input;          /* shape index, -1 when the operation takes nothing */
    int32_t output;         /* shape index, -1 when it returns nothing */
    const char *result_tag; /* query replies: "<Op>Result" wrapper, NULL for none */
};

struct model_error {
    const char *shape; /* "InvalidParameterValueException" */
    const char *code;  /* "InvalidParameterValue" */
    int http;
    int sender;
};

struct model_service {
    const char *name;          /* "autoscaling", "elb", "cloudwatch", "ec2" */
    const char *sigv4;         /* credential-scope service: "elasticloadbalancing" */
    const char *version;       /* "2011-01-01" */
    const char *xmlns;         /* reply namespace */
    const char *target_prefix; /* X-Amz-Target prefix (JSON), NULL when none */
    int protocols;             /* MODEL_PROTO_* */
    const struct model_shape *shapes;
    int nshapes;
    const struct model_member *members;
    const char *const *enums;
    const struct model_op *ops; /* sorted by name */
    int nops;
    const struct model_error *errors;
    int nerrors;
};

extern const struct model_service model_autoscaling;
extern const struct model_service model_elb;
extern const struct model_service model_elbv2;
extern const struct model_service model_cloudwatch;
extern const struct model_service model_ec2;
extern const struct model_service model_sts;

/* NULL-terminated list of every service. */
extern const struct model_service *const model_services[];

/* The operation named name, or NULL (binary search, exact case). */
const struct model_op *model_op_find(const struct model_service *svc, const char *name);
/* Borrowed shape/member accessors; index must be valid. */
const struct model_shape *model_shape_get(const struct model_service *svc, uint32_t index);
const struct model_member *model_member_get(const struct model_service *svc,
                                            const struct model_shape *sh, int i);
/* The member of structure sh whose name (or xml_name/ec2_name, per which) equals name;
 * NULL when none. which: 0 model name, 1 xml_name, 2 ec2_name. */
const struct model_member *model_member_find(const struct model_service *svc,
                                             const struct model_shape *sh, const char *name,
                                             int which);
/* The error whose code equals code, or NULL. */
const struct model_error *model_error_find(const struct model_service *svc, const char *code);
/* 1 when s is one of sh's enum values (or sh has no enum), else 0. */
int model_enum_ok(const struct model_service *svc, const struct model_shape *sh, const char *s);
/* The service whose sigv4 name (or name) and version match; version NULL matches any. */
const struct model_service *model_service_find(const char *sigv4, const char *version);
/* The service whose API version is version ("2011-01-01"), or NULL. */
const struct model_service *model_service_by_version(const char *version);

/* ---- checking and typing values (model_check.c) -------------------------------- */

/* How a service words its validation errors. */
enum model_err_style {
    MODEL_ERRS_SMITHY, /* ValidationError "1 validation error detected: Value ... at 'x' ..." */
    MODEL_ERRS_CW,     /* as SMITHY, but a missing member is MissingParameter */
    MODEL_ERRS_EC2,    /* MissingParameter / InvalidParameterValue, EC2's texts */
};

struct awserr;

enum model_err_style model_err_style_of(const struct model_service *svc);

/* Types and checks a decoded request against shape `shape` and returns the request in
 * the one intermediate representation (IR) every protocol shares: a json_t whose
 * structures are objects keyed by model member names, lists arrays, maps objects,
 * strings strings, integers/longs integers, doubles reals, booleans booleans and
 * timestamps integers (epoch milliseconds). Unknown members are ignored.
 * text 1: scalars arrive as strings (query forms: "80", "true", ISO-8601 or epoch
 * timestamps); text 0: as JSON/CBOR values (timestamps epoch seconds).
 * in is borrowed. Returns 0 and *out (new reference), or -1 with err set in the
 * service's style (missing required member, wrong type, out of range, too long or
 * too short, not in the enum, invalid UTF-8). */
int model_coerce(const struct model_service *svc, uint32_t shape, json_t *in, int text,
                 json_t **out, struct awserr *err);

/* 1 when s[0..n) is valid UTF-8 (no overlongs, surrogates or values past U+10FFFF). */
int model_utf8_valid(const char *s, size_t n);

#endif
