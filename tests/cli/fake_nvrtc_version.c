/* Named by the toolchain test in UDFKIT_NVRTC_LIBRARY: an NVRTC that claims to be newer
 * than the nvJitLink beside it, which udfkit must refuse at start-up. It links the real
 * NVRTC, so every other entry point resolves to the real one. */
typedef enum { FAKE_NVRTC_SUCCESS = 0 } fake_nvrtc_result;

fake_nvrtc_result nvrtcVersion(int *major, int *minor);

fake_nvrtc_result nvrtcVersion(int *major, int *minor)
{
    *major = 13;
    *minor = 9;
    return FAKE_NVRTC_SUCCESS;
}
