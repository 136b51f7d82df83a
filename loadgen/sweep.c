/* loadgen/sweep.c: see sweep.h. Not written yet: says so. */
#include "loadgen/sweep.h"

#include <stdio.h>

int sweep_main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "loadgen: sweep is not implemented yet\n");
    return 1;
}
