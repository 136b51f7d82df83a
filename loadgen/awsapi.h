/* loadgen/awsapi.h: a small AWS client for the Query protocol (autoscaling,
 * elasticloadbalancing, monitoring, ec2): configuration and credentials resolved as the
 * AWS CLI does, requests signed with common/sigv4, sent with libcurl, XML replies parsed
 * with libxml2, AWS errors as code + message, botocore "standard" retries.
 *
 * Ownership: an aws_client owns copies of its configuration; a reply's document is the
 * caller's until aws_reply_cleanup. Not thread-safe: one client per thread. */
#ifndef LOADGEN_AWSAPI_H
#define LOADGEN_AWSAPI_H

#include <stddef.h>
#include <stdint.h>

#include <libxml/tree.h>

#define AWS_STR 512

/* The resolved configuration (every field "" when unset). */
struct aws_config {
    char profile[128];
    char access_key_id[AWS_STR];
    char secret_access_key[AWS_STR];
    char session_token[4096];
    char region[64];
    char endpoint_url[AWS_STR]; /* AWS_ENDPOINT_URL or the profile's endpoint_url */
    char credential_source[32]; /* "env", "shared-credentials-file", "config-file", "" */
};

/* The services this client speaks. */
/* AWS_ELBV2: the same elasticloadbalancing endpoint as AWS_ELB, API version 2015-12-01 */
enum aws_service { AWS_AUTOSCALING, AWS_ELB, AWS_CLOUDWATCH, AWS_EC2, AWS_ELBV2, AWS_NSERVICES };

/* Looks up key in section of an INI text as the AWS CLI reads ~/.aws files: '#'/';'
 * comment lines, "[section]" headers (whitespace around the name ignored), "key = value"
 * (whitespace trimmed; keys case-sensitive); indented lines continue a nested block and
 * are skipped. Copies the value into out (n bytes, truncated). Returns 0 when found,
 * -1 when not. */
int aws_ini_get(const char *text, const char *section, const char *key, char *out, size_t n);

/* Resolves the configuration from an environment lookup (getenv when env_get is NULL)
 * and the shared files: profile = AWS_PROFILE | AWS_DEFAULT_PROFILE | "default";
 * credentials = AWS_ACCESS_KEY_ID + AWS_SECRET_ACCESS_KEY (+ AWS_SESSION_TOKEN) |
 * [profile] of AWS_SHARED_CREDENTIALS_FILE (~/.aws/credentials) | the profile's section
 * of AWS_CONFIG_FILE (~/.aws/config: "[default]" or "[profile NAME]"); region =
 * AWS_REGION | AWS_DEFAULT_REGION | the profile's region; endpoint = AWS_ENDPOINT_URL |
 * the profile's endpoint_url. Missing files are not errors. Returns 0, or -1 with err
 * when a named profile (not "default") exists in neither file. */
int aws_config_resolve(struct aws_config *cfg, const char *(*env_get)(const char *name, void *ud),
                       void *ud, char *err, size_t errlen);

/* The endpoint URL for a service: AWS_ENDPOINT_URL_<SERVICE ID> (AUTO_SCALING,
 * ELASTIC_LOAD_BALANCING, CLOUDWATCH, EC2) from the lookup, else cfg->endpoint_url, else
 * https://<prefix>.<region>.amazonaws.com. Returns 0, or -1 when no region is known. */
int aws_endpoint_for(const struct aws_config *cfg, enum aws_service svc,
                     const char *(*env_get)(const char *name, void *ud), void *ud, char *out,
                     size_t n);

/* Signing name / endpoint prefix ("autoscaling", "elasticloadbalancing", "monitoring",
 * "ec2") and API version of a service. */
const char *aws_service_name(enum aws_service svc);
const char *aws_service_version(enum aws_service svc);

/* Request parameters, in order; aws_params_form encodes Action, Version and these as
 * application/x-www-form-urlencoded (RFC 3986 unreserved kept, the rest %XX). */
struct aws_param {
    char *name;
    char *value;
};
struct aws_params {
    struct aws_param *v;
    int n, cap;
};
void aws_params_init(struct aws_params *p);
void aws_params_cleanup(struct aws_params *p);
void aws_params_add(struct aws_params *p, const char *name, const char *value);
void aws_params_addf(struct aws_params *p, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Adds a ".member.N" list: prefix.member.1 = items[0], ... (EC2 style: pass a prefix
 * ending in "." and member = 0 for "prefix.1"). */
void aws_params_add_list(struct aws_params *p, const char *prefix, int member,
                         const char *const *items, int n);
char *aws_params_form(const struct aws_params *p, const char *action, const char *version);

/* An AWS error: code ("" when none), message, HTTP status (0 for a transport error,
 * with code "TransportError"). */
struct aws_error {
    int http_status;
    char code[128];
    char message[1024];
    char request_id[128];
};

/* Parses an AWS XML error body (Query: ErrorResponse/Error/{Code,Message}; EC2:
 * Response/Errors/Error/{Code,Message}). Returns 0 when one was found, -1 when the body
 * is not an AWS error document. */
int aws_error_parse(const char *body, size_t len, struct aws_error *err);

/* botocore standard retry classification: throttling error codes, transient codes
 * (RequestTimeout, PriorRequestNotComplete ...), HTTP 500/502/503/504, transport
 * errors. */
int aws_error_is_retryable(const struct aws_error *err);
int aws_error_is_throttling(const char *code);

/* XML helpers over libxml2 trees, namespace-blind (AWS replies carry a per-service
 * default namespace): the first descendant element of node (depth first, node itself
 * excluded) named name, or NULL; its text content copied into out. */
xmlNode *aws_xml_find(xmlNode *node, const char *name);
/* The next sibling element of node with the same name, or NULL (walks a list's
 * <member>/<item> elements). */
xmlNode *aws_xml_next(xmlNode *node);
/* Text of the first descendant named name into out; returns 0, or -1 (out = "") when
 * absent. */
int aws_xml_text(xmlNode *node, const char *name, char *out, size_t n);

struct aws_client_opts {
    int max_attempts;        /* total attempts; botocore standard: 3 */
    int64_t backoff_base_ms; /* delay before attempt k+1 = rand(0,1) * min(base * 2^k, cap) */
    int64_t backoff_cap_ms;  /* 20000 as botocore */
    long timeout_ms;         /* per attempt */
    uint64_t seed;           /* jitter RNG seed (0: from the clock) */
};
void aws_client_opts_defaults(struct aws_client_opts *o);

struct aws_client;
/* Creates a client for cfg, endpoints resolved from env_get (NULL = getenv). Returns
 * NULL with err when credentials or a region are missing. */
struct aws_client *aws_client_create(const struct aws_config *cfg, const struct aws_client_opts *o,
                                     const char *(*env_get)(const char *name, void *ud), void *ud,
                                     char *err, size_t errlen);
void aws_client_destroy(struct aws_client *c);
/* Calls after the first use this many attempts in all (retries included). */
int aws_client_attempts(const struct aws_client *c);

struct aws_reply {
    int http_status;
    xmlDoc *doc; /* the parsed reply, caller's; NULL on error */
    int attempts;
};
/* Sends one operation (POST, form body, SigV4 with the current UTC time), retrying as
 * botocore standard mode does. Returns 0 with reply->doc set, or -1 with err filled (an
 * AWS error code, or "TransportError" / "MalformedReply"). */
int aws_call(struct aws_client *c, enum aws_service svc, const char *action,
             const struct aws_params *p, struct aws_reply *reply, struct aws_error *err);
void aws_reply_cleanup(struct aws_reply *r);

/* `loadgen aws SERVICE ACTION [Name=Value ...]`: one call, the reply XML on stdout;
 * an AWS error prints "CODE: message" on stderr and exits 3 (transport failure 1,
 * usage 2). */
int aws_main(int argc, char **argv);

#endif
