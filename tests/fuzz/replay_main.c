/* replay_main.c: the main() of a fuzz target built without libFuzzer.
 *
 *     fuzz_NAME_replay FILE_OR_FOLDER...
 *
 * Runs LLVMFuzzerTestOneInput once on every file named, and on every regular
 * file of every folder named (in name order, not recursively). Each input is
 * read into a buffer of exactly its size, so that the sanitizers of the build
 * see a read past its end. A crash or a failed FUZZ_CHECK aborts with the
 * input's name printed first; an argument that cannot be read is an error.
 */
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_util.h"

/* Defined by the targets that need one-time set-up (libFuzzer calls it too). */
#if defined(__GNUC__)
__attribute__((weak))
#endif
int LLVMFuzzerInitialize(int *argc, char ***argv);

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return 1;
    }
    size_t cap = 4096, len = 0;
    unsigned char *data = malloc(cap);
    size_t n;
    while (data && (n = fread(data + len, 1, cap - len, f)) > 0) {
        len += n;
        if (len == cap) {
            unsigned char *more = realloc(data, cap * 2);
            if (!more)
                free(data);
            data = more;
            cap *= 2;
        }
    }
    bool failed = ferror(f) || !data;
    fclose(f);
    if (failed) {
        fprintf(stderr, "replay: cannot read %s\n", path);
        free(data);
        return 1;
    }
    /* An exact-size copy: a read past the input's end is then out of bounds. */
    unsigned char *exact = malloc(len ? len : 1);
    if (!exact) {
        free(data);
        return 1;
    }
    memcpy(exact, data, len);
    free(data);
    fprintf(stderr, "replay: %s\n", path);
    LLVMFuzzerTestOneInput(exact, len);
    free(exact);
    return 0;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int run_folder(const char *dir, size_t *count)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "replay: cannot open %s\n", dir);
        return 1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            char **more = realloc(names, cap * sizeof *names);
            if (!more) {
                rc = 1;
                break;
            }
            names = more;
        }
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        names[n] = malloc(len);
        if (!names[n]) {
            rc = 1;
            break;
        }
        snprintf(names[n++], len, "%s/%s", dir, e->d_name);
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (rc == 0 && stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
            rc = run_file(names[i]);
            *count += rc == 0;
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize(&argc, &argv);
    size_t count = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: cannot open %s\n", argv[i]);
            return 1;
        }
        int rc = S_ISDIR(st.st_mode) ? run_folder(argv[i], &count) : run_file(argv[i]);
        if (rc != 0)
            return rc;
        count += !S_ISDIR(st.st_mode);
    }
    printf("replay: %zu inputs, no failure\n", count);
    return 0;
}
