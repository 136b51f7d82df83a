/* emulator/auth.c: see auth.h. */
#include "emulator/auth.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/xalloc.h"
#include "emulator/region.h"
#include "scaler/civil.h"

#define SKEW_MS (15 * 60 * 1000)

struct auth_key {
    char *akid, *secret;
};

struct auth_keys {
    struct auth_key *v;
    int n;
};

/* Copies [s, s+n) into dst (cap bytes) when it fits with its NUL. Returns 0 or -1. */
static int copy_field(char *dst, size_t cap, const char *s, size_t n)
{
    if (n >= cap)
        return -1;
    memcpy(dst, s, n);
    dst[n] = '\0';
    return 0;
}

/* Credential=AKID/DATE/REGION/SERVICE/aws4_request: exactly five non-empty parts. */
static int parse_credential(const char *v, size_t n, struct auth_scope *o)
{
    char *dst[4] = { o->akid, o->date, o->region, o->service };
    size_t cap[4] = { sizeof(o->akid), sizeof(o->date), sizeof(o->region), sizeof(o->service) };
    size_t i = 0;

    for (int part = 0; part < 5; part++) {
        size_t st = i;

        while (i < n && v[i] != '/')
            i++;
        if (i == st)
            return -1;
        if (part < 4) {
            if (i == n || copy_field(dst[part], cap[part], v + st, i - st) < 0)
                return -1;
            i++; /* the '/' */
        } else if (i != n || i - st != 12 || memcmp(v + st, "aws4_request", 12) != 0) {
            return -1;
        }
    }
    return 0;
}

int auth_parse(const char *a, struct auth_scope *o)
{
    const char *p;
    int seen_cred = 0, seen_sh = 0, seen_sig = 0;
    int bad_cred = 0, bad_sh = 0, bad_sig = 0;

    memset(o, 0, sizeof(*o));
    if (!a || strncmp(a, "AWS4-HMAC-SHA256", 16) != 0 || (a[16] != ' ' && a[16] != '\0'))
        return -1;
    /* components: Name=Value, separated by ',' and spaces */
    for (p = a + 16; *p;) {
        const char *st, *eq, *end;
        size_t vl;

        while (*p == ' ' || *p == ',')
            p++;
        if (!*p)
            break;
        st = p;
        while (*p && *p != ',')
            p++;
        end = p;
        while (end > st && end[-1] == ' ')
            end--;
        eq = memchr(st, '=', (size_t)(end - st));
        if (!eq)
            continue;
        vl = (size_t)(end - eq - 1);
        if ((size_t)(eq - st) == 10 && memcmp(st, "Credential", 10) == 0) {
            bad_cred |= seen_cred++ > 0 || parse_credential(eq + 1, vl, o) < 0;
        } else if ((size_t)(eq - st) == 13 && memcmp(st, "SignedHeaders", 13) == 0) {
            bad_sh |= seen_sh++ > 0 || vl == 0 ||
                      copy_field(o->signed_headers, sizeof(o->signed_headers), eq + 1, vl) < 0;
        } else if ((size_t)(eq - st) == 9 && memcmp(st, "Signature", 9) == 0) {
            bad_sig |= seen_sig++ > 0 || vl == 0;
            if (copy_field(o->signature, sizeof(o->signature), eq + 1, vl) < 0) {
                /* too long to be right: kept as a mismatch, not an absence */
                copy_field(o->signature, sizeof(o->signature), eq + 1, sizeof(o->signature) - 1);
                o->signature_too_long = 1;
            }
        }
    }
    o->has_credential = seen_cred && !bad_cred;
    o->has_signed_headers = seen_sh && !bad_sh;
    o->has_signature = seen_sig && !bad_sig;
    return 0;
}

/* Whether name is one element of the ';'-joined list. */
static int list_has(const char *list, const char *name)
{
    size_t n = strlen(name);

    for (const char *p = list; *p;) {
        const char *end = strchr(p, ';');
        size_t len = end ? (size_t)(end - p) : strlen(p);

        if (len == n && memcmp(p, name, n) == 0)
            return 1;
        p += len;
        if (*p == ';')
            p++;
    }
    return 0;
}

static void add_key(struct auth_keys *k, const char *akid, const char *secret)
{
    k->v = cm_xrealloc(k->v, (size_t)(k->n + 1) * sizeof(*k->v));
    k->v[k->n].akid = cm_xstrdup(akid);
    k->v[k->n].secret = cm_xstrdup(secret);
    k->n++;
}

struct auth_keys *auth_keys_load(const char *path, char *err, size_t errlen)
{
    struct auth_keys *k = cm_xcalloc(1, sizeof(*k));
    const char *ea = getenv("AWS_ACCESS_KEY_ID"), *es = getenv("AWS_SECRET_ACCESS_KEY");

    if (path) {
        FILE *f = fopen(path, "re");
        char line[1024];

        if (!f) {
            snprintf(err, errlen, "cannot read credentials file %s", path);
            auth_keys_destroy(k);
            return NULL;
        }
        while (fgets(line, sizeof(line), f)) {
            char *s = line, *sep, *e;

            while (*s == ' ' || *s == '\t')
                s++;
            if (*s == '#' || *s == '\n' || *s == '\0')
                continue;
            e = s + strcspn(s, "\r\n");
            *e = '\0';
            sep = s + strcspn(s, " \t:");
            if (*sep == '\0')
                continue;
            *sep++ = '\0';
            while (*sep == ' ' || *sep == '\t' || *sep == ':')
                sep++;
            if (*s && *sep)
                add_key(k, s, sep);
        }
        fclose(f);
    }
    if (ea && es && *ea && *es)
        add_key(k, ea, es);
    if (k->n == 0) {
        snprintf(err, errlen,
                 "no credentials: give --credentials FILE or set AWS_ACCESS_KEY_ID "
                 "and AWS_SECRET_ACCESS_KEY");
        auth_keys_destroy(k);
        return NULL;
    }
    return k;
}

void auth_keys_destroy(struct auth_keys *k)
{
    if (!k)
        return;
    for (int i = 0; i < k->n; i++) {
        free(k->v[i].akid);
        free(k->v[i].secret);
    }
    free(k->v);
    free(k);
}

const char *auth_keys_find(const struct auth_keys *k, const char *akid)
{
    for (int i = 0; i < k->n; i++) {
        if (strcmp(k->v[i].akid, akid) == 0)
            return k->v[i].secret;
    }
    return NULL;
}

static const char *header(const struct auth_request *rq, const char *name)
{
    for (int i = 0; i < rq->nhdrs; i++) {
        if (strcasecmp(rq->hdrs[i].name, name) == 0)
            return rq->hdrs[i].value;
    }
    return NULL;
}

#define MISMATCH                                                                                   \
    "The request signature we calculated does not match the signature you provided. Check your "   \
    "AWS Secret Access Key and signing method. Consult the service documentation for details."

int auth_verify(const struct auth_keys *keys, const struct auth_request *rq, int64_t wall_ms,
                struct awserr *err)
{
    const char *a = header(rq, "Authorization");
    const char *date = header(rq, "X-Amz-Date");
    struct auth_scope sc;
    struct cm_buf creq, sts;
    char phash[CM_SIGV4_HEX_LEN], sig[CM_SIGV4_HEX_LEN], scope[256];
    unsigned char key[32];
    const char *secret;
    int64_t req_ms;
    int rc = -1;

    if (!a)
        return awserr_set(err, 403, "MissingAuthenticationToken",
                          "Request is missing Authentication Token");
    if (auth_parse(a, &sc) < 0)
        return awserr_set(err, 400, "IncompleteSignature",
                          "Authorization header requires 'AWS4-HMAC-SHA256' signing algorithm. "
                          "Authorization=%.200s",
                          a);
    if (!sc.has_credential || !sc.has_signed_headers || !sc.has_signature || !date)
        return awserr_set(
            err, 400, "IncompleteSignature", "%s%s%s%sAuthorization=%.200s",
            sc.has_credential ? "" : "Authorization header requires 'Credential' parameter. ",
            sc.has_signature ? "" : "Authorization header requires 'Signature' parameter. ",
            sc.has_signed_headers ? ""
                                  : "Authorization header requires 'SignedHeaders' parameter. ",
            date
                ? ""
                : "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. ",
            a);
    secret = auth_keys_find(keys, sc.akid);
    if (!secret)
        return awserr_set(err, 403, "InvalidClientTokenId",
                          "The security token included in the request is invalid.");
    /* the shape first, so that no byte past a short value is read */
    if (!cm_sigv4_amz_date_ok(date))
        return awserr_set(err, 400, "IncompleteSignature",
                          "Date must be in ISO-8601 'basic format'. Got '%.40s'.", date);
    if (sc_civil_parse_basic(date, &req_ms) < 0)
        return awserr_set(err, 400, "IncompleteSignature",
                          "Date must be in ISO-8601 'basic format'. Got '%.40s'.", date);
    if (req_ms + SKEW_MS < wall_ms) {
        char now_s[24], lim[24];

        sc_civil_format_basic(wall_ms, now_s, sizeof(now_s));
        sc_civil_format_basic(wall_ms - SKEW_MS, lim, sizeof(lim));
        return awserr_set(err, 400, "RequestExpired",
                          "Signature expired: %.16s is now earlier than %s (%s - 15 min.)", date,
                          lim, now_s);
    }
    if (req_ms - SKEW_MS > wall_ms) {
        char now_s[24], lim[24];

        sc_civil_format_basic(wall_ms, now_s, sizeof(now_s));
        sc_civil_format_basic(wall_ms + SKEW_MS, lim, sizeof(lim));
        return awserr_set(err, 400, "RequestExpired",
                          "Signature not yet current: %.16s is still later than %s (%s + 15 min.)",
                          date, lim, now_s);
    }
    if (strncmp(sc.date, date, 8) != 0 || strlen(sc.date) != 8)
        return awserr_set(err, 403, "SignatureDoesNotMatch",
                          "Date in Credential scope does not match YYYYMMDD from ISO-8601 version "
                          "of date from HTTP: '%s' != '%.8s', from '%.16s'.",
                          sc.date, date, date);
    /* one endpoint serves every region: a scope is valid for AWS's regions and ours */
    if (!region_is_aws(sc.region) && !(rq->region && strcmp(sc.region, rq->region) == 0))
        return awserr_set(err, 403, "SignatureDoesNotMatch",
                          "Credential should be scoped to a valid region, not '%s'. ", sc.region);
    if (rq->service && strcmp(sc.service, rq->service) != 0)
        return awserr_set(err, 403, "SignatureDoesNotMatch",
                          "Credential should be scoped to correct service: '%s'. ", rq->service);
    if (!list_has(sc.signed_headers, "host"))
        return awserr_set(err, 403, "SignatureDoesNotMatch",
                          "'Host' or ':authority' must be a 'SignedHeader' in the AWS "
                          "Authorization.");
    /* these services hash the body they receive; x-amz-content-sha256 (UNSIGNED-PAYLOAD
     * or any other value) does not stand in for it, so a signature captured with one body
     * never passes with another */
    cm_sigv4_sha256_hex(rq->body ? rq->body : "", rq->body_len, phash);
    cm_buf_init(&creq, 0);
    cm_buf_init(&sts, 0);
    if (cm_sigv4_canonical_request(&creq, rq->method, rq->path, rq->query, rq->hdrs, rq->nhdrs,
                                   sc.signed_headers, phash) < 0) {
        awserr_set(err, 403, "SignatureDoesNotMatch", MISMATCH);
        goto out;
    }
    snprintf(scope, sizeof(scope), "%s/%s/%s/aws4_request", sc.date, sc.region, sc.service);
    cm_sigv4_string_to_sign(&sts, date, scope, creq.data, creq.len);
    cm_sigv4_signing_key(secret, sc.date, sc.region, sc.service, key);
    cm_sigv4_signature(key, sts.data, sts.len, sig);
    if (sc.signature_too_long || !cm_sigv4_signature_equal(sc.signature, sig)) {
        awserr_set(err, 403, "SignatureDoesNotMatch", MISMATCH);
        goto out;
    }
    rc = 0;
out:
    cm_buf_cleanup(&creq);
    cm_buf_cleanup(&sts);
    return rc;
}
