#include "consumer_kernels.h"
#include "pkg_udfs.h"

#include <stdio.h>

int main(void)
{
    size_t n;
    printf("%s\n", pkg_udfs_udfs(&n)[0].c_name);
    udfkit_status s = consumer_kernels_load();
    printf("load: %s\n", udfkit_status_string(s));
    return s == UDFKIT_OK || s == UDFKIT_ERROR_NO_DRIVER || s == UDFKIT_ERROR_NO_DEVICE ? 0 : 1;
}
