/* tests/unit/emulator/test_metric_journal.c: emulator/metric_journal.c (append, replay, torn
 * and corrupt tails, compaction) and the store export/import it rests on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "common/buf.h"
#include "emulator/metric_journal.h"
#include "scaler/cloudwatch.h"

#define T0  1767225600000LL /* 2026-01-01T00:00:00Z */
#define MIN 60000LL

static char dir[256], path[300];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof(dir), "/tmp/test_mj.XXXXXX");
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/state.json.metrics", dir);
    return 0;
}

static int teardown(void **state)
{
    char tmp[320];

    (void)state;
    unlink(path);
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    unlink(tmp);
    rmdir(dir);
    return 0;
}

static struct sc_cw *cw_new(void)
{
    struct sc_cw_config c;
    struct sc_cw *cw;

    sc_cw_config_defaults(&c);
    c.start_ms = T0;
    cw = sc_cw_create(&c);
    assert_non_null(cw);
    return cw;
}

/* A mix of every datum form, over an hour. */
static void fill(struct sc_cw *cw, int64_t t0, int minutes)
{
    struct sc_dimension dims[2] = { { "Host", "a" }, { "Az", "us-east-1a" } };
    double vals[3] = { 1.5, 2.5, 1000 }, counts[3] = { 2, 1, 3 };

    for (int i = 0; i < minutes; i++) {
        int64_t ts = t0 + i * MIN + 1234;
        struct sc_metric_datum d[4];
        struct sc_put_metric_data_req r = { "App", d, 4, 0 };

        memset(d, 0, sizeof(d));
        d[0] = (struct sc_metric_datum){ .metric_name = "Latency",
                                         .dimensions = dims,
                                         .n_dimensions = 2,
                                         .has_timestamp = 1,
                                         .timestamp_ms = ts,
                                         .values = vals,
                                         .n_values = 3,
                                         .counts = counts,
                                         .n_counts = 3,
                                         .unit = "Milliseconds" };
        d[1] = (struct sc_metric_datum){ .metric_name = "Jobs", .has_value = 1, .value = i };
        d[2] = (struct sc_metric_datum){ .metric_name = "Set",
                                         .has_timestamp = 1,
                                         .timestamp_ms = ts,
                                         .has_statistic_values = 1,
                                         .statistic_values = { 4, 10, 1, 4, 1, 1, 1, 1 },
                                         .unit = "Count" };
        d[3] = (struct sc_metric_datum){ .metric_name = "Fast",
                                         .has_timestamp = 1,
                                         .timestamp_ms = ts,
                                         .has_value = 1,
                                         .value = 0.25 * i,
                                         .storage_resolution = 1 };
        assert_int_equal(sc_cw_put_metric_data(cw, &r, t0 + i * MIN + 2000, NULL), SC_OK);
        assert_int_equal(sc_cw_put_value(cw, "AWS/EC2", "CPUUtilization", dims, 1, "Percent",
                                         10 + i % 7, ts, ts),
                         SC_OK);
    }
}

static int collect(const void *img, size_t len, void *ud)
{
    cm_buf_append(ud, img, len);
    return 0;
}

/* The store's whole content as bytes (its export). */
static void image_of(struct sc_cw *cw, struct cm_buf *b)
{
    cm_buf_init(b, 0);
    assert_int_equal(sc_metric_store_export(sc_cw_metrics(cw), collect, b), 0);
}

static void assert_same_store(struct sc_cw *a, struct sc_cw *b)
{
    struct cm_buf x, y;

    image_of(a, &x);
    image_of(b, &y);
    assert_true(x.len > 1000);
    assert_int_equal(x.len, y.len);
    assert_memory_equal(x.data, y.data, x.len);
    cm_buf_cleanup(&x);
    cm_buf_cleanup(&y);
}

static struct sc_cw *replay_target;

static struct sc_cw *resolve(const char *account, const char *region, void *ud)
{
    (void)ud;
    assert_string_equal(account, "123456789012");
    return strcmp(region, "us-east-1") == 0 ? replay_target : NULL;
}

static struct metric_journal *open_j(void)
{
    char err[256];
    struct metric_journal *j = metric_journal_open(path, err, sizeof(err));

    if (!j)
        fail_msg("open: %s", err);
    return j;
}

static void replay_into(struct sc_cw *cw, struct metric_journal_replay_stats *st, int64_t now)
{
    char err[256];
    struct metric_journal *j = open_j();

    replay_target = cw;
    if (metric_journal_replay(j, resolve, NULL, now, st, err, sizeof(err)) < 0)
        fail_msg("replay: %s", err);
    metric_journal_close(j);
}

static off_t file_size(void)
{
    struct stat sb;

    assert_int_equal(stat(path, &sb), 0);
    return sb.st_size;
}

static void test_metric_journal_replay_restores_the_store(void **state)
{
    struct sc_cw *cw = cw_new(), *cw2 = cw_new();
    struct metric_journal *j = open_j();
    struct metric_journal_replay_stats st;
    struct metric_journal_stats js;
    char err[256];

    (void)state;
    assert_int_equal(metric_journal_attach(j, cw, "123456789012", "us-east-1"), 0);
    fill(cw, T0, 90);
    assert_int_equal(metric_journal_sync(j, err, sizeof(err)), 0);
    metric_journal_get_stats(j, &js);
    assert_int_equal(js.appended, 90 * 5);
    assert_int_equal(js.syncs, 1);
    metric_journal_close(j);
    replay_into(cw2, &st, T0 + 91 * MIN);
    assert_int_equal(st.records, 90 * 5);
    assert_int_equal(st.truncated, 0);
    assert_same_store(cw, cw2);
    sc_cw_destroy(cw);
    sc_cw_destroy(cw2);
}

static void test_metric_journal_torn_tail_is_dropped(void **state)
{
    struct sc_cw *cw = cw_new(), *cw2 = cw_new(), *cw3 = cw_new();
    struct metric_journal *j = open_j();
    struct metric_journal_replay_stats st;
    char err[256];
    off_t good;
    int fd;

    (void)state;
    metric_journal_attach(j, cw, "123456789012", "us-east-1");
    fill(cw, T0, 30);
    metric_journal_sync(j, err, sizeof(err));
    metric_journal_close(j);
    good = file_size();
    /* a torn append: half a record */
    fd = open(path, O_WRONLY | O_APPEND);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "\x40\x00\x00\x00\x11\x22\x33\x44partial", 15), 15);
    close(fd);
    replay_into(cw2, &st, T0 + 31 * MIN);
    assert_int_equal(st.truncated, 15);
    assert_int_equal(file_size(), good);
    assert_same_store(cw, cw2);
    /* appends after the cut follow good data and replay again */
    j = open_j();
    metric_journal_attach(j, cw2, "123456789012", "us-east-1");
    fill(cw2, T0 + 30 * MIN, 5);
    fill(cw, T0 + 30 * MIN, 5);
    metric_journal_sync(j, err, sizeof(err));
    metric_journal_close(j);
    replay_into(cw3, &st, T0 + 40 * MIN);
    assert_int_equal(st.truncated, 0);
    assert_same_store(cw, cw3);
    sc_cw_destroy(cw);
    sc_cw_destroy(cw2);
    sc_cw_destroy(cw3);
}

/* The whole file, malloc'd; *len its size. */
static unsigned char *read_all(size_t *len)
{
    off_t n = file_size();
    unsigned char *p = malloc((size_t)n + 1);
    int fd = open(path, O_RDONLY);

    assert_non_null(p);
    assert_true(fd >= 0);
    assert_int_equal(read(fd, p, (size_t)n), n);
    close(fd);
    *len = (size_t)n;
    return p;
}

/* The offset of the record holding byte at (records: u32 length, u32 CRC, payload). */
static size_t record_start(const unsigned char *p, size_t len, size_t at)
{
    size_t off = 8;

    for (;;) {
        uint32_t n;
        assert_true(off + 8 <= len);
        memcpy(&n, p + off, sizeof(n));
        if (at < off + 8 + n)
            return off;
        off += 8 + n;
    }
}

static void poke(size_t at, const void *bytes, size_t n)
{
    int fd = open(path, O_RDWR);

    assert_true(fd >= 0);
    assert_int_equal(pwrite(fd, bytes, n, (off_t)at), (ssize_t)n);
    close(fd);
}

/* Replay must fail with err naming the file and "at byte <at>", leaving the file as it was
 * (before: its bytes). */
static void assert_refused(const unsigned char *before, size_t len, size_t at)
{
    struct sc_cw *cw = cw_new();
    struct metric_journal *j = open_j();
    char err[512], want[64];
    unsigned char *after;
    size_t alen;

    replay_target = cw;
    assert_int_equal(metric_journal_replay(j, resolve, NULL, T0 + 21 * MIN, NULL, err, sizeof(err)),
                     -1);
    metric_journal_close(j);
    assert_non_null(strstr(err, path));
    snprintf(want, sizeof(want), "at byte %zu", at);
    if (!strstr(err, want))
        fail_msg("err '%s' lacks '%s'", err, want);
    after = read_all(&alen);
    assert_int_equal(alen, len);
    assert_memory_equal(after, before, len);
    free(after);
    sc_cw_destroy(cw);
}

/* Issue 19: one corrupt record in the middle used to truncate the journal there (and lose
 * every record after it); now the replay refuses, naming the file and the offset, and
 * leaves the file untouched. */
static void test_metric_journal_corrupt_record_in_the_middle_stops_replay(void **state)
{
    struct sc_cw *cw = cw_new();
    struct metric_journal *j = open_j();
    unsigned char *orig, *bad;
    char err[256];
    size_t len, half, rec;
    uint32_t huge = 0x00ffffff;

    (void)state;
    metric_journal_attach(j, cw, "123456789012", "us-east-1");
    fill(cw, T0, 20);
    metric_journal_sync(j, err, sizeof(err));
    metric_journal_close(j);
    orig = read_all(&len);
    /* a flipped payload byte: CRC mismatch */
    half = len / 2;
    rec = record_start(orig, len, half);
    bad = malloc(len);
    memcpy(bad, orig, len);
    bad[half] ^= 0x5a;
    poke(half, &bad[half], 1);
    assert_refused(bad, len, rec);
    /* a damaged length (it now runs past the end of the file, like a torn record) */
    poke(half, &orig[half], 1);
    memcpy(bad, orig, len);
    memcpy(bad + rec, &huge, sizeof(huge));
    poke(rec, &huge, sizeof(huge));
    assert_refused(bad, len, rec);
    /* a zero length */
    memset(bad + rec, 0, 4);
    poke(rec, bad + rec, 4);
    assert_refused(bad, len, rec);
    free(orig);
    free(bad);
    sc_cw_destroy(cw);
}

/* A record whose CRC matches but whose payload does not parse was written whole: corrupt,
 * wherever it is (here the last record). */
static void test_metric_journal_malformed_record_stops_replay(void **state)
{
    struct sc_cw *cw = cw_new();
    struct metric_journal *j = open_j();
    unsigned char rec[9] = { 1, 0, 0, 0, 0, 0, 0, 0, 9 }, *all;
    uint32_t crc = (uint32_t)crc32(0L, (const Bytef *)"\x09", 1);
    char err[256];
    size_t len;
    off_t at;

    (void)state;
    metric_journal_attach(j, cw, "123456789012", "us-east-1");
    fill(cw, T0, 3);
    metric_journal_sync(j, err, sizeof(err));
    metric_journal_close(j);
    at = file_size();
    memcpy(rec + 4, &crc, sizeof(crc));
    poke((size_t)at, rec, sizeof(rec));
    all = read_all(&len);
    assert_refused(all, len, (size_t)at);
    free(all);
    sc_cw_destroy(cw);
}

/* Torn tails: the last record damaged (a crash while writing it), or zeros past the data
 * (a file extended without its pages): dropped with a warning, the rest kept. */
static void test_metric_journal_damaged_last_record_is_a_torn_tail(void **state)
{
    struct sc_cw *cw = cw_new(), *cw2 = cw_new(), *cw3 = cw_new();
    struct metric_journal *j = open_j();
    struct metric_journal_replay_stats st;
    unsigned char *all, zeros[4096];
    char err[256];
    size_t len, last;

    (void)state;
    metric_journal_attach(j, cw, "123456789012", "us-east-1");
    fill(cw, T0, 10);
    metric_journal_sync(j, err, sizeof(err));
    metric_journal_close(j);
    all = read_all(&len);
    last = record_start(all, len, len - 1);
    all[len - 3] ^= 0xff;
    poke(len - 3, &all[len - 3], 1);
    replay_into(cw2, &st, T0 + 11 * MIN);
    assert_int_equal(st.records, 10 * 5 - 1);
    assert_int_equal(st.truncated, len - last);
    assert_int_equal(file_size(), (off_t)last);
    /* zeros after good records */
    memset(zeros, 0, sizeof(zeros));
    poke(last, zeros, sizeof(zeros));
    replay_into(cw3, &st, T0 + 11 * MIN);
    assert_int_equal(st.records, 10 * 5 - 1);
    assert_int_equal(st.truncated, sizeof(zeros));
    assert_int_equal(file_size(), (off_t)last);
    assert_same_store(cw2, cw3);
    free(all);
    sc_cw_destroy(cw);
    sc_cw_destroy(cw2);
    sc_cw_destroy(cw3);
}

static void test_metric_journal_not_a_journal_is_refused(void **state)
{
    struct metric_journal *j;
    struct sc_cw *cw = cw_new();
    char err[256];
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

    (void)state;
    assert_int_equal(write(fd, "{\"version\":1}", 13), 13);
    close(fd);
    j = open_j();
    replay_target = cw;
    assert_int_equal(metric_journal_replay(j, resolve, NULL, T0, NULL, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "not a scalelab metric journal"));
    assert_int_equal(file_size(), 13); /* left alone */
    metric_journal_close(j);
    sc_cw_destroy(cw);
}

static void test_metric_journal_retention_applies_at_replay(void **state)
{
    struct sc_cw *cw = cw_new(), *cw2 = cw_new();
    struct metric_journal *j = open_j();
    struct metric_journal_replay_stats st;
    char err[256];

    (void)state;
    metric_journal_attach(j, cw, "123456789012", "us-east-1");
    fill(cw, T0, 10);
    metric_journal_sync(j, err, sizeof(err));
    metric_journal_close(j);
    replay_into(cw2, &st, T0 + 16LL * 86400 * 1000);
    assert_int_equal(st.records, 0);
    assert_int_equal(st.expired, 10 * 5);
    assert_int_equal(sc_metric_store_count(sc_cw_metrics(cw2)), 0);
    sc_cw_destroy(cw);
    sc_cw_destroy(cw2);
}

static void test_metric_journal_compaction_rewrites_from_the_store(void **state)
{
    struct sc_cw *cw = cw_new(), *cw2 = cw_new(), *cw3 = cw_new();
    struct metric_journal *j = open_j();
    struct metric_journal_replay_stats st;
    struct metric_journal_stats js;
    char err[256];
    off_t before;

    (void)state;
    metric_journal_attach(j, cw, "123456789012", "us-east-1");
    fill(cw, T0, 120);
    metric_journal_sync(j, err, sizeof(err));
    before = file_size();
    assert_int_equal(metric_journal_maybe_compact(j, 0, err, sizeof(err)), 0); /* not due */
    assert_int_equal(metric_journal_maybe_compact(j, 1, err, sizeof(err)), 1);
    metric_journal_get_stats(j, &js);
    assert_int_equal(js.compactions, 1);
    assert_int_equal((off_t)js.file_bytes, file_size());
    assert_true(file_size() > 8 && before > 8);
    replay_into(cw2, &st, T0 + 121 * MIN);
    assert_int_equal(st.images, 5);
    assert_same_store(cw, cw2);
    /* appends continue in the rewritten file */
    fill(cw, T0 + 120 * MIN, 3);
    metric_journal_sync(j, err, sizeof(err));
    metric_journal_close(j);
    replay_into(cw3, &st, T0 + 124 * MIN);
    assert_int_equal(st.records, 3 * 5);
    assert_same_store(cw, cw3);
    sc_cw_destroy(cw);
    sc_cw_destroy(cw2);
    sc_cw_destroy(cw3);
}

static void test_metric_journal_import_refuses_malformed_images(void **state)
{
    struct sc_cw *cw = cw_new(), *cw2 = cw_new();
    struct cm_buf img;
    struct sc_error e;

    (void)state;
    fill(cw, T0, 5);
    image_of(cw, &img);
    /* every truncation of the first image is refused and changes nothing */
    for (size_t n = 0; n < 200; n += 7) {
        assert_int_not_equal(sc_metric_store_import(sc_cw_metrics(cw2), img.data, n, &e), SC_OK);
        assert_int_equal(sc_metric_store_count(sc_cw_metrics(cw2)), 0);
    }
    cm_buf_cleanup(&img);
    sc_cw_destroy(cw);
    sc_cw_destroy(cw2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_metric_journal_replay_restores_the_store, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_metric_journal_torn_tail_is_dropped, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_metric_journal_corrupt_record_in_the_middle_stops_replay, setup, teardown),
        cmocka_unit_test_setup_teardown(test_metric_journal_malformed_record_stops_replay, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_metric_journal_damaged_last_record_is_a_torn_tail,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_metric_journal_not_a_journal_is_refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_metric_journal_retention_applies_at_replay, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_metric_journal_compaction_rewrites_from_the_store,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_metric_journal_import_refuses_malformed_images, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
