#include "base/gpu_probe.h"

#include <dlfcn.h>
#include <stdio.h>

/* The driver is loaded at run time: the tool must run where there is none. */
typedef int (*cu_init_fn)(unsigned);
typedef int (*cu_device_get_fn)(int *, int);
typedef int (*cu_device_attr_fn)(int *, int, int);

enum { CU_ATTR_CC_MAJOR = 75, CU_ATTR_CC_MINOR = 76 };

bool udfkit_gpu_probe_capability(int *major, int *minor, char *why, size_t why_size)
{
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(why, why_size, "no CUDA driver: libcuda.so.1 cannot be loaded");
        return false;
    }
    bool ok = false;
    cu_init_fn init = (cu_init_fn)dlsym(lib, "cuInit");
    cu_device_get_fn get = (cu_device_get_fn)dlsym(lib, "cuDeviceGet");
    cu_device_attr_fn attr = (cu_device_attr_fn)dlsym(lib, "cuDeviceGetAttribute");
    int device = 0, rc, init_result = -1;
    if (!init || !get || !attr)
        snprintf(why, why_size, "libcuda.so.1 lacks cuInit/cuDeviceGet");
    else if ((rc = init_result = init(0)) != 0)
        snprintf(why, why_size, "cuInit failed with CUDA error %d", rc);
    else if ((rc = get(&device, 0)) != 0)
        snprintf(why, why_size, "cuDeviceGet failed with CUDA error %d", rc);
    else if (attr(major, CU_ATTR_CC_MAJOR, device) != 0 || attr(minor, CU_ATTR_CC_MINOR, device) != 0)
        snprintf(why, why_size, "the device's compute capability cannot be read");
    else
        ok = true;
    /* An initialized driver stays loaded: unloading it after cuInit is not safe, and what it
     * allocated stays its own. */
    if (!init || init_result != 0)
        dlclose(lib);
    return ok;
}
