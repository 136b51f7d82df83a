/* emulator/api_sts.c: AWS STS (2011-06-15) at the emulator's endpoint (docs/auth.md
 * "STS GetCallerIdentity"): GetCallerIdentity, which tools call first to learn the
 * account (Ansible's amazon.aws modules, Terraform's provider). Every key the emulator
 * knows (--credentials, the environment's under --auth sigv4; any without it) is a key of
 * the one account it emulates (--account) and carries no user name, so the caller is that
 * account's root user, answered as AWS answers root credentials: Arn
 * arn:<partition>:iam::<account>:root and UserId the account id (the aws:userid of the
 * account principal, IAM User Guide "Policy variables", Principal table). The model's
 * other STS operations answer NotImplemented (dispatch.c). */
#include "emulator/api.h"

#include <stdio.h>

#include "scaler/alarm.h"

static int get_caller_identity(struct api_ctx *ctx, json_t *in, json_t **out, struct awserr *err)
{
    char arn[128];

    (void)in;
    (void)err;
    snprintf(arn, sizeof(arn), "arn:%s:iam::%s:root", sc_alarm_partition(ctx->region),
             ctx->account);
    *out = json_pack("{s:s,s:s,s:s}", "UserId", ctx->account, "Account", ctx->account, "Arn", arn);
    return 0;
}

const struct api_handler api_sts_handlers[] = {
    { "GetCallerIdentity", get_caller_identity, API_WORLDLESS },
    { NULL, NULL, 0 },
};
