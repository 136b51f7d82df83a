/* common/log.h: level-checked logging to stderr, one line per message.
 *
 * Line shape: 2025-05-01T10:00:00.123Z emulator[42] W lb: backend down id=i-0a1b
 * The level is checked before any formatting, so disabled DEBUG lines cost a compare.
 * Not thread-safe to reconfigure; logging itself is one write(2) per line. */
#ifndef COMMON_LOG_H
#define COMMON_LOG_H

#include <stddef.h>

enum cm_log_level {
    CM_LOG_ERROR = 0,
    CM_LOG_WARN = 1,
    CM_LOG_INFO = 2,
    CM_LOG_DEBUG = 3,
};

/* Sets the program name shown in each line (borrowed: must outlive logging). */
void cm_log_init(const char *program, enum cm_log_level level);
void cm_log_set_level(enum cm_log_level level);
enum cm_log_level cm_log_get_level(void);
/* Parses "error|warn|info|debug"; returns 0, or -1 for anything else. */
int cm_log_level_parse(const char *s, enum cm_log_level *out);

void cm_log(enum cm_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* What cm_log() writes of a message: in with every control byte (newline, ESC, ...), DEL
 * and backslash as \xNN, into out (cap bytes, NUL-terminated, cut at a whole character).
 * Returns the length written. */
size_t cm_log_escape(char *out, size_t cap, const char *in);

#define log_error(...) cm_log(CM_LOG_ERROR, __VA_ARGS__)
#define log_warn(...)  cm_log(CM_LOG_WARN, __VA_ARGS__)
#define log_info(...)                                                                              \
    do {                                                                                           \
        if (cm_log_get_level() >= CM_LOG_INFO)                                                     \
            cm_log(CM_LOG_INFO, __VA_ARGS__);                                                      \
    } while (0)
#define log_debug(...)                                                                             \
    do {                                                                                           \
        if (cm_log_get_level() >= CM_LOG_DEBUG)                                                    \
            cm_log(CM_LOG_DEBUG, __VA_ARGS__);                                                     \
    } while (0)

#endif
