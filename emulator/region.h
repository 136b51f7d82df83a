/* emulator/region.h: AWS's region names, in one place: the credential scope's region is
 * checked against them (emulator/auth.c), and a world is made only for one of them or the
 * command line's --region (emulator/emu.c), never for a made-up name. */
#ifndef EMULATOR_REGION_H
#define EMULATOR_REGION_H

/* Whether region is one of AWS's (botocore 1.43's endpoints.json: aws, aws-cn, aws-us-gov,
 * aws-iso*, aws-eusc partitions). */
int region_is_aws(const char *region);

#endif
