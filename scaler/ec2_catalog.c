/* scaler/ec2_catalog.c: availability zones (their state and outages) and the catalogue:
 * instance types and images, with their Describe calls. */
#include "scaler/ec2.h"

#include <stdio.h>
#include <string.h>

#include "scaler/ec2_internal.h"

/* --- zones ------------------------------------------------------------------------------------ */

int sc_ec2_zone_count(const struct sc_ec2 *ec2)
{
    return ec2->nzones;
}

const struct sc_ec2_zone *sc_ec2_zone_at(const struct sc_ec2 *ec2, int i)
{
    if (i < 0 || i >= ec2->nzones)
        return NULL;
    return &ec2->zones[i].v;
}

const struct zone *ec2_zone_find(const struct sc_ec2 *ec2, const char *name)
{
    for (int i = 0; name && i < ec2->nzones; i++) {
        if (strcmp(ec2->zones[i].name, name) == 0)
            return &ec2->zones[i];
    }
    return NULL;
}

const struct sc_ec2_zone *sc_ec2_zone_find(const struct sc_ec2 *ec2, const char *zone_name)
{
    const struct zone *z = ec2_zone_find(ec2, zone_name);

    return z ? &z->v : NULL;
}

static int zone_holds(const struct sc_ec2 *ec2, const char *name)
{
    return ec2_zone_find(ec2, name) != NULL;
}

enum sc_status ec2_zone_unknown(const char *name, struct sc_error *err)
{
    return sc_fail(err, SC_ERR_INVALID_PARAMETER_VALUE, "Invalid availability zone: [%s]", name);
}

static int zone_match(const void *rec, const struct sc_ec2_filter *f)
{
    const struct sc_ec2_zone *z = rec;

    return ec2_values_match(f, strcmp(f->name, "zone-name") == 0 ? z->zone_name
                               : strcmp(f->name, "zone-id") == 0 ? z->zone_id
                               : strcmp(f->name, "state") == 0   ? z->state
                                                                 : z->region_name);
}

enum sc_status sc_ec2_describe_zones(const struct sc_ec2 *ec2, const char *const *names, int nnames,
                                     const struct sc_ec2_filter *filters, int nfilters,
                                     const struct sc_ec2_zone **out, int *nout,
                                     struct sc_error *err)
{
    static const char *const known[] = { "zone-name", "zone-id", "state", "region-name", NULL };
    static const struct kind k = { known, 0, zone_holds, ec2_zone_unknown };
    enum sc_status st = ec2_describe_check(ec2, &k, names, nnames, filters, nfilters, nout, err);

    for (int i = 0; st == SC_OK && i < ec2->nzones; i++) {
        const struct sc_ec2_zone *z = &ec2->zones[i].v;

        if (ec2_listed(names, nnames, z->zone_name) &&
            ec2_filters_pass(zone_match, z, NULL, filters, nfilters))
            out[(*nout)++] = z;
    }
    return st;
}

int sc_ec2_zone_set_available(struct sc_ec2 *ec2, const char *zone_name, int available)
{
    struct zone *z = (struct zone *)ec2_zone_find(ec2, zone_name);

    if (!z)
        return -1;
    z->available = available != 0;
    z->v.state = z->available ? "available" : "impaired";
    return 0;
}

int sc_ec2_zone_outage(struct sc_ec2 *ec2, const char *zone_name, int64_t now_ms, const char **ids,
                       int cap)
{
    int n = 0;

    if (sc_ec2_zone_set_available(ec2, zone_name, 0) < 0)
        return -1;
    for (int i = 0; i < ec2->ninsts; i++) {
        struct inst *in = ec2->insts[i];

        if ((in->v.state != SC_EC2_PENDING && in->v.state != SC_EC2_RUNNING) ||
            !in->v.availability_zone || strcmp(in->v.availability_zone, zone_name) != 0)
            continue;
        sc_ec2_instance_lost(ec2, in->v.instance_id, now_ms);
        if (n < cap)
            ids[n] = in->v.instance_id;
        n++;
    }
    return n;
}

/* --- catalogue -------------------------------------------------------------------------------- */

/* Sorted by name (strcmp). The last column is the On-Demand Linux price in us-east-1, USD
 * per hour (https://aws.amazon.com/ec2/pricing/on-demand/; previous generation m1:
 * https://aws.amazon.com/ec2/previous-generation/), used for every region. */
static const struct sc_ec2_instance_type types[] = {
    { "c5.2xlarge", 8, 16384, 4, "x86_64", 0, 1, 0.34 },
    { "c5.large", 2, 4096, 1, "x86_64", 0, 1, 0.085 },
    { "c5.xlarge", 4, 8192, 2, "x86_64", 0, 1, 0.17 },
    { "m1.large", 2, 7680, 2, "x86_64", 0, 0, 0.175 },
    { "m1.medium", 1, 3788, 1, "x86_64", 0, 0, 0.087 },
    { "m1.small", 1, 1740, 1, "x86_64", 0, 0, 0.044 },
    { "m1.xlarge", 4, 15360, 4, "x86_64", 0, 0, 0.35 },
    { "m5.2xlarge", 8, 32768, 4, "x86_64", 0, 1, 0.384 },
    { "m5.large", 2, 8192, 1, "x86_64", 0, 1, 0.096 },
    { "m5.xlarge", 4, 16384, 2, "x86_64", 0, 1, 0.192 },
    { "t2.medium", 2, 4096, 2, "x86_64", 1, 1, 0.0464 },
    { "t2.micro", 1, 1024, 1, "x86_64", 1, 1, 0.0116 },
    { "t2.nano", 1, 512, 1, "x86_64", 1, 1, 0.0058 },
    { "t2.small", 1, 2048, 1, "x86_64", 1, 1, 0.023 },
    { "t3.large", 2, 8192, 1, "x86_64", 1, 1, 0.0832 },
    { "t3.medium", 2, 4096, 1, "x86_64", 1, 1, 0.0416 },
    { "t3.micro", 2, 1024, 1, "x86_64", 1, 1, 0.0104 },
    { "t3.nano", 2, 512, 1, "x86_64", 1, 1, 0.0052 },
    { "t3.small", 2, 2048, 1, "x86_64", 1, 1, 0.0208 },
};
#define NTYPES ((int)(sizeof(types) / sizeof(types[0])))

int sc_ec2_instance_type_count(void)
{
    return NTYPES;
}

const struct sc_ec2_instance_type *sc_ec2_instance_type_at(int i)
{
    return i >= 0 && i < NTYPES ? &types[i] : NULL;
}

const struct sc_ec2_instance_type *sc_ec2_instance_type_find(const char *name)
{
    for (int i = 0; name && i < NTYPES; i++) {
        if (strcmp(types[i].instance_type, name) == 0)
            return &types[i];
    }
    return NULL;
}

static int type_holds(const struct sc_ec2 *ec2, const char *name)
{
    (void)ec2;
    return sc_ec2_instance_type_find(name) != NULL;
}

static enum sc_status type_unknown(const char *name, struct sc_error *err)
{
    return sc_fail(err, SC_ERR_INVALID_INSTANCE_TYPE,
                   "The following supplied instance types do not exist: [%s]", name);
}

static int type_match(const void *rec, const struct sc_ec2_filter *f)
{
    const struct sc_ec2_instance_type *t = rec;
    char vcpus[16];

    snprintf(vcpus, sizeof(vcpus), "%d", t->vcpus);
    return ec2_values_match(f, strcmp(f->name, "instance-type") == 0 ? t->instance_type
                               : strcmp(f->name, "vcpu-info.default-vcpus") == 0
                                   ? vcpus
                                   : (t->current_generation ? "true" : "false"));
}

enum sc_status sc_ec2_describe_instance_types(const char *const *names, int nnames,
                                              const struct sc_ec2_filter *filters, int nfilters,
                                              const struct sc_ec2_instance_type **out, int *nout,
                                              struct sc_error *err)
{
    static const char *const known[] = { "instance-type", "vcpu-info.default-vcpus",
                                         "current-generation", NULL };
    static const struct kind k = { known, 0, type_holds, type_unknown };
    enum sc_status st = ec2_describe_check(NULL, &k, names, nnames, filters, nfilters, nout, err);

    for (int i = 0; st == SC_OK && i < NTYPES; i++) {
        const struct sc_ec2_instance_type *t = &types[i];

        if (ec2_listed(names, nnames, t->instance_type) &&
            ec2_filters_pass(type_match, t, NULL, filters, nfilters))
            out[(*nout)++] = t;
    }
    return st;
}

static const struct sc_ec2_image images[] = {
    { "ami-0c02fb55956c7d316", "amzn2-ami-kernel-5.10-hvm-2.0.20220606.1-x86_64-gp2",
      "Amazon Linux 2 Kernel 5.10 AMI 2.0.20220606.1 x86_64 HVM gp2", "x86_64", "137112412989",
      "amazon", "Linux/UNIX", "/dev/xvda", "2022-06-09T00:00:00.000Z" },
    { "ami-0e2c8caa4b6378d8c", "ubuntu/images/hvm-ssd/ubuntu-noble-24.04-amd64-server-20241109",
      "Canonical, Ubuntu, 24.04, amd64 noble image", "x86_64", "099720109477", NULL, "Linux/UNIX",
      "/dev/sda1", "2024-11-09T00:00:00.000Z" },
    { "ami-0fff1b9a61dec8a5f", "al2023-ami-2023.6.20241121.0-kernel-6.1-x86_64",
      "Amazon Linux 2023 AMI 2023.6.20241121.0 x86_64 HVM kernel-6.1", "x86_64", "137112412989",
      "amazon", "Linux/UNIX", "/dev/xvda", "2024-11-21T00:00:00.000Z" },
    { "ami-12c6146b", "amzn-ami-hvm-2016.09.0.20160923-x86_64-gp2",
      "Amazon Linux AMI 2016.09.0.20160923 x86_64 HVM GP2", "x86_64", "137112412989", "amazon",
      "Linux/UNIX", "/dev/xvda", "2016-09-23T00:00:00.000Z" },
};
#define NIMAGES ((int)(sizeof(images) / sizeof(images[0])))

int sc_ec2_image_count(void)
{
    return NIMAGES;
}

const struct sc_ec2_image *sc_ec2_image_at(int i)
{
    return i >= 0 && i < NIMAGES ? &images[i] : NULL;
}

const struct sc_ec2_image *sc_ec2_image_find(const char *image_id)
{
    for (int i = 0; image_id && i < NIMAGES; i++) {
        if (strcmp(images[i].image_id, image_id) == 0)
            return &images[i];
    }
    return NULL;
}

enum sc_status ec2_check_image(const char *id, struct sc_error *err)
{
    if (!ec2_id_valid(id, "ami-"))
        return sc_fail(err, SC_ERR_AMI_ID_MALFORMED, "Invalid id: \"%s\" (expecting \"ami-...\")",
                       id ? id : "");
    return SC_OK;
}

static int image_holds(const struct sc_ec2 *ec2, const char *id)
{
    (void)ec2;
    return sc_ec2_image_find(id) != NULL;
}

/* An id not in the catalogue: malformed, or well-formed and unknown. */
static enum sc_status image_unknown(const char *id, struct sc_error *err)
{
    enum sc_status st = ec2_check_image(id, err);

    if (st != SC_OK)
        return st;
    return sc_fail(err, SC_ERR_AMI_ID_NOT_FOUND, "The image id '[%s]' does not exist", id);
}

static int image_match(const void *rec, const struct sc_ec2_filter *f)
{
    const struct sc_ec2_image *im = rec;

    return ec2_values_match(f, strcmp(f->name, "image-id") == 0       ? im->image_id
                               : strcmp(f->name, "name") == 0         ? im->name
                               : strcmp(f->name, "architecture") == 0 ? im->architecture
                               : strcmp(f->name, "owner-id") == 0     ? im->owner_id
                                                                      : im->owner_alias);
}

enum sc_status sc_ec2_describe_images(const char *const *ids, int nids,
                                      const struct sc_ec2_filter *filters, int nfilters,
                                      const struct sc_ec2_image **out, int *nout,
                                      struct sc_error *err)
{
    static const char *const known[] = { "image-id",    "name",     "architecture",
                                         "owner-alias", "owner-id", NULL };
    static const struct kind k = { known, 0, image_holds, image_unknown };
    enum sc_status st = ec2_describe_check(NULL, &k, ids, nids, filters, nfilters, nout, err);

    for (int i = 0; st == SC_OK && i < NIMAGES; i++) {
        const struct sc_ec2_image *im = &images[i];

        if (ec2_listed(ids, nids, im->image_id) &&
            ec2_filters_pass(image_match, im, NULL, filters, nfilters))
            out[(*nout)++] = im;
    }
    return st;
}
