// SPDX-License-Identifier: MIT
// Internal, not installed and not part of the API: the faults xconv's own tests inject into a
// plan's runs, to check what a caller does when a device is lost for good. The tests and the
// CLI's XCONV_TEST_FAULT (tests/cli/isolation.sh) link the static library to reach them; the
// shared library does not export them.
#ifndef XCONV_INTERNAL_TEST_FAULT_H
#define XCONV_INTERNAL_TEST_FAULT_H

#include <xconv/measure.h>
#include <xconv/plans.h>

#ifdef __cplusplus
extern "C" {
#endif

// What a plan's runs meet instead of their work.
typedef enum xconv_test_fault {
    XCONV_TEST_FAULT_NONE = 0,
    XCONV_TEST_FAULT_LOSE = 1,    // the run fails as a fault the context cannot be rebuilt
                                  // after (no kernel runs): the device is lost for good
    XCONV_TEST_FAULT_KERNEL = 2,  // the run launches a kernel that writes through a bad address
                                  // instead of its own: on CUDA a real sticky error (the device
                                  // is lost for good); a CPU OpenCL device crashes the process
} xconv_test_fault;

// Arms plan's runs with `fault` (an xconv_test_fault; NONE disarms). Returns XCONV_OK, or
// XCONV_ERR_INVALID for a NULL plan or a value that is not a fault.
xconv_status xconv_plan_set_test_fault(xconv_plan *plan, int fault, xconv_error *err);

// Arms the plans the case makes for the variants it runs (never its reference's) with `fault`,
// until set again. Returns XCONV_OK, or XCONV_ERR_INVALID for a NULL case or a value that is
// not a fault.
xconv_status xconv_case_set_test_fault(xconv_case *c, int fault, xconv_error *err);

#ifdef __cplusplus
}
#endif

#endif // XCONV_INTERNAL_TEST_FAULT_H
