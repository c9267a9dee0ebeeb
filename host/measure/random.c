// SPDX-License-Identifier: MIT
// Seeded random data and sample indices from a counter-based generator (splitmix64), so the same
// seed gives the same bits on every platform, compiler and thread count.
#include <pthread.h>
#include <stdbool.h>
#include <unistd.h>

#include "measure/check.h"

// ---------------------------------------------------------------------------------------------
// The generator

// splitmix64's finaliser: a bijective 64-bit mix with good avalanche.
static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

#define GOLDEN_GAMMA 0x9E3779B97F4A7C15ull

// Returns the generator's starting state for (seed, stream); distinct streams give unrelated
// sequences because the stream is mixed before it meets the seed.
static uint64_t stream_base(uint64_t seed, uint64_t stream)
{
    return mix64(seed ^ mix64(stream * GOLDEN_GAMMA + 0x632BE59BD9B4E019ull));
}

// Returns the counter-th 64-bit value of the stream that starts at base.
static uint64_t draw64(uint64_t base, uint64_t counter)
{
    return mix64(base + (counter + 1) * GOLDEN_GAMMA);
}

// ---------------------------------------------------------------------------------------------
// Public functions

// One range [begin, end) of a fill.
typedef struct fill_job {
    float *out;
    uint64_t base;
    size_t begin, end;
} fill_job;

static void *fill_range(void *arg)
{
    const fill_job *job = arg;
    for (size_t i = job->begin; i < job->end; i++) {
        // 24 random bits k give (2k + 1 - 2^24) / 2^24: odd numerators on a symmetric grid in
        // [-1 + 2^-24, 1 - 2^-24], exact in float32, mean 0, and never zero.
        int32_t k = (int32_t)(draw64(job->base, i) >> 40);
        job->out[i] = (float)(2 * k + 1 - (1 << 24)) * 0x1p-24f;
    }
    return NULL;
}

#define FILL_RANGE_MIN ((size_t)1 << 21)  // elements below which one thread fills
#define FILL_MAX_THREADS 64

void xconv_random_fill(float *out, size_t count, uint64_t seed, uint64_t stream)
{
    if (!out)
        return;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    size_t n = count / FILL_RANGE_MIN;
    n = cores > 0 && n > (size_t)cores ? (size_t)cores : n;
    n = n < FILL_MAX_THREADS ? n : FILL_MAX_THREADS;
    n = n > 1 ? n : 1;
    fill_job jobs[FILL_MAX_THREADS];
    pthread_t threads[FILL_MAX_THREADS];
    bool started[FILL_MAX_THREADS] = {false};
    uint64_t base = stream_base(seed, stream);
    for (size_t t = 0; t < n; t++) {
        jobs[t] = (fill_job){out, base, count / n * t, t + 1 == n ? count : count / n * (t + 1)};
        started[t] = t > 0 && pthread_create(&threads[t], NULL, fill_range, &jobs[t]) == 0;
    }
    for (size_t t = 0; t < n; t++)
        if (!started[t])
            fill_range(&jobs[t]);
    for (size_t t = 0; t < n; t++)
        if (started[t])
            pthread_join(threads[t], NULL);
}

void xconv_sample_indices(const xconv_problem *p, int64_t *out, int count, uint64_t seed)
{
    int64_t total = p && out ? xconv_problem_y_elems(p) : 0;
    if (count <= 0 || total <= 0)
        return;
    uint64_t base = stream_base(seed, 0x5A3B1E5ull);
    out[0] = 0;
    for (int i = 1; i < count - 1; i++)
        out[i] = (int64_t)(draw64(base, (uint64_t)i) % (uint64_t)total);
    if (count > 1)
        out[count - 1] = total - 1;
}

void xconv_random_epilogue(uint64_t seed, int index, xconv_problem *p)
{
    if (!p || xconv_problem_out_h(p) < 1 || xconv_problem_out_w(p) < 1)
        return;  // not a valid problem: left alone
    uint64_t base = stream_base(seed, 0xE91106Eull + (uint64_t)index);
    xconv_epilogue e = {0};
    e.bias = (int64_t)(draw64(base, 0) % 2);
    e.act = (int64_t)(draw64(base, 1) % 3);
    int64_t P = xconv_problem_out_h(p), Q = xconv_problem_out_w(p);
    if (draw64(base, 2) % 3) {  // two in three pool: windows 1 to 3, strides 1 to 3
        int64_t out[2] = {P, Q}, window[2], stride[2], pad[2];
        for (int d = 0; d < 2; d++) {
            window[d] = 1 + (int64_t)(draw64(base, 3 + (uint64_t)d) % 3);
            stride[d] = 1 + (int64_t)(draw64(base, 5 + (uint64_t)d) % 3);
            pad[d] = (int64_t)(draw64(base, 7 + (uint64_t)d) % (uint64_t)window[d]);
            while (window[d] > out[d] + 2 * pad[d])  // fits the padded output
                window[d]--;
            if (pad[d] >= window[d])
                pad[d] = window[d] - 1;
        }
        e.pool_h = window[0], e.pool_w = window[1];
        e.pool_stride_h = stride[0], e.pool_stride_w = stride[1];
        e.pool_pad_h = pad[0], e.pool_pad_w = pad[1];
    }
    if (!e.bias && !e.act && !e.pool_h)
        e.act = XCONV_ACT_RELU;  // never the bare convolution
    p->epi = e;
}
