// SPDX-License-Identifier: MIT
// direct_depthwise's planner: a small cost model over strip lengths (outputs per work-item down
// one column), bounded by the device's registers and filled to its parallelism.
#include <stdio.h>

#include "families/direct/plan_depthwise.h"
#include "plan/plan_epilogue.h"

// ---------------------------------------------------------------------------------------------
// Model constants (properties of the kernel, not of any vendor's device)

// Longest strip: its outputs are accumulators, and past 8 the rows a strip shares with the
// next (R - 1 of each XD_DW_ROWS + R - 1 at stride 1) save little more.
#define DW_ROWS_MAX 8
// Most filter taps (R x S): they stay in registers for the whole strip.
#define DW_TAPS_MAX 121
// Most multiply-adds of the fully unrolled strip (keeps compile times in seconds).
#define DW_UNROLL_MAX 4096
// Relative cost of one load (input tap or filter tap, mostly from the cache) against one
// multiply-add.
#define DW_LOAD_COST 1.0
// Work-items that keep a device busy while they wait on memory: this many of its largest
// work-groups per compute unit. Fewer items than that cost time in proportion.
#define DW_FILL_GROUPS_PER_UNIT 2
// The work-group size the planner asks for (rounded to the device's preferred multiple and
// fitted to its limits): one output row of a 224-wide layer or several rows or planes of a
// narrower one.
#define DW_WORK_GROUP 256

// ---------------------------------------------------------------------------------------------
// The model

// The columns of a work-item's block (XD_DW_COLS, XD_DW_PAIRS): for 16-bit storage two adjacent
// outputs a work-item, its input rows loaded as aligned 2-element words where W is even (a load
// of one 2-byte element per tap makes a 16-bit layer load-instruction bound at half fp32's
// bytes); fp32 one column (a 4-byte element is already a full load).
typedef struct dw_cols {
    int cols;   // adjacent output columns per work-item
    bool pairs; // input rows as aligned 2-element loads
} dw_cols;

// Input rows a strip of `rows` outputs reads (cl/direct_depthwise.cl, XD_DW_IN_ROWS).
static int64_t strip_in_rows(const xconv_problem *p, int rows)
{
    return (int64_t)(rows - 1) * p->stride_h + (p->r - 1) * p->dil_h + 1;
}

// Values of one input row a block of `c` columns holds (XD_DW_ROW_LEN), and the loads of it.
static int64_t block_row_len(const xconv_problem *p, dw_cols c)
{
    int64_t in_cols = (int64_t)(c.cols - 1) * p->stride_w + (p->s - 1) * p->dil_w + 1;
    return c.pairs ? 2 * ((p->pad_w % 2 + in_cols + 1) / 2) : in_cols;
}
static int64_t block_row_loads(const xconv_problem *p, dw_cols c)
{
    return c.pairs ? block_row_len(p, c) / 2 : block_row_len(p, c);
}

// Work-items of a launch with strips of `rows` outputs over blocks of c.cols columns.
static double strip_items(const xconv_problem *p, int rows, dw_cols c)
{
    int64_t P = xconv_problem_out_h(p), Q = xconv_problem_out_w(p);
    return (double)p->n * p->k * ((P + rows - 1) / rows) * ((Q + c.cols - 1) / c.cols);
}

// Relative time per output of strips of `rows` outputs over blocks of c.cols columns:
// multiply-adds and loads per output, times the outputs a partial last strip and column block
// waste, divided by the share of the device the items fill (below 1).
static double strip_cost(const xconv_device_info *info, const xconv_problem *p, int rows,
                         dw_cols c)
{
    int64_t P = xconv_problem_out_h(p), Q = xconv_problem_out_w(p), taps = p->r * p->s;
    int64_t strips = (P + rows - 1) / rows, blocks = (Q + c.cols - 1) / c.cols;
    double waste = (double)(strips * rows) / (double)P * (double)(blocks * c.cols) / (double)Q;
    double loads =
        (double)(strip_in_rows(p, rows) * block_row_loads(p, c) + taps) / (rows * c.cols);
    double cost = waste * ((double)taps + DW_LOAD_COST * loads);
    int units = info->compute_units > 0 ? info->compute_units : 1;
    size_t wg = info->max_work_group_size ? info->max_work_group_size : 1;
    double fill = strip_items(p, rows, c) / ((double)units * wg * DW_FILL_GROUPS_PER_UNIT);
    return fill < 1.0 ? cost / fill : cost;
}

// Whether a block of `rows` x c.cols outputs fits the kernel's limits: its unrolled
// multiply-adds and the values a work-item holds (taps, accumulators, one input row) in its
// registers.
static bool strip_fits(const xconv_device_info *info, const xconv_problem *p, int rows,
                       dw_cols c)
{
    int64_t taps = p->r * p->s;
    return (int64_t)rows * c.cols * taps <= DW_UNROLL_MAX &&
           xconv_registers_fit(info, taps + (int64_t)rows * c.cols + block_row_len(p, c));
}

static const dw_cols one_column = {1, false};

// The block's columns for p: two for 16-bit storage where the output has two columns and the
// block fits, else one.
static dw_cols block_cols(const xconv_device_info *info, const xconv_problem *p)
{
    dw_cols two = {2, p->w % 2 == 0};
    bool narrow = p->dtype == XCONV_DTYPE_F16 || p->dtype == XCONV_DTYPE_BF16;
    if (narrow && xconv_problem_out_w(p) >= 2 && strip_fits(info, p, 1, two))
        return two;
    return one_column;
}

// The cheapest strip length for blocks of c.cols columns.
static int best_rows(const xconv_device_info *info, const xconv_problem *p, dw_cols c)
{
    int64_t P = xconv_problem_out_h(p);
    int best = 1;
    double best_cost = strip_cost(info, p, 1, c);
    for (int rows = 2; rows <= DW_ROWS_MAX && rows <= P; rows++) {
        double cost = strip_cost(info, p, rows, c);
        if (strip_fits(info, p, rows, c) && cost < best_cost)
            best = rows, best_cost = cost;
    }
    return best;
}

int xconv_depthwise_rows(const xconv_device_info *info, const xconv_problem *p)
{
    return best_rows(info, p, block_cols(info, p));
}

bool xconv_depthwise_applies(const xconv_device_info *info, const xconv_problem *p, char *reason,
                             size_t len)
{
    if (p->c / p->groups != 1) {
        snprintf(reason, len,
                 "direct_depthwise needs one input channel per output channel (depthwise: "
                 "C/groups = 1); each reads %lld here",
                 (long long)(p->c / p->groups));
        return false;
    }
    if (p->r * p->s > DW_TAPS_MAX) {
        snprintf(reason, len,
                 "the %lldx%lld filter has %lld taps; direct_depthwise needs at most %d (they "
                 "stay in registers)",
                 (long long)p->r, (long long)p->s, (long long)(p->r * p->s), DW_TAPS_MAX);
        return false;
    }
    if (!strip_fits(info, p, 1, one_column)) {
        snprintf(reason, len,
                 "the %lldx%lld filter's taps and a row of them pass the %d registers a "
                 "work-item of the device holds",
                 (long long)p->r, (long long)p->s, info->max_registers_per_item);
        return false;
    }
    return true;
}

// ---------------------------------------------------------------------------------------------
// The plan

xconv_status xconv_depthwise_plan(const xconv_device_info *info, const xconv_problem *p,
                                  xconv_plan *plan, xconv_error *err)
{
    dw_cols c = block_cols(info, p);
    int rows = best_rows(info, p, c);
    size_t multiple = info->preferred_multiple ? info->preferred_multiple : 1;
    size_t local = xconv_fit_work_group(info, xconv_round_up(DW_WORK_GROUP, multiple));
    size_t items = (size_t)strip_items(p, rows, c);
    xconv_step *step =
        xconv_plan_add_step(plan, "direct_depthwise", "direct_depthwise", "direct_depthwise");
    if (!step)
        return xconv_error_set(err, XCONV_ERR_OUT_OF_MEMORY, "no memory for a step");
    xconv_status st = xconv_step_define_problem(step, p, err);
    if (st == XCONV_OK)
        st = xconv_step_define(step, "XD_DW_ROWS", rows, err);
    if (st == XCONV_OK)
        st = xconv_step_define(step, "XD_DW_COLS", c.cols, err);
    if (st == XCONV_OK)
        st = xconv_step_define(step, "XD_DW_PAIRS", c.pairs, err);
    if (st != XCONV_OK)
        return st;
    xconv_step_set_1d(step, items, local);
    xconv_step_arg_buffer(step, XCONV_REF_X);
    xconv_step_arg_buffer(step, XCONV_REF_W);
    xconv_step_arg_buffer(step, XCONV_REF_Y);
    xconv_plan_summarize(plan,
                         "one work-item per strip of %d outputs down %d column%s (%zu items), "
                         "neighbouring items on neighbouring columns, work-groups of %zu; each "
                         "input row loaded once a strip%s, the %lldx%lld filter in registers",
                         rows, c.cols, c.cols > 1 ? "s" : "", items, local,
                         c.pairs ? " as aligned 2-element words" : "", (long long)p->r,
                         (long long)p->s);
    // The bias and activation; a max-pool runs as the epilogue's own step.
    return xconv_step_fuse_epilogue(step, p, XCONV_FUSED_BIAS_ACT, plan, err);
}
