/* emulator/auth.c: see auth.h. */
#include "emulator/auth.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/xalloc.h"
#include "emulator/model.h"

#define SKEW_MS (15 * 60 * 1000)

struct auth_key {
    char *akid, *secret;
};

struct auth_keys {
    struct auth_key *v;
    int n;
};

static void copy_until(char *dst, size_t n, const char *s, const char *stops)
{
    size_t i = 0;

    while (s[i] && !strchr(stops, s[i]) && i + 1 < n) {
        dst[i] = s[i];
        i++;
    }
    dst[i] = '\0';
}

int auth_parse(const char *a, struct auth_scope *o)
{
    const char *p;

    memset(o, 0, sizeof(*o));
    if (!a || strncmp(a, "AWS4-HMAC-SHA256", 16) != 0)
        return -1;
    p = strstr(a, "Credential=");
    if (p) {
        char cred[512];
        char *parts[5] = { 0 };
        int np = 0;
        char *save = NULL, *tok;

        copy_until(cred, sizeof(cred), p + 11, ", ");
        for (tok = strtok_r(cred, "/", &save); tok && np < 5; tok = strtok_r(NULL, "/", &save))
            parts[np++] = tok;
        if (np == 5 && strcmp(parts[4], "aws4_request") == 0) {
            snprintf(o->akid, sizeof(o->akid), "%s", parts[0]);
            snprintf(o->date, sizeof(o->date), "%s", parts[1]);
            snprintf(o->region, sizeof(o->region), "%s", parts[2]);
            snprintf(o->service, sizeof(o->service), "%s", parts[3]);
            o->has_credential = 1;
        }
    }
    p = strstr(a, "SignedHeaders=");
    if (p) {
        copy_until(o->signed_headers, sizeof(o->signed_headers), p + 14, ", ");
        o->has_signed_headers = o->signed_headers[0] != '\0';
    }
    p = strstr(a, "Signature=");
    if (p) {
        copy_until(o->signature, sizeof(o->signature), p + 10, ", ");
        o->has_signature = o->signature[0] != '\0';
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

static void fmt_amz(int64_t ms, char *out, size_t n)
{
    char iso[40];

    model_format_iso8601(ms, iso, sizeof(iso));
    /* 2026-01-01T00:00:00.000Z -> 20260101T000000Z */
    snprintf(out, n, "%.4s%.2s%.2sT%.2s%.2s%.2sZ", iso, iso + 5, iso + 8, iso + 11, iso + 14,
             iso + 17);
}

int auth_verify(const struct auth_keys *keys, const struct auth_request *rq, int64_t wall_ms,
                struct awserr *err)
{
    const char *a = header(rq, "Authorization");
    const char *date = header(rq, "X-Amz-Date");
    const char *phash_hdr = header(rq, "X-Amz-Content-SHA256");
    struct auth_scope sc;
    struct cm_buf creq, sts;
    char phash[CM_SIGV4_HEX_LEN], sig[CM_SIGV4_HEX_LEN], scope[256], iso[40];
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
    snprintf(iso, sizeof(iso), "%.4s-%.2s-%.2sT%.2s:%.2s:%.2sZ", date, date + 4, date + 6, date + 9,
             date + 11, date + 13);
    if (strlen(date) != 16 || model_parse_iso8601(iso, &req_ms) < 0)
        return awserr_set(err, 400, "IncompleteSignature",
                          "Date must be in ISO-8601 'basic format'. Got '%.40s'.", date);
    if (req_ms + SKEW_MS < wall_ms) {
        char now_s[24], lim[24];

        fmt_amz(wall_ms, now_s, sizeof(now_s));
        fmt_amz(wall_ms - SKEW_MS, lim, sizeof(lim));
        return awserr_set(err, 400, "RequestExpired",
                          "Signature expired: %.16s is now earlier than %s (%s - 15 min.)", date,
                          lim, now_s);
    }
    if (req_ms - SKEW_MS > wall_ms) {
        char now_s[24], lim[24];

        fmt_amz(wall_ms, now_s, sizeof(now_s));
        fmt_amz(wall_ms + SKEW_MS, lim, sizeof(lim));
        return awserr_set(err, 400, "RequestExpired",
                          "Signature not yet current: %.16s is still later than %s (%s + 15 min.)",
                          date, lim, now_s);
    }
    if (strncmp(sc.date, date, 8) != 0)
        return awserr_set(err, 403, "SignatureDoesNotMatch",
                          "Date in Credential scope does not match YYYYMMDD from ISO-8601 version "
                          "of date from HTTP: '%s' != '%.8s', from '%.16s'.",
                          sc.date, date, date);
    if (phash_hdr && strcmp(phash_hdr, "UNSIGNED-PAYLOAD") != 0)
        snprintf(phash, sizeof(phash), "%.64s", phash_hdr);
    else if (phash_hdr)
        snprintf(phash, sizeof(phash), "UNSIGNED-PAYLOAD");
    else
        cm_sigv4_sha256_hex(rq->body ? rq->body : "", rq->body_len, phash);
    if (phash_hdr && strcmp(phash_hdr, "UNSIGNED-PAYLOAD") != 0) {
        char real[CM_SIGV4_HEX_LEN];

        cm_sigv4_sha256_hex(rq->body ? rq->body : "", rq->body_len, real);
        if (strcmp(real, phash) != 0)
            return awserr_set(err, 400, "XAmzContentSHA256Mismatch",
                              "The provided 'x-amz-content-sha256' header does not match what "
                              "was computed.");
    }
    cm_buf_init(&creq, 0);
    cm_buf_init(&sts, 0);
    if (cm_sigv4_canonical_request(&creq, rq->method, rq->path, rq->query, rq->hdrs, rq->nhdrs,
                                   sc.signed_headers, phash) < 0) {
        awserr_set(err, 403, "SignatureDoesNotMatch",
                   "The request signature we calculated does not match the signature you "
                   "provided. Check your AWS Secret Access Key and signing method. Consult the "
                   "service documentation for details.");
        goto out;
    }
    snprintf(scope, sizeof(scope), "%s/%s/%s/aws4_request", sc.date, sc.region, sc.service);
    cm_sigv4_string_to_sign(&sts, date, scope, creq.data, creq.len);
    cm_sigv4_signing_key(secret, sc.date, sc.region, sc.service, key);
    cm_sigv4_signature(key, sts.data, sts.len, sig);
    if (strcmp(sig, sc.signature) != 0) {
        awserr_set(err, 403, "SignatureDoesNotMatch",
                   "The request signature we calculated does not match the signature you "
                   "provided. Check your AWS Secret Access Key and signing method. Consult the "
                   "service documentation for details.");
        goto out;
    }
    rc = 0;
out:
    cm_buf_cleanup(&creq);
    cm_buf_cleanup(&sts);
    return rc;
}
