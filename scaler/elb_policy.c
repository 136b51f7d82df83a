/* scaler/elb_policy.c: load balancer policies (see elb.h): AWS's policy types and predefined
 * SSL policies as data, each load balancer's policies, the policy sets of its listeners and
 * back-end ports, and the rules of the policy operations (docs/elb-classic.md section 4). */
#include "scaler/elb.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scaler/elb_internal.h"
#include "scaler/rec.h"

/* --- AWS's data ------------------------------------------------------------------------------- */

#define DEFAULT_SSL_POLICY "ELBSecurityPolicy-2016-08"
#define REFERENCE_ATTR     "Reference-Security-Policy"

/* The ciphers a custom SSLNegotiation policy may name, in the order of AWS's list
 * (elb-ssl-security-policy.html). */
static const char *const ciphers[] = {
    "ECDHE-ECDSA-AES128-GCM-SHA256",
    "ECDHE-RSA-AES128-GCM-SHA256",
    "ECDHE-ECDSA-AES128-SHA256",
    "ECDHE-RSA-AES128-SHA256",
    "ECDHE-ECDSA-AES128-SHA",
    "ECDHE-RSA-AES128-SHA",
    "DHE-RSA-AES128-SHA",
    "ECDHE-ECDSA-AES256-GCM-SHA384",
    "ECDHE-RSA-AES256-GCM-SHA384",
    "ECDHE-ECDSA-AES256-SHA384",
    "ECDHE-RSA-AES256-SHA384",
    "ECDHE-RSA-AES256-SHA",
    "ECDHE-ECDSA-AES256-SHA",
    "AES128-GCM-SHA256",
    "AES128-SHA256",
    "AES128-SHA",
    "AES256-GCM-SHA384",
    "AES256-SHA256",
    "AES256-SHA",
    "DHE-DSS-AES128-SHA",
    "CAMELLIA128-SHA",
    "EDH-RSA-DES-CBC3-SHA",
    "DES-CBC3-SHA",
    "ECDHE-RSA-RC4-SHA",
    "RC4-SHA",
    "ECDHE-ECDSA-RC4-SHA",
    "DHE-DSS-AES256-GCM-SHA384",
    "DHE-RSA-AES256-GCM-SHA384",
    "DHE-RSA-AES256-SHA256",
    "DHE-DSS-AES256-SHA256",
    "DHE-RSA-AES256-SHA",
    "DHE-DSS-AES256-SHA",
    "DHE-RSA-CAMELLIA256-SHA",
    "DHE-DSS-CAMELLIA256-SHA",
    "CAMELLIA256-SHA",
    "EDH-DSS-DES-CBC3-SHA",
    "DHE-DSS-AES128-GCM-SHA256",
    "DHE-RSA-AES128-GCM-SHA256",
    "DHE-RSA-AES128-SHA256",
    "DHE-DSS-AES128-SHA256",
    "DHE-RSA-CAMELLIA128-SHA",
    "DHE-DSS-CAMELLIA128-SHA",
    "ADH-AES128-GCM-SHA256",
    "ADH-AES128-SHA",
    "ADH-AES128-SHA256",
    "ADH-AES256-GCM-SHA384",
    "ADH-AES256-SHA",
    "ADH-AES256-SHA256",
    "ADH-CAMELLIA128-SHA",
    "ADH-CAMELLIA256-SHA",
    "ADH-DES-CBC3-SHA",
    "ADH-DES-CBC-SHA",
    "ADH-RC4-MD5",
    "ADH-SEED-SHA",
    "DES-CBC-SHA",
    "DHE-DSS-SEED-SHA",
    "DHE-RSA-SEED-SHA",
    "EDH-DSS-DES-CBC-SHA",
    "EDH-RSA-DES-CBC-SHA",
    "IDEA-CBC-SHA",
    "RC4-MD5",
    "SEED-SHA",
    "DES-CBC3-MD5",
    "DES-CBC-MD5",
    "RC2-CBC-MD5",
    "PSK-AES256-CBC-SHA",
    "PSK-3DES-EDE-CBC-SHA",
    "KRB5-DES-CBC3-SHA",
    "KRB5-DES-CBC3-MD5",
    "PSK-AES128-CBC-SHA",
    "PSK-RC4-SHA",
    "KRB5-RC4-SHA",
    "KRB5-RC4-MD5",
    "KRB5-DES-CBC-SHA",
    "KRB5-DES-CBC-MD5",
    "EXP-EDH-RSA-DES-CBC-SHA",
    "EXP-EDH-DSS-DES-CBC-SHA",
    "EXP-ADH-DES-CBC-SHA",
    "EXP-DES-CBC-SHA",
    "EXP-RC2-CBC-MD5",
    "EXP-KRB5-RC2-CBC-SHA",
    "EXP-KRB5-DES-CBC-SHA",
    "EXP-KRB5-RC2-CBC-MD5",
    "EXP-KRB5-DES-CBC-MD5",
    "EXP-ADH-RC4-MD5",
    "EXP-RC4-MD5",
    "EXP-KRB5-RC4-SHA",
    "EXP-KRB5-RC4-MD5",
};
#define NCIPHERS ((int)(sizeof(ciphers) / sizeof(ciphers[0])))

/* The SSLNegotiation attributes before the ciphers. */
static const char *const ssl_options[] = {
    "Protocol-SSLv2",   "Protocol-SSLv3",   "Protocol-TLSv1",
    "Protocol-TLSv1.1", "Protocol-TLSv1.2", "Server-Defined-Cipher-Order",
};
#define NSSL_OPTIONS ((int)(sizeof(ssl_options) / sizeof(ssl_options[0])))

/* The predefined policies of elb-security-policy-table.html, in its column order. */
static const char *const predefined_names[ELB_PREDEFINED] = {
    "ELBSecurityPolicy-2016-08",         "ELBSecurityPolicy-TLS-1-1-2017-01",
    "ELBSecurityPolicy-TLS-1-2-2017-01", "ELBSecurityPolicy-2015-05",
    "ELBSecurityPolicy-2015-03",         "ELBSecurityPolicy-2015-02",
};

/* That table's rows: which of the six columns ('1') enable the option or cipher. Options
 * and ciphers not listed are false in all six. */
static const struct {
    const char *name;
    const char mask[ELB_PREDEFINED + 1];
} predefined_rows[] = {
    { "Protocol-TLSv1", "100111" },
    { "Protocol-TLSv1.1", "110111" },
    { "Protocol-TLSv1.2", "111111" },
    { "Server-Defined-Cipher-Order", "111111" },
    { "ECDHE-ECDSA-AES128-GCM-SHA256", "111111" },
    { "ECDHE-RSA-AES128-GCM-SHA256", "111111" },
    { "ECDHE-ECDSA-AES128-SHA256", "111111" },
    { "ECDHE-RSA-AES128-SHA256", "111111" },
    { "ECDHE-ECDSA-AES128-SHA", "110111" },
    { "ECDHE-RSA-AES128-SHA", "110111" },
    { "DHE-RSA-AES128-SHA", "000011" },
    { "ECDHE-ECDSA-AES256-GCM-SHA384", "111111" },
    { "ECDHE-RSA-AES256-GCM-SHA384", "111111" },
    { "ECDHE-ECDSA-AES256-SHA384", "111111" },
    { "ECDHE-RSA-AES256-SHA384", "111111" },
    { "ECDHE-RSA-AES256-SHA", "110111" },
    { "ECDHE-ECDSA-AES256-SHA", "110111" },
    { "AES128-GCM-SHA256", "111111" },
    { "AES128-SHA256", "111111" },
    { "AES128-SHA", "110111" },
    { "AES256-GCM-SHA384", "111111" },
    { "AES256-SHA256", "111111" },
    { "AES256-SHA", "110111" },
    { "DHE-DSS-AES128-SHA", "000011" },
    { "DES-CBC3-SHA", "000110" },
};

static const struct sc_elb_policy_attr_type proxy_attrs[] = {
    { "ProxyProtocol", "Boolean", "ONE" },
};
static const struct sc_elb_policy_attr_type public_key_attrs[] = {
    { "PublicKey", "String", "ONE" },
};
static const struct sc_elb_policy_attr_type app_cookie_attrs[] = {
    { "CookieName", "String", "ONE" },
};
static const struct sc_elb_policy_attr_type lb_cookie_attrs[] = {
    { "CookieExpirationPeriod", "Long", "ZERO_OR_ONE" },
};
static const struct sc_elb_policy_attr_type backend_auth_attrs[] = {
    { "PublicKeyPolicyName", "PolicyName", "ONE_OR_MORE" },
};
/* Reference-Security-Policy, the options and the ciphers; made at first use (static
 * strings only, the same every time). */
static struct sc_elb_policy_attr_type ssl_attrs[1 + NSSL_OPTIONS + NCIPHERS];

enum where { ON_LISTENER_HTTP, ON_LISTENER_SSL, ON_BACKEND, NOWHERE };

#define TYPE(n, d, a, w)                                                                           \
    {                                                                                              \
        { n, d, a, (int)(sizeof(a) / sizeof(a[0])) }, w                                            \
    }
static const struct {
    struct sc_elb_policy_type t;
    enum where where;
} types[] = {
    TYPE("ProxyProtocolPolicyType",
         "Policy that controls whether to include the IP address and port of the originating "
         "request for TCP messages. This policy operates on TCP/SSL listeners only",
         proxy_attrs, ON_BACKEND),
    TYPE("PublicKeyPolicyType",
         "Policy containing a list of public keys to accept when authenticating the back-end "
         "server(s). This policy cannot be applied directly to back-end servers or listeners "
         "but must be part of a BackendServerAuthenticationPolicyType.",
         public_key_attrs, NOWHERE),
    TYPE("AppCookieStickinessPolicyType",
         "Stickiness policy with session lifetimes controlled by the lifetime of the "
         "application-generated cookie. This policy can be associated only with HTTP/HTTPS "
         "listeners.",
         app_cookie_attrs, ON_LISTENER_HTTP),
    TYPE("LBCookieStickinessPolicyType",
         "Stickiness policy with session lifetimes controlled by the browser (user-agent) or a "
         "specified expiration period. This policy can be associated only with HTTP/HTTPS "
         "listeners.",
         lb_cookie_attrs, ON_LISTENER_HTTP),
    TYPE("SSLNegotiationPolicyType",
         "Listener policy that defines the ciphers and protocols that will be accepted by the "
         "load balancer. This policy can be associated only with HTTPS/SSL listeners.",
         ssl_attrs, ON_LISTENER_SSL),
    TYPE("BackendServerAuthenticationPolicyType",
         "Policy that controls authentication to back-end server(s) and contains one or more "
         "policies, such as an instance of a PublicKeyPolicyType. This policy can be associated "
         "only with back-end servers that are using HTTPS/SSL.",
         backend_auth_attrs, ON_BACKEND),
};
#undef TYPE
#define NTYPES ((int)(sizeof(types) / sizeof(types[0])))

static void ssl_attrs_init(void)
{
    int k = 0;

    if (ssl_attrs[0].name)
        return;
    ssl_attrs[k++] = (struct sc_elb_policy_attr_type){ REFERENCE_ATTR, "String", "ZERO_OR_ONE" };
    for (int i = 0; i < NSSL_OPTIONS; i++)
        ssl_attrs[k++] =
            (struct sc_elb_policy_attr_type){ ssl_options[i], "Boolean", "ZERO_OR_ONE" };
    for (int i = 0; i < NCIPHERS; i++)
        ssl_attrs[k++] = (struct sc_elb_policy_attr_type){ ciphers[i], "Boolean", "ZERO_OR_ONE" };
}

int sc_elb_policy_type_count(void)
{
    return NTYPES;
}

const struct sc_elb_policy_type *sc_elb_policy_type_at(int i)
{
    ssl_attrs_init();
    return i >= 0 && i < NTYPES ? &types[i].t : NULL;
}

const struct sc_elb_policy_type *sc_elb_policy_type_find(const char *name)
{
    ssl_attrs_init();
    for (int i = 0; name && i < NTYPES; i++) {
        if (strcmp(types[i].t.name, name) == 0)
            return &types[i].t;
    }
    return NULL;
}

const struct sc_elb_policy_type *elb_policy_type(const char *name)
{
    return sc_elb_policy_type_find(name);
}

static enum where type_where(const struct sc_elb_policy_type *t)
{
    for (int i = 0; i < NTYPES; i++) {
        if (&types[i].t == t)
            return types[i].where;
    }
    return NOWHERE;
}

static enum sc_status type_unknown(const char *name, struct sc_error *err)
{
    return sc_fail(err, SC_ERR_POLICY_TYPE_NOT_FOUND, "There is no policy type with name %s",
                   name ? name : "");
}

enum sc_status sc_elb_describe_policy_types(const char *const *names, int n,
                                            const struct sc_elb_policy_type **out, int *nout,
                                            struct sc_error *err)
{
    *nout = 0;
    for (int i = 0; i < n; i++) {
        if (!sc_elb_policy_type_find(names[i]))
            return type_unknown(names[i], err);
    }
    for (int i = 0; i < (n ? n : NTYPES); i++)
        out[(*nout)++] = n ? sc_elb_policy_type_find(names[i]) : sc_elb_policy_type_at(i);
    return SC_OK;
}

/* The views of the predefined policies (static strings into elb's storage). */
void elb_predefined_init(struct sc_elb *elb)
{
    ssl_attrs_init();
    for (int p = 0; p < ELB_PREDEFINED; p++) {
        struct sc_elb_policy_attr *a = elb->predefined_attrs[p];
        int k = 0;

        /* the options and ciphers in AWS's order, each true or false */
        for (int i = 1; i < 1 + NSSL_OPTIONS + NCIPHERS && k < ELB_PREDEFINED_ATTRS; i++) {
            const char *name = ssl_attrs[i].name;
            const char *value = "false";

            if (strcmp(name, "Protocol-SSLv2") == 0)
                continue; /* deprecated: not listed */
            for (size_t r = 0; r < sizeof(predefined_rows) / sizeof(predefined_rows[0]); r++) {
                if (strcmp(predefined_rows[r].name, name) == 0)
                    value = predefined_rows[r].mask[p] == '1' ? "true" : "false";
            }
            a[k++] = (struct sc_elb_policy_attr){ name, value };
        }
        elb->predefined[p] =
            (struct sc_elb_policy){ predefined_names[p], "SSLNegotiationPolicyType", a, k };
    }
}

static const struct sc_elb_policy *predefined_find(const struct sc_elb *elb, const char *name)
{
    for (int p = 0; name && p < ELB_PREDEFINED; p++) {
        if (strcmp(elb->predefined[p].policy_name, name) == 0)
            return &elb->predefined[p];
    }
    return NULL;
}

/* --- records ---------------------------------------------------------------------------------- */

static void policy_free(struct policy *p)
{
    if (!p)
        return;
    for (int i = 0; i < p->nattrs; i++) {
        free((char *)p->attrs[i].name);
        free((char *)p->attrs[i].value);
    }
    free(p->attrs);
    free(p->name);
    free(p);
}

void elb_port_policies_free(struct port_policies *p, int n)
{
    for (int i = 0; p && i < n; i++)
        sc_strv_free(p[i].names, p[i].n);
    free(p);
}

void elb_policies_free(struct lb *b)
{
    for (int i = 0; i < b->npolicies; i++)
        policy_free(b->policies[i]);
    free(b->policies);
    elb_port_policies_free(b->lpols, b->nlpols);
    elb_port_policies_free(b->bpols, b->nbpols);
    b->policies = NULL;
    b->lpols = b->bpols = NULL;
    b->npolicies = b->cappolicies = b->nlpols = b->nbpols = 0;
}

static struct policy *policy_find(const struct lb *b, const char *name)
{
    for (int i = 0; name && i < b->npolicies; i++) {
        if (strcmp(b->policies[i]->name, name) == 0)
            return b->policies[i];
    }
    return NULL;
}

/* Appends a policy (copies of the strings); 0 or -1 (OOM, nothing added). */
int elb_policy_add(struct lb *b, const char *name, const struct sc_elb_policy_type *type,
                   const struct sc_elb_policy_attr *attrs, int nattrs)
{
    struct policy *p;

    if (elb_grow(&b->policies, b->npolicies, &b->cappolicies, sizeof(*b->policies)) < 0)
        return -1;
    p = calloc(1, sizeof(*p));
    if (!p)
        return -1;
    p->name = sc_strdup(name);
    p->type = type;
    p->attrs = calloc((size_t)(nattrs > 0 ? nattrs : 1), sizeof(*p->attrs));
    if (!p->name || !p->attrs)
        goto fail;
    for (int i = 0; i < nattrs; i++) {
        p->attrs[i].name = sc_strdup(attrs[i].name);
        p->attrs[i].value = sc_strdup(attrs[i].value ? attrs[i].value : "");
        p->nattrs = i + 1;
        if (!p->attrs[i].name || !p->attrs[i].value)
            goto fail;
    }
    p->v = (struct sc_elb_policy){ p->name, type->name, p->attrs, p->nattrs };
    b->policies[b->npolicies++] = p;
    return 0;

fail:
    policy_free(p);
    return -1;
}

static int port_index(const struct port_policies *arr, int n, int port)
{
    for (int i = 0; i < n; i++) {
        if (arr[i].port == port)
            return i;
    }
    return -1;
}

/* The set of port becomes names[] (n 0: the entry goes); sorted keeps arr in port order.
 * 0 or -1 (OOM, unchanged). */
int elb_port_set(struct port_policies **arr, int *n, int port, const char *const *names, int nnames,
                 int sorted)
{
    int at = port_index(*arr, *n, port);
    char **v = NULL;

    if (nnames > 0) {
        v = calloc((size_t)nnames, sizeof(*v));
        if (!v)
            return -1;
        for (int i = 0; i < nnames; i++) {
            v[i] = sc_strdup(names[i]);
            if (!v[i]) {
                sc_strv_free(v, i);
                return -1;
            }
        }
    }
    if (at < 0 && nnames == 0)
        return 0;
    if (at < 0) {
        struct port_policies *nv = realloc(*arr, (size_t)(*n + 1) * sizeof(**arr));

        if (!nv) {
            sc_strv_free(v, nnames);
            return -1;
        }
        *arr = nv;
        at = *n;
        while (sorted && at > 0 && nv[at - 1].port > port) {
            nv[at] = nv[at - 1];
            at--;
        }
        nv[at] = (struct port_policies){ port, NULL, 0 };
        (*n)++;
    }
    sc_strv_free((*arr)[at].names, (*arr)[at].n);
    if (nnames == 0) {
        memmove(&(*arr)[at], &(*arr)[at + 1], (size_t)(*n - at - 1) * sizeof(**arr));
        (*n)--;
        return 0;
    }
    (*arr)[at].names = v;
    (*arr)[at].n = nnames;
    return 0;
}

/* 1 when a listener or back-end set names the policy. */
static int policy_in_use(const struct lb *b, const char *name)
{
    for (int i = 0; i < b->nlpols; i++) {
        if (in_list((const char *const *)b->lpols[i].names, b->lpols[i].n, name))
            return 1;
    }
    for (int i = 0; i < b->nbpols; i++) {
        if (in_list((const char *const *)b->bpols[i].names, b->bpols[i].n, name))
            return 1;
    }
    return 0;
}

/* The attributes a policy made from predefined policy `ref` holds: the reference first. */
static int ref_attrs(const struct sc_elb_policy *ref, struct sc_elb_policy_attr *out, int cap)
{
    int k = 0;

    if (cap < 1)
        return 0;
    out[k++] = (struct sc_elb_policy_attr){ REFERENCE_ATTR, ref->policy_name };
    for (int i = 0; i < ref->nattrs && k < cap; i++)
        out[k++] = ref->attrs[i];
    return k;
}

int elb_listener_policy_default(struct lb *b, const struct sc_elb *elb, int port)
{
    const char *name = DEFAULT_SSL_POLICY;

    if (!policy_find(b, name)) {
        struct sc_elb_policy_attr a[1 + ELB_PREDEFINED_ATTRS];
        int n = ref_attrs(predefined_find(elb, name), a, (int)(sizeof(a) / sizeof(a[0])));

        if (elb_policy_add(b, name, sc_elb_policy_type_find("SSLNegotiationPolicyType"), a, n) < 0)
            return -1;
    }
    return elb_port_set(&b->lpols, &b->nlpols, port, &name, 1, 0);
}

void elb_listener_policies_drop(struct lb *b, int port)
{
    (void)elb_port_set(&b->lpols, &b->nlpols, port, NULL, 0, 0);
}

/* --- describe --------------------------------------------------------------------------------- */

static enum sc_status policy_unknown(const char *policy, const char *lb, struct sc_error *err)
{
    return sc_fail(err, SC_ERR_POLICY_NOT_FOUND,
                   "There is no policy with name %s for load balancer %s", policy ? policy : "",
                   lb ? lb : "");
}

int sc_elb_policy_count(const struct sc_elb *elb, const char *name)
{
    const struct lb *b;

    if (!name)
        return ELB_PREDEFINED;
    b = elb_lb_find(elb, name);
    return b ? b->npolicies : -1;
}

enum sc_status sc_elb_describe_policies(const struct sc_elb *elb, const char *name,
                                        const char *const *policy_names, int n,
                                        const struct sc_elb_policy **out, int *nout,
                                        struct sc_error *err)
{
    struct lb *b = NULL;
    enum sc_status st;

    *nout = 0;
    if (name && *name) {
        st = elb_lb_lookup(elb, name, &b, err);
        if (st != SC_OK)
            return st;
    }
    for (int i = 0; i < n; i++) {
        const struct policy *p = b ? policy_find(b, policy_names[i]) : NULL;
        const struct sc_elb_policy *v =
            b ? (p ? &p->v : NULL) : predefined_find(elb, policy_names[i]);

        if (!v)
            return policy_unknown(policy_names[i], b ? b->name : "", err);
        out[(*nout)++] = v;
    }
    if (n)
        return SC_OK;
    if (b) {
        for (int i = 0; i < b->npolicies; i++)
            out[(*nout)++] = &b->policies[i]->v;
    } else {
        for (int i = 0; i < ELB_PREDEFINED; i++)
            out[(*nout)++] = &elb->predefined[i];
    }
    return SC_OK;
}

/* --- create / delete -------------------------------------------------------------------------- */

static const struct sc_elb_policy_attr_type *attr_type(const struct sc_elb_policy_type *t,
                                                       const char *name)
{
    for (int i = 0; name && i < t->nattrs; i++) {
        if (strcmp(t->attrs[i].name, name) == 0)
            return &t->attrs[i];
    }
    return NULL;
}

static int value_ok(const char *type, const char *v)
{
    if (!v)
        return 0;
    if (strcmp(type, "Boolean") == 0)
        return strcmp(v, "true") == 0 || strcmp(v, "false") == 0;
    if (strcmp(type, "Long") == 0) {
        const char *p = v[0] == '-' ? v + 1 : v;

        return *p && strspn(p, "0123456789") == strlen(p);
    }
    return 1;
}

/* InvalidConfigurationRequest with AWS-style words. */
#define bad_config(err, ...) sc_fail(err, SC_ERR_INVALID_CONFIGURATION_REQUEST, __VA_ARGS__)

/* The checks of CreateLoadBalancerPolicy's attributes against the type. */
static enum sc_status check_attrs(const struct lb *b, const struct sc_elb_policy_type *t,
                                  const struct sc_elb_policy_attr *attrs, int nattrs,
                                  struct sc_error *err)
{
    for (int i = 0; i < nattrs; i++) {
        const struct sc_elb_policy_attr_type *at = attr_type(t, attrs[i].name);

        if (!at)
            return bad_config(err, "%s is not a valid attribute of policy type %s",
                              attrs[i].name ? attrs[i].name : "", t->name);
        if (!value_ok(at->type, attrs[i].value))
            return bad_config(err, "Invalid value for attribute %s: %s", at->name,
                              attrs[i].value ? attrs[i].value : "");
        if (strcmp(at->cardinality, "ONE_OR_MORE") != 0) {
            for (int j = 0; j < i; j++) {
                if (strcmp(attrs[j].name, at->name) == 0)
                    return bad_config(err, "Attribute %s may be given only once for policy type %s",
                                      at->name, t->name);
            }
        }
        if (strcmp(at->type, "PolicyName") == 0) {
            const struct policy *p = policy_find(b, attrs[i].value);

            if (!p || strcmp(p->type->name, "PublicKeyPolicyType") != 0)
                return policy_unknown(attrs[i].value, b->name, err);
        }
    }
    for (int k = 0; k < t->nattrs; k++) {
        int have = 0;

        if (strncmp(t->attrs[k].cardinality, "ONE", 3) != 0)
            continue;
        for (int i = 0; i < nattrs; i++)
            have |= strcmp(attrs[i].name, t->attrs[k].name) == 0;
        if (!have)
            return bad_config(err, "Attribute %s is required for policy type %s", t->attrs[k].name,
                              t->name);
    }
    return SC_OK;
}

enum sc_status sc_elb_create_policy(struct sc_elb *elb, const char *name, const char *policy_name,
                                    const char *type_name, const struct sc_elb_policy_attr *attrs,
                                    int nattrs, int64_t now_ms, struct sc_error *err)
{
    struct sc_elb_policy_attr a[1 + ELB_PREDEFINED_ATTRS];
    const struct sc_elb_policy_type *t;
    const struct sc_elb_policy *ref = NULL;
    struct lb *b;
    enum sc_status st;

    (void)now_ms;
    st = elb_lb_lookup(elb, name, &b, err);
    if (st != SC_OK)
        return st;
    if (!policy_name || !*policy_name)
        return elb_null_member("policyName", err);
    if (!type_name || !*type_name)
        return elb_null_member("policyTypeName", err);
    t = sc_elb_policy_type_find(type_name);
    if (!t)
        return type_unknown(type_name, err);
    if (policy_find(b, policy_name))
        return sc_fail(err, SC_ERR_DUPLICATE_POLICY_NAME, "Policy Name [%s] already exists.",
                       policy_name);
    st = check_attrs(b, t, attrs, nattrs, err);
    if (st != SC_OK)
        return st;
    for (int i = 0; i < nattrs; i++) {
        if (strcmp(attrs[i].name, REFERENCE_ATTR) == 0) {
            ref = predefined_find(elb, attrs[i].value);
            if (!ref)
                return bad_config(err, "Unknown Reference-Security-Policy %s", attrs[i].value);
        }
    }
    if (ref) {
        /* a policy made from a predefined one holds that one's settings */
        nattrs = ref_attrs(ref, a, (int)(sizeof(a) / sizeof(a[0])));
        attrs = a;
    }
    if (elb_policy_add(b, policy_name, t, attrs, nattrs) < 0)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    return SC_OK;
}

enum sc_status sc_elb_create_lb_cookie_policy(struct sc_elb *elb, const char *name,
                                              const char *policy_name, int64_t expiration_s,
                                              int64_t now_ms, struct sc_error *err)
{
    struct sc_elb_policy_attr a = { "CookieExpirationPeriod", NULL };
    char buf[32];

    if (expiration_s >= 0) {
        snprintf(buf, sizeof(buf), "%lld", (long long)expiration_s);
        a.value = buf;
    }
    return sc_elb_create_policy(elb, name, policy_name, "LBCookieStickinessPolicyType", &a,
                                expiration_s >= 0 ? 1 : 0, now_ms, err);
}

enum sc_status sc_elb_create_app_cookie_policy(struct sc_elb *elb, const char *name,
                                               const char *policy_name, const char *cookie_name,
                                               int64_t now_ms, struct sc_error *err)
{
    struct sc_elb_policy_attr a = { "CookieName", cookie_name };
    struct lb *b;
    enum sc_status st = elb_lb_lookup(elb, name, &b, err);

    if (st != SC_OK)
        return st;
    if (!cookie_name || !*cookie_name)
        return elb_null_member("cookieName", err);
    return sc_elb_create_policy(elb, name, policy_name, "AppCookieStickinessPolicyType", &a, 1,
                                now_ms, err);
}

enum sc_status sc_elb_delete_policy(struct sc_elb *elb, const char *name, const char *policy_name,
                                    int64_t now_ms, struct sc_error *err)
{
    struct lb *b;
    enum sc_status st;

    (void)now_ms;
    st = elb_lb_lookup(elb, name, &b, err);
    if (st != SC_OK)
        return st;
    if (!policy_name || !*policy_name)
        return elb_null_member("policyName", err);
    if (!policy_find(b, policy_name))
        return bad_config(err, "There is no policy with name %s for load balancer %s", policy_name,
                          b->name);
    if (policy_in_use(b, policy_name))
        return bad_config(err, "Cannot delete policy %s: it is enabled on the load balancer %s",
                          policy_name, b->name);
    for (int i = 0; i < b->npolicies; i++) {
        if (strcmp(b->policies[i]->name, policy_name) == 0) {
            policy_free(b->policies[i]);
            memmove(&b->policies[i], &b->policies[i + 1],
                    (size_t)(b->npolicies - i - 1) * sizeof(b->policies[0]));
            b->npolicies--;
            break;
        }
    }
    return SC_OK;
}

/* --- setting ---------------------------------------------------------------------------------- */

static int is_http(const char *proto)
{
    return proto && (strcmp(proto, "HTTP") == 0 || strcmp(proto, "HTTPS") == 0);
}

static int is_ssl(const char *proto)
{
    return proto && (strcmp(proto, "HTTPS") == 0 || strcmp(proto, "SSL") == 0);
}

/* Each name a policy of b that may be set there (listener of protocol proto, or a back-end
 * port when proto is NULL). */
static enum sc_status check_set(const struct lb *b, const char *proto, const char *const *names,
                                int n, struct sc_error *err)
{
    for (int i = 0; i < n; i++) {
        const struct policy *p = policy_find(b, names[i]);
        enum where w;
        int ok;

        if (!p)
            return policy_unknown(names[i], b->name, err);
        w = type_where(p->type);
        ok = proto ? (w == ON_LISTENER_HTTP && is_http(proto)) ||
                         (w == ON_LISTENER_SSL && is_ssl(proto))
                   : w == ON_BACKEND;
        if (!ok)
            return sc_fail(err, SC_ERR_INVALID_CONFIGURATION_REQUEST, "%s cannot be enabled",
                           p->name);
    }
    return SC_OK;
}

enum sc_status sc_elb_set_listener_policies(struct sc_elb *elb, const char *name, int port,
                                            const char *const *names, int n, int64_t now_ms,
                                            struct sc_error *err)
{
    const struct sc_elb_listener *l = NULL;
    struct lb *b;
    enum sc_status st;

    (void)now_ms;
    st = elb_lb_lookup(elb, name, &b, err);
    if (st != SC_OK)
        return st;
    for (int i = 0; i < b->nlisteners; i++) {
        if (b->listeners[i].load_balancer_port == port)
            l = &b->listeners[i];
    }
    if (!l)
        return sc_fail(err, SC_ERR_LISTENER_NOT_FOUND, "There is no listener on port %d", port);
    st = check_set(b, l->protocol, names, n, err);
    if (st != SC_OK)
        return st;
    if (elb_port_set(&b->lpols, &b->nlpols, port, names, n, 0) < 0)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    return SC_OK;
}

enum sc_status sc_elb_set_backend_policies(struct sc_elb *elb, const char *name, int instance_port,
                                           const char *const *names, int n, int64_t now_ms,
                                           struct sc_error *err)
{
    struct lb *b;
    enum sc_status st;

    (void)now_ms;
    st = elb_lb_lookup(elb, name, &b, err);
    if (st != SC_OK)
        return st;
    if (instance_port < 1 || instance_port > 65535)
        return sc_fail(
            err, SC_ERR_VALIDATION,
            "1 validation error detected: Value '%d' at 'instancePort' failed to satisfy "
            "constraint: Member must have value between 1 and 65535",
            instance_port);
    st = check_set(b, NULL, names, n, err);
    if (st != SC_OK)
        return st;
    if (elb_port_set(&b->bpols, &b->nbpols, instance_port, names, n, 1) < 0)
        return sc_fail(err, SC_ERR_INTERNAL, "out of memory");
    return SC_OK;
}

int sc_elb_listener_policy_names(const struct sc_elb *elb, const char *name, int port,
                                 const char *const **names)
{
    const struct lb *b = elb_lb_find(elb, name);
    int at;

    *names = NULL;
    if (!b)
        return -1;
    at = port_index(b->lpols, b->nlpols, port);
    if (at < 0)
        return 0;
    *names = (const char *const *)b->lpols[at].names;
    return b->lpols[at].n;
}

int sc_elb_backend_count(const struct sc_elb *elb, const char *name)
{
    const struct lb *b = elb_lb_find(elb, name);

    return b ? b->nbpols : -1;
}

int sc_elb_backend_at(const struct sc_elb *elb, const char *name, int i, int *instance_port,
                      const char *const **names, int *n)
{
    const struct lb *b = elb_lb_find(elb, name);

    if (!b || i < 0 || i >= b->nbpols)
        return -1;
    *instance_port = b->bpols[i].port;
    *names = (const char *const *)b->bpols[i].names;
    *n = b->bpols[i].n;
    return 0;
}

int sc_elb_listener_stickiness(const struct sc_elb *elb, const char *name, int port,
                               struct sc_sticky *out)
{
    const struct lb *b = elb_lb_find(elb, name);
    int at;

    memset(out, 0, sizeof(*out));
    if (!b)
        return -1;
    at = port_index(b->lpols, b->nlpols, port);
    for (int i = 0; at >= 0 && i < b->lpols[at].n; i++) {
        const struct policy *p = policy_find(b, b->lpols[at].names[i]);

        if (!p)
            continue;
        for (int k = 0; k < p->nattrs; k++) {
            const char *v = p->attrs[k].value ? p->attrs[k].value : "";

            if (strcmp(p->type->name, "LBCookieStickinessPolicyType") == 0 &&
                strcmp(p->attrs[k].name, "CookieExpirationPeriod") == 0)
                out->duration_s = atoll(v);
            if (strcmp(p->type->name, "AppCookieStickinessPolicyType") == 0 &&
                strcmp(p->attrs[k].name, "CookieName") == 0)
                snprintf(out->app_cookie, sizeof(out->app_cookie), "%s", v);
        }
        if (strcmp(p->type->name, "LBCookieStickinessPolicyType") == 0)
            out->type = SC_STICKY_LB_COOKIE;
        else if (strcmp(p->type->name, "AppCookieStickinessPolicyType") == 0 && out->app_cookie[0])
            out->type = SC_STICKY_APP_COOKIE;
        if (out->type != SC_STICKY_NONE)
            return 0;
    }
    return 0;
}
