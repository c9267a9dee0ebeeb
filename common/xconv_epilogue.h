// SPDX-License-Identifier: MIT
// The epilogue as kernels apply it: a bias per output channel, an activation, a max-pool. Every
// parameter's default is "no epilogue", so a kernel that includes this header and is built
// without the defines compiles to the same code as before. The host adds the defines and the
// bias argument to the step that stores the convolution's output (xconv_step_fuse_epilogue,
// host/plan/plan_epilogue.h): the hook a family's store needs is XC_EPI_BIAS_PARAM at the end of its
// parameter list and XC_EPI(value, k) around each value it stores for output channel k. The
// unfused steps (cl/epilogue.cl) use the same helpers, so a fused and an unfused plan round the
// same operations the same way.
//
// Semantics (the float64 reference's, host/reference/reference_f64.c): z = v + bias[k] (one rounding),
// then relu(z) = z < 0 ? 0 : z, relu6 = relu clamped at 6 (NaN passes both), then the maximum
// over a pool window, its padding -infinity, a NaN in the window giving NaN, ties keeping the
// first element in row-major order.
#ifndef XCONV_EPILOGUE_H
#define XCONV_EPILOGUE_H

// ---------------------------------------------------------------------------------------------
// Parameters (set by host/plan/plan_epilogue.c; common/xconv_problem_fields.h lists them)

#ifndef XC_EPI_BIAS
#define XC_EPI_BIAS 0       // 1: add bias[k], a kernel argument, to every output of channel k
#endif
#ifndef XC_EPI_ACT
#define XC_EPI_ACT 0        // activation after the bias: 0 none, 1 relu, 2 relu6
#endif
#ifndef XC_POOL_H
#define XC_POOL_H 0         // max-pool window height; 0: this kernel does not pool
#endif
#ifndef XC_POOL_W
#define XC_POOL_W XC_POOL_H  // window width
#endif
#ifndef XC_POOL_STRIDE_H
#define XC_POOL_STRIDE_H XC_POOL_H  // step between windows
#endif
#ifndef XC_POOL_STRIDE_W
#define XC_POOL_STRIDE_W XC_POOL_W
#endif
#ifndef XC_POOL_PAD_H
#define XC_POOL_PAD_H 0     // rows of -infinity above and below the convolution's output
#endif
#ifndef XC_POOL_PAD_W
#define XC_POOL_PAD_W 0
#endif

// ---------------------------------------------------------------------------------------------
// Bias and activation

#if XC_EPI_BIAS
// The bias as the kernel's last parameter, as a helper's (not restrict: Oclgrind cannot run a
// kernel into which a helper taking restrict pointers was inlined), and passed on to a helper.
#define XC_EPI_BIAS_PARAM , const XC_GLOBAL float *XC_RESTRICT xc_bias
#define XC_EPI_BIAS_FUNC_PARAM , const XC_GLOBAL float *xc_bias
#define XC_EPI_BIAS_ARG , xc_bias
#define XC_EPI_ADD(v, k) ((v) + xc_bias[(k)])
#else
#define XC_EPI_BIAS_PARAM
#define XC_EPI_BIAS_FUNC_PARAM
#define XC_EPI_BIAS_ARG
#define XC_EPI_ADD(v, k) (v)
#endif

#if XC_EPI_ACT == 1
XC_FUNC float xc_epi_relu(const float v) { return v < 0.0f ? 0.0f : v; }
#define XC_EPI_ACTIVATE(v) xc_epi_relu(v)
#elif XC_EPI_ACT == 2
XC_FUNC float xc_epi_relu6(const float v)
{
    const float r = v < 0.0f ? 0.0f : v;
    return r > 6.0f ? 6.0f : r;
}
#define XC_EPI_ACTIVATE(v) xc_epi_relu6(v)
#else
#define XC_EPI_ACTIVATE(v) (v)
#endif

// A value of output channel k after the bias and the activation (the value itself without
// them).
#define XC_EPI(v, k) XC_EPI_ACTIVATE(XC_EPI_ADD(v, k))

// 1 when the kernel applies the bias or the activation.
#define XC_EPI_ANY (XC_EPI_BIAS || XC_EPI_ACT)

// ---------------------------------------------------------------------------------------------
// Max-pool

#if XC_POOL_H
#if defined(__OPENCL_VERSION__) || defined(__OPENCL_C_VERSION__)
#define XC_EPI_NEG_INF (-INFINITY)
#else
#define XC_EPI_NEG_INF __int_as_float(0xff800000)
#endif

// The running maximum m folded with v: v when it is larger or NaN, so a NaN stays (a comparison
// with NaN is false) and ties keep the earlier value.
XC_FUNC float xc_epi_max(const float m, const float v)
{
    return (v > m || v != v) ? v : m;
}

// Folds into m the window whose first row and column are (r0, c0): VALUE(r, c) of each of its
// pixels inside P x Q, row-major, through xc_epi_max; the pixels outside are the padding
// (-infinity) and skipped. The pool steps of cl/epilogue.cl, cl/splitk_reduce.cl and
// cl/fft_inverse.cl take their windows this way.
#define XC_POOL_WINDOW_MAX(m, r0, c0, VALUE)                                                  \
    for (int xc_a = 0; xc_a < XC_POOL_H; xc_a++) {                                           \
        const int xc_r = (r0) + xc_a;                                                         \
        for (int xc_b = 0; xc_b < XC_POOL_W; xc_b++) {                                       \
            const int xc_c = (c0) + xc_b;                                                     \
            if (xc_r >= 0 && xc_r < XC_P && xc_c >= 0 && xc_c < XC_Q)                         \
                m = xc_epi_max(m, VALUE(xc_r, xc_c));                                         \
        }                                                                                     \
    }
#endif

#endif // XCONV_EPILOGUE_H
