/* What a loaded library is, for the runtime's files that make and share them. */
#ifndef UDFKIT_RUNTIME_LIBRARY_INTERNAL_H
#define UDFKIT_RUNTIME_LIBRARY_INTERNAL_H

#include "driver.h"

#include <stdbool.h>

struct udfkit_library {
    CUlibrary handle;
    const udfkit_driver *driver;
    /* Set for a library udfkit_library_bind made, which bind.c's table shares: what
     * udfkit_library_unload calls instead (one reference fewer). A pointer, so that a
     * program that never binds links none of bind.c and what it needs (the compile core). */
    void (*release)(udfkit_library *lib);
};

/* Unloads it whatever shares it. */
void udfkit_library_destroy(udfkit_library *lib);

#endif
