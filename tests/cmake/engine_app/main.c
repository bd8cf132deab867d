#include <engine_kernels.h>

#include <stdio.h>
#include <stdlib.h>

/* Doubles 1000 floats through the engine's map(scale2) launcher where a GPU is visible. */
int main(void)
{
    udfkit_status s = engine_kernels_load();
    printf("load: %s\n", udfkit_status_string(s));
    if (s == UDFKIT_ERROR_NO_DRIVER || s == UDFKIT_ERROR_NO_DEVICE)
        return 0;
    if (s != UDFKIT_OK)
        return 1;
    enum { N = 1000 };
    float in[N], out[N];
    for (int i = 0; i < N; i++)
        in[i] = (float)i;
    void *din = NULL, *dout = NULL;
    if (udfkit_device_alloc(sizeof in, &din) || udfkit_device_alloc(sizeof out, &dout) ||
        udfkit_copy_to_device(din, in, sizeof in) || engine_kernels_map_scale2(NULL, N, din, dout) ||
        udfkit_synchronize() || udfkit_copy_to_host(out, dout, sizeof out)) {
        printf("failed: %s\n", udfkit_last_error());
        return 1;
    }
    int wrong = 0;
    for (int i = 0; i < N; i++)
        wrong += out[i] != 2.0f * in[i];
    printf("scale2 over %d rows: %d wrong\n", N, wrong);
    udfkit_device_free(din);
    udfkit_device_free(dout);
    return wrong != 0;
}
