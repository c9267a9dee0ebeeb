// SPDX-License-Identifier: MIT
// Suites of named shapes: "standard" (real networks' layers), "small" (quick correctness runs) and
// "epilogue" (small convolutions with bias, activation and max-pool).
#include <string.h>

#include <xconv/xconv.h>

// ---------------------------------------------------------------------------------------------
// The shapes (specs in canonical form: xconv_shape_format gives them back unchanged)

// Layers of well-known networks and one large stride-1 filter, sized for timing on a GPU.
static const xconv_named_shape standard_suite[] = {
    {"ece408_c1", "n=10000,c=1,h=48,w=48,k=6,r=5"},
    {"ece408_c2", "n=10000,c=6,h=22,w=22,k=16,r=5"},
    {"vgg3x3", "n=16,c=64,h=224,w=224,k=64,r=3,pad=1"},
    {"res3x3", "n=32,c=256,h=14,w=14,k=256,r=3,pad=1"},
    {"res1x1", "n=32,c=1024,h=14,w=14,k=256,r=1"},
    {"stem7x7s2", "n=32,c=3,h=224,w=224,k=64,r=7,stride=2,pad=3"},
    {"alex11x11s4", "n=64,c=3,h=227,w=227,k=96,r=11,stride=4"},
    {"conv5x5", "n=32,c=32,h=56,w=56,k=64,r=5,pad=2"},
    {"dil3x3d2", "n=16,c=128,h=56,w=56,k=128,r=3,pad=2,dil=2"},
    {"big11x11", "n=16,c=64,h=64,w=64,k=64,r=11,pad=5"},  // a large stride-1 filter (FFT's case)
};

// One shape per feature a kernel can get wrong, each under 13 MFLOP so a naive kernel and the
// float64 reference finish well under a second on a small CPU.
static const xconv_named_shape small_suite[] = {
    {"plain3x3", "n=4,c=8,h=32,w=32,k=16,r=3,pad=1"},
    {"stride2_3x3", "n=4,c=8,h=33,w=33,k=16,r=3,stride=2,pad=1"},
    {"asym_stride_pad", "n=2,c=6,h=21,w=26,k=10,r=3,s=4,stride_h=2,stride_w=3,pad_h=1,pad_w=2"},
    {"dil2_3x3", "n=2,c=8,h=24,w=24,k=8,r=3,pad=2,dil=2"},
    {"asym_dil", "n=2,c=4,h=19,w=21,k=6,r=3,pad_h=1,pad_w=3,dil_h=1,dil_w=3"},
    {"groups4", "n=4,c=16,h=16,w=16,k=32,r=3,pad=1,groups=4"},
    {"depthwise3x3", "n=4,c=32,h=28,w=28,k=32,r=3,pad=1,groups=32"},
    {"pw1x1", "n=4,c=64,h=14,w=14,k=32,r=1"},
    {"pw1x1_s2", "n=4,c=32,h=15,w=15,k=48,r=1,stride=2"},
    {"odd_sizes", "n=3,c=5,h=17,w=23,k=7,r=3,pad=1"},
    {"rect_filter", "n=2,c=4,h=20,w=20,k=8,r=3,s=5,pad_h=1,pad_w=2"},
    {"big_filter", "n=2,c=3,h=4,w=4,k=4,r=5,pad=2"},
    {"one_channel", "n=8,c=1,h=28,w=28,k=8,r=3"},
    {"many_channels", "n=2,c=64,h=8,w=8,k=64,r=3,pad=1"},
    {"ece408_mini1", "n=8,c=1,h=48,w=48,k=6,r=5"},
    {"ece408_mini2", "n=8,c=6,h=22,w=22,k=16,r=5"},
};

// Small convolutions with an epilogue: each part alone and together, even and odd outputs,
// overlapping and padded pools, groups and 1x1 (under 13 MFLOP each, like the small suite).
static const xconv_named_shape epilogue_suite[] = {
    {"bias_only", "n=2,c=8,h=16,w=16,k=16,r=3,pad=1,bias=1"},
    {"relu", "n=2,c=8,h=16,w=16,k=16,r=3,pad=1,act=relu"},
    {"bias_relu6", "n=2,c=8,h=16,w=16,k=16,r=3,pad=1,bias=1,act=relu6"},
    {"pool2", "n=2,c=8,h=16,w=16,k=16,r=3,pad=1,pool=2"},
    {"pool3s2p1", "n=2,c=8,h=16,w=16,k=16,r=3,pad=1,pool=3,pool_stride=2,pool_pad=1"},
    {"bias_relu_pool2", "n=4,c=8,h=32,w=32,k=16,r=3,pad=1,bias=1,act=relu,pool=2"},
    {"all_odd", "n=3,c=5,h=17,w=23,k=7,r=3,pad=1,bias=1,act=relu6,pool=3,pool_stride=2,"
                "pool_pad=1"},
    {"stride2_pool2", "n=2,c=8,h=33,w=33,k=16,r=3,stride=2,pad=1,bias=1,act=relu,pool=2"},
    {"rect_pool", "n=2,c=4,h=20,w=21,k=8,r=3,s=5,pad_h=1,pad_w=2,bias=1,act=relu,pool_h=2,"
                  "pool_w=3,pool_stride_h=2,pool_stride_w=1"},
    {"groups_pool2", "n=2,c=16,h=16,w=16,k=32,r=3,pad=1,groups=4,bias=1,act=relu,pool=2"},
    {"depthwise_pool2", "n=2,c=16,h=14,w=14,k=16,r=3,pad=1,groups=16,bias=1,act=relu,pool=2"},
    {"pw_bias_relu", "n=2,c=32,h=14,w=14,k=32,r=1,bias=1,act=relu"},
    {"pw_pool2", "n=2,c=32,h=14,w=14,k=32,r=1,bias=1,act=relu,pool=2"},
    {"ece408_mini2_pool", "n=8,c=6,h=22,w=22,k=16,r=5,bias=1,act=relu,pool=2"},
};

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const struct {
    const char *name;
    const xconv_named_shape *shapes;
    int count;
} suites[] = {
    {"small", small_suite, COUNT(small_suite)},
    {"standard", standard_suite, COUNT(standard_suite)},
    {"epilogue", epilogue_suite, COUNT(epilogue_suite)},
};

static const char *const suite_names[] = {"small", "standard", "epilogue", NULL};

// ---------------------------------------------------------------------------------------------
// Lookup

const xconv_named_shape *xconv_suite_find(const char *name, int *count)
{
    for (int i = 0; name && i < COUNT(suites); i++) {
        if (strcmp(suites[i].name, name) == 0) {
            if (count)
                *count = suites[i].count;
            return suites[i].shapes;
        }
    }
    if (count)
        *count = 0;
    return NULL;
}

const char *const *xconv_suite_names(void)
{
    return suite_names;
}
