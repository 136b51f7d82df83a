/* common/sigv4.c: see sigv4.h. */
#include "common/sigv4.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include "common/xalloc.h"

static int unreserved(unsigned char c)
{
    return isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~';
}

static void encode(struct cm_buf *out, const char *s, size_t n, int keep_slash)
{
    static const char hex[] = "0123456789ABCDEF";

    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];

        if (unreserved(c) || (keep_slash && c == '/')) {
            cm_buf_putc(out, (char)c);
        } else {
            char e[3] = { '%', hex[c >> 4], hex[c & 15] };

            cm_buf_append(out, e, 3);
        }
    }
}

static int hexv(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static char *decode(const char *s, size_t n, size_t *outlen)
{
    char *o = cm_xmalloc(n + 1);
    size_t j = 0;

    for (size_t i = 0; i < n; i++) {
        if (s[i] == '%' && i + 2 < n && hexv(s[i + 1]) >= 0 && hexv(s[i + 2]) >= 0) {
            o[j++] = (char)(hexv(s[i + 1]) * 16 + hexv(s[i + 2]));
            i += 2;
        } else {
            o[j++] = s[i];
        }
    }
    o[j] = '\0';
    *outlen = j;
    return o;
}

void cm_sigv4_canonical_uri(struct cm_buf *out, const char *path, size_t n)
{
    /* segments after normalization, as (start, len) into path */
    size_t *seg_s = cm_xmalloc((n + 1) * sizeof(size_t));
    size_t *seg_l = cm_xmalloc((n + 1) * sizeof(size_t));
    size_t nseg = 0, i = 0;
    int trailing = n > 0 && path[n - 1] == '/';

    while (i < n) {
        size_t st, len;

        while (i < n && path[i] == '/')
            i++;
        st = i;
        while (i < n && path[i] != '/')
            i++;
        len = i - st;
        if (len == 0 || (len == 1 && path[st] == '.'))
            continue;
        if (len == 2 && path[st] == '.' && path[st + 1] == '.') {
            if (nseg > 0)
                nseg--;
            continue;
        }
        seg_s[nseg] = st;
        seg_l[nseg] = len;
        nseg++;
    }
    if (n > 0) {
        /* a path ending in "/." or "/.." ends in a directory too */
        size_t k = n;

        while (k > 0 && path[k - 1] != '/')
            k--;
        if ((n - k == 1 && path[k] == '.') || (n - k == 2 && path[k] == '.' && path[k + 1] == '.'))
            trailing = 1;
    }
    cm_buf_putc(out, '/');
    for (size_t s = 0; s < nseg; s++) {
        encode(out, path + seg_s[s], seg_l[s], 0);
        if (s + 1 < nseg || trailing)
            cm_buf_putc(out, '/');
    }
    free(seg_s);
    free(seg_l);
}

struct qpair {
    char *k, *v;
};

static int cmp_qpair(const void *a, const void *b)
{
    const struct qpair *x = a, *y = b;
    int c = strcmp(x->k, y->k);

    return c ? c : strcmp(x->v, y->v);
}

void cm_sigv4_canonical_query(struct cm_buf *out, const char *query)
{
    size_t n = strlen(query), cap = 1, np = 0;
    struct qpair *pairs;
    size_t i = 0;

    for (size_t k = 0; k < n; k++)
        cap += query[k] == '&';
    pairs = cm_xcalloc(cap, sizeof(*pairs));
    while (i < n) {
        size_t st = i, eq = (size_t)-1, dl;
        struct cm_buf kb, vb;
        char *d;

        while (i < n && query[i] != '&') {
            if (query[i] == '=' && eq == (size_t)-1)
                eq = i;
            i++;
        }
        if (i > st) {
            size_t kend = eq == (size_t)-1 ? i : eq;

            cm_buf_init(&kb, 0);
            cm_buf_init(&vb, 0);
            d = decode(query + st, kend - st, &dl);
            encode(&kb, d, dl, 0);
            free(d);
            if (eq != (size_t)-1) {
                d = decode(query + eq + 1, i - eq - 1, &dl);
                encode(&vb, d, dl, 0);
                free(d);
            }
            pairs[np].k = cm_buf_take(&kb, NULL);
            pairs[np].v = cm_buf_take(&vb, NULL);
            if (!pairs[np].k)
                pairs[np].k = cm_xstrdup("");
            if (!pairs[np].v)
                pairs[np].v = cm_xstrdup("");
            np++;
        }
        i++;
    }
    qsort(pairs, np, sizeof(*pairs), cmp_qpair);
    for (size_t k = 0; k < np; k++) {
        if (k)
            cm_buf_putc(out, '&');
        cm_buf_puts(out, pairs[k].k);
        cm_buf_putc(out, '=');
        cm_buf_puts(out, pairs[k].v);
        free(pairs[k].k);
        free(pairs[k].v);
    }
    free(pairs);
}

/* Appends value trimmed, runs of spaces/tabs collapsed to one space. */
static void put_trimmed(struct cm_buf *out, const char *v)
{
    int space = 0, started = 0;

    for (; *v; v++) {
        if (*v == ' ' || *v == '\t' || *v == '\r' || *v == '\n') {
            space = started;
            continue;
        }
        if (space)
            cm_buf_putc(out, ' ');
        space = 0;
        started = 1;
        cm_buf_putc(out, *v);
    }
}

/* one header of the request, for the sorted index */
struct hdr_ref {
    const char *name;
    size_t len;
    int at; /* position in hdrs: values of one name join in request order */
};

/* case-insensitive, shorter first on a common prefix */
static int name_cmp(const char *a, size_t al, const char *b, size_t bl)
{
    int c = strncasecmp(a, b, al < bl ? al : bl);

    if (c)
        return c;
    return al < bl ? -1 : al > bl;
}

static int cmp_hdr_ref(const void *x, const void *y)
{
    const struct hdr_ref *a = x, *b = y;
    int c = name_cmp(a->name, a->len, b->name, b->len);

    return c ? c : (a->at > b->at) - (a->at < b->at);
}

int cm_sigv4_canonical_request(struct cm_buf *out, const char *method, const char *path,
                               const char *query, const struct cm_sigv4_header *hdrs, int nhdrs,
                               const char *signed_headers, const char *payload_hash_hex)
{
    const char *p = signed_headers;
    struct hdr_ref *ix = cm_xcalloc(nhdrs > 0 ? (size_t)nhdrs : 1, sizeof(*ix));
    int rc = -1;

    for (int i = 0; i < nhdrs; i++) {
        ix[i].name = hdrs[i].name;
        ix[i].len = strlen(hdrs[i].name);
        ix[i].at = i;
    }
    qsort(ix, (size_t)(nhdrs > 0 ? nhdrs : 0), sizeof(*ix), cmp_hdr_ref);
    cm_buf_puts(out, method);
    cm_buf_putc(out, '\n');
    cm_sigv4_canonical_uri(out, path, strlen(path));
    cm_buf_putc(out, '\n');
    cm_sigv4_canonical_query(out, query ? query : "");
    cm_buf_putc(out, '\n');
    while (*p) {
        const char *end = strchr(p, ';');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        int lo = 0, hi = nhdrs;

        /* the first header of that name */
        while (lo < hi) {
            int mid = lo + (hi - lo) / 2;

            if (name_cmp(ix[mid].name, ix[mid].len, p, len) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo >= nhdrs || name_cmp(ix[lo].name, ix[lo].len, p, len) != 0)
            goto out;
        cm_buf_append(out, p, len);
        cm_buf_putc(out, ':');
        for (int k = lo; k < nhdrs && name_cmp(ix[k].name, ix[k].len, p, len) == 0; k++) {
            if (k > lo)
                cm_buf_putc(out, ',');
            put_trimmed(out, hdrs[ix[k].at].value);
        }
        cm_buf_putc(out, '\n');
        p += len;
        if (*p == ';')
            p++;
    }
    cm_buf_putc(out, '\n');
    cm_buf_puts(out, signed_headers);
    cm_buf_putc(out, '\n');
    cm_buf_puts(out, payload_hash_hex);
    rc = 0;
out:
    free(ix);
    return rc;
}

int cm_sigv4_amz_date_ok(const char *s)
{
    static const char shape[] = "ddddddddTddddddZ";

    for (size_t i = 0; i < sizeof(shape) - 1; i++) {
        /* s[i] is read only when s[0..i) matched, so never past the NUL */
        if (shape[i] == 'd' ? !(s[i] >= '0' && s[i] <= '9') : s[i] != shape[i])
            return 0;
    }
    return s[sizeof(shape) - 1] == '\0';
}

int cm_sigv4_signature_equal(const char *given, const char *computed)
{
    size_t gl = strnlen(given, CM_SIGV4_HEX_LEN), cl = strnlen(computed, CM_SIGV4_HEX_LEN);

    if (gl != cl || gl >= CM_SIGV4_HEX_LEN)
        return 0;
    return CRYPTO_memcmp(given, computed, gl) == 0;
}

static void to_hex(const unsigned char *d, size_t n, char *out)
{
    static const char hex[] = "0123456789abcdef";

    for (size_t i = 0; i < n; i++) {
        out[2 * i] = hex[d[i] >> 4];
        out[2 * i + 1] = hex[d[i] & 15];
    }
    out[2 * n] = '\0';
}

void cm_sigv4_sha256_hex(const void *p, size_t n, char out[CM_SIGV4_HEX_LEN])
{
    unsigned char d[SHA256_DIGEST_LENGTH];

    SHA256(p, n, d);
    to_hex(d, sizeof(d), out);
}

void cm_sigv4_string_to_sign(struct cm_buf *out, const char *amz_date, const char *scope,
                             const char *canonical_request, size_t creq_len)
{
    char h[CM_SIGV4_HEX_LEN];

    cm_sigv4_sha256_hex(canonical_request, creq_len, h);
    cm_buf_printf(out, "AWS4-HMAC-SHA256\n%s\n%s\n%s", amz_date, scope, h);
}

static void hmac(const void *key, size_t klen, const void *msg, size_t mlen, unsigned char out[32])
{
    unsigned int olen = 32;

    HMAC(EVP_sha256(), key, (int)klen, msg, mlen, out, &olen);
}

void cm_sigv4_signing_key(const char *secret, const char *date8, const char *region,
                          const char *service, unsigned char key[32])
{
    char *k0 = cm_xasprintf("AWS4%s", secret);
    unsigned char a[32], b[32];

    hmac(k0, strlen(k0), date8, strlen(date8), a);
    hmac(a, 32, region, strlen(region), b);
    hmac(b, 32, service, strlen(service), a);
    hmac(a, 32, "aws4_request", 12, key);
    free(k0);
}

void cm_sigv4_signature(const unsigned char key[32], const char *sts, size_t sts_len,
                        char out[CM_SIGV4_HEX_LEN])
{
    unsigned char d[32];

    hmac(key, 32, sts, sts_len, d);
    to_hex(d, 32, out);
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int cm_sigv4_sign(const char *method, const char *path, const char *query,
                  const struct cm_sigv4_header *hdrs, int nhdrs, const void *body, size_t body_len,
                  const char *akid, const char *secret, const char *region, const char *service,
                  const char *amz_date, char *auth, size_t n)
{
    char **names = cm_xcalloc((size_t)nhdrs + 1, sizeof(char *));
    struct cm_buf sh, creq, sts;
    char phash[CM_SIGV4_HEX_LEN], sig[CM_SIGV4_HEX_LEN], date8[9], scope[256];
    unsigned char key[32];
    int nn = 0, rc = -1, w;

    if (strlen(amz_date) < 8)
        goto out_names;
    memcpy(date8, amz_date, 8);
    date8[8] = '\0';
    for (int i = 0; i < nhdrs; i++) {
        char *l = cm_xstrdup(hdrs[i].name);
        int dup = 0;

        for (char *c = l; *c; c++)
            *c = (char)tolower((unsigned char)*c);
        for (int j = 0; j < nn; j++)
            dup |= strcmp(names[j], l) == 0;
        if (dup)
            free(l);
        else
            names[nn++] = l;
    }
    qsort(names, (size_t)nn, sizeof(char *), cmp_name);
    cm_buf_init(&sh, 0);
    cm_buf_init(&creq, 0);
    cm_buf_init(&sts, 0);
    for (int i = 0; i < nn; i++) {
        if (i)
            cm_buf_putc(&sh, ';');
        cm_buf_puts(&sh, names[i]);
    }
    cm_sigv4_sha256_hex(body ? body : "", body_len, phash);
    if (cm_sigv4_canonical_request(&creq, method, path, query, hdrs, nhdrs, sh.data ? sh.data : "",
                                   phash) < 0)
        goto out;
    snprintf(scope, sizeof(scope), "%s/%s/%s/aws4_request", date8, region, service);
    cm_sigv4_string_to_sign(&sts, amz_date, scope, creq.data, creq.len);
    cm_sigv4_signing_key(secret, date8, region, service, key);
    cm_sigv4_signature(key, sts.data, sts.len, sig);
    w = snprintf(auth, n, "AWS4-HMAC-SHA256 Credential=%s/%s, SignedHeaders=%s, Signature=%s", akid,
                 scope, sh.data ? sh.data : "", sig);
    if (w >= 0 && (size_t)w < n)
        rc = 0;
out:
    cm_buf_cleanup(&sh);
    cm_buf_cleanup(&creq);
    cm_buf_cleanup(&sts);
out_names:
    for (int i = 0; i < nn; i++)
        free(names[i]);
    free(names);
    return rc;
}
