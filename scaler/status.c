/* scaler/status.c: see status.h. */
#include "scaler/status.h"

#include <stdarg.h>
#include <stdio.h>

static const struct {
    const char *code;
    int http;
    int sender;
} table[SC_STATUS_COUNT] = {
    [SC_OK] = { "", 200, 0 },
    [SC_ERR_VALIDATION] = { "ValidationError", 400, 1 },
    [SC_ERR_MISSING_PARAMETER] = { "MissingParameter", 400, 1 },
    [SC_ERR_INVALID_PARAMETER_VALUE] = { "InvalidParameterValue", 400, 1 },
    [SC_ERR_INVALID_PARAMETER_COMBINATION] = { "InvalidParameterCombination", 400, 1 },
    [SC_ERR_INVALID_NEXT_TOKEN] = { "InvalidNextToken", 400, 1 },
    [SC_ERR_LIMIT_EXCEEDED] = { "LimitExceeded", 400, 1 },
    [SC_ERR_INTERNAL] = { "InternalFailure", 500, 0 },
    [SC_ERR_ALREADY_EXISTS] = { "AlreadyExists", 400, 1 },
    [SC_ERR_RESOURCE_IN_USE] = { "ResourceInUse", 400, 1 },
    [SC_ERR_SCALING_ACTIVITY_IN_PROGRESS] = { "ScalingActivityInProgress", 400, 1 },
    [SC_ERR_RESOURCE_CONTENTION] = { "ResourceContention", 500, 0 },
    [SC_ERR_RESOURCE_NOT_FOUND] = { "ResourceNotFound", 404, 1 },
    [SC_ERR_LIMIT_EXCEEDED_CW] = { "LimitExceeded", 400, 1 },
    [SC_ERR_LOAD_BALANCER_NOT_FOUND] = { "LoadBalancerNotFound", 400, 1 },
    [SC_ERR_DUPLICATE_LOAD_BALANCER_NAME] = { "DuplicateLoadBalancerName", 400, 1 },
    [SC_ERR_DUPLICATE_LISTENER] = { "DuplicateListener", 400, 1 },
    [SC_ERR_LISTENER_NOT_FOUND] = { "ListenerNotFound", 400, 1 },
    [SC_ERR_INVALID_INSTANCE] = { "InvalidInstance", 400, 1 },
    [SC_ERR_INVALID_CONFIGURATION_REQUEST] = { "InvalidConfigurationRequest", 409, 1 },
    [SC_ERR_TOO_MANY_LOAD_BALANCERS] = { "TooManyLoadBalancers", 400, 1 },
    [SC_ERR_LOAD_BALANCER_ATTRIBUTE_NOT_FOUND] = { "LoadBalancerAttributeNotFound", 400, 1 },
    [SC_ERR_INSTANCE_ID_NOT_FOUND] = { "InvalidInstanceID.NotFound", 400, 1 },
    [SC_ERR_INSTANCE_ID_MALFORMED] = { "InvalidInstanceID.Malformed", 400, 1 },
    [SC_ERR_LAUNCH_TEMPLATE_NOT_FOUND] = { "InvalidLaunchTemplateName.NotFoundException", 400, 1 },
    [SC_ERR_LAUNCH_TEMPLATE_EXISTS] = { "InvalidLaunchTemplateName.AlreadyExistsException", 400,
                                        1 },
    [SC_ERR_SUBNET_NOT_FOUND] = { "InvalidSubnetID.NotFound", 400, 1 },
    [SC_ERR_VPC_NOT_FOUND] = { "InvalidVpcID.NotFound", 400, 1 },
    [SC_ERR_INCORRECT_INSTANCE_STATE] = { "IncorrectInstanceState", 400, 1 },
    [SC_ERR_INSTANCE_LIMIT_EXCEEDED] = { "InstanceLimitExceeded", 400, 1 },
    [SC_ERR_INSUFFICIENT_INSTANCE_CAPACITY] = { "InsufficientInstanceCapacity", 500, 0 },
    [SC_ERR_INVALID_INSTANCE_TYPE] = { "InvalidInstanceType", 400, 1 },
    [SC_ERR_AMI_ID_NOT_FOUND] = { "InvalidAMIID.NotFound", 400, 1 },
    [SC_ERR_AMI_ID_MALFORMED] = { "InvalidAMIID.Malformed", 400, 1 },
    [SC_ERR_LAUNCH_TEMPLATE_ID_NOT_FOUND] = { "InvalidLaunchTemplateId.NotFound", 400, 1 },
    [SC_ERR_LAUNCH_TEMPLATE_ID_MALFORMED] = { "InvalidLaunchTemplateId.Malformed", 400, 1 },
    [SC_ERR_LAUNCH_TEMPLATE_VERSION_NOT_FOUND] = { "InvalidLaunchTemplateId.VersionNotFound", 400,
                                                   1 },
    [SC_ERR_LAUNCH_TEMPLATE_NAME_MALFORMED] = { "InvalidLaunchTemplateName.MalformedException", 400,
                                                1 },
    [SC_ERR_SUBNET_RANGE] = { "InvalidSubnet.Range", 400, 1 },
    [SC_ERR_SUBNET_CONFLICT] = { "InvalidSubnet.Conflict", 400, 1 },
    [SC_ERR_VPC_RANGE] = { "InvalidVpc.Range", 400, 1 },
    [SC_ERR_ELB_INVALID_SUBNET] = { "InvalidSubnet", 400, 1 },
    [SC_ERR_ELB_SUBNET_NOT_FOUND] = { "SubnetNotFound", 400, 1 },
    [SC_ERR_CERTIFICATE_NOT_FOUND] = { "CertificateNotFound", 400, 1 },
    [SC_ERR_INVALID_SCHEME] = { "InvalidScheme", 400, 1 },
    [SC_ERR_TOO_MANY_TAGS] = { "TooManyTags", 400, 1 },
    [SC_ERR_DUPLICATE_TAG_KEYS] = { "DuplicateTagKeys", 400, 1 },
    [SC_ERR_SECURITY_GROUP_NOT_FOUND] = { "InvalidGroup.NotFound", 400, 1 },
    [SC_ERR_SECURITY_GROUP_DUPLICATE] = { "InvalidGroup.Duplicate", 400, 1 },
    [SC_ERR_SECURITY_GROUP_RESERVED] = { "InvalidGroup.Reserved", 400, 1 },
    [SC_ERR_SECURITY_GROUP_ID_MALFORMED] = { "InvalidGroupId.Malformed", 400, 1 },
    [SC_ERR_CANNOT_DELETE] = { "CannotDelete", 400, 1 },
    [SC_ERR_DEPENDENCY_VIOLATION] = { "DependencyViolation", 400, 1 },
    [SC_ERR_PERMISSION_DUPLICATE] = { "InvalidPermission.Duplicate", 400, 1 },
    [SC_ERR_PERMISSION_NOT_FOUND] = { "InvalidPermission.NotFound", 400, 1 },
    [SC_ERR_NETWORK_INTERFACE_NOT_FOUND] = { "InvalidNetworkInterfaceID.NotFound", 400, 1 },
    [SC_ERR_NETWORK_INTERFACE_MALFORMED] = { "InvalidNetworkInterfaceId.Malformed", 400, 1 },
    [SC_ERR_ELB_INVALID_SECURITY_GROUP] = { "InvalidSecurityGroup", 400, 1 },
    [SC_ERR_POLICY_NOT_FOUND] = { "PolicyNotFound", 400, 1 },
    [SC_ERR_POLICY_TYPE_NOT_FOUND] = { "PolicyTypeNotFound", 400, 1 },
    [SC_ERR_DUPLICATE_POLICY_NAME] = { "DuplicatePolicyName", 400, 1 },
    [SC_ERR_TARGET_GROUP_NOT_FOUND] = { "TargetGroupNotFound", 400, 1 },
    [SC_ERR_DUPLICATE_TARGET_GROUP_NAME] = { "DuplicateTargetGroupName", 400, 1 },
    [SC_ERR_PRIORITY_IN_USE] = { "PriorityInUse", 400, 1 },
    [SC_ERR_RULE_NOT_FOUND] = { "RuleNotFound", 400, 1 },
    [SC_ERR_INVALID_TARGET] = { "InvalidTarget", 400, 1 },
    [SC_ERR_TOO_MANY_TARGETS] = { "TooManyTargets", 400, 1 },
    [SC_ERR_TOO_MANY_LISTENERS] = { "TooManyListeners", 400, 1 },
    [SC_ERR_TOO_MANY_RULES] = { "TooManyRules", 400, 1 },
    [SC_ERR_TOO_MANY_TARGET_GROUPS] = { "TooManyTargetGroups", 400, 1 },
    [SC_ERR_OPERATION_NOT_PERMITTED] = { "OperationNotPermitted", 400, 1 },
    [SC_ERR_INCOMPATIBLE_PROTOCOLS] = { "IncompatibleProtocols", 400, 1 },
    [SC_ERR_UNSUPPORTED_PROTOCOL] = { "UnsupportedProtocol", 400, 1 },
    [SC_ERR_INVALID_LOAD_BALANCER_ACTION] = { "InvalidLoadBalancerAction", 400, 1 },
    [SC_ERR_SSL_POLICY_NOT_FOUND] = { "SSLPolicyNotFound", 400, 1 },
    [SC_ERR_TARGET_GROUP_ASSOCIATION_LIMIT] = { "TargetGroupAssociationLimit", 400, 1 },
    [SC_ERR_V2_INVALID_CONFIGURATION_REQUEST] = { "InvalidConfigurationRequest", 400, 1 },
    [SC_ERR_RESOURCE_NOT_FOUND_EXCEPTION] = { "ResourceNotFoundException", 404, 1 },
    [SC_ERR_INSTANCE_REFRESH_IN_PROGRESS] = { "InstanceRefreshInProgress", 400, 1 },
    [SC_ERR_ACTIVE_INSTANCE_REFRESH_NOT_FOUND] = { "ActiveInstanceRefreshNotFound", 400, 1 },
    [SC_ERR_IRREVERSIBLE_INSTANCE_REFRESH] = { "IrreversibleInstanceRefresh", 400, 1 },
    [SC_ERR_INVALID_PARAMETER_INPUT] = { "InvalidParameterInput", 400, 1 },
    [SC_ERR_TRUST_STORE_NOT_FOUND] = { "TrustStoreNotFound", 400, 1 },
    [SC_ERR_TRUST_STORE_NOT_READY] = { "TrustStoreNotReady", 400, 1 },
    [SC_ERR_TRUST_STORE_IN_USE] = { "TrustStoreInUse", 400, 1 },
    [SC_ERR_DUPLICATE_TRUST_STORE_NAME] = { "DuplicateTrustStoreName", 400, 1 },
    [SC_ERR_TOO_MANY_TRUST_STORES] = { "TooManyTrustStores", 400, 1 },
    [SC_ERR_INVALID_CA_CERTIFICATES_BUNDLE] = { "InvalidCaCertificatesBundle", 400, 1 },
    [SC_ERR_CA_CERTIFICATES_BUNDLE_NOT_FOUND] = { "CaCertificatesBundleNotFound", 400, 1 },
    [SC_ERR_INVALID_REVOCATION_CONTENT] = { "InvalidRevocationContent", 400, 1 },
    [SC_ERR_REVOCATION_CONTENT_NOT_FOUND] = { "RevocationContentNotFound", 400, 1 },
    [SC_ERR_TOO_MANY_TRUST_STORE_REVOCATION_ENTRIES] = { "TooManyTrustStoreRevocationEntries", 400,
                                                         1 },
    [SC_ERR_REVOCATION_ID_NOT_FOUND] = { "RevocationIdNotFound", 400, 1 },
    [SC_ERR_TRUST_STORE_ASSOCIATION_NOT_FOUND] = { "AssociationNotFound", 400, 1 },
    [SC_ERR_DELETE_ASSOCIATION_SAME_ACCOUNT] = { "DeleteAssociationSameAccount", 400, 1 },
    [SC_ERR_V2_RESOURCE_NOT_FOUND] = { "ResourceNotFound", 400, 1 },
    [SC_ERR_CAPACITY_UNITS_LIMIT_EXCEEDED] = { "CapacityUnitsLimitExceeded", 400, 1 },
    [SC_ERR_CAPACITY_RESERVATION_PENDING] = { "CapacityReservationPending", 400, 1 },
    [SC_ERR_CAPACITY_DECREASE_LIMIT_EXCEEDED] = { "CapacityDecreaseRequestLimitExceeded", 400, 1 },
    [SC_ERR_LIMIT_EXCEEDED_EXCEPTION] = { "LimitExceededException", 400, 1 },
    [SC_ERR_VCPU_LIMIT_EXCEEDED] = { "VcpuLimitExceeded", 400, 1 },
    [SC_ERR_IDEMPOTENT_PARAMETER_MISMATCH] = { "IdempotentParameterMismatch", 400, 1 },
};

const char *sc_status_code(enum sc_status s)
{
    if ((unsigned)s >= SC_STATUS_COUNT)
        return "InternalFailure";
    return table[s].code;
}

int sc_status_http(enum sc_status s)
{
    if ((unsigned)s >= SC_STATUS_COUNT)
        return 500;
    return table[s].http;
}

int sc_status_is_sender(enum sc_status s)
{
    if ((unsigned)s >= SC_STATUS_COUNT)
        return 0;
    return table[s].sender;
}

enum sc_status sc_fail(struct sc_error *e, enum sc_status s, const char *fmt, ...)
{
    va_list ap;

    if (!e)
        return s;
    e->status = s;
    va_start(ap, fmt);
    vsnprintf(e->message, sizeof(e->message), fmt, ap);
    va_end(ap);
    return s;
}
