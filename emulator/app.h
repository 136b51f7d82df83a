/* emulator/app.h: what the emulated instance's application does that is its own and not
 * the model's: the seed tutorial's SOAP adder. The application profile (keys, defaults,
 * service times, the CPU model) is libscaler's, scaler/app.h, shared with the simulator. */
#ifndef EMULATOR_APP_H
#define EMULATOR_APP_H

#include <stddef.h>

/* The SOAP adder: finds the first two numbers that stand alone between tags in body
 * (">12<" ... ">30<") and writes the 260-byte SOAP 1.2 reply with their sum. Returns
 * 260, or -1 when the body holds fewer than two numbers (cap must be >= 261). */
#define APP_SOAP_REPLY_LEN 260
int app_soap_add(const char *body, size_t len, char *out, size_t cap);

#endif
