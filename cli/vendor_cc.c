// SPDX-License-Identifier: MIT
// The vendors' offline compilers as child processes, and the readers of what they report.
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "vendor_cc.h"

// Where Debian's rocm-device-libs puts the AMD device libraries clang links OpenCL against.
#define ROCM_DEVICE_LIBS "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode"
#define AMD_CLANG "clang-15"
#define INTEL_OCLOC "ocloc"
#define MAX_ARGV 160

// ---------------------------------------------------------------------------------------------
// Finding the compilers

// Returns true when `name` is an executable file in a folder of $PATH.
static bool on_path(const char *name)
{
    const char *path = getenv("PATH");
    char dir[PATH_MAX], file[PATH_MAX + 64];
    while (path && *path) {
        size_t len = strcspn(path, ":");
        snprintf(dir, sizeof dir, "%.*s", (int)(len < sizeof dir ? len : sizeof dir - 1), path);
        snprintf(file, sizeof file, "%s/%s", len ? dir : ".", name);
        if (access(file, X_OK) == 0)
            return true;
        path += len + (path[len] == ':');
    }
    return false;
}

bool vendor_cc_available(const xconv_target *t, char *why, size_t len)
{
    why[0] = '\0';
    if (strcmp(t->compiler, "amdgcn") == 0) {
        if (!on_path(AMD_CLANG))
            snprintf(why, len, "%s is not installed (Debian package clang-15)", AMD_CLANG);
        else if (access(ROCM_DEVICE_LIBS "/ockl.bc", R_OK) != 0)
            snprintf(why, len, "AMD's device libraries are not in %s (Debian package "
                     "rocm-device-libs)", ROCM_DEVICE_LIBS);
    } else if (strcmp(t->compiler, "ocloc") == 0) {
        if (!on_path(INTEL_OCLOC))
            snprintf(why, len, "ocloc is not installed (Debian package intel-opencl-icd)");
    } else if (strcmp(t->compiler, "nvrtc") != 0) {
        snprintf(why, len, "no offline compiler for %s targets in this command", t->compiler);
    }  // NVRTC is loaded by the library: vendor_nvrtc_probe says whether it is there
    return why[0] == '\0';
}

// ---------------------------------------------------------------------------------------------
// Starting a job

// Returns the monotonic clock in seconds.
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

// Writes text to path; returns 0 or -1.
static int write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    size_t len = strlen(text);
    int rc = fwrite(text, 1, len, f) == len ? 0 : -1;
    return fclose(f) == 0 ? rc : -1;
}

// Appends the whitespace-separated words of `words` (split in place) to argv.
static void add_words(char *words, char **argv, int *argc)
{
    char *save = NULL;
    for (char *w = strtok_r(words, " \t", &save); w && *argc < MAX_ARGV - 1;
         w = strtok_r(NULL, " \t", &save))
        argv[(*argc)++] = w;
}

// Keeps a started job's process id (pid from fork). Returns 0, or -1 with the job failed when
// fork failed.
static int job_forked(vendor_job *job, pid_t pid)
{
    if (pid < 0) {
        snprintf(job->note, sizeof job->note, "fork: %s", strerror(errno));
        job->outcome = XCONV_COMPILE_FAILED;
        return -1;
    }
    job->pid = pid;
    return 0;
}

// Fills argv with the command line that compiles job's kernel.cl (AMD: clang with the
// resource remarks and -O3, as ROCm's OpenCL runtime passes to its compiler library, comgr:
// its logs show "-O3" among the options of COMPILE_SOURCE_TO_BC, e.g. the one quoted in
// github.com/lamikr/rocm_sdk_builder issue 180; Intel: ocloc for the device). `words` and
// `buf` hold strings argv points into.
static void command_line(vendor_job *job, char *words, char buf[][PATH_MAX + 64], char **argv)
{
    int argc = 0;
    const xconv_target *t = job->target;
    snprintf(buf[0], sizeof buf[0], "%s/kernel.cl", job->dir);
    if (strcmp(t->compiler, "amdgcn") == 0) {
        argv[argc++] = AMD_CLANG;
        argv[argc++] = "-x";
        argv[argc++] = "cl";
        snprintf(words, sizeof job->options, "%s", job->options);
        add_words(words, argv, &argc);
        argv[argc++] = "-target";
        argv[argc++] = "amdgcn-amd-amdhsa";
        snprintf(buf[1], sizeof buf[1], "-mcpu=%s", t->arch);
        argv[argc++] = buf[1];
        argv[argc++] = "--rocm-device-lib-path=" ROCM_DEVICE_LIBS;
        argv[argc++] = "-O3";
        argv[argc++] = "-Rpass-analysis=kernel-resource-usage";
        argv[argc++] = "-c";
        argv[argc++] = buf[0];
        snprintf(buf[2], sizeof buf[2], "%s/kernel.o", job->dir);
        argv[argc++] = "-o";
        argv[argc++] = buf[2];
    } else {
        argv[argc++] = INTEL_OCLOC;
        argv[argc++] = "compile";
        argv[argc++] = "-file";
        argv[argc++] = buf[0];
        argv[argc++] = "-device";
        argv[argc++] = (char *)t->arch;
        argv[argc++] = "-options";
        argv[argc++] = job->options;
        argv[argc++] = "-out_dir";
        argv[argc++] = job->dir;
        argv[argc++] = "-output";
        argv[argc++] = "kernel";
        argv[argc++] = "-output_no_suffix";
    }
    argv[argc] = NULL;
}

int vendor_job_start(vendor_job *job)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/kernel.cl", job->dir);
    job->status = -1;
    if (write_file(path, job->text) != 0) {
        snprintf(job->note, sizeof job->note, "cannot write %.300s: %s", path, strerror(errno));
        job->outcome = XCONV_COMPILE_FAILED;
        return -1;
    }
    static char words[sizeof ((vendor_job *)0)->options];
    static char buf[3][PATH_MAX + 64];
    char *argv[MAX_ARGV];
    command_line(job, words, buf, argv);
    snprintf(path, sizeof path, "%s/log.txt", job->dir);
    job->started = now_s();
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        execvp(argv[0], argv);
        fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    return job_forked(job, pid);
}

int vendor_job_start_nvrtc(vendor_job *job, const xconv_plan *plan, int step)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/log.txt", job->dir);
    job->status = -1;
    job->started = now_s();
    pid_t pid = fork();
    if (pid == 0) {  // the child compiles in its own process, then writes NVRTC's log
        char *log = NULL;
        xconv_error err = {0};
        xconv_status st = xconv_plan_step_nvrtc_report(plan, step, &log, &err);
        FILE *f = fopen(path, "w");
        if (f) {
            fputs(log ? log : "", f);
            if (st != XCONV_OK)
                fprintf(f, "\nerror: %s\n", err.msg);
            fclose(f);
        }
        _exit(st == XCONV_OK ? 0 : 1);
    }
    return job_forked(job, pid);
}

// ---------------------------------------------------------------------------------------------
// Reading what the compiler said

// Returns the malloc'd contents of path (NUL-terminated), or NULL; *len gets its size.
static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *data = NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        long n = ftell(f);
        if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (data = malloc((size_t)n + 1))) {
            *len = fread(data, 1, (size_t)n, f);
            data[*len] = '\0';
        }
    }
    fclose(f);
    return data;
}

// Copies the first lines of log that say "error" (else its first lines) into note, one line.
static void first_errors(const char *log, char *note, size_t len)
{
    const char *from = strstr(log, "error");
    if (from)
        while (from > log && from[-1] != '\n')
            from--;
    else
        from = log;
    size_t used = 0;
    for (const char *c = from; *c && used + 1 < len && used < 300; c++)
        note[used++] = (*c == '\n' || *c == '\t') ? ' ' : *c;
    note[used] = '\0';
}

// Returns the integer after "key" on the first line of block that holds it, or -1.
static long value_after(const char *block, const char *end, const char *key)
{
    const char *at = strstr(block, key);
    if (!at || (end && at > end))
        return -1;
    at += strlen(key);
    while (*at == ' ' || *at == ':')
        at++;
    return isdigit((unsigned char)*at) ? strtol(at, NULL, 10) : -1;
}

// Returns where log's report of job->kernel starts (its heading: format `heading` with the
// kernel's name), or NULL with job failed and a note naming the tool that did not report it.
static const char *kernel_block(vendor_job *job, const char *log, const char *heading,
                                const char *tool)
{
    char key[128];
    snprintf(key, sizeof key, heading, job->kernel);
    const char *block = strstr(log, key);
    if (!block) {
        snprintf(job->note, sizeof job->note, "%s reported no resources of kernel %s", tool,
                 job->kernel);
        job->outcome = XCONV_COMPILE_FAILED;
    }
    return block;
}

// Reads clang's kernel-resource-usage remarks of job->kernel from log.
static void read_amd(vendor_job *job, const char *log)
{
    const char *block = kernel_block(job, log, "Function Name: %s ", "clang");
    if (!block)
        return;
    const char *end = strstr(block + 1, "Function Name:");
    job->counts.sgprs = value_after(block, end, "SGPRs:");
    job->counts.registers = value_after(block, end, "VGPRs:");
    job->counts.agprs = value_after(block, end, "AGPRs:");
    job->counts.scratch_bytes = value_after(block, end, "ScratchSize [bytes/lane]:");
    job->counts.occupancy = value_after(block, end, "Occupancy [waves/SIMD]:");
    long sspill = value_after(block, end, "SGPRs Spill:");
    long vspill = value_after(block, end, "VGPRs Spill:");
    job->counts.spills = (sspill > 0 ? sspill : 0) + (vspill > 0 ? vspill : 0);
    job->counts.lds_bytes = value_after(block, end, "LDS Size [bytes/block]:");
    job->counts.simd = (long)job->target->info.preferred_multiple;
}

// Little-endian reads from a byte buffer.
static uint32_t u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t u64(const unsigned char *p)
{
    return (uint64_t)u32(p) | (uint64_t)u32(p + 4) << 32;
}

// Returns the section of ELF image `elf` (n bytes) whose name is `want`, or NULL; *size gets
// its size.
static const unsigned char *elf_section(const unsigned char *elf, size_t n, const char *want,
                                        size_t *size)
{
    if (n < 64 || memcmp(elf, "\177ELF", 4) != 0 || elf[4] != 2)
        return NULL;
    uint64_t shoff = u64(elf + 40);
    unsigned shentsize = elf[58] | elf[59] << 8, shnum = elf[60] | elf[61] << 8;
    unsigned shstrndx = elf[62] | elf[63] << 8;
    if (shentsize < 64 || shoff + (uint64_t)shnum * shentsize > n || shstrndx >= shnum)
        return NULL;
    const unsigned char *strs = elf + shoff + (uint64_t)shstrndx * shentsize;
    uint64_t str_off = u64(strs + 24), str_size = u64(strs + 32);
    if (str_off + str_size > n)
        return NULL;
    for (unsigned i = 0; i < shnum; i++) {
        const unsigned char *sh = elf + shoff + (uint64_t)i * shentsize;
        uint32_t name = u32(sh);
        uint64_t off = u64(sh + 24), sz = u64(sh + 32);
        if (name >= str_size || off + sz > n)
            continue;
        const char *s = (const char *)elf + str_off + name;
        if (strnlen(s, str_size - name) < str_size - name && strcmp(s, want) == 0) {
            *size = sz;
            return elf + off;
        }
    }
    return NULL;
}

// Patch tokens of Intel's device binary (IGC's patch_list.h) that say what we report.
enum {
    TOKEN_LOCAL_SURFACE = 15,     // {offset, total inline local memory}
    TOKEN_MEDIA_VFE_STATE = 18,   // {scratch offset, scratch space a thread}: spills
    TOKEN_EXECUTION_ENV = 23,     // required sizes, largest SIMD, ..., GRFs required (20th)
    TOKEN_PRIVATE_MEMORY = 38,    // {surface offset, param offset, param size, private a thread}
};

// Reads the patch tokens of the kernel named job->kernel in Intel's device binary bin (n
// bytes): SIMD width, GRFs, scratch and local memory. Returns false when it is not found.
static bool read_patch_tokens(vendor_job *job, const unsigned char *bin, size_t n)
{
    if (n < 28 || u32(bin) != 0x494E5443u)  // "CTNI"
        return false;
    size_t at = 28 + u32(bin + 24);
    for (uint32_t k = 0, kernels = u32(bin + 16); k < kernels && at + 40 <= n; k++) {
        const unsigned char *h = bin + at;
        uint32_t name_size = u32(h + 12), patch_size = u32(h + 16);
        uint64_t heaps = (uint64_t)u32(h + 20) + u32(h + 24) + u32(h + 28) + u32(h + 32);
        uint64_t name_at = at + 40, patches = name_at + name_size + heaps;
        if (patches + patch_size > n)
            return false;
        at = (size_t)(patches + patch_size);
        if (strnlen((const char *)bin + name_at, name_size) != strlen(job->kernel) ||
            strncmp((const char *)bin + name_at, job->kernel, name_size) != 0)
            continue;
        for (uint64_t p = patches; p + 8 <= patches + patch_size;) {
            uint32_t token = u32(bin + p), size = u32(bin + p + 4);
            const unsigned char *v = bin + p + 8;
            if (size < 8 || p + size > patches + patch_size)
                break;
            if (token == TOKEN_EXECUTION_ENV && size >= 8 + 21 * 4) {
                job->counts.simd = u32(v + 12);
                job->counts.registers = u32(v + 80);
            } else if (token == TOKEN_MEDIA_VFE_STATE && size >= 16) {
                job->counts.scratch_bytes += u32(v + 4);
            } else if (token == TOKEN_LOCAL_SURFACE && size >= 16) {
                job->counts.lds_bytes = u32(v + 4);
            }
            p += size;
        }
        return true;
    }
    return false;
}

// Reads ocloc's log (its "spilled around" warning, errors) and the binary's patch tokens.
static void read_intel(vendor_job *job, const char *log)
{
    job->counts.scratch_bytes = 0;
    job->counts.lds_bytes = 0;
    // "warning: kernel NAME  compiled SIMD8 allocated 128 regs and spilled around 1225"
    char key[96];
    snprintf(key, sizeof key, "kernel %s ", job->kernel);
    job->counts.spills = 0;
    for (const char *line = strstr(log, key); line; line = strstr(line + 1, key)) {
        const char *eol = strchr(line, '\n'), *w = strstr(line, "spilled around");
        if (w && (!eol || w < eol)) {
            job->counts.spills = strtol(w + strlen("spilled around"), NULL, 10);
            break;
        }
    }
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/kernel", job->dir);  // -output kernel -output_no_suffix
    size_t n = 0;
    unsigned char *elf = (unsigned char *)read_file(path, &n);
    size_t size = 0;
    const unsigned char *bin = elf ? elf_section(elf, n, "Intel(R) OpenCL Device Binary", &size)
                                   : NULL;
    if (!bin || !read_patch_tokens(job, bin, size))
        snprintf(job->note, sizeof job->note, "ocloc built %.300s, but its binary names no "
                 "kernel %s in a form this reader knows", path, job->kernel);
    free(elf);
}

// Reads ptxas's verbose report (through NVRTC) of job->kernel: registers, spill stores, stack
// frame and shared memory.
static void read_nvidia(vendor_job *job, const char *log)
{
    const char *block = kernel_block(job, log, "Function properties for %s\n", "ptxas");
    if (!block)
        return;
    const char *end = strstr(block + 1, "Function properties for");
    const char *frame = strstr(block, "bytes stack frame");
    const char *spill = strstr(block, "bytes spill stores");
    const char *used = strstr(block, "Used ");
    if (frame && (!end || frame < end)) {
        const char *c = frame;
        while (c > block && (c[-1] == ' ' || isdigit((unsigned char)c[-1])))
            c--;
        job->counts.scratch_bytes = strtol(c, NULL, 10);
    }
    if (spill && (!end || spill < end)) {
        const char *c = spill;
        while (c > block && (c[-1] == ' ' || isdigit((unsigned char)c[-1])))
            c--;
        job->counts.spills = strtol(c, NULL, 10) / 4;
    }
    if (used && (!end || used < end))
        job->counts.registers = strtol(used + 5, NULL, 10);
    const char *smem = used ? strstr(used, "bytes smem") : NULL;
    const char *eol = used ? strchr(used, '\n') : NULL;
    if (smem && (!eol || smem < eol)) {
        const char *c = smem;
        while (c > used && (c[-1] == ' ' || isdigit((unsigned char)c[-1])))
            c--;
        job->counts.lds_bytes = strtol(c, NULL, 10);
    } else {
        job->counts.lds_bytes = 0;
    }
    job->counts.simd = 32;
}

void vendor_job_read(vendor_job *job)
{
    job->counts = xconv_compile_counts_unknown();
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/log.txt", job->dir);
    size_t n = 0;
    char *log = read_file(path, &n);
    if (!log) {
        snprintf(job->note, sizeof job->note, "the compiler wrote no log");
        job->outcome = XCONV_COMPILE_FAILED;
        return;
    }
    bool ok = WIFEXITED(job->status) && WEXITSTATUS(job->status) == 0 &&
              !strstr(log, "Build failed");
    if (!ok) {
        job->outcome = XCONV_COMPILE_FAILED;
        first_errors(log[0] ? log : "(empty log)", job->note, sizeof job->note);
        if (WIFSIGNALED(job->status))
            snprintf(job->note, sizeof job->note, "the compiler died of signal %d",
                     WTERMSIG(job->status));
    } else {
        job->outcome = XCONV_COMPILE_OK;
        if (strcmp(job->target->compiler, "amdgcn") == 0)
            read_amd(job, log);
        else if (strcmp(job->target->compiler, "nvrtc") == 0)
            read_nvidia(job, log);
        else
            read_intel(job, log);
        if (job->outcome == XCONV_COMPILE_OK && job->counts.spills > 0)
            job->outcome = XCONV_COMPILE_SPILLS;
    }
    free(log);
}
