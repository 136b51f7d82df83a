/* emulator/instance/main.c: `emulator-instance`, the emulated instance alone (the same
 * code as `emulator instance`, see emulator/instance_main.h), linked with only what it
 * uses so that hundreds of them stay small: about 2 MB RSS each against 7 MB for the full
 * emulator binary, whose TLS and HTTP libraries load in every process. instance.c starts
 * this binary when it sits beside the emulator. */
#include <string.h>

#include "emulator/instance_main.h"

int main(int argc, char **argv)
{
    /* accepts `emulator-instance instance ...` as well, like the emulator's sub-mode */
    if (argc > 1 && strcmp(argv[1], "instance") == 0)
        return instance_main(argc - 1, argv + 1);
    return instance_main(argc, argv);
}
