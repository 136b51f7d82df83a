/* emulator/region.c: see region.h. */
#include "emulator/region.h"

#include <stddef.h>
#include <string.h>

int region_is_aws(const char *region)
{
    /* botocore 1.43.11 data/endpoints.json, every partition's regions */
    static const char *const regions[] = {
        "af-south-1",     "ap-east-1",      "ap-east-2",      "ap-northeast-1", "ap-northeast-2",
        "ap-northeast-3", "ap-south-1",     "ap-south-2",     "ap-southeast-1", "ap-southeast-2",
        "ap-southeast-3", "ap-southeast-4", "ap-southeast-5", "ap-southeast-6", "ap-southeast-7",
        "ca-central-1",   "ca-west-1",      "eu-central-1",   "eu-central-2",   "eu-north-1",
        "eu-south-1",     "eu-south-2",     "eu-west-1",      "eu-west-2",      "eu-west-3",
        "il-central-1",   "me-central-1",   "me-south-1",     "mx-central-1",   "sa-east-1",
        "us-east-1",      "us-east-2",      "us-west-1",      "us-west-2",      "cn-north-1",
        "cn-northwest-1", "us-gov-east-1",  "us-gov-west-1",  "us-iso-east-1",  "us-iso-west-1",
        "us-isob-east-1", "us-isob-west-1", "eu-isoe-west-1", "us-isof-east-1", "us-isof-south-1",
        "eusc-de-east-1",
    };

    for (size_t i = 0; i < sizeof(regions) / sizeof(regions[0]); i++) {
        if (strcmp(regions[i], region) == 0)
            return 1;
    }
    return 0;
}
