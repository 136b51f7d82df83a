/* emulator/webhook.h: Auto Scaling notifications POSTed to a loopback HTTP URL (the
 * emulator's --notify-webhook; docs/autoscaling.md 9.4), as Amazon SNS would POST them to
 * an HTTP subscriber: a JSON envelope {Type, MessageId, TopicArn, Subject, Message (the
 * message body as a string), Timestamp} with the x-amz-sns-* headers, unsigned.
 *
 * Never blocks the loop: libcurl's multi interface runs on the loop's fds and timers
 * (common/ev.h). Bounded: at most WEBHOOK_QUEUE posts wait and WEBHOOK_INFLIGHT are out at
 * once, each given WEBHOOK_TIMEOUT_MS; a post that finds the queue full is dropped, and
 * drops and failures are logged as one warning per WEBHOOK_WARN_MS with their count.
 * Single-threaded: the loop's thread. */
#ifndef EMULATOR_WEBHOOK_H
#define EMULATOR_WEBHOOK_H

#include <stddef.h>
#include <stdint.h>

struct cm_ev;
struct sc_asg_notification;

#define WEBHOOK_QUEUE      256
#define WEBHOOK_INFLIGHT   4
#define WEBHOOK_TIMEOUT_MS 5000
#define WEBHOOK_WARN_MS    10000

struct webhook;

/* 0 when url is an http:// URL whose host is loopback (127.0.0.1, [::1], localhost), else
 * -1 with why in err (errlen bytes). For the command line's check, before anything starts. */
int webhook_url_check(const char *url, char *err, size_t errlen);

/* A webhook posting to url (checked by webhook_url_check) from loop ev. NULL on failure
 * (logged). */
struct webhook *webhook_create(struct cm_ev *ev, const char *url);
/* Ends the transfers under way and frees the queue; NULL is a no-op. */
void webhook_destroy(struct webhook *w);

/* Queues the notification n (copied), made at now_ms (emulated epoch ms: its Timestamp). */
void webhook_post(struct webhook *w, const struct sc_asg_notification *n, int64_t now_ms);

/* Posts delivered (a 2xx answer), failed (another answer, an error, a timeout) and dropped
 * (queue full) so far. */
void webhook_counts(const struct webhook *w, uint64_t *delivered, uint64_t *failed,
                    uint64_t *dropped);

#endif
