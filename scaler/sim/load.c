/* scaler/sim/load.c: see load.h. */
#include "scaler/sim/load.h"

#include <math.h>

int64_t sim_phase_end_us(const struct sim_phase *ph, int64_t duration_ms)
{
    int64_t end = ph->until_ms * 1000;

    if (end > duration_ms * 1000)
        end = duration_ms * 1000;
    return end;
}

double sim_phase_value_at(const struct sim_phase *ph, int64_t duration_ms, int64_t t_us,
                          int64_t grid_us)
{
    int64_t at_us = ph->at_ms * 1000, until_us = sim_phase_end_us(ph, duration_ms);
    int64_t rel_ms = (t_us - at_us) / 1000;

    if (t_us < at_us || t_us >= until_us)
        return 0;
    if (ph->shape == SIM_SHAPE_RAMP || ph->shape == SIM_SHAPE_DIURNAL) {
        /* continuous shapes hold still on the grid (value at the cell's middle) */
        int64_t cell = (t_us - at_us) / grid_us;
        t_us = at_us + cell * grid_us + grid_us / 2;
        if (t_us >= until_us)
            t_us = until_us - 1;
    }
    if (ph->ntrace > 0) {
        int lo = 0, hi = ph->ntrace - 1;
        if (rel_ms < ph->trace_t_ms[0])
            return 0;
        while (lo < hi) {
            int mid = (lo + hi + 1) / 2;
            if (ph->trace_t_ms[mid] <= rel_ms)
                lo = mid;
            else
                hi = mid - 1;
        }
        return ph->trace_rate[lo];
    }
    switch (ph->shape) {
    case SIM_SHAPE_CONSTANT:
        return ph->value;
    case SIM_SHAPE_RAMP: {
        double f = (double)(t_us - at_us) / (double)(until_us - at_us);
        double v = ph->value + (ph->to - ph->value) * f;
        return ph->closed ? floor(v + 0.5) : v;
    }
    case SIM_SHAPE_STEP:
        return rel_ms < ph->shape_at_ms ? ph->value : ph->to;
    case SIM_SHAPE_SPIKE:
        return rel_ms >= ph->shape_at_ms && rel_ms < ph->shape_at_ms + ph->shape_for_ms ? ph->to
                                                                                        : ph->value;
    case SIM_SHAPE_DIURNAL: {
        double abs_ms = (double)t_us / 1000.0;
        double v = ph->value * (1 + ph->amplitude * cos(2 * M_PI * (abs_ms - (double)ph->peak_ms) /
                                                        (double)ph->period_ms));
        return ph->closed ? floor(v + 0.5) : v;
    }
    case SIM_SHAPE_BURSTS:
        if (ph->closed)
            return ph->value;
        return rel_ms % (ph->on_ms + ph->gap_ms) < ph->on_ms ? ph->value : 0;
    }
    return 0;
}

int64_t sim_phase_next_break_us(const struct sim_phase *ph, int64_t duration_ms, int64_t t_us,
                                int64_t grid_us)
{
    int64_t at_us = ph->at_ms * 1000, until_us = sim_phase_end_us(ph, duration_ms);
    int64_t best = until_us, rel = t_us - at_us, cand;

    if (t_us < at_us)
        return at_us;
    if (t_us >= until_us)
        return INT64_MAX;
    if (ph->ntrace > 0) {
        for (int i = 0; i < ph->ntrace; i++) {
            cand = at_us + ph->trace_t_ms[i] * 1000;
            if (cand > t_us) {
                if (cand < best)
                    best = cand;
                break;
            }
        }
        return best;
    }
    switch (ph->shape) {
    case SIM_SHAPE_CONSTANT:
        break;
    case SIM_SHAPE_RAMP:
    case SIM_SHAPE_DIURNAL:
        cand = at_us + (rel / grid_us + 1) * grid_us;
        if (cand < best)
            best = cand;
        break;
    case SIM_SHAPE_STEP:
        cand = at_us + ph->shape_at_ms * 1000;
        if (cand > t_us && cand < best)
            best = cand;
        break;
    case SIM_SHAPE_SPIKE:
        cand = at_us + ph->shape_at_ms * 1000;
        if (cand > t_us && cand < best)
            best = cand;
        cand += ph->shape_for_ms * 1000;
        if (cand > t_us && cand < best)
            best = cand;
        break;
    case SIM_SHAPE_BURSTS:
        if (!ph->closed) {
            int64_t cyc = (ph->on_ms + ph->gap_ms) * 1000, in = rel % cyc;
            cand = t_us - in + (in < ph->on_ms * 1000 ? ph->on_ms * 1000 : cyc);
            if (cand < best)
                best = cand;
        }
        break;
    }
    return best;
}
