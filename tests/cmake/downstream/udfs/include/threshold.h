#pragma once
__device__ inline float big_threshold()
{
    return BIG_THRESHOLD;
}
