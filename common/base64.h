/* common/base64.h: base64 (RFC 4648 section 4) for loadgen's Basic credentials and
 * scenario UserData, and the emulator's UserData profiles.
 *
 * The encoder writes the standard alphabet with '=' padding and no line breaks. The
 * decoder is lenient as EC2 clients are with UserData: it reads the standard and the
 * URL-safe alphabet (section 5: '-' and '_'), skips '=', CR, LF and space wherever they
 * are, and drops the bits of an incomplete last group. Both return memory the caller
 * frees (cm_xmalloc: out-of-memory aborts). */
#ifndef COMMON_BASE64_H
#define COMMON_BASE64_H

#include <stddef.h>

/* The base64 text of data[0..len), NUL-terminated. */
char *cm_base64_encode(const void *data, size_t len);

/* The bytes text[0..strlen(text)) encodes, followed by a NUL that *outlen (when not NULL)
 * does not count, so a decoded string is usable as one. Returns NULL when text holds a
 * character outside both alphabets and the skipped ones. */
char *cm_base64_decode(const char *text, size_t *outlen);

#endif
