/* tests/unit/emulator/test_state.c: emulator/state.c, the state file's writer: reading
 * (absent, corrupt, truncated, unknown version: clear errors, file untouched), the group
 * commit (tickets wait until a commit and its write on the writer thread, one write covers
 * many; a second commit waits for the write in flight), writers' sync hooks and
 * their failure (tickets fail, nothing acknowledged), clock-driven writes skipped when
 * only clocks moved. */
#include "emulator/state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

struct fixture {
    char dir[64];
    char path[128];
    int counter; /* goes into the snapshot */
    int clock;   /* a clock key: changes do not make a write due */
    int snapshots;
};

static json_t *snap(void *ud)
{
    struct fixture *f = ud;
    char when[32];

    f->snapshots++;
    snprintf(when, sizeof(when), "t%d", f->clock);
    return json_pack("{s:i,s:s,s:i,s:{s:i}}", "version", STATE_VERSION, "saved_at", when, "counter",
                     f->counter, "w", "last_ms", f->clock);
}

static void fixture_init(struct fixture *f)
{
    memset(f, 0, sizeof(*f));
    snprintf(f->dir, sizeof(f->dir), "/tmp/test_state.XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    snprintf(f->path, sizeof(f->path), "%s/state.json", f->dir);
}

static void fixture_done(struct fixture *f)
{
    char tmp[160];

    snprintf(tmp, sizeof(tmp), "%s.tmp", f->path);
    unlink(tmp);
    unlink(f->path);
    rmdir(f->dir);
}

static void put_file(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");

    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
}

static int read_counter(const char *path)
{
    json_t *doc = NULL;
    char err[256];
    int v;

    assert_int_equal(state_read(path, &doc, err, sizeof(err)), 1);
    v = (int)json_integer_value(json_object_get(doc, "counter"));
    json_decref(doc);
    return v;
}

static void test_state_read_errors(void **unused)
{
    static const struct {
        const char *text;
        const char *want;
    } bad[] = {
        { "", "not JSON" },
        { "{\"version\": 1, \"worlds\": [", "not JSON" },
        { "[1,2]", "must be a JSON object" },
        { "{\"worlds\": []}", "no \"version\"" },
        { "{\"version\": 7}", "unknown version 7" },
        { "{\"version\": 1, \"version\": 1}", "not JSON" },
    };
    struct fixture f;
    json_t *doc = (json_t *)1;
    char err[256];

    (void)unused;
    fixture_init(&f);
    assert_int_equal(state_read(f.path, &doc, err, sizeof(err)), 0);
    assert_null(doc);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct stat a, b;

        put_file(f.path, bad[i].text);
        assert_int_equal(stat(f.path, &a), 0);
        err[0] = '\0';
        assert_int_equal(state_read(f.path, &doc, err, sizeof(err)), -1);
        assert_null(doc);
        assert_non_null(strstr(err, f.path));
        assert_non_null(strstr(err, bad[i].want));
        assert_int_equal(stat(f.path, &b), 0);
        assert_int_equal(a.st_size, b.st_size);
    }
    put_file(f.path, "{\"version\": 1, \"worlds\": []}");
    assert_int_equal(state_read(f.path, &doc, err, sizeof(err)), 1);
    assert_non_null(doc);
    json_decref(doc);
    fixture_done(&f);
}

static void test_state_group_commit(void **unused)
{
    struct fixture f;
    struct state *st;
    struct state_stats ss;
    char err[256];
    uint64_t t1, t2;

    (void)unused;
    fixture_init(&f);
    st = state_create(f.path, snap, &f, err, sizeof(err));
    assert_non_null(st);
    assert_int_equal(state_commit(st, 0), 0); /* nothing waits */
    assert_int_equal(state_next_due_ms(st, 0), -1);
    f.counter = 1;
    t1 = state_change(st, STATE_SNAPSHOT);
    f.counter = 2;
    t2 = state_change(st, STATE_SNAPSHOT);
    assert_true(state_has_waiters(st));
    assert_int_equal(state_ticket(st, t1), STATE_PENDING);
    assert_int_equal(state_next_due_ms(st, 0), 0);
    assert_int_equal(state_commit(st, 0), 1);
    if (state_in_flight(st)) {
        uint64_t t3 = state_change(st, STATE_SNAPSHOT);

        assert_int_equal(state_commit(st, 0), 0); /* one write at a time */
        assert_int_equal(state_next_due_ms(st, 0), -1);
        state_drain(st);
        assert_int_equal(state_ticket(st, t3), STATE_PENDING); /* the next commit's */
        assert_int_equal(state_commit(st, 0), 1);
    }
    state_drain(st);
    assert_int_equal(state_ticket(st, t1), STATE_DURABLE);
    assert_int_equal(state_ticket(st, t2), STATE_DURABLE);
    assert_false(state_has_waiters(st));
    state_get_stats(st, &ss);
    assert_true(ss.snapshots >= 1 && ss.snapshots <= 2); /* one write for t1 and t2 */
    assert_int_equal(read_counter(f.path), 2);
    state_destroy(st);
    fixture_done(&f);
}

/* A read is held behind the last ticket issued (docs/state.md "Reads and durability"): it
 * stays pending until the commit covering every change before it is done, whether or
 * not a write was already in flight; with nothing waiting it is not pending at all. */
static void test_state_read_waits_for_last_ticket(void **unused)
{
    struct fixture f;
    struct state *st;
    char err[256];
    uint64_t read;

    (void)unused;
    fixture_init(&f);
    st = state_create(f.path, snap, &f, err, sizeof(err));
    assert_non_null(st);
    assert_int_equal(state_last_ticket(st), 0);
    assert_int_equal(state_ticket(st, state_last_ticket(st)), STATE_DURABLE); /* not held */
    state_change(st, STATE_SNAPSHOT);
    assert_int_equal(state_commit(st, 0), 1);
    state_change(st, STATE_SNAPSHOT); /* after the write began: the next commit's */
    read = state_last_ticket(st);
    assert_int_equal(read, 2);
    assert_int_equal(state_ticket(st, read), STATE_PENDING);
    state_drain(st);
    if (state_ticket(st, read) == STATE_PENDING) {
        assert_int_equal(state_commit(st, 0), 1);
        state_drain(st);
    }
    assert_int_equal(state_ticket(st, read), STATE_DURABLE);
    assert_int_equal(state_ticket(st, state_last_ticket(st)), STATE_DURABLE);
    state_destroy(st);
    fixture_done(&f);
}

static void test_state_touch_skips_clocks(void **unused)
{
    struct fixture f;
    struct state *st;
    struct state_stats ss;
    char err[256];

    (void)unused;
    fixture_init(&f);
    st = state_create(f.path, snap, &f, err, sizeof(err));
    assert_non_null(st);
    state_touch(st);
    assert_int_equal(state_next_due_ms(st, 0), 0);
    assert_int_equal(state_commit(st, 0), 1); /* first clock-driven write */
    state_drain(st);
    f.clock = 5;
    state_touch(st);
    assert_int_equal(state_commit(st, 10), 0); /* not a second yet */
    assert_int_equal(state_next_due_ms(st, 10), STATE_IDLE_WRITE_MS - 10);
    assert_int_equal(state_commit(st, STATE_IDLE_WRITE_MS), 1);
    state_drain(st);
    state_get_stats(st, &ss);
    assert_int_equal(ss.snapshots, 1); /* only a clock moved: not written */
    f.counter = 9;
    state_touch(st);
    assert_int_equal(state_commit(st, 3 * STATE_IDLE_WRITE_MS), 1);
    state_drain(st);
    state_get_stats(st, &ss);
    assert_int_equal(ss.snapshots, 2);
    assert_int_equal(read_counter(f.path), 9);
    state_destroy(st);
    fixture_done(&f);
}

struct jw {
    int syncs;
    int fail;
};

static int jw_sync(void *ud, char *err, size_t errlen)
{
    struct jw *j = ud;

    j->syncs++;
    if (j->fail) {
        snprintf(err, errlen, "disk on fire");
        return -1;
    }
    return 0;
}

static void test_state_writer_sync(void **unused)
{
    struct fixture f;
    struct state *st;
    struct state_stats ss;
    struct jw j = { 0, 0 };
    struct state_writer w = { "journal", jw_sync, NULL, &j };
    char err[256];
    uint64_t t;

    (void)unused;
    fixture_init(&f);
    st = state_create(f.path, snap, &f, err, sizeof(err));
    assert_non_null(st);
    assert_int_equal(state_add_writer(st, &w), 0);
    t = state_change(st, STATE_JOURNAL);
    assert_int_equal(state_commit(st, 0), 1);
    state_drain(st);
    assert_int_equal(j.syncs, 1);
    assert_int_equal(state_ticket(st, t), STATE_DURABLE);
    state_get_stats(st, &ss);
    assert_int_equal(ss.snapshots, 0); /* journal-only: no snapshot */
    j.fail = 1;
    t = state_change(st, STATE_SNAPSHOT);
    assert_int_equal(state_commit(st, 0), -1);
    assert_int_equal(state_ticket(st, t), STATE_FAILED);
    assert_int_equal(access(f.path, F_OK), -1); /* nothing written */
    j.fail = 0;
    t = state_change(st, STATE_JOURNAL); /* the failed change is written with the next */
    assert_int_equal(state_commit(st, 0), 1);
    state_drain(st);
    assert_int_equal(state_ticket(st, t), STATE_DURABLE);
    assert_int_equal(read_counter(f.path), 0);
    state_destroy(st);
    fixture_done(&f);
}

static void test_state_create_bad_dir(void **unused)
{
    char err[256] = "";

    (void)unused;
    assert_null(state_create("/nonexistent-dir-xyz/state.json", snap, NULL, err, sizeof(err)));
    assert_non_null(strstr(err, "/nonexistent-dir-xyz/state.json"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_state_read_errors),
        cmocka_unit_test(test_state_group_commit),
        cmocka_unit_test(test_state_read_waits_for_last_ticket),
        cmocka_unit_test(test_state_touch_skips_clocks),
        cmocka_unit_test(test_state_writer_sync),
        cmocka_unit_test(test_state_create_bad_dir),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
