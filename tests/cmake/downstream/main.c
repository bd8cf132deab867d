#include "shop_kernels.h"
#include "shop_udfs.h"

#include <stdio.h>

int main(void)
{
    size_t n;
    const udfkit_udf_info *udfs = shop_udfs_udfs(&n);
    for (size_t i = 0; i < n; i++)
        printf("%s %s\n", udfs[i].c_name, udfs[i].signature);
    udfkit_status s = shop_kernels_load();
    printf("load: %s\n", udfkit_status_string(s));
    return s == UDFKIT_OK || s == UDFKIT_ERROR_NO_DRIVER || s == UDFKIT_ERROR_NO_DEVICE ? 0 : 1;
}
