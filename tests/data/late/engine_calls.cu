// An engine's own function that calls one of its slots (add_ptx_udf CALLS): an ORDER BY
// price(x, rate) comparator. late_calls_ops_calls.h declares the slot with the C ABI it is
// bound with.
#include "late_calls_ops_calls.h"

extern "C" __device__ bool by_price(float a, float b) { return price(a, 0.25f) < price(b, 0.25f); }
