/* emulator/app.h: an instance's application profile (what the fake server behaves like)
 * and the pieces of its behaviour that are pure functions: parsing the profile JSON,
 * sampling service times, the SOAP adder reply, and the modelled CPU figure.
 *
 * Profile JSON (every key optional; launch configuration UserData or the `--profile`
 * option of `emulator instance`):
 *   { "boot_s": 0, "workers": 8, "queue": 1024,
 *     "service_ms": 10  |  { "dist": "fixed|exponential|lognormal",
 *                            "value"|"mean"|"median": 10, "sigma": 0.5 },
 *     "cpu_ms": 0, "error_rate": 0, "slow": 1, "health_path": "/health", "seed": 1 }
 * service_ms is a fixed value (fixed), the mean (exponential) or the median (lognormal,
 * with sigma the log-space standard deviation). Requests beyond `workers` wait in a FIFO
 * of `queue`; beyond that they get 503. cpu_ms of real CPU is burnt for every request;
 * `/cpu` burns real CPU for its whole service time. error_rate answers 500 at that
 * probability; slow multiplies service times (the "slow" fault). */
#ifndef EMULATOR_APP_H
#define EMULATOR_APP_H

#include <stddef.h>
#include <stdint.h>

#include "scaler/rng.h"

enum app_dist {
    APP_DIST_FIXED,
    APP_DIST_EXPONENTIAL,
    APP_DIST_LOGNORMAL,
};

#define APP_PATH_LEN 256

struct app_profile {
    double boot_s;
    int workers;
    int queue;
    enum app_dist dist;
    double service_ms; /* fixed value, exponential mean, or lognormal median */
    double sigma;      /* lognormal only */
    double cpu_ms;
    double error_rate; /* 0..1 */
    double slow;       /* >= 0 multiplier */
    char health_path[APP_PATH_LEN];
    uint64_t seed;
};

void app_profile_defaults(struct app_profile *p);
/* Parses JSON over the defaults already in *p (call app_profile_defaults first). Returns
 * 0, or -1 with a message in err (errlen bytes) on bad JSON, unknown keys or values out
 * of range. */
int app_profile_parse(const char *json, struct app_profile *p, char *err, size_t errlen);
/* Formats the profile as JSON (the keys above) into out; returns the length or -1. */
int app_profile_format(const struct app_profile *p, char *out, size_t cap);

/* One service time in ms (before the slow factor), from the profile's distribution. */
double app_service_ms(const struct app_profile *p, struct sc_rng *rng);

/* The SOAP adder: finds the first two numbers that stand alone between tags in body
 * (">12<" ... ">30<") and writes the 260-byte SOAP 1.2 reply with their sum. Returns
 * 260, or -1 when the body holds fewer than two numbers (cap must be >= 261). */
#define APP_SOAP_REPLY_LEN 260
int app_soap_add(const char *body, size_t len, char *out, size_t cap);

/* Busy-worker accounting: CPU is modelled as busy-worker-time / (workers x elapsed). */
struct app_busy {
    int busy;             /* workers busy now */
    int64_t last_ms;      /* last change */
    double busy_ms_total; /* integral of busy over time, worker-ms */
};
/* Moves the integral to now_ms, then adds delta (+1 start, -1 end) to busy. */
void app_busy_change(struct app_busy *b, int64_t now_ms, int delta);
/* The integral up to now_ms (does not change b). */
double app_busy_total_ms(const struct app_busy *b, int64_t now_ms);
/* Percent 0..100 from two readings of app_busy_total_ms taken elapsed_ms apart. */
double app_cpu_pct(double busy_ms_delta, int workers, int64_t elapsed_ms);

#endif
