/* dynlib.c: opening a library and filling its table of functions (dynlib.h). */
#define _GNU_SOURCE
#include "internal/dynlib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* dlsym() answers a data pointer, copied into a function pointer: POSIX
 * makes them the same size, and so does every ABI this builds on. */
_Static_assert(sizeof(void *) == sizeof(void (*)(void)), "function pointers are not the size of void *");

bool dyn_open(dyn_library *l)
{
    const char *f = secure_getenv(l->env);
    const char *file = f && *f ? f : l->soname;
    void *h = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(l->error, sizeof l->error, "cannot load %s, %s (%s): %s", l->what, file, dlerror(), l->install);
        return false;
    }
    for (size_t i = 0; i < l->nsymbols; i++) {
        void *p = dlsym(h, l->symbols[i].name);
        if (!p) {
            snprintf(l->error, sizeof l->error, "%s is not a usable %s: %s", file, l->what, dlerror());
            dlclose(h);
            return false;
        }
        memcpy((char *)l->table + l->symbols[i].offset, &p, sizeof p);
    }
    l->handle = h;
    return true;
}

bool dyn_load(dyn_library *l, char *why, size_t why_len)
{
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER; /* loads are rare: one lock for all */
    pthread_mutex_lock(&mu);
    if (l->state == 0)
        l->state = dyn_open(l) && (!l->ready || l->ready(l)) ? 1 : -1;
    bool ok = l->state > 0;
    pthread_mutex_unlock(&mu);
    if (!ok)
        snprintf(why, why_len, "%s", l->error);
    return ok;
}
