/* scaler/app.h: the application profile an instance runs (the part of an instance that is
 * not AWS), one model for both worlds: its keys and defaults, parsing and formatting,
 * service-time sampling, and the busy-worker CPU model.
 *
 * The simulator reads it from a scenario's launch_configurations[].app; the emulator's
 * instance program from its --profile (the launch configuration's or RunInstances'
 * UserData); loadgen writes a scenario's app into UserData with sc_app_format(), so the
 * emulated instance runs what the simulated one runs. docs/scenarios.md has the table.
 *
 *   { "boot_s": 60, "workers": 1, "queue_limit": 1000,
 *     "service_ms": { "dist": "exponential", "mean": 10 },
 *     "cpu_per_request": 1,
 *     "cpu_ms": 0, "error_rate": 0, "slow": 1, "health_path": "/health", "seed": 1 }
 *
 * Every key is optional; the values above are the defaults. service_ms is
 * {"dist": "fixed"|"exponential"|"lognormal", "mean": ms} (dist default exponential);
 * lognormal takes "median" or "mean" and "sigma" (the log-space standard deviation,
 * default 0.5). A plain number N is {"dist": "fixed", "mean": N}. Requests beyond the
 * busy `workers` wait in a FIFO of `queue_limit`; more fail (503).
 *
 * Two more keys, absent from the line above because loadgen writes them, not a scenario:
 * "time_scaled": true (default false) makes the instance's service times (and cpu_ms)
 * pass on the emulated clock: divided by the emulator's --time-scale; "batch": K (a number
 * >= 1, default 1) makes each request the instance receives stand for K requests of the
 * model, served back to back by one worker (its service time is the sum of K draws: the
 * integer part of K draws, plus the fraction of one more). `loadgen scenario` sets both
 * for closed loads at time scales above 1 (docs/dataplane.md, "Time").
 *
 * Both worlds honour boot_s, workers, queue_limit, service_ms and cpu_per_request. The
 * last five keys (and time_scaled, batch) are the emulator's alone: cpu_ms is real host CPU burnt
 * per request (a property of the host, not of the model), error_rate answers 500 at that
 * probability, slow multiplies service times, health_path is answered like /health (not queued),
 * seed seeds the instance's draws. The simulator does not model them: sc_app_sim_ignored() names
 * the ones a profile sets, and its caller says so.
 *
 * Plain data in the caller's storage; no allocation. Pure: time and randomness come in. */
#ifndef SCALER_APP_H
#define SCALER_APP_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "scaler/rng.h"
#include "scaler/status.h"

enum sc_app_dist {
    SC_APP_DIST_FIXED = 0,
    SC_APP_DIST_EXPONENTIAL = 1,
    SC_APP_DIST_LOGNORMAL = 2,
};

/* health_path's storage, NUL included. */
#define SC_APP_PATH_LEN 256
/* Room for sc_app_format()'s output, NUL included (the longest profile needs 941). */
#define SC_APP_FORMAT_LEN 1024

struct sc_app {
    double boot_s;   /* from launch (EC2 pending) until it serves (running), emulated s */
    int workers;     /* requests served at once (servers of the instance's queue) */
    int queue_limit; /* requests waiting beyond the busy workers; more fail */
    enum sc_app_dist dist;
    double service_mean_ms;   /* mean service time (derived for lognormal given a median) */
    double service_median_ms; /* lognormal: the median; fixed: the mean; exponential: mean ln 2 */
    double service_sigma;     /* lognormal: sigma of the log; others 0 */
    double cpu_per_request;   /* share of a busy worker that is CPU, (0, 1] */
    /* the emulator's alone */
    double cpu_ms;     /* real CPU burnt per request, ms */
    double error_rate; /* 0..1: share of requests answered 500 */
    double slow;       /* >= 0: service-time multiplier */
    char health_path[SC_APP_PATH_LEN];
    uint64_t seed;
    int time_scaled; /* service times (and cpu_ms) divided by the clock's time scale */
    double batch;    /* >= 1: requests of the model one received request stands for */
};

/* The one set of defaults (the values in the comment above). */
void sc_app_defaults(struct sc_app *a);

/* Reads a profile from a JSON object: *a gets the defaults with the keys of obj over
 * them. Unknown keys, wrong types and values out of range are errors. path is the JSON
 * path of obj ("$.infrastructure.launch_configurations[0].app"): errors read
 * "PATH.KEY: problem"; with path NULL they name the key alone ("workers: must be >= 1").
 * JSON null counts as absent. Returns SC_OK, or SC_ERR_VALIDATION with the message in err
 * (errlen bytes, may be 0); *a is then unspecified. */
enum sc_status sc_app_parse(struct sc_app *a, const json_t *obj, const char *path, char *err,
                            size_t errlen);
/* The same, reporting into a reader's lint (scaler/lint.h) beside the rest of its file:
 * every unknown key (with "did you mean") and the first wrong value. SC_ERR_VALIDATION
 * when it added an error. */
struct sc_lint;
enum sc_status sc_app_parse_lint(struct sc_app *a, const json_t *obj, const char *path,
                                 struct sc_lint *l);
/* The same from JSON text (the emulator's --profile and UserData); not JSON, or not an
 * object, is an error too. */
enum sc_status sc_app_parse_text(struct sc_app *a, const char *text, char *err, size_t errlen);

/* Writes a as one line of compact JSON that sc_app_parse() reads back: every key, numbers
 * with 17 significant digits (lognormal as its median and sigma). This is the UserData
 * loadgen launches the emulator's instances with. Returns the length, or -1 when cap is
 * too small (SC_APP_FORMAT_LEN always suffices). */
int sc_app_format(const struct sc_app *a, char *out, size_t cap);

/* Names, comma-separated, the emulator-only keys whose value in a differs from the
 * default: what the simulator will not model. Returns how many ("" and 0: none). */
int sc_app_sim_ignored(const struct sc_app *a, char *out, size_t cap);

/* --- service time -------------------------------------------------------------------------- */

/* One service time (before the slow factor) drawn from rng, in the caller's unit: per_ms
 * of it make a millisecond (1: ms, the instance program; 1000: us, the simulator). Fixed
 * takes no draw, exponential one, lognormal two (Box-Muller): the same profile and rng
 * state give the same time in both worlds. */
double sc_app_service_time(const struct sc_app *a, struct sc_rng *rng, double per_ms);
/* One received request's service time: sc_app_service_time() summed over a->batch
 * requests (floor(batch) draws, plus frac(batch) times one more draw when batch is not
 * whole), same unit. batch 1 is exactly sc_app_service_time(). */
double sc_app_batch_service_time(const struct sc_app *a, struct sc_rng *rng, double per_ms);
/* The service time's quantile p (0..1), in the same unit. */
double sc_app_service_quantile(const struct sc_app *a, double p, double per_ms);

/* --- the busy-worker CPU model ------------------------------------------------------------- */

/* CPUUtilization is modelled, not measured: an instance whose workers were busy for
 * busy_worker_time in all (summed over the workers) over elapsed (the same unit) used
 *     100 x busy_worker_time x cpu_per_request / (workers x elapsed)   percent,
 * clamped to 0..100; 0 when elapsed <= 0. Both worlds measure busy-worker time their way
 * (the instance program with struct sc_app_busy, the simulator in its queues) and turn it
 * into CPUUtilization here. */
double sc_app_cpu_pct(const struct sc_app *a, double busy_worker_time, double elapsed);
/* busy_worker_time x cpu_per_request: the CPU-busy worker time, for callers that sum it
 * over instances before dividing by their capacity. */
double sc_app_cpu_time(const struct sc_app *a, double busy_worker_time);

/* The instance program's busy-worker integral. Zeroed storage with last_ms set to the
 * start is a valid start. */
struct sc_app_busy {
    int busy;             /* workers busy now */
    int64_t last_ms;      /* last change */
    double busy_ms_total; /* integral of busy over time, worker-ms */
};
/* Moves the integral to now_ms, then adds delta (+1 start, -1 end) to busy (not below 0). */
void sc_app_busy_change(struct sc_app_busy *b, int64_t now_ms, int delta);
/* The integral up to now_ms (b unchanged). */
double sc_app_busy_total_ms(const struct sc_app_busy *b, int64_t now_ms);

#endif
