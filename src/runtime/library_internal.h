/* What a loaded library is, for the runtime's files that make and share them. */
#ifndef UDFKIT_RUNTIME_LIBRARY_INTERNAL_H
#define UDFKIT_RUNTIME_LIBRARY_INTERNAL_H

#include "driver.h"

#include <stdbool.h>

struct udfkit_library {
    CUlibrary handle;
    const udfkit_driver *driver;
    bool bound; /* made by udfkit_library_bind: shared, counted in bind.c's table */
};

/* Unloads it whatever shares it. */
void udfkit_library_destroy(udfkit_library *lib);

/* udfkit_library_unload of a bound library: one reference fewer (bind.c). */
void udfkit_bound_release(udfkit_library *lib);

#endif
