// SPDX-License-Identifier: MIT
// SIGINT and SIGTERM noted by a flag that long runs read between cases.
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "interrupt.h"

static volatile sig_atomic_t received;

// Notes the signal and says what happens now (write(2) is safe in a handler; stdio is not).
static void on_signal(int sig)
{
    received = sig;
    static const char msg[] = "\nxconv: stopping after the case that is running (the same "
                              "signal again stops at once)\n";
    ssize_t ignored = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)ignored;
}

void cli_interrupt_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART | SA_RESETHAND;  // one note; the next signal acts as by default
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

int cli_interrupted(void)
{
    return received;
}

int cli_interrupt_exit_code(int sig)
{
    return 128 + sig;
}
