/* scaler/ec2.h: EC2 records for one account and region (spec/aws-behavior.md section 2).
 *
 * struct sc_ec2 keeps instances, reservations, availability zones, the instance-type and
 * image catalogue, launch templates and their versions, and VPCs/subnets (a default VPC
 * with one default subnet per zone is made at create). It decides nothing about groups:
 * the asg side launches through sc_ec2_run_instances() and reads states back.
 *
 * Pure: no clock, no I/O; every entry point that changes state takes now_ms (epoch ms on
 * the caller's clock). Ids (i-, r-, lt-, vpc-, subnet- + 17 hex) come from the rand64
 * callback given at create (the world's seeded RNG), so same calls + same seed = same ids.
 *
 * Ownership: request strings are borrowed and copied when kept. Views returned by
 * find/at/describe are borrowed and stay valid until the next mutating call on the same
 * struct sc_ec2 (any call taking a non-const struct sc_ec2 *, including sc_ec2_step).
 * Callers that keep an instance across calls keep its id, not the pointer.
 *
 * Data plane (level-triggered, see scaler/world.h): after each step the caller compares
 * its world with the records:
 *   pending that it has not started  -> start it; when up sc_ec2_instance_running()
 *   shutting-down                    -> stop it;  then sc_ec2_instance_terminated()
 *   stopping                         -> stop it;  then sc_ec2_instance_stopped()
 *   died on its own                  -> sc_ec2_instance_lost()
 *   hung / unreachable               -> sc_ec2_instance_set_impaired(.., 1, ..)
 */
#ifndef SCALER_EC2_H
#define SCALER_EC2_H

#include <stddef.h>
#include <stdint.h>

#include "scaler/status.h"

struct json_t;

/* Longest id we make or accept ("subnet-" + 17 hex, "i-" + 17 hex), NUL included. */
#define SC_EC2_ID_LEN 32

/* Instance states; the values are AWS's state codes. */
enum sc_ec2_state {
    SC_EC2_PENDING = 0,
    SC_EC2_RUNNING = 16,
    SC_EC2_SHUTTING_DOWN = 32,
    SC_EC2_TERMINATED = 48,
    SC_EC2_STOPPING = 64,
    SC_EC2_STOPPED = 80,
};

/* "pending", "running", "shutting-down", "terminated", "stopping", "stopped"; "" if bad. */
const char *sc_ec2_state_name(enum sc_ec2_state s);
/* Parses a state name; -1 when unknown. */
int sc_ec2_state_parse(const char *name);

/* System/instance status check summary (DescribeInstanceStatus). */
enum sc_ec2_check {
    SC_EC2_CHECK_NOT_APPLICABLE = 0, /* "not-applicable": instance not running */
    SC_EC2_CHECK_INITIALIZING,       /* "initializing": running, checks not yet done */
    SC_EC2_CHECK_OK,                 /* "ok" */
    SC_EC2_CHECK_IMPAIRED,           /* "impaired" */
};
const char *sc_ec2_check_name(enum sc_ec2_check c);

struct sc_ec2_tag {
    const char *key;
    const char *value; /* "" when AWS shows an empty value */
};

/* One Filter.N of an EC2 Describe call: Name and its Values (any value matches; `*` and
 * `?` are wildcards as in AWS). */
struct sc_ec2_filter {
    const char *name;
    const char *const *values;
    int nvalues;
};

struct sc_ec2_config {
    const char *account_id;   /* NULL -> "123456789012" */
    const char *region;       /* NULL -> "us-east-1" */
    const char *const *zones; /* NULL or nzones == 0 -> <region>a, <region>b, <region>c */
    int nzones;
    /* Id source: each call returns 64 random bits. NULL -> an internal splitmix64
     * seeded with `seed` (tests); the world passes its sc_rng. */
    uint64_t (*rand64)(void *ud);
    void *rand_ud;
    uint64_t seed;
    /* How long terminated instances stay listed; 0 -> 3600000 (1 h). */
    int64_t terminated_retention_ms;
    /* How long status checks stay "initializing" after running; 0 = ok at once. */
    int64_t status_init_ms;
    /* Instance limit (non-terminated instances); 0 -> 10000. */
    int max_instances;
    /* 1: RunInstances accepts only the catalogue's images (InvalidAMIID.NotFound);
     * 0 (default): any well-formed ami- id, so scenarios may name their own. */
    int strict_images;
    /* The host's room: a bound shared by every world of one program (the emulator's
     * --max-instances), not an AWS quota. Returns how many more non-terminated instances
     * may launch now; a RunInstances that cannot get MinCount of them fails with
     * InsufficientInstanceCapacity "Insufficient capacity." (AWS's text when the hardware
     * is full), one that can gets at most that many. NULL: no such bound. */
    int (*host_room)(void *ud);
    void *host_ud;
    /* The account's running On-Demand vCPU limit in this Region (AWS's quota "Running
     * On-Demand Standard (A, C, D, H, I, M, R, T, Z) instances", the bucket of every type
     * in the catalogue): a RunInstances whose MinCount instances would take the vCPUs of
     * the pending and running instances past it fails with VcpuLimitExceeded (AWS's
     * text), one whose MaxCount would gets as many as fit. 0: no limit. */
    int max_vcpus;
};

struct sc_ec2;

/* Makes the records, the zones and the default VPC (172.31.0.0/16, one /20 default subnet
 * per zone). Returns NULL on bad config (more than 16 zones, empty or duplicate names) or OOM. */
struct sc_ec2 *sc_ec2_create(const struct sc_ec2_config *cfg);
void sc_ec2_destroy(struct sc_ec2 *ec2); /* NULL is a no-op */

const char *sc_ec2_account_id(const struct sc_ec2 *ec2);
/* Instances neither shutting-down nor terminated (what the instance limits count). */
int sc_ec2_live_count(const struct sc_ec2 *ec2);
const char *sc_ec2_region(const struct sc_ec2 *ec2);

/* Advances time: status checks leave "initializing", terminated instances older than the
 * retention vanish. Never allocates. Called from sc_world_step. */
void sc_ec2_step(struct sc_ec2 *ec2, int64_t now_ms);
/* Earliest time sc_ec2_step has something to do, or INT64_MAX. */
int64_t sc_ec2_next_due_ms(const struct sc_ec2 *ec2, int64_t now_ms);

/* --- availability zones (DescribeAvailabilityZones) ------------------------------------------- */

struct sc_ec2_zone {
    const char *zone_name; /* "us-east-1a" */
    const char *zone_id;   /* "use1-az1" style: <region abbrev>-az<n> */
    const char *region_name;
    const char *state; /* "available", or "impaired" while the fault hook took it down */
};

int sc_ec2_zone_count(const struct sc_ec2 *ec2);
const struct sc_ec2_zone *sc_ec2_zone_at(const struct sc_ec2 *ec2, int i); /* config order */
const struct sc_ec2_zone *sc_ec2_zone_find(const struct sc_ec2 *ec2, const char *zone_name);
/* DescribeAvailabilityZones: ZoneNames (unknown -> InvalidParameterValue
 * `Invalid availability zone: [x]`) and filters zone-name, zone-id, state, region-name.
 * out must hold sc_ec2_zone_count() entries. */
enum sc_status sc_ec2_describe_zones(const struct sc_ec2 *ec2, const char *const *names, int nnames,
                                     const struct sc_ec2_filter *filters, int nfilters,
                                     const struct sc_ec2_zone **out, int *nout,
                                     struct sc_error *err);
/* Fault hook (admin API "take an AZ down"): state "impaired" while down; RunInstances into
 * it then fails with InsufficientInstanceCapacity (and default placement skips it).
 * Returns 0, or -1 for an unknown zone. */
int sc_ec2_zone_set_available(struct sc_ec2 *ec2, const char *zone_name, int available);
/* The AZ-outage fault, one rule for both worlds (the simulator's `az_outage`, the
 * emulator's admin fault): the zone becomes unavailable (as above) and every instance in
 * it that is pending or running dies (sc_ec2_instance_lost: terminated,
 * Server.InternalError, status impaired). Writes up to cap ids of the dead (borrowed from
 * the records, valid until the next call that changes the instance list) so the caller
 * stops what runs them. Returns how many died (may exceed cap), or -1 for an unknown
 * zone. Bringing the zone back is sc_ec2_zone_set_available(.., 1). */
int sc_ec2_zone_outage(struct sc_ec2 *ec2, const char *zone_name, int64_t now_ms, const char **ids,
                       int cap);

/* --- catalogue: instance types and images ----------------------------------------------------- */

struct sc_ec2_instance_type {
    const char *instance_type; /* "t3.micro" */
    int vcpus;
    int memory_mib;
    int default_cores;
    const char *architecture; /* "x86_64" */
    int burstable;            /* 1 for t2/t3 */
    int current_generation;
    double on_demand_usd_per_hour; /* Linux, us-east-1 (the lowest-price strategy's order) */
};
int sc_ec2_instance_type_count(void);
/* The vCPUs of ec2's pending and running instances (what the vCPU limit counts). */
int sc_ec2_running_vcpus(const struct sc_ec2 *ec2);
const struct sc_ec2_instance_type *sc_ec2_instance_type_at(int i); /* sorted by name */
const struct sc_ec2_instance_type *sc_ec2_instance_type_find(const char *name);
/* DescribeInstanceTypes: InstanceTypes (unknown -> InvalidInstanceType
 * `The following supplied instance types do not exist: [x]`); filter instance-type,
 * vcpu-info.default-vcpus, current-generation. out holds sc_ec2_instance_type_count(). */
enum sc_status sc_ec2_describe_instance_types(const char *const *types, int ntypes,
                                              const struct sc_ec2_filter *filters, int nfilters,
                                              const struct sc_ec2_instance_type **out, int *nout,
                                              struct sc_error *err);

struct sc_ec2_image {
    const char *image_id; /* "ami-..." */
    const char *name;
    const char *description;
    const char *architecture;
    const char *owner_id; /* "137112412989" (amazon) */
    const char *owner_alias;
    const char *platform_details; /* "Linux/UNIX" */
    const char *root_device_name;
    const char *creation_date; /* ISO-8601 text */
};
int sc_ec2_image_count(void);
const struct sc_ec2_image *sc_ec2_image_at(int i);
const struct sc_ec2_image *sc_ec2_image_find(const char *image_id);
/* DescribeImages: ImageIds (malformed -> InvalidAMIID.Malformed, unknown ->
 * InvalidAMIID.NotFound `The image id '[ami-x]' does not exist`); filters image-id, name,
 * architecture, owner-alias. out holds sc_ec2_image_count(). */
enum sc_status sc_ec2_describe_images(const char *const *ids, int nids,
                                      const struct sc_ec2_filter *filters, int nfilters,
                                      const struct sc_ec2_image **out, int *nout,
                                      struct sc_error *err);

/* --- VPCs and subnets ------------------------------------------------------------------------- */

struct sc_ec2_vpc {
    const char *vpc_id;
    const char *cidr_block;
    const char *state; /* "available" */
    const char *owner_id;
    const char *dhcp_options_id;
    const char *instance_tenancy; /* "default" */
    int is_default;
    const struct sc_ec2_tag *tags;
    int ntags;
};

struct sc_ec2_subnet {
    const char *subnet_id;
    const char *subnet_arn;
    const char *vpc_id;
    const char *cidr_block;
    const char *availability_zone;
    const char *availability_zone_id;
    const char *state; /* "available" */
    const char *owner_id;
    int available_ip_address_count; /* size - 5, minus instances placed in it */
    int default_for_az;
    int map_public_ip_on_launch; /* 1 for default subnets */
    const struct sc_ec2_tag *tags;
    int ntags;
};

int sc_ec2_vpc_count(const struct sc_ec2 *ec2);
const struct sc_ec2_vpc *sc_ec2_vpc_at(const struct sc_ec2 *ec2, int i); /* creation order */
const struct sc_ec2_vpc *sc_ec2_vpc_find(const struct sc_ec2 *ec2, const char *vpc_id);
const struct sc_ec2_vpc *sc_ec2_default_vpc(const struct sc_ec2 *ec2);
int sc_ec2_subnet_count(const struct sc_ec2 *ec2);
const struct sc_ec2_subnet *sc_ec2_subnet_at(const struct sc_ec2 *ec2, int i);
const struct sc_ec2_subnet *sc_ec2_subnet_find(const struct sc_ec2 *ec2, const char *subnet_id);
/* The default subnet of a zone (the one AWS places into when no subnet is given). */
const struct sc_ec2_subnet *sc_ec2_default_subnet(const struct sc_ec2 *ec2, const char *zone_name);

/* CreateVpc: CidrBlock /16../28 (else InvalidVpc.Range `The CIDR 'x' is invalid.`),
 * tags optional. */
enum sc_status sc_ec2_create_vpc(struct sc_ec2 *ec2, const char *cidr_block,
                                 const struct sc_ec2_tag *tags, int ntags, int64_t now_ms,
                                 const struct sc_ec2_vpc **out, struct sc_error *err);
/* CreateSubnet: VpcId (InvalidVpcID.NotFound), CidrBlock inside the VPC's, /16../28
 * (InvalidSubnet.Range), not overlapping another subnet of the VPC (InvalidSubnet.Conflict),
 * AvailabilityZone optional (NULL -> first zone; unknown -> InvalidParameterValue). */
enum sc_status sc_ec2_create_subnet(struct sc_ec2 *ec2, const char *vpc_id, const char *cidr_block,
                                    const char *availability_zone, const struct sc_ec2_tag *tags,
                                    int ntags, int64_t now_ms, const struct sc_ec2_subnet **out,
                                    struct sc_error *err);
/* DescribeVpcs: VpcIds (unknown -> InvalidVpcID.NotFound `The vpc ID 'x' does not exist`),
 * filters vpc-id, cidr, cidr-block, is-default, state, tag:K, tag-key. out holds
 * sc_ec2_vpc_count(). */
enum sc_status sc_ec2_describe_vpcs(const struct sc_ec2 *ec2, const char *const *ids, int nids,
                                    const struct sc_ec2_filter *filters, int nfilters,
                                    const struct sc_ec2_vpc **out, int *nout, struct sc_error *err);
/* DescribeSubnets: SubnetIds (unknown -> InvalidSubnetID.NotFound
 * `The subnet ID 'x' does not exist`), filters subnet-id, vpc-id, availability-zone,
 * availability-zone-id, cidr-block, default-for-az, state, tag:K, tag-key, and AWS's
 * camel-case aliases availabilityZone, availabilityZoneId, cidrBlock, defaultForAz (the
 * Terraform provider's aws_subnet data source sends these). out holds
 * sc_ec2_subnet_count(). */
enum sc_status sc_ec2_describe_subnets(const struct sc_ec2 *ec2, const char *const *ids, int nids,
                                       const struct sc_ec2_filter *filters, int nfilters,
                                       const struct sc_ec2_subnet **out, int *nout,
                                       struct sc_error *err);

/* --- security groups (ec2_sg.c; docs/elb-classic.md section 3) ------------------------- */

/* Who a rule lets in (ingress) or out (egress). */
enum sc_ec2_peer {
    SC_EC2_PEER_CIDR,        /* IpRanges[].CidrIp */
    SC_EC2_PEER_CIDR6,       /* Ipv6Ranges[].CidrIpv6 */
    SC_EC2_PEER_GROUP,       /* UserIdGroupPairs[].GroupId */
    SC_EC2_PEER_PREFIX_LIST, /* PrefixListIds[].PrefixListId */
};

/* One rule: a protocol and port range with one peer. DescribeSecurityGroups shows the
 * rules of one protocol and ports together as one IpPermission. */
struct sc_ec2_sg_rule {
    const char *ip_protocol; /* "tcp", "udp", "icmp", "icmpv6", "-1" (all) or a number */
    int from_port;           /* -1 with "-1" (then neither port is shown) */
    int to_port;
    enum sc_ec2_peer peer_kind;
    const char *peer;        /* the CIDR, group id or prefix-list id */
    const char *peer_user;   /* group peers: the group's owner; else NULL */
    const char *description; /* NULL when none */
};

/* A rule as a request gives it (Authorize/Revoke): ports may be absent. */
struct sc_ec2_sg_rule_req {
    const char *ip_protocol;
    int has_from_port, from_port;
    int has_to_port, to_port;
    enum sc_ec2_peer peer_kind;
    const char *peer;
    const char *peer_user; /* UserIdGroupPairs[].UserId (NULL: the account) */
    const char *description;
};

/* Each VPC has its default security group (group name "default", inbound all traffic from
 * itself, outbound all IPv4 traffic); its id derives from the VPC's, so it costs no draw
 * from the RNG. Creation order. */
struct sc_ec2_security_group {
    const char *group_id; /* "sg-" + 17 hex */
    const char *group_name;
    const char *description;
    const char *vpc_id;
    const char *owner_id;
    const struct sc_ec2_sg_rule *ingress; /* in the order added */
    int ningress;
    const struct sc_ec2_sg_rule *egress;
    int negress;
    const struct sc_ec2_tag *tags;
    int ntags;
};
int sc_ec2_security_group_count(const struct sc_ec2 *ec2);
const struct sc_ec2_security_group *sc_ec2_security_group_at(const struct sc_ec2 *ec2, int i);
const struct sc_ec2_security_group *sc_ec2_security_group_find(const struct sc_ec2 *ec2,
                                                               const char *group_id);
/* The group named name in vpc_id (NULL: the default VPC), or NULL. */
const struct sc_ec2_security_group *
sc_ec2_security_group_by_name(const struct sc_ec2 *ec2, const char *vpc_id, const char *name);
/* DescribeSecurityGroups: GroupIds (unknown -> InvalidGroup.NotFound
 * `The security group 'sg-x' does not exist`), GroupNames (default VPC's groups; unknown ->
 * `The security group 'x' does not exist in default VPC 'vpc-y'`), filters group-id,
 * group-name, vpc-id, description, owner-id, tag:K, tag-key. out holds
 * sc_ec2_security_group_count(). */
enum sc_status sc_ec2_describe_security_groups(const struct sc_ec2 *ec2, const char *const *ids,
                                               int nids, const char *const *names, int nnames,
                                               const struct sc_ec2_filter *filters, int nfilters,
                                               const struct sc_ec2_security_group **out, int *nout,
                                               struct sc_error *err);
/* CreateSecurityGroup in vpc_id (NULL: the default VPC), with the outbound all-traffic
 * rule. Errors (docs/elb-classic.md 3): MissingParameter, InvalidParameterValue (sg-*
 * names, over 255 characters), InvalidGroup.Reserved ("default"), InvalidGroup.Duplicate,
 * InvalidVpcID.NotFound, tag errors. *out optional. */
enum sc_status sc_ec2_create_security_group(struct sc_ec2 *ec2, const char *name,
                                            const char *description, const char *vpc_id,
                                            const struct sc_ec2_tag *tags, int ntags,
                                            int64_t now_ms,
                                            const struct sc_ec2_security_group **out,
                                            struct sc_error *err);
/* DeleteSecurityGroup by id, else by name in the default VPC. Errors: MissingParameter,
 * InvalidGroupId.Malformed, InvalidGroup.NotFound, CannotDelete (a VPC's default group),
 * DependencyViolation (a network interface uses it, or a rule of another group of its VPC
 * names it). deleted_id (optional, SC_EC2_ID_LEN bytes) gets the id. */
enum sc_status sc_ec2_delete_security_group(struct sc_ec2 *ec2, const char *group_id,
                                            const char *group_name, int64_t now_ms,
                                            char *deleted_id, struct sc_error *err);
/* Authorize (revoke 0) or Revoke (revoke 1) Ingress (egress 0) or Egress (egress 1): the
 * group by id, else (ingress) by name in the default VPC. All or nothing: every rule is
 * checked first (InvalidPermission.Duplicate for one already there,
 * InvalidPermission.NotFound for one to revoke that is not, InvalidParameterValue for bad
 * protocols, ports or CIDRs, InvalidGroup.NotFound for an unknown peer group). */
enum sc_status sc_ec2_security_group_rules(struct sc_ec2 *ec2, const char *group_id,
                                           const char *group_name, int egress, int revoke,
                                           const struct sc_ec2_sg_rule_req *rules, int nrules,
                                           int64_t now_ms, struct sc_error *err);
/* For services that make a group of their own (ELB's default_elb_<id>): the group named
 * name in vpc_id, made when missing with this description, the given ingress rules and
 * the outbound all-traffic rule. Its id derives from the account, VPC and name (no RNG
 * draw). *out is the group. */
enum sc_status sc_ec2_security_group_ensure(struct sc_ec2 *ec2, const char *vpc_id,
                                            const char *name, const char *description,
                                            const struct sc_ec2_sg_rule_req *ingress, int n,
                                            int64_t now_ms,
                                            const struct sc_ec2_security_group **out,
                                            struct sc_error *err);

/* --- network interfaces (ec2_sg.c; docs/elb-classic.md section 2) ----------------------- */

/* A requester-managed interface a service keeps in a subnet (ELB: one per enabled subnet,
 * described "ELB <name>"), attached to the service's own hosts. */
struct sc_ec2_network_interface {
    const char *network_interface_id; /* "eni-" + 17 hex */
    const char *subnet_id;
    const char *vpc_id;
    const char *availability_zone;
    const char *description;
    const char *owner_id;
    const char *requester_id; /* "amazon-elb" */
    const char *status;       /* "in-use" */
    const char *private_ip_address;
    const char *private_dns_name;
    const char *mac_address;
    const char *attachment_id;     /* "eni-attach-" + 17 hex */
    const char *instance_owner_id; /* == requester_id */
    int64_t attach_time_ms;
    const char *const *group_ids;
    int ngroups;
};
int sc_ec2_network_interface_count(const struct sc_ec2 *ec2);
const struct sc_ec2_network_interface *sc_ec2_network_interface_at(const struct sc_ec2 *ec2, int i);
const struct sc_ec2_network_interface *sc_ec2_network_interface_find(const struct sc_ec2 *ec2,
                                                                     const char *id);
/* DescribeNetworkInterfaces: ids (malformed -> InvalidNetworkInterfaceId.Malformed, unknown
 * -> InvalidNetworkInterfaceID.NotFound) and the filters of docs/elb-classic.md 2. out
 * holds sc_ec2_network_interface_count(). */
enum sc_status sc_ec2_describe_network_interfaces(const struct sc_ec2 *ec2, const char *const *ids,
                                                  int nids, const struct sc_ec2_filter *filters,
                                                  int nfilters,
                                                  const struct sc_ec2_network_interface **out,
                                                  int *nout, struct sc_error *err);
/* Makes the interfaces described `description` exactly one per subnet of subnets[] (in
 * that order; each keeps its id while its subnet stays), all with groups[] and requester
 * requester_id; nsubnets 0 removes them. Unknown subnets or groups -> their NotFound. Ids
 * and addresses derive from the description and subnet (no RNG draw). */
enum sc_status sc_ec2_set_managed_interfaces(struct sc_ec2 *ec2, const char *description,
                                             const char *requester_id, const char *const *subnets,
                                             int nsubnets, const char *const *groups, int ngroups,
                                             int64_t now_ms, struct sc_error *err);

/* --- launch templates ------------------------------------------------------------------------- */

/* LaunchTemplateData subset that launching uses. All optional (NULL / 0). */
struct sc_ec2_lt_data {
    const char *image_id;
    const char *instance_type;
    const char *key_name;
    const char *user_data;         /* base64 text as given */
    const struct sc_ec2_tag *tags; /* TagSpecifications for resource type "instance" */
    int ntags;
    const char *const *security_group_ids;
    int nsecurity_group_ids;
    int monitoring_enabled;
    /* Every other LaunchTemplateData member as sent (a JSON object in the model's member
     * names: BlockDeviceMappings, IamInstanceProfile, MetadataOptions, NetworkInterfaces,
     * ...), or NULL. Stored and described as given; a version made from a SourceVersion
     * takes the source's and the members sent replace theirs, one top-level member at a
     * time. Nothing in either world acts on them (docs/ec2.md's launch templates). */
    const struct json_t *other;
};

struct sc_ec2_launch_template {
    const char *launch_template_id; /* "lt-" + 17 hex */
    const char *launch_template_name;
    int64_t create_time_ms;
    const char *created_by; /* "arn:aws:iam::<account>:root" */
    long default_version_number;
    long latest_version_number;
    const struct sc_ec2_tag *tags;
    int ntags;
};

struct sc_ec2_lt_version {
    const char *launch_template_id;
    const char *launch_template_name;
    long version_number;
    const char *version_description; /* NULL when none */
    int64_t create_time_ms;
    const char *created_by;
    int default_version;
    struct sc_ec2_lt_data data; /* deep-copied; pointers owned by the record */
};

struct sc_ec2_lt_create_req {
    const char *launch_template_name; /* 3..128 of [A-Za-z0-9().-/_] */
    const char *version_description;  /* <= 255 */
    struct sc_ec2_lt_data data;
    const struct sc_ec2_tag *tags; /* tags of the template itself */
    int ntags;
};

/* CreateLaunchTemplate: version 1, default and latest. Errors:
 * InvalidLaunchTemplateName.AlreadyExistsException `Launch template name already in use.`,
 * InvalidLaunchTemplateName.MalformedException, InvalidAMIID.*, InvalidParameterValue
 * (unknown instance type). */
enum sc_status sc_ec2_create_launch_template(struct sc_ec2 *ec2,
                                             const struct sc_ec2_lt_create_req *req, int64_t now_ms,
                                             const struct sc_ec2_launch_template **out,
                                             struct sc_error *err);

struct sc_ec2_lt_version_req {
    const char *launch_template_id; /* one of id / name */
    const char *launch_template_name;
    const char *source_version; /* NULL, a number, "$Latest" or "$Default" */
    const char *version_description;
    struct sc_ec2_lt_data data; /* with source_version: fields set here override */
};

/* CreateLaunchTemplateVersion: new latest = latest + 1 (default unchanged). Errors:
 * InvalidLaunchTemplateId.NotFound / InvalidLaunchTemplateName.NotFoundException,
 * InvalidLaunchTemplateId.VersionNotFound (source), MissingParameter (neither id nor name),
 * InvalidParameterCombination (both). */
enum sc_status sc_ec2_create_launch_template_version(struct sc_ec2 *ec2,
                                                     const struct sc_ec2_lt_version_req *req,
                                                     int64_t now_ms,
                                                     const struct sc_ec2_lt_version **out,
                                                     struct sc_error *err);

/* ModifyLaunchTemplate (SetDefaultVersion): version a number, "$Latest" or "$Default". */
enum sc_status sc_ec2_modify_launch_template(struct sc_ec2 *ec2, const char *id, const char *name,
                                             const char *default_version, int64_t now_ms,
                                             const struct sc_ec2_launch_template **out,
                                             struct sc_error *err);

/* What DeleteLaunchTemplate answers with (the record is gone, so a copy). */
struct sc_ec2_lt_deleted {
    char launch_template_id[SC_EC2_ID_LEN];
    char launch_template_name[132];
    int64_t create_time_ms;
    long default_version_number;
    long latest_version_number;
};
enum sc_status sc_ec2_delete_launch_template(struct sc_ec2 *ec2, const char *id, const char *name,
                                             int64_t now_ms, struct sc_ec2_lt_deleted *out,
                                             struct sc_error *err);

int sc_ec2_launch_template_count(const struct sc_ec2 *ec2);
const struct sc_ec2_launch_template *sc_ec2_launch_template_at(const struct sc_ec2 *ec2,
                                                               int i); /* creation order */
/* By id when id is non-NULL, else by name; NULL when absent. */
const struct sc_ec2_launch_template *sc_ec2_launch_template_find(const struct sc_ec2 *ec2,
                                                                 const char *id, const char *name);
/* DescribeLaunchTemplates: ids and names (any unknown -> the NotFound error), filters
 * launch-template-name, tag:K, tag-key. out holds sc_ec2_launch_template_count(). */
enum sc_status sc_ec2_describe_launch_templates(const struct sc_ec2 *ec2, const char *const *ids,
                                                int nids, const char *const *names, int nnames,
                                                const struct sc_ec2_filter *filters, int nfilters,
                                                const struct sc_ec2_launch_template **out,
                                                int *nout, struct sc_error *err);

/* Resolves "<n>", "$Latest", "$Default" (NULL means "$Default") to a version. The asg
 * side calls this at each launch. Errors as for CreateLaunchTemplateVersion. */
enum sc_status sc_ec2_resolve_launch_template(const struct sc_ec2 *ec2, const char *id,
                                              const char *name, const char *version,
                                              const struct sc_ec2_lt_version **out,
                                              struct sc_error *err);

struct sc_ec2_lt_versions_req {
    const char *launch_template_id; /* one of id / name */
    const char *launch_template_name;
    const char *const *versions; /* numbers, "$Latest", "$Default"; none -> all */
    int nversions;
    long min_version; /* 0 = unset */
    long max_version; /* 0 = unset */
};
/* DescribeLaunchTemplateVersions, ascending version order. A named version that does not
 * exist -> InvalidLaunchTemplateId.VersionNotFound `Could not find the specified version N
 * for the launch template with ID lt-x.`. `out` holds the template's latest_version_number
 * entries (or nversions when larger). */
enum sc_status sc_ec2_describe_launch_template_versions(const struct sc_ec2 *ec2,
                                                        const struct sc_ec2_lt_versions_req *req,
                                                        const struct sc_ec2_lt_version **out,
                                                        int cap, int *nout, struct sc_error *err);

/* --- instances -------------------------------------------------------------------------------- */

struct sc_ec2_instance {
    const char *instance_id;    /* "i-" + 17 hex */
    const char *reservation_id; /* "r-" + 17 hex */
    const char *owner_id;
    enum sc_ec2_state state;
    /* stopped by hibernation (sc_ec2_hibernate_instances: a warm pool's Hibernated state):
     * its memory is kept, the data plane pauses its process instead of ending it (docs/
     * dataplane.md, Warm pools); 0 after a plain stop. Not saved with --state (the
     * processes do not survive a restart either). */
    int hibernated;
    /* StateTransitionReason, e.g. "User initiated (2026-01-01 00:05:00 GMT)"; "" when none */
    const char *state_transition_reason;
    /* StateReason Code/Message ("Client.UserInitiatedShutdown" / "Client.UserInitiatedShutdown:
     * User initiated shutdown"); NULL when none (running). */
    const char *state_reason_code;
    const char *state_reason_message;
    const char *availability_zone;
    const char *subnet_id;
    const char *vpc_id;
    const char *private_ip_address; /* "127.0.0.1" */
    const char *private_dns_name;   /* "ip-127-0-0-1.ec2.internal" style */
    const char *instance_type;
    const char *image_id;
    const char *key_name;  /* NULL when none */
    const char *user_data; /* NULL when none */
    int ami_launch_index;
    int64_t launch_time_ms;
    int64_t state_changed_ms; /* last state change */
    /* What launched it: at most one of these is set. */
    const char *launch_configuration_name;
    const char *launch_template_id;
    const char *launch_template_name;
    long launch_template_version;
    enum sc_ec2_check system_status;
    enum sc_ec2_check instance_status;
    int64_t impaired_since_ms; /* 0 unless instance_status is impaired */
    int monitoring_enabled;
    const struct sc_ec2_tag *tags; /* in the order first set */
    int ntags;
};

struct sc_ec2_reservation {
    const char *reservation_id;
    const char *owner_id;
    int ninstances;                                 /* instances still listed */
    const struct sc_ec2_instance *const *instances; /* launch order */
};

struct sc_ec2_run_req {
    const char *image_id;      /* required unless the launch template gives one */
    const char *instance_type; /* NULL -> template's, else "m1.small" (AWS's default) */
    int min_count;             /* >= 1 */
    int max_count;             /* >= min_count */
    const char *key_name;
    const char *subnet_id;         /* SubnetId; its zone wins */
    const char *availability_zone; /* Placement.AvailabilityZone (default subnet) */
    const char *user_data;
    const struct sc_ec2_tag *tags; /* TagSpecifications for "instance" (merged over the
                                      template's; the asg side passes
                                      aws:autoscaling:groupName here) */
    int ntags;
    int monitoring_enabled;
    /* Launch template (id or name; version NULL = "$Default"). */
    const char *launch_template_id;
    const char *launch_template_name;
    const char *launch_template_version;
    /* Recorded only (the asg side launching from a launch configuration). */
    const char *launch_configuration_name;
};

/* RunInstances: one reservation of max_count instances, or as many as the instance limit
 * leaves when that is at least min_count (fewer -> InstanceLimitExceeded and nothing
 * launched), all `pending`. Without subnet or zone the
 * instances go to the first available zone's default subnet, like AWS's default VPC.
 * Errors: MissingParameter (ImageId), InvalidAMIID.Malformed (NotFound with strict_images),
 * InvalidParameterValue (instance type, counts, zone), InvalidSubnetID.NotFound,
 * launch-template errors, InsufficientInstanceCapacity (zone down). *out (optional) is the
 * new reservation. */
enum sc_status sc_ec2_run_instances(struct sc_ec2 *ec2, const struct sc_ec2_run_req *req,
                                    int64_t now_ms, const struct sc_ec2_reservation **out,
                                    struct sc_error *err);

/* One row of TerminateInstances / StopInstances / StartInstances output. */
struct sc_ec2_state_change {
    const char *instance_id; /* borrowed from the record */
    enum sc_ec2_state previous;
    enum sc_ec2_state current;
};

/* TerminateInstances: idempotent; pending/running/stopping/stopped -> shutting-down (the
 * data plane then calls sc_ec2_instance_terminated), shutting-down/terminated unchanged.
 * All ids are checked first: a malformed one -> InvalidInstanceID.Malformed
 * `Invalid id: "x"`, unknown ones -> InvalidInstanceID.NotFound
 * `The instance ID 'i-x' does not exist` (`The instance IDs 'i-a, i-b' do not exist`), and
 * then nothing is terminated. `out` (optional) holds nids rows in request order. */
enum sc_status sc_ec2_terminate_instances(struct sc_ec2 *ec2, const char *const *ids, int nids,
                                          int64_t now_ms, struct sc_ec2_state_change *out,
                                          struct sc_error *err);
/* StopInstances: running/pending -> stopping (data plane: sc_ec2_instance_stopped);
 * stopping/stopped unchanged; shutting-down/terminated -> IncorrectInstanceState. */
enum sc_status sc_ec2_stop_instances(struct sc_ec2 *ec2, const char *const *ids, int nids,
                                     int64_t now_ms, struct sc_ec2_state_change *out,
                                     struct sc_error *err);
/* StopInstances with Hibernate: as sc_ec2_stop_instances, and the instances moved to stopping
 * are marked hibernated (a plain stop clears the mark). */
enum sc_status sc_ec2_hibernate_instances(struct sc_ec2 *ec2, const char *const *ids, int nids,
                                          int64_t now_ms, struct sc_ec2_state_change *out,
                                          struct sc_error *err);
/* StartInstances: stopped -> pending; pending/running unchanged; others ->
 * IncorrectInstanceState. */
enum sc_status sc_ec2_start_instances(struct sc_ec2 *ec2, const char *const *ids, int nids,
                                      int64_t now_ms, struct sc_ec2_state_change *out,
                                      struct sc_error *err);

/* A change counter over the instance records: it grows (never wraps in practice, starts at
 * 1) whenever a call may have changed any instance record: an instance made, its state,
 * status checks, impairment or tags changed, a terminated one purged, or records loaded.
 * Equal values mean no instance record changed in between, so callers can cache what they
 * derive from the records (summaries, next-due times) keyed by it. */
uint64_t sc_ec2_generation(const struct sc_ec2 *ec2);

/* Every listed instance (terminated ones until they vanish), launch order. */
int sc_ec2_instance_count(const struct sc_ec2 *ec2);
const struct sc_ec2_instance *sc_ec2_instance_at(const struct sc_ec2 *ec2, int i);
const struct sc_ec2_instance *sc_ec2_instance_find(const struct sc_ec2 *ec2, const char *id);
/* Value of tag `key` or NULL. */
const char *sc_ec2_instance_tag(const struct sc_ec2_instance *inst, const char *key);

/* 1 when a pending instance is pending because StartInstances started it again (it ran
 * and stopped before), 0 for a new launch: the data planes skip the first-boot time then
 * (a warm pool's warm start, docs/dataplane.md). */
int sc_ec2_instance_restarting(const struct sc_ec2_instance *inst);

/* 1 when s looks like an instance id (i- + 8 or 17 lower-case hex). */
int sc_ec2_instance_id_valid(const char *s);

struct sc_ec2_describe_req {
    const char *const *instance_ids;
    int ninstance_ids;
    const struct sc_ec2_filter *filters;
    int nfilters;
};

/* DescribeInstances: instance ids (errors as TerminateInstances) and filters
 * instance-state-name, instance-state-code, instance-id, instance-type, availability-zone,
 * image-id, subnet-id, vpc-id, reservation-id, key-name, private-ip-address, tag:K,
 * tag-key, tag-value (unknown name -> InvalidParameterValue `The filter 'x' is invalid`).
 * `out` (room for sc_ec2_instance_count()) gets matches grouped by reservation
 * (consecutive rows with the same reservation_id form one Reservation). */
enum sc_status sc_ec2_describe_instances(const struct sc_ec2 *ec2,
                                         const struct sc_ec2_describe_req *req,
                                         const struct sc_ec2_instance **out, int *nout,
                                         struct sc_error *err);

/* DescribeInstanceStatus: as DescribeInstances but only running instances unless
 * include_all_instances; extra filters instance-status.status, system-status.status.
 * Read system_status / instance_status from each row. */
enum sc_status sc_ec2_describe_instance_status(const struct sc_ec2 *ec2,
                                               const struct sc_ec2_describe_req *req,
                                               int include_all_instances,
                                               const struct sc_ec2_instance **out, int *nout,
                                               struct sc_error *err);

/* CreateTags / DeleteTags on instance, vpc, subnet, launch-template and security-group ids (unknown
 * -> that resource's NotFound). Delete: value NULL deletes the key whatever its value. Keys 1..128,
 * values <= 256, not "aws:" prefixed unless allow_aws_prefix (the asg side sets
 * aws:autoscaling:groupName through run_instances, which allows it). */
enum sc_status sc_ec2_create_tags(struct sc_ec2 *ec2, const char *const *resource_ids,
                                  int nresources, const struct sc_ec2_tag *tags, int ntags,
                                  int64_t now_ms, struct sc_error *err);
enum sc_status sc_ec2_delete_tags(struct sc_ec2 *ec2, const char *const *resource_ids,
                                  int nresources, const struct sc_ec2_tag *tags, int ntags,
                                  int64_t now_ms, struct sc_error *err);

/* One row of DescribeTags. */
struct sc_ec2_tag_row {
    const char *resource_id;
    const char *resource_type; /* "instance", "vpc", "subnet", "launch-template",
                                  "security-group" */
    const char *key;
    const char *value;
};
/* DescribeTags over instances, VPCs, subnets, launch templates and security groups (in that order,
 * each in its listing order, tags in the order set); filters resource-id, resource-type, key, value
 * (unknown -> InvalidParameterValue). Writes up to cap rows; *nout = every match (may exceed
 * cap, then call again with more room). */
enum sc_status sc_ec2_describe_tags(const struct sc_ec2 *ec2, const struct sc_ec2_filter *filters,
                                    int nfilters, struct sc_ec2_tag_row *out, int cap, int *nout,
                                    struct sc_error *err);

/* --- data plane ------------------------------------------------------------------------------- */

/* pending -> running (status checks initializing, or ok with status_init_ms 0).
 * SC_ERR_INSTANCE_ID_NOT_FOUND if unknown; SC_ERR_INCORRECT_INSTANCE_STATE if it is no
 * longer pending (terminated meanwhile: the caller stops what it started). */
enum sc_status sc_ec2_instance_running(struct sc_ec2 *ec2, const char *id, int64_t now_ms);
/* shutting-down -> terminated (the process is gone). Idempotent on terminated. */
enum sc_status sc_ec2_instance_terminated(struct sc_ec2 *ec2, const char *id, int64_t now_ms);
/* stopping -> stopped. */
enum sc_status sc_ec2_instance_stopped(struct sc_ec2 *ec2, const char *id, int64_t now_ms);
/* The instance died on its own (process exited, kill -9): state terminated, state reason
 * Server.InternalError, system/instance status impaired. Any non-terminated state. */
enum sc_status sc_ec2_instance_lost(struct sc_ec2 *ec2, const char *id, int64_t now_ms);
/* Hang (SIGSTOP) or recovery: instance status check impaired (1) or ok (0); only for
 * running instances. */
enum sc_status sc_ec2_instance_set_impaired(struct sc_ec2 *ec2, const char *id, int impaired,
                                            int64_t now_ms);

/* --- save / load (the emulator's --state FILE) ------------------------------------------ */

struct json_t;
/* The records as a new JSON object (zones' availability, VPCs, subnets, security groups
 * with their rules, reservations, instances, launch templates with their versions, tags,
 * the internal RNG), or NULL. Network interfaces are not in it: their services make them
 * again when they load. */
struct json_t *sc_ec2_save(const struct sc_ec2 *ec2);
/* Loads what sc_ec2_save wrote into a freshly created ec2 of the same account, region
 * and zones: the saved VPCs and subnets replace the default ones made at create (a file
 * without security groups gets each VPC's default group). All or
 * nothing: on error (ValidationError "state: ec2: ...") nothing changed. */
enum sc_status sc_ec2_load(struct sc_ec2 *ec2, const struct json_t *obj, struct sc_error *err);

#endif
