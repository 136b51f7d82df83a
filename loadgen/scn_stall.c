/* loadgen/scn_stall.c: host stalls during a run (scaler/stall.h has the rules; docs/loadgen.md,
 * "Host stalls"). Three places are watched, none per request: the controlling loop's wake-up
 * at each due time (scn_run.c), the burst engines' timer (loadgen/burst.c, through the
 * player's on_late) and the emulator's own loop (its step timer, read from GET
 * /_scalelab/health every SCN_STALL_EMU_MS real ms and at the end). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "loadgen/scn_emu.h"
#include "loadgen/scn_internal.h"
#include "scaler/stall.h"

void scn_stall_start(struct run *r)
{
    sc_stalls_init(&r->stalls, r->scale);
    r->stalls.origin_ms = r->emu_t0; /* windows can be found in the emulator's events */
    pthread_mutex_init(&r->stall_mu, NULL);
    r->stalls.measured[SC_STALL_RUNNER] = 1;
    r->emu_stall_seq = 0;
    r->emu_stall_next_ms = 0;
    r->emu_stall_read = 0;
    r->stall_on = 1;
    scn_stall_poll_emu(r, 1); /* where the emulator's count stands at time 0 */
}

/* Scenario ms (emulated, since time 0) of a monotonic ms. */
static int64_t scen_ms(const struct run *r, int64_t mono_ms)
{
    return (int64_t)((double)(mono_ms - r->mono_t0) * r->scale);
}

void scn_stall_note(struct run *r, enum sc_stall_source src, int64_t mono_ms, double late_ms)
{
    int64_t t = scen_ms(r, mono_ms);

    if (!r->stall_on || t < 0)
        return; /* before time 0: the setup's, not the run's */
    pthread_mutex_lock(&r->stall_mu);
    sc_stalls_add(&r->stalls, src, t, late_ms);
    pthread_mutex_unlock(&r->stall_mu);
}

void scn_stall_on_late(void *ud, int64_t now_us, int64_t late_us)
{
    scn_stall_note(ud, SC_STALL_LOAD, now_us / 1000, (double)late_us / 1000.0);
}

void scn_stall_poll_emu(struct run *r, int force)
{
    struct scn_emu_stall st[SC_STALL_RING];
    uint64_t total = 0;
    int64_t now = scn_mono_ms();
    char err[256];
    int n;

    if (!r->stall_on || !r->is_emulator || (!force && now < r->emu_stall_next_ms))
        return;
    r->emu_stall_next_ms = now + SCN_STALL_EMU_MS;
    n = scn_emu_loop_stalls(r->base, r->emu_stall_seq, st, SC_STALL_RING, &total, err, sizeof(err));
    if (n < 0)
        return; /* an emulator that does not say: the emulator's source stays unmeasured */
    pthread_mutex_lock(&r->stall_mu);
    r->stalls.measured[SC_STALL_EMULATOR] = 1;
    for (int i = 0; i < n; i++)
        if (st[i].at_ms >= r->emu_t0)
            sc_stalls_add(&r->stalls, SC_STALL_EMULATOR, st[i].at_ms - r->emu_t0, st[i].late_ms);
    /* more than the ring holds since the last read: counted, not placed */
    if (r->emu_stall_read && total > r->emu_stall_seq + (uint64_t)n)
        sc_stalls_add_unplaced(&r->stalls, SC_STALL_EMULATOR,
                               total - r->emu_stall_seq - (uint64_t)n);
    r->emu_stall_seq = total;
    r->emu_stall_read = 1;
    pthread_mutex_unlock(&r->stall_mu);
}

int scn_stall_blames(const struct run *r, const struct sim_check_result *c)
{
    return c && c->settled && !c->ok && sc_stalls_suspect(&r->stalls, c->when_ms);
}

int scn_stall_blamed(const struct run *r)
{
    int n = 0;

    for (int i = 0; r->checker && i < sim_checker_count(r->checker); i++)
        n += scn_stall_blames(r, sim_checker_result(r->checker, i));
    return n;
}

void scn_stall_print_notes(const struct run *r, FILE *f)
{
    char note[512];

    sc_stalls_note(&r->stalls, note, sizeof(note));
    for (int i = 0; r->checker && i < sim_checker_count(r->checker); i++) {
        const struct sim_check_result *c = sim_checker_result(r->checker, i);

        if (scn_stall_blames(r, c))
            fprintf(f, "  note: %s: %s\n", c->e->path, note);
    }
}

void scn_stall_stop(struct run *r)
{
    if (!r->stall_on)
        return;
    r->stall_on = 0;
    pthread_mutex_destroy(&r->stall_mu);
}
