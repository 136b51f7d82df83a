/* scaler/sim/load.h: the load a scenario phase offers at a time, the one rule that both
 * the simulator's model (scaler/sim/model.c) and the load player (loadgen/player.c) use.
 *
 * Times are microseconds since the run start (the simulator's virtual clock minus its
 * start; the player's scenario clock). A phase offers load in [at, end) where end is
 * its `until` clipped to the run's duration (sim_phase_end_us). Continuous shapes (ramp,
 * diurnal) hold still on cells of grid_us counted from the phase start, at the value of
 * the cell's middle (the simulator uses 1 s in DES mode, 10 s in fluid mode).
 *
 * Pure: no clock, no allocation, no state. */
#ifndef SCALER_SIM_LOAD_H
#define SCALER_SIM_LOAD_H

#include <stdint.h>

#include "scaler/sim/scenario.h"

/* Where the phase ends, µs since the run start: min(until, duration). */
int64_t sim_phase_end_us(const struct sim_phase *ph, int64_t duration_ms);

/* The phase's value at t_us: requests per second (open model) or clients (closed model;
 * whole numbers for ramp and diurnal), 0 outside [at, end). For closed bursts it is the
 * clients of the burst (the duty cycle is not in it); for open bursts the rate while on
 * and 0 while off. grid_us > 0. */
double sim_phase_value_at(const struct sim_phase *ph, int64_t duration_ms, int64_t t_us,
                          int64_t grid_us);

/* The next time after t_us at which sim_phase_value_at may change: the phase's start
 * when t_us is before it, a shape edge, a grid cell edge (ramp, diurnal), a trace row,
 * an open burst's on/off edge, or the phase's end; INT64_MAX from the end on. */
int64_t sim_phase_next_break_us(const struct sim_phase *ph, int64_t duration_ms, int64_t t_us,
                                int64_t grid_us);

#endif
