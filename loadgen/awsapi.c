/* loadgen/awsapi.c: see awsapi.h. */
#include "loadgen/awsapi.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>
#include <libxml/parser.h>

#include "common/buf.h"
#include "common/log.h"
#include "common/sigv4.h"
#include "common/xalloc.h"
#include "scaler/civil.h"

#define AWS_BODY_MAX (64u << 20)

static const struct {
    const char *name, *version, *env_id;
} services[AWS_NSERVICES] = {
    [AWS_AUTOSCALING] = { "autoscaling", "2011-01-01", "AUTO_SCALING" },
    [AWS_ELB] = { "elasticloadbalancing", "2012-06-01", "ELASTIC_LOAD_BALANCING" },
    [AWS_CLOUDWATCH] = { "monitoring", "2010-08-01", "CLOUDWATCH" },
    [AWS_EC2] = { "ec2", "2016-11-15", "EC2" },
    [AWS_ELBV2] = { "elasticloadbalancing", "2015-12-01", "ELASTIC_LOAD_BALANCING_V2" },
};

const char *aws_service_name(enum aws_service svc)
{
    return services[svc].name;
}

const char *aws_service_version(enum aws_service svc)
{
    return services[svc].version;
}

/* --- INI ----------------------------------------------------------------------- */

static void copy_trim(char *out, size_t n, const char *s, size_t len)
{
    while (len > 0 && isspace((unsigned char)*s)) {
        s++;
        len--;
    }
    while (len > 0 && isspace((unsigned char)s[len - 1]))
        len--;
    if (n == 0)
        return;
    if (len >= n)
        len = n - 1;
    memcpy(out, s, len);
    out[len] = '\0';
}

int aws_ini_get(const char *text, const char *section, const char *key, char *out, size_t n)
{
    const char *line = text;
    int in_section = 0;

    if (n > 0)
        out[0] = '\0';
    if (!text)
        return -1;
    while (*line) {
        const char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) : strlen(line);
        const char *next = eol ? eol + 1 : line + len;
        char buf[1024];
        const char *p;

        if (len >= sizeof(buf))
            len = sizeof(buf) - 1;
        /* indented lines continue a nested block (s3 = ...): skipped */
        if (len > 0 && (line[0] == ' ' || line[0] == '\t')) {
            line = next;
            continue;
        }
        copy_trim(buf, sizeof(buf), line, len);
        if (buf[0] == '\0' || buf[0] == '#' || buf[0] == ';') {
            line = next;
            continue;
        }
        if (buf[0] == '[') {
            char *close = strrchr(buf, ']');
            char name[512];

            if (close) {
                copy_trim(name, sizeof(name), buf + 1, (size_t)(close - buf - 1));
                in_section = strcmp(name, section) == 0;
            } else {
                in_section = 0;
            }
            line = next;
            continue;
        }
        p = strchr(buf, '=');
        if (in_section && p) {
            char k[256];

            copy_trim(k, sizeof(k), buf, (size_t)(p - buf));
            if (strcmp(k, key) == 0) {
                copy_trim(out, n, p + 1, strlen(p + 1));
                return 0;
            }
        }
        line = next;
    }
    return -1;
}

/* --- configuration ---------------------------------------------------------------- */

static const char *env_default(const char *name, void *ud)
{
    (void)ud;
    return getenv(name);
}

static const char *env_nonempty(const char *(*env_get)(const char *, void *), void *ud,
                                const char *name)
{
    const char *v = env_get(name, ud);

    return v && *v ? v : NULL;
}

static char *read_small_file(const char *path)
{
    FILE *f = fopen(path, "re");
    struct cm_buf b;
    char chunk[4096];
    size_t got;

    if (!f)
        return NULL;
    cm_buf_init(&b, 1u << 20);
    while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0) {
        if (cm_buf_append(&b, chunk, got) < 0)
            break;
    }
    fclose(f);
    cm_buf_putc(&b, '\0');
    return cm_buf_take(&b, NULL);
}

static void shared_path(const char *(*env_get)(const char *, void *), void *ud, const char *var,
                        const char *leaf, char *out, size_t n)
{
    const char *v = env_nonempty(env_get, ud, var);
    const char *home;

    if (v) {
        home = v[0] == '~' && v[1] == '/' ? env_nonempty(env_get, ud, "HOME") : NULL;
        if (home)
            snprintf(out, n, "%s%s", home, v + 1);
        else
            snprintf(out, n, "%s", v);
        return;
    }
    home = env_nonempty(env_get, ud, "HOME");
    snprintf(out, n, "%s/.aws/%s", home ? home : ".", leaf);
}

static int ini_has_section(const char *text, const char *section)
{
    const char *line = text;

    if (!text)
        return 0;
    while (*line) {
        const char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) : strlen(line);
        char buf[1024];

        copy_trim(buf, sizeof(buf), line, len < sizeof(buf) ? len : sizeof(buf) - 1);
        if (buf[0] == '[') {
            char *close = strrchr(buf, ']');
            char name[512];

            if (close) {
                copy_trim(name, sizeof(name), buf + 1, (size_t)(close - buf - 1));
                if (strcmp(name, section) == 0)
                    return 1;
            }
        }
        line = eol ? eol + 1 : line + len;
    }
    return 0;
}

int aws_config_resolve(struct aws_config *cfg, const char *(*env_get)(const char *name, void *ud),
                       void *ud, char *err, size_t errlen)
{
    char cred_path[1024], conf_path[1024], conf_section[256];
    char *creds = NULL, *conf = NULL;
    const char *v, *akid, *secret;
    int rc = -1;

    if (!env_get)
        env_get = env_default;
    memset(cfg, 0, sizeof(*cfg));
    v = env_nonempty(env_get, ud, "AWS_PROFILE");
    if (!v)
        v = env_nonempty(env_get, ud, "AWS_DEFAULT_PROFILE");
    snprintf(cfg->profile, sizeof(cfg->profile), "%s", v ? v : "default");

    shared_path(env_get, ud, "AWS_SHARED_CREDENTIALS_FILE", "credentials", cred_path,
                sizeof(cred_path));
    shared_path(env_get, ud, "AWS_CONFIG_FILE", "config", conf_path, sizeof(conf_path));
    creds = read_small_file(cred_path);
    conf = read_small_file(conf_path);
    if (strcmp(cfg->profile, "default") == 0)
        snprintf(conf_section, sizeof(conf_section), "default");
    else
        snprintf(conf_section, sizeof(conf_section), "profile %s", cfg->profile);

    if (strcmp(cfg->profile, "default") != 0 && !ini_has_section(creds, cfg->profile) &&
        !ini_has_section(conf, conf_section)) {
        snprintf(err, errlen, "the config profile (%s) could not be found", cfg->profile);
        goto out;
    }

    akid = env_nonempty(env_get, ud, "AWS_ACCESS_KEY_ID");
    secret = env_nonempty(env_get, ud, "AWS_SECRET_ACCESS_KEY");
    if (akid && secret) {
        snprintf(cfg->access_key_id, sizeof(cfg->access_key_id), "%s", akid);
        snprintf(cfg->secret_access_key, sizeof(cfg->secret_access_key), "%s", secret);
        v = env_nonempty(env_get, ud, "AWS_SESSION_TOKEN");
        snprintf(cfg->session_token, sizeof(cfg->session_token), "%s", v ? v : "");
        snprintf(cfg->credential_source, sizeof(cfg->credential_source), "env");
    } else if (aws_ini_get(creds, cfg->profile, "aws_access_key_id", cfg->access_key_id,
                           sizeof(cfg->access_key_id)) == 0 &&
               aws_ini_get(creds, cfg->profile, "aws_secret_access_key", cfg->secret_access_key,
                           sizeof(cfg->secret_access_key)) == 0) {
        aws_ini_get(creds, cfg->profile, "aws_session_token", cfg->session_token,
                    sizeof(cfg->session_token));
        snprintf(cfg->credential_source, sizeof(cfg->credential_source), "shared-credentials-file");
    } else if (aws_ini_get(conf, conf_section, "aws_access_key_id", cfg->access_key_id,
                           sizeof(cfg->access_key_id)) == 0 &&
               aws_ini_get(conf, conf_section, "aws_secret_access_key", cfg->secret_access_key,
                           sizeof(cfg->secret_access_key)) == 0) {
        aws_ini_get(conf, conf_section, "aws_session_token", cfg->session_token,
                    sizeof(cfg->session_token));
        snprintf(cfg->credential_source, sizeof(cfg->credential_source), "config-file");
    } else {
        cfg->access_key_id[0] = cfg->secret_access_key[0] = '\0';
    }

    v = env_nonempty(env_get, ud, "AWS_REGION");
    if (!v)
        v = env_nonempty(env_get, ud, "AWS_DEFAULT_REGION");
    if (v)
        snprintf(cfg->region, sizeof(cfg->region), "%s", v);
    else
        aws_ini_get(conf, conf_section, "region", cfg->region, sizeof(cfg->region));

    v = env_nonempty(env_get, ud, "AWS_ENDPOINT_URL");
    if (v)
        snprintf(cfg->endpoint_url, sizeof(cfg->endpoint_url), "%s", v);
    else
        aws_ini_get(conf, conf_section, "endpoint_url", cfg->endpoint_url,
                    sizeof(cfg->endpoint_url));
    rc = 0;
out:
    free(creds);
    free(conf);
    return rc;
}

int aws_endpoint_for(const struct aws_config *cfg, enum aws_service svc,
                     const char *(*env_get)(const char *name, void *ud), void *ud, char *out,
                     size_t n)
{
    char var[96];
    const char *v;

    if (!env_get)
        env_get = env_default;
    snprintf(var, sizeof(var), "AWS_ENDPOINT_URL_%s", services[svc].env_id);
    v = env_nonempty(env_get, ud, var);
    if (v) {
        snprintf(out, n, "%s", v);
        return 0;
    }
    if (cfg->endpoint_url[0]) {
        snprintf(out, n, "%s", cfg->endpoint_url);
        return 0;
    }
    if (!cfg->region[0])
        return -1;
    snprintf(out, n, "https://%s.%s.amazonaws.com", services[svc].name, cfg->region);
    return 0;
}

/* --- parameters ---------------------------------------------------------------------- */

void aws_params_init(struct aws_params *p)
{
    memset(p, 0, sizeof(*p));
}

void aws_params_cleanup(struct aws_params *p)
{
    for (int i = 0; i < p->n; i++) {
        free(p->v[i].name);
        free(p->v[i].value);
    }
    free(p->v);
    memset(p, 0, sizeof(*p));
}

void aws_params_add(struct aws_params *p, const char *name, const char *value)
{
    if (p->n == p->cap) {
        p->cap = p->cap ? p->cap * 2 : 16;
        p->v = cm_xrealloc(p->v, (size_t)p->cap * sizeof(*p->v));
    }
    p->v[p->n].name = cm_xstrdup(name);
    p->v[p->n].value = cm_xstrdup(value);
    p->n++;
}

void aws_params_addf(struct aws_params *p, const char *name, const char *fmt, ...)
{
    va_list ap;
    char *v = NULL;

    va_start(ap, fmt);
    if (vasprintf(&v, fmt, ap) < 0)
        v = NULL;
    va_end(ap);
    if (!v) {
        log_error("awsapi: out of memory");
        abort();
    }
    aws_params_add(p, name, v);
    free(v);
}

void aws_params_add_list(struct aws_params *p, const char *prefix, int member,
                         const char *const *items, int n)
{
    char name[512];

    for (int i = 0; i < n; i++) {
        if (member)
            snprintf(name, sizeof(name), "%s.member.%d", prefix, i + 1);
        else
            snprintf(name, sizeof(name), "%s%d", prefix, i + 1);
        aws_params_add(p, name, items[i]);
    }
}

static void form_encode(struct cm_buf *b, const char *s)
{
    static const char hex[] = "0123456789ABCDEF";

    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;

        if (isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
            cm_buf_putc(b, (char)c);
        } else {
            cm_buf_putc(b, '%');
            cm_buf_putc(b, hex[c >> 4]);
            cm_buf_putc(b, hex[c & 15]);
        }
    }
}

char *aws_params_form(const struct aws_params *p, const char *action, const char *version)
{
    struct cm_buf b;

    cm_buf_init(&b, AWS_BODY_MAX);
    cm_buf_puts(&b, "Action=");
    form_encode(&b, action);
    cm_buf_puts(&b, "&Version=");
    form_encode(&b, version);
    for (int i = 0; p && i < p->n; i++) {
        cm_buf_putc(&b, '&');
        form_encode(&b, p->v[i].name);
        cm_buf_putc(&b, '=');
        form_encode(&b, p->v[i].value);
    }
    cm_buf_putc(&b, '\0');
    return cm_buf_take(&b, NULL);
}

/* --- XML ------------------------------------------------------------------------------ */

static int is_elem(const xmlNode *n, const char *name)
{
    return n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

xmlNode *aws_xml_find(xmlNode *node, const char *name)
{
    if (!node)
        return NULL;
    for (xmlNode *c = node->children; c; c = c->next) {
        xmlNode *hit;

        if (c->type != XML_ELEMENT_NODE)
            continue;
        if (is_elem(c, name))
            return c;
        hit = aws_xml_find(c, name);
        if (hit)
            return hit;
    }
    return NULL;
}

xmlNode *aws_xml_next(xmlNode *node)
{
    for (xmlNode *c = node ? node->next : NULL; c; c = c->next) {
        if (is_elem(c, (const char *)node->name))
            return c;
    }
    return NULL;
}

int aws_xml_text(xmlNode *node, const char *name, char *out, size_t n)
{
    xmlNode *e = aws_xml_find(node, name);
    xmlChar *t;

    if (n > 0)
        out[0] = '\0';
    if (!e)
        return -1;
    t = xmlNodeGetContent(e);
    snprintf(out, n, "%s", t ? (const char *)t : "");
    xmlFree(t);
    return 0;
}

static xmlDoc *parse_xml(const char *body, size_t len)
{
    if (len == 0 || len > AWS_BODY_MAX)
        return NULL;
    /* no network, no entity expansion, no DTD loading: replies are data, not documents
     * that may pull in other documents */
    return xmlReadMemory(body, (int)len, "reply.xml", NULL,
                         XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
}

int aws_error_parse(const char *body, size_t len, struct aws_error *err)
{
    xmlDoc *doc = parse_xml(body, len);
    xmlNode *root, *e;
    int rc = -1;

    err->code[0] = err->message[0] = err->request_id[0] = '\0';
    if (!doc)
        return -1;
    root = xmlDocGetRootElement(doc);
    if (!root || (!is_elem(root, "ErrorResponse") && !is_elem(root, "Response")))
        goto out;
    e = aws_xml_find(root, "Error");
    if (!e || aws_xml_text(e, "Code", err->code, sizeof(err->code)) < 0 || !err->code[0])
        goto out;
    aws_xml_text(e, "Message", err->message, sizeof(err->message));
    if (aws_xml_text(root, "RequestId", err->request_id, sizeof(err->request_id)) < 0)
        aws_xml_text(root, "RequestID", err->request_id, sizeof(err->request_id));
    rc = 0;
out:
    xmlFreeDoc(doc);
    return rc;
}

int aws_error_is_throttling(const char *code)
{
    static const char *const codes[] = {
        "Throttling",
        "ThrottlingException",
        "ThrottledException",
        "RequestThrottledException",
        "TooManyRequestsException",
        "ProvisionedThroughputExceededException",
        "TransactionInProgressException",
        "RequestLimitExceeded",
        "BandwidthLimitExceeded",
        "LimitExceededException",
        "RequestThrottled",
        "SlowDown",
        "PriorRequestNotComplete",
        "EC2ThrottledException",
    };

    for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
        if (strcmp(code, codes[i]) == 0)
            return 1;
    }
    return 0;
}

int aws_error_is_retryable(const struct aws_error *err)
{
    if (err->http_status == 0)
        return 1; /* connection refused, reset, timeout */
    if (aws_error_is_throttling(err->code))
        return 1;
    if (strcmp(err->code, "RequestTimeout") == 0 ||
        strcmp(err->code, "RequestTimeoutException") == 0 ||
        strcmp(err->code, "InternalError") == 0)
        return 1;
    return err->http_status == 500 || err->http_status == 502 || err->http_status == 503 ||
           err->http_status == 504;
}

/* --- client ---------------------------------------------------------------------------- */

struct aws_client {
    struct aws_config cfg;
    struct aws_client_opts o;
    char endpoint[AWS_NSERVICES][AWS_STR];
    CURL *curl;
    uint64_t rng;
    int attempts;
};

void aws_client_opts_defaults(struct aws_client_opts *o)
{
    o->max_attempts = 3;
    o->backoff_base_ms = 1000;
    o->backoff_cap_ms = 20000;
    o->timeout_ms = 30000;
    o->seed = 0;
}

struct aws_client *aws_client_create(const struct aws_config *cfg, const struct aws_client_opts *o,
                                     const char *(*env_get)(const char *name, void *ud), void *ud,
                                     char *err, size_t errlen)
{
    struct aws_client *c;

    if (!cfg->access_key_id[0] || !cfg->secret_access_key[0]) {
        snprintf(err, errlen, "unable to locate credentials (profile %s)", cfg->profile);
        return NULL;
    }
    if (!cfg->region[0]) {
        snprintf(err, errlen, "you must specify a region (AWS_REGION or the profile's region)");
        return NULL;
    }
    c = cm_xcalloc(1, sizeof(*c));
    c->cfg = *cfg;
    if (o)
        c->o = *o;
    else
        aws_client_opts_defaults(&c->o);
    if (c->o.max_attempts < 1)
        c->o.max_attempts = 1;
    for (int s = 0; s < AWS_NSERVICES; s++)
        aws_endpoint_for(cfg, (enum aws_service)s, env_get, ud, c->endpoint[s], AWS_STR);
    c->rng = c->o.seed ? c->o.seed : (uint64_t)time(NULL) ^ ((uint64_t)(uintptr_t)c << 16);
    c->curl = curl_easy_init();
    if (!c->curl) {
        snprintf(err, errlen, "curl_easy_init failed");
        free(c);
        return NULL;
    }
    return c;
}

void aws_client_destroy(struct aws_client *c)
{
    if (!c)
        return;
    curl_easy_cleanup(c->curl);
    free(c);
}

int aws_client_attempts(const struct aws_client *c)
{
    return c->attempts;
}

void aws_reply_cleanup(struct aws_reply *r)
{
    if (r->doc)
        xmlFreeDoc(r->doc);
    r->doc = NULL;
}

static double rand01(uint64_t *s)
{
    /* splitmix64 */
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (double)(z >> 11) / 9007199254740992.0;
}

static size_t on_body(char *p, size_t size, size_t nmemb, void *ud)
{
    struct cm_buf *b = ud;

    if (cm_buf_append(b, p, size * nmemb) < 0)
        return 0;
    return size * nmemb;
}

/* Splits an endpoint URL into host[:port] and path (the path without query). */
static void url_host_path(const char *url, char *host, size_t hn, char *path, size_t pn)
{
    const char *p = strstr(url, "://");
    const char *slash;

    p = p ? p + 3 : url;
    slash = strchr(p, '/');
    if (slash) {
        snprintf(host, hn, "%.*s", (int)(slash - p), p);
        snprintf(path, pn, "%s", slash);
    } else {
        snprintf(host, hn, "%s", p);
        snprintf(path, pn, "/");
    }
    /* curl sends the default port without ":443"/":80"; sign what goes on the wire */
    if (strncmp(url, "https://", 8) == 0 && strlen(host) > 4 &&
        strcmp(host + strlen(host) - 4, ":443") == 0)
        host[strlen(host) - 4] = '\0';
    if (strncmp(url, "http://", 7) == 0 && strlen(host) > 3 &&
        strcmp(host + strlen(host) - 3, ":80") == 0)
        host[strlen(host) - 3] = '\0';
}

static int attempt(struct aws_client *c, enum aws_service svc, const char *body,
                   struct cm_buf *resp, long *status, char *cerr, size_t cerrn)
{
    char host[AWS_STR], path[AWS_STR], amz_date[20], auth[2048];
    char h_auth[2200], h_date[64], h_token[4200], h_host[AWS_STR + 8];
    struct cm_sigv4_header hdrs[4];
    struct curl_slist *sl = NULL;
    int nh = 0;
    time_t now = time(NULL);
    CURLcode cc;
    const char *ctype = "application/x-www-form-urlencoded; charset=utf-8";
    char h_ctype[96];

    url_host_path(c->endpoint[svc], host, sizeof(host), path, sizeof(path));
    sc_civil_format_basic((int64_t)now * 1000, amz_date, sizeof(amz_date));
    hdrs[nh++] = (struct cm_sigv4_header){ "content-type", ctype };
    hdrs[nh++] = (struct cm_sigv4_header){ "host", host };
    hdrs[nh++] = (struct cm_sigv4_header){ "x-amz-date", amz_date };
    if (c->cfg.session_token[0])
        hdrs[nh++] = (struct cm_sigv4_header){ "x-amz-security-token", c->cfg.session_token };
    if (cm_sigv4_sign("POST", path, "", hdrs, nh, body, strlen(body), c->cfg.access_key_id,
                      c->cfg.secret_access_key, c->cfg.region, services[svc].name, amz_date, auth,
                      sizeof(auth)) < 0) {
        snprintf(cerr, cerrn, "cannot sign the request");
        return -1;
    }
    snprintf(h_ctype, sizeof(h_ctype), "Content-Type: %s", ctype);
    snprintf(h_host, sizeof(h_host), "Host: %s", host);
    snprintf(h_date, sizeof(h_date), "X-Amz-Date: %s", amz_date);
    snprintf(h_auth, sizeof(h_auth), "Authorization: %s", auth);
    sl = curl_slist_append(sl, h_ctype);
    sl = curl_slist_append(sl, h_host);
    sl = curl_slist_append(sl, h_date);
    sl = curl_slist_append(sl, h_auth);
    sl = curl_slist_append(sl, "Expect:");
    sl = curl_slist_append(sl, "Accept:");
    if (c->cfg.session_token[0]) {
        snprintf(h_token, sizeof(h_token), "X-Amz-Security-Token: %s", c->cfg.session_token);
        sl = curl_slist_append(sl, h_token);
    }

    curl_easy_reset(c->curl);
    curl_easy_setopt(c->curl, CURLOPT_URL, c->endpoint[svc]);
    curl_easy_setopt(c->curl, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(c->curl, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
    curl_easy_setopt(c->curl, CURLOPT_HTTPHEADER, sl);
    curl_easy_setopt(c->curl, CURLOPT_USERAGENT, "scalelab-loadgen/1");
    curl_easy_setopt(c->curl, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c->curl, CURLOPT_WRITEDATA, resp);
    curl_easy_setopt(c->curl, CURLOPT_TIMEOUT_MS, c->o.timeout_ms);
    curl_easy_setopt(c->curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c->curl, CURLOPT_PROTOCOLS_STR, "http,https");
    cc = curl_easy_perform(c->curl);
    curl_slist_free_all(sl);
    if (cc != CURLE_OK) {
        snprintf(cerr, cerrn, "%s: %s", c->endpoint[svc], curl_easy_strerror(cc));
        return -1;
    }
    curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, status);
    return 0;
}

int aws_call(struct aws_client *c, enum aws_service svc, const char *action,
             const struct aws_params *p, struct aws_reply *reply, struct aws_error *err)
{
    char *body = aws_params_form(p, action, services[svc].version);
    struct cm_buf resp;
    int rc = -1;

    memset(reply, 0, sizeof(*reply));
    memset(err, 0, sizeof(*err));
    cm_buf_init(&resp, AWS_BODY_MAX);
    for (int k = 0; k < c->o.max_attempts; k++) {
        long status = 0;
        char cerr[512];
        size_t len;
        const char *data;

        if (k > 0) {
            double cap = (double)c->o.backoff_base_ms * (double)(1ull << (k - 1 < 20 ? k - 1 : 20));
            int64_t ms;
            struct timespec ts;

            if (cap > (double)c->o.backoff_cap_ms)
                cap = (double)c->o.backoff_cap_ms;
            ms = (int64_t)(rand01(&c->rng) * cap);
            log_debug("awsapi: retry %d of %s in %lld ms after %s", k, action, (long long)ms,
                      err->code);
            ts.tv_sec = ms / 1000;
            ts.tv_nsec = (long)(ms % 1000) * 1000000L;
            while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
        }
        cm_buf_reset(&resp);
        c->attempts++;
        reply->attempts = k + 1;
        memset(err, 0, sizeof(*err));
        if (attempt(c, svc, body, &resp, &status, cerr, sizeof(cerr)) < 0) {
            snprintf(err->code, sizeof(err->code), "TransportError");
            snprintf(err->message, sizeof(err->message), "%s", cerr);
            continue;
        }
        data = resp.data ? resp.data : "";
        len = resp.len;
        reply->http_status = (int)status;
        err->http_status = (int)status;
        if (status >= 200 && status < 300) {
            reply->doc = parse_xml(data, len);
            if (!reply->doc) {
                snprintf(err->code, sizeof(err->code), "MalformedReply");
                snprintf(err->message, sizeof(err->message),
                         "%s %s: the reply is not XML (%zu bytes)", services[svc].name, action,
                         len);
                goto out;
            }
            rc = 0;
            goto out;
        }
        if (aws_error_parse(data, len, err) < 0) {
            snprintf(err->code, sizeof(err->code), "HTTP%ld", status);
            snprintf(err->message, sizeof(err->message), "%.*s", (int)(len < 300 ? len : 300),
                     data);
        }
        err->http_status = (int)status;
        if (!aws_error_is_retryable(err))
            goto out;
    }
out:
    cm_buf_cleanup(&resp);
    free(body);
    return rc;
}

/* --- loadgen aws ------------------------------------------------------------------------ */

static int service_parse(const char *s, enum aws_service *out)
{
    static const struct {
        const char *alias;
        enum aws_service svc;
    } names[] = {
        { "autoscaling", AWS_AUTOSCALING },
        { "elb", AWS_ELB },
        { "elasticloadbalancing", AWS_ELB },
        { "cloudwatch", AWS_CLOUDWATCH },
        { "monitoring", AWS_CLOUDWATCH },
        { "ec2", AWS_EC2 },
        { "elbv2", AWS_ELBV2 },
    };

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (strcmp(s, names[i].alias) == 0) {
            *out = names[i].svc;
            return 0;
        }
    }
    return -1;
}

int aws_main(int argc, char **argv)
{
    struct aws_config cfg;
    struct aws_client *c = NULL;
    struct aws_params p;
    struct aws_reply reply;
    struct aws_error e;
    enum aws_service svc;
    char err[512];
    int rc = 1;

    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf("usage: loadgen aws SERVICE ACTION [Name=Value ...]\n"
               "  SERVICE: autoscaling | elb | elbv2 | cloudwatch | ec2; credentials, region and\n"
               "  endpoint as the AWS CLI resolves them (AWS_ENDPOINT_URL[_<SERVICE>]).\n"
               "  Prints the reply XML; an AWS error exits 3 with CODE: message.\n");
        return 0;
    }
    if (argc < 3 || service_parse(argv[1], &svc) < 0) {
        fprintf(stderr, "loadgen aws: need SERVICE (autoscaling|elb|elbv2|cloudwatch|ec2) ACTION\n"
                        "try 'loadgen aws --help'\n");
        return 2;
    }
    aws_params_init(&p);
    for (int i = 3; i < argc; i++) {
        char *eq = strchr(argv[i], '=');

        if (!eq) {
            fprintf(stderr,
                    "loadgen aws: parameter %s is not Name=Value\ntry 'loadgen aws --help'\n",
                    argv[i]);
            rc = 2;
            goto out;
        }
        *eq = '\0';
        aws_params_add(&p, argv[i], eq + 1);
        *eq = '=';
    }
    if (aws_config_resolve(&cfg, NULL, NULL, err, sizeof(err)) < 0) {
        fprintf(stderr, "loadgen aws: %s\n", err);
        goto out;
    }
    c = aws_client_create(&cfg, NULL, NULL, NULL, err, sizeof(err));
    if (!c) {
        fprintf(stderr, "loadgen aws: %s\n", err);
        goto out;
    }
    if (aws_call(c, svc, argv[2], &p, &reply, &e) < 0) {
        fprintf(stderr, "%s: %s\n", e.code, e.message);
        rc = e.http_status ? 3 : 1;
        goto out;
    }
    xmlDocFormatDump(stdout, reply.doc, 1);
    aws_reply_cleanup(&reply);
    rc = 0;
out:
    aws_client_destroy(c);
    aws_params_cleanup(&p);
    return rc;
}
