/* scaler/ec2_internal.h: what ec2.c and the resource files beside it share; not public.
 *   ec2.c           small helpers, what the Describe calls share, records, create / destroy,
 *                   data plane, time
 *   ec2_tags.c      tag sets, tags on resources
 *   ec2_vpc.c       CIDR, VPCs and subnets
 *   ec2_sg.c        security groups and their rules, network interfaces
 *   ec2_catalog.c   zones, instance types, images
 *   ec2_template.c  launch templates
 *   ec2_instance.c  instances
 *   ec2_save.c      save / load
 *
 * The records hold their public view first (v, the ec2.h struct callers see), with its
 * strings pointing into the record. The helpers shared across files carry the ec2_ prefix
 * (they are extern symbols of libscaler); their contracts are the comments above their
 * definitions. */
#ifndef SCALER_EC2_INTERNAL_H
#define SCALER_EC2_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "scaler/ec2.h"
#include "scaler/rng.h"
#include "scaler/str.h"

#define MAX_ZONES 16 /* the default VPC has room for 16 /20 subnets */

/* --- tags (ec2_tags.c) ------------------------------------------------------------------------ */

struct tagset {
    struct sc_ec2_tag *v; /* key/value strings owned (allocated) */
    int n, cap;
};

/* --- Describe calls: what they share (ec2.c) -------------------------------------------------- */

/* Whether record rec meets filter f, f being one of its kind's known (non-tag) names. */
typedef int filter_fn(const void *rec, const struct sc_ec2_filter *f);

/* A record kind as its Describe call checks a request: the filter names it knows, whether
 * tag filters apply, whether it holds an id, and its error for an id it does not hold. */
struct kind {
    const char *const *known; /* NULL-ended */
    int tags;
    int (*holds)(const struct sc_ec2 *ec2, const char *id);
    enum sc_status (*unknown)(const char *id, struct sc_error *err);
};

/* --- records ---------------------------------------------------------------------------------- */

struct zone {
    struct sc_ec2_zone v;
    char name[64];
    char id[48];
    int available;
};

struct vpc {
    struct sc_ec2_vpc v;
    char sg_id[SC_EC2_ID_LEN]; /* its default security group's id */
    char id[SC_EC2_ID_LEN];
    char cidr[20];
    char dhcp[SC_EC2_ID_LEN];
    uint32_t base;
    int prefix;
    struct tagset tags;
};

struct subnet {
    struct sc_ec2_subnet v;
    char id[SC_EC2_ID_LEN];
    char cidr[20];
    char *arn;
    uint32_t base;
    int prefix;
    const struct zone *zone;
    const struct vpc *vpc;
    struct tagset tags;
};

/* A security group; its rules' strings are owned (the views' const char * point at
 * allocations). */
struct sg {
    struct sc_ec2_security_group v;
    char id[SC_EC2_ID_LEN];
    char vpc_id[SC_EC2_ID_LEN];
    char *name, *desc;
    struct sc_ec2_sg_rule *in, *out;
    int nin, capin, nout, capout;
    int is_default; /* the VPC's "default" group */
    struct tagset tags;
};

/* A requester-managed network interface (see ec2.h). */
struct eni {
    struct sc_ec2_network_interface v;
    char id[SC_EC2_ID_LEN];
    char attach_id[SC_EC2_ID_LEN + 8];
    char ip[20];
    char dns[96];
    char mac[24];
    char *desc, *requester;
    char **groups;
    int ngroups;
    const struct subnet *subnet;
};

struct resv;

struct inst {
    struct sc_ec2_instance v;
    char id[SC_EC2_ID_LEN];
    char transition[64];
    char dns[64];
    char *instance_type, *image_id, *key_name, *user_data, *lc_name, *lt_id, *lt_name;
    struct tagset tags;
    struct resv *resv;
    struct subnet *subnet;
    int64_t checks_ok_at_ms; /* when initializing turns ok */
};

struct resv {
    struct sc_ec2_reservation v;
    char id[SC_EC2_ID_LEN];
    const struct sc_ec2_instance **members;
    int n;
};

struct ltver {
    struct sc_ec2_lt_version v;
    char *desc;
    char *image_id, *instance_type, *key_name, *user_data;
    char **sgs;
    int nsgs;
    struct tagset tags;
    struct json_t *other; /* owned: the members stored as sent (sc_ec2_lt_data.other) */
};

struct lt {
    struct sc_ec2_launch_template v;
    char id[SC_EC2_ID_LEN];
    char *name;
    char *created_by;
    struct tagset tags;
    struct ltver **vers; /* version k at vers[k - 1] */
    int nvers, capvers;
};

struct sc_ec2 {
    char account[32];
    char region[32];
    uint64_t (*rand64)(void *ud);
    void *rand_ud;
    struct sc_rng rng;
    int64_t retention_ms;
    int64_t status_init_ms;
    int max_instances;
    int max_vcpus; /* sc_ec2_config.max_vcpus; 0: none */
    int strict_images;
    int (*host_room)(void *ud);
    void *host_ud;
    int placement_rr;

    struct zone zones[MAX_ZONES];
    const struct sc_ec2_zone *zone_views[MAX_ZONES];
    int nzones;

    struct vpc **vpcs;
    int nvpcs, capvpcs;
    struct subnet **subnets;
    int nsubnets, capsubnets;

    struct inst **insts;
    int ninsts, capinsts;
    /* id -> instance, open addressing with linear probing; power-of-two size, at most
     * half full (sized when instances are created, so lookups and removals never allocate) */
    struct inst **index;
    size_t index_cap;
    struct resv **resvs;
    int nresvs, capresvs;

    struct lt **lts;
    int nlts, caplts;
    struct sg **sgs; /* creation order */
    int nsgs, capsgs;
    struct eni **enis; /* creation order */
    int nenis, capenis;
    uint64_t generation; /* sc_ec2_generation(): bumped by every change to an instance record */
};

/* The record lists of an ec2, apart: what a load builds before it replaces the (fresh)
 * records, and what destroy frees. */
struct recs {
    struct vpc **vpcs;
    int nvpcs;
    struct subnet **subnets;
    int nsubnets;
    struct inst **insts;
    int ninsts;
    struct resv **resvs;
    int nresvs;
    struct lt **lts;
    int nlts;
    struct sg **sgs;
    int nsgs;
    struct eni **enis;
    int nenis;
};

/* The reasons an instance can carry: one row of ec2_reason_pairs each (ec2_instance.c). */
enum reason { REASON_USER, REASON_LOST };

/* --- helpers, by the file that defines them --------------------------------------------------- */

/* ec2.c */
int ec2_id_valid(const char *s, const char *prefix);
int ec2_values_match(const struct sc_ec2_filter *f, const char *v);
enum sc_status ec2_check_filters(const struct sc_ec2_filter *f, int n, const char *const *known,
                                 int tags, struct sc_error *err);
int ec2_listed(const char *const *ids, int nids, const char *s);
int ec2_filters_pass(filter_fn *match, const void *rec, const struct tagset *tags,
                     const struct sc_ec2_filter *filters, int nfilters);
enum sc_status ec2_describe_check(const struct sc_ec2 *ec2, const struct kind *k,
                                  const char *const *ids, int nids,
                                  const struct sc_ec2_filter *filters, int nfilters, int *nout,
                                  struct sc_error *err);
int ec2_grow(void *arrp, int n, int *cap);
void ec2_make_id(struct sc_ec2 *ec2, const char *prefix, char out[SC_EC2_ID_LEN]);
void ec2_inst_free(struct inst *in);
void ec2_ltver_free(struct ltver *v);
void ec2_lt_free(struct lt *t);
void ec2_resv_free(struct resv *r);
struct recs ec2_recs_of(const struct sc_ec2 *ec2);
void ec2_recs_free(struct recs *d);

/* ec2_tags.c */
void ec2_tagset_free(struct tagset *t);
int ec2_tagset_set(struct tagset *t, const char *key, const char *value);
int ec2_tagset_copy(struct tagset *dst, const struct sc_ec2_tag *tags, int n);
int ec2_tags_filter(const struct tagset *t, const struct sc_ec2_filter *f);
enum sc_status ec2_check_tags(const struct sc_ec2_tag *tags, int n, int allow_aws,
                              struct sc_error *err);

/* ec2_vpc.c */
int ec2_cidr_parse(const char *s, int lo, int hi, uint32_t *base, int *prefix);
void ec2_vpc_sync(struct vpc *v);
void ec2_subnet_sync(struct subnet *s);
void ec2_vpc_link(const struct sc_ec2 *ec2, struct vpc *v);
void ec2_subnet_link(const struct sc_ec2 *ec2, struct subnet *s);
struct vpc *ec2_vpc_new(struct sc_ec2 *ec2, uint32_t base, int prefix, int is_default);
struct subnet *ec2_subnet_new(struct sc_ec2 *ec2, const struct vpc *vpc, uint32_t base, int prefix,
                              const struct zone *z, int is_default);
struct vpc *ec2_vpc_in(struct vpc *const *vpcs, int n, const char *id);
struct subnet *ec2_subnet_in(struct subnet *const *subnets, int n, const char *id);
const struct vpc *ec2_vpc_find(const struct sc_ec2 *ec2, const char *id);
const struct subnet *ec2_subnet_find(const struct sc_ec2 *ec2, const char *id);
enum sc_status ec2_vpc_unknown(const char *id, struct sc_error *err);
enum sc_status ec2_subnet_unknown(const char *id, struct sc_error *err);
struct subnet *ec2_default_subnet(const struct sc_ec2 *ec2, const char *zone_name);

/* ec2_sg.c */
struct sg *ec2_sg_find(const struct sc_ec2 *ec2, const char *id);
struct sg *ec2_sg_make(const struct sc_ec2 *ec2, const char *id, const char *vpc_id,
                       const char *name, const char *desc);
struct sg *ec2_sg_default_make(const struct sc_ec2 *ec2, const struct vpc *v);
struct sg *ec2_sg_default_new(struct sc_ec2 *ec2, const struct vpc *v);
void ec2_sg_sync(struct sg *g);
void ec2_sg_free(struct sg *g);
void ec2_eni_free(struct eni *e);
int ec2_sg_rule_set(struct sc_ec2_sg_rule *r, const char *proto, int from, int to,
                    enum sc_ec2_peer kind, const char *peer, const char *user, const char *desc);
void ec2_sg_rule_free(struct sc_ec2_sg_rule *r);
int ec2_sg_rule_add(struct sg *g, int egress, const struct sc_ec2_sg_rule *r);

/* ec2_catalog.c */
const struct zone *ec2_zone_find(const struct sc_ec2 *ec2, const char *name);
enum sc_status ec2_zone_unknown(const char *name, struct sc_error *err);
enum sc_status ec2_check_image(const char *id, struct sc_error *err);

/* ec2_template.c */
const struct lt *ec2_lt_find_id(const struct sc_ec2 *ec2, const char *id);
enum sc_status ec2_lt_lookup(const struct sc_ec2 *ec2, const char *id, const char *name,
                             const struct lt **out, struct sc_error *err);
enum sc_status ec2_lt_version(const struct lt *t, const char *version, const struct ltver **out,
                              struct sc_error *err);
void ec2_ltver_link(struct ltver *v, const struct lt *t, long number);
void ec2_lt_sync(struct lt *t);

/* ec2_instance.c */
const struct inst *ec2_inst_find(const struct sc_ec2 *ec2, const char *id);
void ec2_index_put(struct sc_ec2 *ec2, struct inst *in);
int ec2_index_reserve(struct sc_ec2 *ec2, size_t n);
void ec2_index_del(struct sc_ec2 *ec2, const struct inst *in);
struct inst *ec2_inst_mut(struct sc_ec2 *ec2, const char *id);
void ec2_inst_sync(struct inst *in);
void ec2_inst_link(const struct sc_ec2 *ec2, struct inst *in);
void ec2_set_state(struct inst *in, enum sc_ec2_state st, int64_t now_ms);
extern const char *const ec2_reason_pairs[REASON_LOST + 1][2];
void ec2_set_reason(struct inst *in, const char *what, enum reason r, int64_t now_ms);
void ec2_clear_reason(struct inst *in);
enum sc_status ec2_check_ids(const struct sc_ec2 *ec2, const char *const *ids, int nids,
                             struct sc_error *err);

#endif
