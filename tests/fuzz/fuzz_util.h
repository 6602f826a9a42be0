/* fuzz_util.h: what the fuzz targets share.
 *
 * FUZZ_CHECK states a property every input must keep; it aborts, so that
 * libFuzzer (and replay_main.c) report the input as a crash. It is not
 * assert(): the replay builds are RelWithDebInfo, where NDEBUG is set.
 */
#ifndef MCPIDL_FUZZ_UTIL_H
#define MCPIDL_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define FUZZ_CHECK(cond) \
    do { \
        if (!(cond)) { \
            fprintf(stderr, "%s:%d: fuzz check failed: %s\n", __FILE__, __LINE__, #cond); \
            abort(); \
        } \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#endif
