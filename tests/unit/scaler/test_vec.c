/* tests/unit/scaler/test_vec.c: the sorted registry every libscaler service keeps (vec.h):
 * names stay in strcmp order whatever order they arrive in, an absent name reports where it
 * would go, the capacity doubles from SC_VEC_FIRST_CAP, and removal keeps the order and
 * hands the element back. Checked against a plain sorted array of 2,000 random names. */
#include "scaler/vec.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

struct item {
    struct {
        char name[16];
    } info;
};

SC_SORTED_DEFINE(item_vec, struct item, info.name)

struct reg {
    struct item **v;
    int n, cap;
};

static struct item *item_new(const char *name)
{
    struct item *x = calloc(1, sizeof(*x));

    assert_non_null(x);
    snprintf(x->info.name, sizeof(x->info.name), "%s", name);
    return x;
}

/* Inserts name where find says it goes; returns its index. */
static int put(struct reg *r, const char *name)
{
    int i = item_vec_find(r->v, r->n, name);

    assert_true(i < 0);
    assert_int_equal(item_vec_insert(&r->v, &r->n, &r->cap, -i - 1, item_new(name)), 0);
    return -i - 1;
}

static void reg_free(struct reg *r)
{
    for (int i = 0; i < r->n; i++)
        free(r->v[i]);
    free(r->v);
}

static void assert_sorted(const struct reg *r)
{
    for (int i = 1; i < r->n; i++)
        assert_true(strcmp(r->v[i - 1]->info.name, r->v[i]->info.name) < 0);
}

static void test_vec_find_in_empty_is_insertion_point_zero(void **state)
{
    (void)state;
    assert_int_equal(item_vec_find(NULL, 0, "a"), -1);
}

static void test_vec_insert_keeps_strcmp_order(void **state)
{
    struct reg r = { 0 };
    const char *names[] = { "m", "b", "z", "a", "q", "B", "aa" };

    (void)state;
    for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
        put(&r, names[k]);
    assert_int_equal(r.n, 7);
    assert_sorted(&r);
    assert_string_equal(r.v[0]->info.name, "B"); /* strcmp: upper case first */
    assert_string_equal(r.v[1]->info.name, "a");
    assert_string_equal(r.v[2]->info.name, "aa");
    assert_int_equal(item_vec_find(r.v, r.n, "q"), 5);
    assert_int_equal(item_vec_find(r.v, r.n, "c"), -(4) - 1); /* between b and m */
    assert_int_equal(item_vec_find(r.v, r.n, "zz"), -(7) - 1);
    reg_free(&r);
}

static void test_vec_capacity_doubles_from_first_cap(void **state)
{
    struct reg r = { 0 };
    char name[16];

    (void)state;
    put(&r, "x0");
    assert_int_equal(r.cap, SC_VEC_FIRST_CAP);
    for (int i = 1; i <= SC_VEC_FIRST_CAP; i++) {
        snprintf(name, sizeof(name), "x%d", i);
        put(&r, name);
    }
    assert_int_equal(r.n, SC_VEC_FIRST_CAP + 1);
    assert_int_equal(r.cap, 2 * SC_VEC_FIRST_CAP);
    reg_free(&r);
}

static void test_vec_remove_returns_element_and_keeps_order(void **state)
{
    struct reg r = { 0 };
    struct item *x;

    (void)state;
    put(&r, "c");
    put(&r, "a");
    put(&r, "b");
    x = item_vec_remove(r.v, &r.n, 1);
    assert_string_equal(x->info.name, "b");
    free(x);
    assert_int_equal(r.n, 2);
    assert_string_equal(r.v[0]->info.name, "a");
    assert_string_equal(r.v[1]->info.name, "c");
    x = item_vec_remove(r.v, &r.n, 1); /* the last one */
    assert_string_equal(x->info.name, "c");
    free(x);
    assert_int_equal(item_vec_find(r.v, r.n, "c"), -2);
    reg_free(&r);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void test_vec_matches_sorted_reference(void **state)
{
    enum { N = 2000 };
    static char names[N][16];
    const char *ref[N];
    struct reg r = { 0 };
    uint64_t x = 0x9e3779b97f4a7c15ULL;
    int n = 0;

    (void)state;
    for (int k = 0; k < N; k++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        snprintf(names[k], sizeof(names[k]), "n%llu", (unsigned long long)(x % 100000));
        if (item_vec_find(r.v, r.n, names[k]) >= 0)
            continue; /* a repeat */
        put(&r, names[k]);
        ref[n++] = names[k];
    }
    qsort(ref, (size_t)n, sizeof(ref[0]), cmp_str);
    assert_int_equal(r.n, n);
    for (int k = 0; k < n; k++) {
        assert_string_equal(r.v[k]->info.name, ref[k]);
        assert_int_equal(item_vec_find(r.v, r.n, ref[k]), k);
    }
    /* remove every other one; the rest are still found where they now are */
    for (int k = n - 1; k >= 0; k -= 2)
        free(item_vec_remove(r.v, &r.n, k));
    assert_sorted(&r);
    for (int k = 0; k < r.n; k++)
        assert_int_equal(item_vec_find(r.v, r.n, r.v[k]->info.name), k);
    reg_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vec_find_in_empty_is_insertion_point_zero),
        cmocka_unit_test(test_vec_insert_keeps_strcmp_order),
        cmocka_unit_test(test_vec_capacity_doubles_from_first_cap),
        cmocka_unit_test(test_vec_remove_returns_element_and_keeps_order),
        cmocka_unit_test(test_vec_matches_sorted_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
