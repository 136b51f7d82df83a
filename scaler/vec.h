/* scaler/vec.h: arrays of pointers kept sorted by name, the one shape of libscaler's
 * registries (alarms, composite alarms, mute rules, dashboards, launch configurations,
 * groups): binary search, insertion that doubles the capacity, removal. One copy of each,
 * so every registry orders, finds and grows alike.
 *
 * SC_SORTED_DEFINE(prefix, type, key) defines, for an array `type **v` of n elements kept
 * in strcmp order of v[i]->key (key may be a member path such as info.name):
 *
 *   int prefix_find(type *const *v, int n, const char *name);
 *       the index of name, or -(insertion point) - 1 when absent
 *   int prefix_insert(type ***v, int *n, int *cap, int at, type *x);
 *       x at index at (0 <= at <= *n), the capacity doubled when full;
 *       0, or -1 on OOM with nothing changed
 *   type *prefix_remove(type **v, int *n, int at);
 *       v[at] taken out (not freed) and returned
 *
 * Header-only (static inline), like rec.h. */
#ifndef SCALER_VEC_H
#define SCALER_VEC_H

#include <stdlib.h>
#include <string.h>

/* the first capacity of a registry that grows from empty */
#define SC_VEC_FIRST_CAP 16

#define SC_SORTED_DEFINE(prefix, type, key)                                                        \
    static inline int prefix##_find(type *const *v, int n, const char *name)                       \
    {                                                                                              \
        int lo = 0, hi = n - 1;                                                                    \
                                                                                                   \
        while (lo <= hi) {                                                                         \
            int mid = lo + (hi - lo) / 2, c = strcmp(v[mid]->key, name);                           \
            if (c == 0)                                                                            \
                return mid;                                                                        \
            if (c < 0)                                                                             \
                lo = mid + 1;                                                                      \
            else                                                                                   \
                hi = mid - 1;                                                                      \
        }                                                                                          \
        return -lo - 1;                                                                            \
    }                                                                                              \
                                                                                                   \
    static inline int prefix##_insert(type ***v, int *n, int *cap, int at, type *x)                \
    {                                                                                              \
        if (*n == *cap) {                                                                          \
            int nc = *cap ? *cap * 2 : SC_VEC_FIRST_CAP;                                           \
            type **l = realloc(*v, (size_t)nc * sizeof(*l));                                       \
            if (!l)                                                                                \
                return -1;                                                                         \
            *v = l;                                                                                \
            *cap = nc;                                                                             \
        }                                                                                          \
        memmove(&(*v)[at + 1], &(*v)[at], (size_t)(*n - at) * sizeof(**v));                        \
        (*v)[at] = x;                                                                              \
        (*n)++;                                                                                    \
        return 0;                                                                                  \
    }                                                                                              \
                                                                                                   \
    static inline type *prefix##_remove(type **v, int *n, int at)                                  \
    {                                                                                              \
        type *x = v[at];                                                                           \
                                                                                                   \
        memmove(&v[at], &v[at + 1], (size_t)(*n - at - 1) * sizeof(*v));                           \
        (*n)--;                                                                                    \
        return x;                                                                                  \
    }

#endif
