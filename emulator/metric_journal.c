/* emulator/metric_journal.c: see metric_journal.h.
 *
 * File: the 8-byte magic "SCMJ0001", then records: u32 payload length, u32 CRC-32 of the
 * payload, payload. Payload: u8 type, then
 *   type 1 (datum): u8 kind (1 Value, 2 Values+Counts, 3 StatisticSet), u8 unit (enum
 *     sc_unit, 255 = none given), u8 storage resolution, u8 dimension count, i64 timestamp
 *     ms, str account, str region, str namespace, str metric name, (str, str) per
 *     dimension, then kind 1: f64; kind 2: u16 n, n f64 values, u8 has counts, n f64
 *     counts; kind 3: f64 sample count, sum, minimum, maximum.
 *   type 2 (series image): str account, str region, then sc_metric_store_export's image.
 * str = u16 length + bytes; numbers in native byte order (the file never leaves the
 * machine). */
#include "emulator/metric_journal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "common/buf.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "scaler/cloudwatch.h"

#define MAGIC           "SCMJ0001"
#define MAGIC_LEN       8
#define REC_DATUM       1
#define REC_IMAGE       2
#define KIND_VALUE      1
#define KIND_VALUES     2
#define KIND_SET        3
#define UNIT_NONE_GIVEN 255
#define MAX_RECORD      (64u << 20)
#define COMPACT_MIN     (16ull << 20)
#define KEEP_MS         (15LL * 86400 * 1000)
#define REPLAY_DROP     (8u << 20) /* a power of two, a multiple of the page size */
#define STR_MAX         1024

struct attach {
    struct metric_journal *j;
    struct sc_cw *cw;
    char account[32];
    char region[32];
};

struct metric_journal {
    char *path;
    int fd;
    uint64_t size;     /* bytes of good records on disk (appends past it failed) */
    int dirty;         /* appended since the last sync */
    int failed_errno;  /* an append failed since the last sync */
    struct cm_buf rec; /* scratch for one put's records */
    struct attach worlds[METRIC_JOURNAL_MAX_WORLDS];
    int nworlds;
    struct metric_journal_stats st;
};

/* ---- encoding ------------------------------------------------------------------------- */

static void put_str(struct cm_buf *b, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    uint16_t l = (uint16_t)(n > STR_MAX ? STR_MAX : n);

    cm_buf_append(b, &l, sizeof(l));
    cm_buf_append(b, s ? s : "", l);
}

/* Starts a record in b; returns the offset of its header (filled by rec_end). */
static size_t rec_begin(struct cm_buf *b)
{
    uint32_t z[2] = { 0, 0 };
    size_t at = b->len;

    cm_buf_append(b, z, sizeof(z));
    return at;
}

static void rec_end(struct cm_buf *b, size_t at)
{
    uint32_t len = (uint32_t)(b->len - at - 8);
    uint32_t crc = (uint32_t)crc32(0L, (const Bytef *)b->data + at + 8, len);

    memcpy(b->data + at, &len, sizeof(len));
    memcpy(b->data + at + 4, &crc, sizeof(crc));
}

static void encode_datum(struct cm_buf *b, const struct attach *w, const char *ns,
                         const struct sc_metric_datum *d, int64_t now_ms)
{
    size_t at = rec_begin(b);
    uint8_t h[4];
    enum sc_unit u;
    int64_t ts = d->has_timestamp ? d->timestamp_ms : now_ms;

    cm_buf_putc(b, REC_DATUM);
    h[0] = d->has_value ? KIND_VALUE : d->has_statistic_values ? KIND_SET : KIND_VALUES;
    h[1] = d->unit && sc_unit_parse(d->unit, &u) == 0 ? (uint8_t)u : UNIT_NONE_GIVEN;
    h[2] = (uint8_t)d->storage_resolution;
    h[3] = (uint8_t)d->n_dimensions;
    cm_buf_append(b, h, sizeof(h));
    cm_buf_append(b, &ts, sizeof(ts));
    put_str(b, w->account);
    put_str(b, w->region);
    put_str(b, ns);
    put_str(b, d->metric_name);
    for (int i = 0; i < d->n_dimensions; i++) {
        put_str(b, d->dimensions[i].name);
        put_str(b, d->dimensions[i].value);
    }
    if (h[0] == KIND_VALUE) {
        cm_buf_append(b, &d->value, sizeof(d->value));
    } else if (h[0] == KIND_SET) {
        const struct sc_statistic_set *s = &d->statistic_values;
        double v[4] = { s->sample_count, s->sum, s->minimum, s->maximum };
        cm_buf_append(b, v, sizeof(v));
    } else {
        uint16_t n = (uint16_t)d->n_values;
        uint8_t has_counts = d->counts != NULL;
        cm_buf_append(b, &n, sizeof(n));
        cm_buf_append(b, d->values, sizeof(double) * n);
        cm_buf_putc(b, (char)has_counts);
        if (has_counts)
            cm_buf_append(b, d->counts, sizeof(double) * n);
    }
    rec_end(b, at);
}

/* Appends b whole, or notes the failure and cuts the file back to its good size. */
static void append(struct metric_journal *j, const struct cm_buf *b)
{
    size_t off = 0;

    if (j->fd < 0 || b->len == 0)
        return;
    while (off < b->len) {
        ssize_t w = write(j->fd, b->data + off, b->len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            j->failed_errno = w < 0 ? errno : EIO;
            if (ftruncate(j->fd, (off_t)j->size) < 0)
                log_warn("metric journal: cannot cut a failed append: %s", strerror(errno));
            return;
        }
        off += (size_t)w;
    }
    j->size += b->len;
    j->dirty = 1;
}

static void on_put(const struct sc_put_metric_data_req *req, int64_t now_ms, void *ud)
{
    struct attach *w = ud;
    struct metric_journal *j = w->j;

    cm_buf_reset(&j->rec);
    for (int i = 0; i < req->n_metric_data; i++)
        encode_datum(&j->rec, w, req->namespace, &req->metric_data[i], now_ms);
    append(j, &j->rec);
    j->st.appended += (uint64_t)req->n_metric_data;
}

/* ---- open / close / attach ----------------------------------------------------------- */

static int open_append(const char *path, char *err, size_t errlen)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);

    if (fd < 0)
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
    return fd;
}

struct metric_journal *metric_journal_open(const char *path, char *err, size_t errlen)
{
    struct metric_journal *j = cm_xcalloc(1, sizeof(*j));
    struct stat sb;

    j->path = cm_xstrdup(path);
    j->fd = open_append(path, err, errlen);
    if (j->fd < 0 || fstat(j->fd, &sb) < 0) {
        if (j->fd >= 0)
            snprintf(err, errlen, "%s: %s", path, strerror(errno));
        metric_journal_close(j);
        return NULL;
    }
    j->size = (uint64_t)sb.st_size;
    if (j->size == 0) {
        struct cm_buf m;
        cm_buf_init(&m, 0);
        cm_buf_append(&m, MAGIC, MAGIC_LEN);
        append(j, &m);
        cm_buf_cleanup(&m);
        if (j->failed_errno) {
            snprintf(err, errlen, "%s: %s", path, strerror(j->failed_errno));
            metric_journal_close(j);
            return NULL;
        }
    }
    cm_buf_init(&j->rec, 0);
    return j;
}

void metric_journal_detach_all(struct metric_journal *j)
{
    for (int i = 0; i < j->nworlds; i++)
        sc_cw_set_put_observer(j->worlds[i].cw, NULL, NULL);
    j->nworlds = 0;
}

void metric_journal_close(struct metric_journal *j)
{
    if (!j)
        return;
    metric_journal_detach_all(j);
    if (j->fd >= 0)
        close(j->fd);
    cm_buf_cleanup(&j->rec);
    free(j->path);
    free(j);
}

int metric_journal_attach(struct metric_journal *j, struct sc_cw *cw, const char *account,
                          const char *region)
{
    struct attach *w;

    for (int i = 0; i < j->nworlds; i++)
        if (j->worlds[i].cw == cw)
            return 0;
    if (j->nworlds == METRIC_JOURNAL_MAX_WORLDS)
        return -1;
    w = &j->worlds[j->nworlds++];
    w->j = j;
    w->cw = cw;
    snprintf(w->account, sizeof(w->account), "%s", account);
    snprintf(w->region, sizeof(w->region), "%s", region);
    sc_cw_set_put_observer(cw, on_put, w);
    return 0;
}

/* ---- replay ---------------------------------------------------------------------------- */

struct rd {
    const unsigned char *p;
    size_t len, off;
    int bad;
};

static void rd_get(struct rd *r, void *dst, size_t n)
{
    if (r->bad || r->len - r->off < n) {
        r->bad = 1;
        memset(dst, 0, n);
        return;
    }
    memcpy(dst, r->p + r->off, n);
    r->off += n;
}

static void rd_str(struct rd *r, char *out, size_t cap)
{
    uint16_t l = 0;

    rd_get(r, &l, sizeof(l));
    if (r->bad || (size_t)l >= cap || r->len - r->off < l) {
        r->bad = 1;
        out[0] = '\0';
        return;
    }
    memcpy(out, r->p + r->off, l);
    out[l] = '\0';
    if (memchr(out, '\0', l))
        r->bad = 1;
    r->off += l;
}

struct replay_ctx {
    metric_journal_cw_fn fn;
    void *ud;
    int64_t now_ms;
    struct metric_journal_replay_stats *st;
};

/* Applies one record's payload. Returns 0, -1 when the payload is malformed (a record whose
 * CRC matched but whose content does not parse: corruption, never a torn write), or -2 when
 * the store is out of memory. */
static int apply(struct replay_ctx *c, const unsigned char *p, size_t len)
{
    struct rd r = { p, len, 0, 0 };
    uint8_t type = 0;
    char account[STR_MAX + 1], region[STR_MAX + 1];
    struct sc_cw *cw;

    rd_get(&r, &type, 1);
    if (type == REC_IMAGE) {
        rd_str(&r, account, sizeof(account));
        rd_str(&r, region, sizeof(region));
        if (r.bad)
            return -1;
        cw = c->fn(account, region, c->ud);
        if (!cw) {
            c->st->skipped++;
            return 0;
        }
        switch (sc_metric_store_import(sc_cw_metrics(cw), p + r.off, len - r.off, NULL)) {
        case SC_OK:
            break;
        case SC_ERR_INTERNAL:
            return -2;
        default:
            return -1;
        }
        c->st->images++;
        return 0;
    }
    if (type == REC_DATUM) {
        uint8_t h[4];
        int64_t ts = 0;
        char ns[STR_MAX + 1], name[STR_MAX + 1];
        char dn[SC_METRIC_MAX_DIMENSIONS][STR_MAX + 1], dv[SC_METRIC_MAX_DIMENSIONS][STR_MAX + 1];
        struct sc_dimension dims[SC_METRIC_MAX_DIMENSIONS];
        double vals[SC_METRIC_MAX_VALUES], counts[SC_METRIC_MAX_VALUES], set[4];
        struct sc_metric_datum d;
        struct sc_put_metric_data_req req;
        uint16_t n = 0;
        uint8_t has_counts = 0;

        rd_get(&r, h, sizeof(h));
        rd_get(&r, &ts, sizeof(ts));
        rd_str(&r, account, sizeof(account));
        rd_str(&r, region, sizeof(region));
        rd_str(&r, ns, sizeof(ns));
        rd_str(&r, name, sizeof(name));
        if (r.bad || h[3] > SC_METRIC_MAX_DIMENSIONS)
            return -1;
        memset(&d, 0, sizeof(d));
        for (int i = 0; i < h[3]; i++) {
            rd_str(&r, dn[i], sizeof(dn[i]));
            rd_str(&r, dv[i], sizeof(dv[i]));
            dims[i].name = dn[i];
            dims[i].value = dv[i];
        }
        if (h[0] == KIND_VALUE) {
            rd_get(&r, &d.value, sizeof(d.value));
            d.has_value = 1;
        } else if (h[0] == KIND_SET) {
            rd_get(&r, set, sizeof(set));
            d.has_statistic_values = 1;
            d.statistic_values =
                (struct sc_statistic_set){ set[0], set[1], set[2], set[3], 1, 1, 1, 1 };
        } else if (h[0] == KIND_VALUES) {
            rd_get(&r, &n, sizeof(n));
            if (n > SC_METRIC_MAX_VALUES)
                return -1;
            rd_get(&r, vals, sizeof(double) * n);
            rd_get(&r, &has_counts, 1);
            if (has_counts)
                rd_get(&r, counts, sizeof(double) * n);
            d.values = vals;
            d.n_values = n;
            d.counts = has_counts ? counts : NULL;
            d.n_counts = has_counts ? n : 0;
        } else {
            return -1;
        }
        if (r.bad || r.off != len)
            return -1;
        if (ts < c->now_ms - KEEP_MS) {
            c->st->expired++;
            return 0;
        }
        cw = c->fn(account, region, c->ud);
        if (!cw) {
            c->st->skipped++;
            return 0;
        }
        d.metric_name = name;
        d.dimensions = dims;
        d.n_dimensions = h[3];
        d.has_timestamp = 1;
        d.timestamp_ms = ts;
        d.unit = h[1] == UNIT_NONE_GIVEN ? NULL : sc_unit_name((enum sc_unit)h[1]);
        d.storage_resolution = h[2];
        memset(&req, 0, sizeof(req));
        req.namespace = ns;
        req.metric_data = &d;
        req.n_metric_data = 1;
        req.internal = 1;
        /* validated against its own time: the store's retention decides what stays */
        if (sc_metric_store_put(sc_cw_metrics(cw), &req, ts, NULL) != SC_OK)
            c->st->skipped++;
        else
            c->st->records++;
        return 0;
    }
    return -1;
}

/* Whether an intact record (a sane length inside the file, a known type, its CRC) starts at
 * off. */
static int intact_at(const unsigned char *map, size_t size, size_t off)
{
    uint32_t len, crc;

    if (size - off < 9)
        return 0;
    memcpy(&len, map + off, sizeof(len));
    if (len == 0 || len > MAX_RECORD || size - off - 8 < len)
        return 0;
    if (map[off + 8] != REC_DATUM && map[off + 8] != REC_IMAGE)
        return 0;
    memcpy(&crc, map + off + 4, sizeof(crc));
    return (uint32_t)crc32(0L, (const Bytef *)map + off + 8, len) == crc;
}

/* The offset of the first intact record after the damaged one at off (whose header claims
 * len bytes), or 0 when none follows: then the damage is a torn tail. The record boundary
 * the header names is tried first, then every byte after off (the length itself may be
 * what is damaged). */
static size_t intact_after(const unsigned char *map, size_t size, size_t off, uint32_t len)
{
    if (len > 0 && len <= MAX_RECORD && size - off - 8 >= len &&
        intact_at(map, size, off + 8 + len))
        return off + 8 + len;
    for (size_t p = off + 1; p + 9 <= size; p++)
        if (intact_at(map, size, p))
            return p;
    return 0;
}

int metric_journal_replay(struct metric_journal *j, metric_journal_cw_fn fn, void *ud,
                          int64_t now_ms, struct metric_journal_replay_stats *stats, char *err,
                          size_t errlen)
{
    struct metric_journal_replay_stats local;
    struct replay_ctx c = { fn, ud, now_ms, stats ? stats : &local };
    int fd = open(j->path, O_RDONLY | O_CLOEXEC);
    struct stat sb;
    const unsigned char *map = NULL;
    size_t size, off = MAGIC_LEN, dropped = 0;
    const char *why = NULL;

    memset(c.st, 0, sizeof(*c.st));
    if (fd < 0 || fstat(fd, &sb) < 0) {
        snprintf(err, errlen, "%s: %s", j->path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    size = (size_t)sb.st_size;
    if (size > 0) {
        map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED) {
            snprintf(err, errlen, "%s: mmap: %s", j->path, strerror(errno));
            close(fd);
            return -1;
        }
    }
    close(fd);
    if (size < MAGIC_LEN || memcmp(map, MAGIC, MAGIC_LEN) != 0) {
        if (map)
            munmap((void *)map, size);
        if (size < MAGIC_LEN && memcmp(MAGIC, map ? (const char *)map : "", size) == 0) {
            off = 0; /* torn while writing the magic itself: start over */
            why = "torn header";
            size = 0;
            map = NULL;
            goto cut;
        }
        snprintf(err, errlen, "%s: not a scalelab metric journal", j->path);
        return -1;
    }
    while (off < size) {
        uint32_t len = 0, crc;
        size_t next;
        int rc;

        if (size - off < 8) {
            why = "torn record header";
            break;
        }
        memcpy(&len, map + off, sizeof(len));
        memcpy(&crc, map + off + 4, sizeof(crc));
        if (len == 0 || len > MAX_RECORD)
            why = "bad record length";
        else if (size - off - 8 < len)
            why = "torn record";
        else if ((uint32_t)crc32(0L, (const Bytef *)map + off + 8, len) != crc)
            why = "CRC mismatch";
        if (why) {
            /* a torn tail only when nothing intact follows: else corruption, an error */
            next = intact_after(map, size, off, len);
            if (next == 0)
                break;
            snprintf(err, errlen,
                     "%s: corrupt record at byte %zu (%s; intact records follow from byte %zu)",
                     j->path, off, why, next);
            munmap((void *)map, size);
            return -1;
        }
        rc = apply(&c, map + off + 8, len);
        if (rc < 0) {
            /* its CRC matched: written whole, so never a torn write */
            if (rc == -2)
                snprintf(err, errlen, "%s: out of memory replaying the record at byte %zu", j->path,
                         off);
            else
                snprintf(err, errlen, "%s: corrupt record at byte %zu (malformed, its CRC matches)",
                         j->path, off);
            munmap((void *)map, size);
            return -1;
        }
        off += 8 + len;
        if (off - dropped >= REPLAY_DROP) {
            /* the mapped file's pages count as our RSS: drop what was read */
            size_t upto = off & ~(size_t)(REPLAY_DROP - 1);
            madvise((void *)(map + dropped), upto - dropped, MADV_DONTNEED);
            dropped = upto;
        }
    }
    if (map)
        munmap((void *)map, size);
cut:
    c.st->bytes = off;
    if (why) {
        c.st->truncated = (uint64_t)sb.st_size - off;
        log_warn("metric journal: %s at byte %zu of %s: dropping the last %llu bytes", why, off,
                 j->path, (unsigned long long)c.st->truncated);
        if (ftruncate(j->fd, (off_t)off) < 0) {
            snprintf(err, errlen, "%s: truncate: %s", j->path, strerror(errno));
            return -1;
        }
        if (off == 0) {
            struct cm_buf m;
            j->size = 0;
            cm_buf_init(&m, 0);
            cm_buf_append(&m, MAGIC, MAGIC_LEN);
            append(j, &m);
            cm_buf_cleanup(&m);
            off = j->size;
        }
        if (fdatasync(j->fd) < 0) {
            snprintf(err, errlen, "%s: fdatasync: %s", j->path, strerror(errno));
            return -1;
        }
    }
    j->size = off;
    if (j->st.last_compact_bytes == 0)
        j->st.last_compact_bytes = off;
    return 0;
}

/* ---- sync, reset, compaction --------------------------------------------------------- */

int metric_journal_sync(void *ud, char *err, size_t errlen)
{
    struct metric_journal *j = ud;
    char cerr[256];

    if (j->failed_errno) {
        snprintf(err, errlen, "%s: append failed: %s", j->path, strerror(j->failed_errno));
        j->failed_errno = 0;
        return -1;
    }
    if (j->dirty) {
        if (fdatasync(j->fd) < 0) {
            snprintf(err, errlen, "%s: fdatasync: %s", j->path, strerror(errno));
            return -1;
        }
        j->dirty = 0;
        j->st.syncs++;
    }
    if (metric_journal_maybe_compact(j, 0, cerr, sizeof(cerr)) < 0)
        log_warn("metric journal: compaction failed (the journal stays as it is): %s", cerr);
    return 0;
}

void metric_journal_reset(void *ud)
{
    struct metric_journal *j = ud;

    j->nworlds = 0; /* the worlds are already gone: forget them, touch nothing */
    if (ftruncate(j->fd, MAGIC_LEN) < 0 || fdatasync(j->fd) < 0)
        log_warn("metric journal: reset: %s", strerror(errno));
    j->size = MAGIC_LEN;
    j->dirty = 0;
    j->st.last_compact_bytes = MAGIC_LEN;
}

struct compact_ctx {
    int fd;
    const struct attach *w;
    struct cm_buf b;
    uint64_t bytes;
    int err;
};

static int write_all(int fd, const void *p, size_t n)
{
    const char *c = p;

    while (n > 0) {
        ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

static int on_image(const void *img, size_t len, void *ud)
{
    struct compact_ctx *c = ud;
    size_t at;

    cm_buf_reset(&c->b);
    at = rec_begin(&c->b);
    cm_buf_putc(&c->b, REC_IMAGE);
    put_str(&c->b, c->w->account);
    put_str(&c->b, c->w->region);
    cm_buf_append(&c->b, img, len);
    rec_end(&c->b, at);
    if (write_all(c->fd, c->b.data, c->b.len) < 0) {
        c->err = errno ? errno : EIO;
        return -1;
    }
    c->bytes += c->b.len;
    return 0;
}

static int fsync_dir(const char *path)
{
    char *dir = cm_xstrdup(path);
    char *slash = strrchr(dir, '/');
    int fd, rc;

    if (slash == dir)
        slash[1] = '\0';
    else if (slash)
        *slash = '\0';
    else
        strcpy(dir, ".");
    fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    free(dir);
    if (fd < 0)
        return -1;
    rc = fsync(fd);
    close(fd);
    return rc;
}

int metric_journal_maybe_compact(struct metric_journal *j, int force, char *err, size_t errlen)
{
    struct compact_ctx c;
    char *tmp;
    size_t tlen = strlen(j->path) + 5;
    int nfd;

    if (!force && (j->size < COMPACT_MIN || j->size < 2 * j->st.last_compact_bytes))
        return 0;
    tmp = cm_xmalloc(tlen);
    snprintf(tmp, tlen, "%s.tmp", j->path);
    memset(&c, 0, sizeof(c));
    c.fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (c.fd < 0) {
        snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
        free(tmp);
        return -1;
    }
    cm_buf_init(&c.b, 0);
    if (write_all(c.fd, MAGIC, MAGIC_LEN) < 0)
        c.err = errno ? errno : EIO;
    c.bytes = MAGIC_LEN;
    for (int i = 0; !c.err && i < j->nworlds; i++) {
        c.w = &j->worlds[i];
        if (sc_metric_store_export(sc_cw_metrics(j->worlds[i].cw), on_image, &c) != 0 && !c.err)
            c.err = ENOMEM;
    }
    cm_buf_cleanup(&c.b);
    if (!c.err && fsync(c.fd) < 0)
        c.err = errno;
    close(c.fd);
    if (!c.err && rename(tmp, j->path) < 0)
        c.err = errno;
    if (c.err) {
        snprintf(err, errlen, "%s: %s", tmp, strerror(c.err));
        unlink(tmp);
        free(tmp);
        return -1;
    }
    free(tmp);
    if (fsync_dir(j->path) < 0)
        log_warn("metric journal: fsync of the directory of %s: %s", j->path, strerror(errno));
    /* the renamed file is the journal now */
    nfd = open_append(j->path, err, errlen);
    if (nfd < 0)
        return -1;
    close(j->fd);
    j->fd = nfd;
    log_info("metric journal: rewrote %s from the stores: %llu -> %llu bytes", j->path,
             (unsigned long long)j->size, (unsigned long long)c.bytes);
    j->size = c.bytes;
    j->dirty = 0;
    j->st.compactions++;
    j->st.last_compact_bytes = c.bytes;
    return 1;
}

void metric_journal_get_stats(const struct metric_journal *j, struct metric_journal_stats *out)
{
    *out = j->st;
    out->file_bytes = j->size;
}
