/* scaler/sim/result.c: see result.h. */
#include "scaler/sim/result.h"

#include <stdlib.h>

const char *sim_mode_str(enum sim_mode m)
{
    return m == SIM_MODE_DES ? "des" : "fluid";
}

void sim_run_result_cleanup(struct sim_run_result *res)
{
    for (int i = 0; i < res->nwarnings; i++)
        free(res->warnings[i]);
    free(res->warnings);
    res->warnings = NULL;
    res->nwarnings = 0;
}
