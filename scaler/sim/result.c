/* scaler/sim/result.c: see result.h. */
#include "scaler/sim/result.h"

#include <stdio.h>
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

double sim_run_result_failed_pct(const struct sim_run_result *r)
{
    double tot = r->completed + r->failed;

    return tot > 0 ? 100.0 * r->failed / tot : 0.0;
}

int sim_run_result_format_requests(const struct sim_run_result *r, char *out, size_t n)
{
    return snprintf(out, n,
                    "%.0f completed, %.0f failed (%.3f%%), latency p50 %.1f ms, p99 %.1f ms",
                    r->completed, r->failed, sim_run_result_failed_pct(r), r->p50_ms, r->p99_ms);
}

void sim_elapsed_format(int64_t ms, char *out, size_t n)
{
    int64_t s = ms / 1000;

    if (s >= 86400)
        snprintf(out, n, "%lldd%02lld:%02lld:%02lld", (long long)(s / 86400),
                 (long long)(s % 86400 / 3600), (long long)(s % 3600 / 60), (long long)(s % 60));
    else
        snprintf(out, n, "%02lld:%02lld:%02lld", (long long)(s / 3600), (long long)(s % 3600 / 60),
                 (long long)(s % 60));
}
