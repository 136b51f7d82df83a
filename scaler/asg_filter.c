/* scaler/asg_filter.c: DescribeAutoScalingGroups Filters (asg_filter.h). */
#include "scaler/asg_filter.h"

#include <string.h>

enum { F_KEY, F_VALUE, F_TAG, F_BAD };

static int filter_kind(const char *name)
{
    if (!name)
        return F_BAD;
    if (strcmp(name, "tag-key") == 0)
        return F_KEY;
    if (strcmp(name, "tag-value") == 0)
        return F_VALUE;
    if (strncmp(name, "tag:", 4) == 0 && name[4])
        return F_TAG;
    return F_BAD;
}

enum sc_status sc_asg_filters_check(const struct sc_asg_filter *f, int n, struct sc_error *err)
{
    for (int i = 0; i < n; i++) {
        if (!f[i].name)
            return sc_fail(err, SC_ERR_VALIDATION, "Filter name is required.");
        if (filter_kind(f[i].name) == F_BAD)
            return sc_fail(err, SC_ERR_VALIDATION,
                           "Invalid filter name: %s. Valid filter names are tag-key, tag-value "
                           "and tag:<key>.",
                           f[i].name);
    }
    return SC_OK;
}

static int value_in(const struct sc_asg_filter *f, const char *v)
{
    for (int k = 0; k < f->nvalues; k++)
        if (f->values[k] && strcmp(f->values[k], v ? v : "") == 0)
            return 1;
    return 0;
}

/* One filter: some tag of g matches it. */
static int passes(const struct sc_asg_group_info *g, const struct sc_asg_filter *f)
{
    int kind = filter_kind(f->name);

    for (int t = 0; t < g->ntags; t++) {
        const struct sc_asg_tag *tag = &g->tags[t];

        if (kind == F_KEY && value_in(f, tag->key))
            return 1;
        if (kind == F_VALUE && value_in(f, tag->value))
            return 1;
        if (kind == F_TAG && strcmp(tag->key, f->name + 4) == 0 && value_in(f, tag->value))
            return 1;
    }
    return 0;
}

int sc_asg_group_matches_filters(const struct sc_asg_group_info *g, const struct sc_asg_filter *f,
                                 int n)
{
    for (int i = 0; i < n; i++)
        if (!passes(g, &f[i]))
            return 0;
    return 1;
}
