// SPDX-License-Identifier: MIT
// Tests of the peaks file: a round trip through the writer and the reader (the tensor cores'
// figures per math mode included), entries found and
// replaced by the device's identity (name, backend, driver), a missing file read as empty, and
// refusals that say where (another kind of file, a newer schema, a bad peak, an identity given
// twice, truncated text).
#include <math.h>
#include <unistd.h>

#include "check.h"
#include "../cli/report/peaks_file.h"

// Fills an entry of the given identity and peaks.
static xconv_peaks_entry entry(const char *name, const char *backend, const char *driver,
                               double gflops)
{
    xconv_peaks_entry e = {0};
    snprintf(e.name, sizeof e.name, "%s", name);
    snprintf(e.backend, sizeof e.backend, "%s", backend);
    snprintf(e.driver, sizeof e.driver, "%s", driver);
    snprintf(e.platform, sizeof e.platform, "Platform \"P\"");
    e.fp32_gflops = gflops;
    e.gbps = 20.5;
    e.gbps_read = 0;  // unknown: written as null
    snprintf(e.date, sizeof e.date, "2026-11-23T10:00:00Z");
    return e;
}

// Writes file to text (caller frees).
static char *write_text(const xconv_peaks_file *file, size_t *len)
{
    char *text = NULL;
    FILE *f = open_memstream(&text, len);
    CHECK(f && xconv_peaks_file_write(f, file) == 0);
    fclose(f);
    return text;
}

static void test_round_trip(void)
{
    xconv_peaks_file file = {0};
    xconv_error err = {0};
    xconv_peaks_entry a = entry("H100", "cuda", "13.0", 51000);
    xconv_peaks_entry b = entry("H100", "opencl", "580.1", 50000);
    a.mma_gflops[XCONV_MATH_TF32] = 378000;  // tensor cores: tf32 and f16 known, bf16 not
    a.mma_gflops[XCONV_MATH_F16] = 756000;
    CHECK(xconv_peaks_file_put(&file, &a, &err) == XCONV_OK);
    CHECK(xconv_peaks_file_put(&file, &b, &err) == XCONV_OK);
    a.fp32_gflops = 52000;  // the same identity again replaces its entry
    CHECK(xconv_peaks_file_put(&file, &a, &err) == XCONV_OK);
    CHECK(file.count == 2);
    size_t len = 0;
    char *text = write_text(&file, &len);
    CHECK_CONTAINS(text, "\"kind\": \"peaks\"");
    CHECK_CONTAINS(text, "\"gbps_read\": null");
    CHECK_CONTAINS(text, "\"tf32_gflops\": 378000, \"f16_gflops\": 756000, \"bf16_gflops\": null");
    xconv_peaks_file back;
    xconv_status st = xconv_peaks_file_parse(text, len, "peaks.json", &back, &err);
    CHECK_MSG(st == XCONV_OK, "%s", err.msg);
    const xconv_peaks_entry *e = xconv_peaks_file_find(&back, "H100", "cuda", "13.0");
    CHECK(back.count == 2 && e && e->fp32_gflops == 52000 && e->gbps == 20.5 &&
          e->gbps_read == 0 && strcmp(e->platform, "Platform \"P\"") == 0);
    CHECK(e && e->mma_gflops[XCONV_MATH_F32] == 0 && e->mma_gflops[XCONV_MATH_TF32] == 378000 &&
          e->mma_gflops[XCONV_MATH_F16] == 756000 && e->mma_gflops[XCONV_MATH_BF16] == 0);
    e = xconv_peaks_file_find(&back, "H100", "opencl", "580.1");
    CHECK(e && e->fp32_gflops == 50000 && e->mma_gflops[XCONV_MATH_TF32] == 0);
    CHECK(xconv_peaks_file_find(&back, "H100", "opencl", "580.2") == NULL);  // another driver
    CHECK(xconv_peaks_file_find(&back, "h100", "cuda", "13.0") == NULL);     // names exactly
    xconv_peaks_file_free(&back);
    free(text);
    xconv_peaks_file_free(&file);

    // An empty file writes and reads back as empty; a missing one loads as empty.
    text = write_text(&file, &len);
    CHECK(xconv_peaks_file_parse(text, len, "empty", &back, &err) == XCONV_OK && back.count == 0);
    free(text);
    xconv_peaks_file_free(&back);
    CHECK(xconv_peaks_file_load("/nonexistent/xconv/peaks.json", &back, &err) == XCONV_OK &&
          back.count == 0);
    CHECK(xconv_peaks_file_load("/", &back, &err) == XCONV_ERR_IO);
}

// Checks that text is refused with a message holding needle.
static void refused(const char *text, const char *needle)
{
    xconv_peaks_file out;
    xconv_error err = {0};
    CHECK_MSG(xconv_peaks_file_parse(text, strlen(text), "p.json", &out, &err) ==
              XCONV_ERR_PARSE, "accepted: %s", text);
    CHECK(out.count == 0 && out.entries == NULL);
    CHECK_CONTAINS(err.msg, needle);
}

static void test_refused(void)
{
    const char *head = "{\"tool\": \"xconv\", \"kind\": \"peaks\", \"schema_version\": 1, ";
    char text[1024];
    refused("{\"tool\": \"xconv\", \"records\": []}", "not an xconv peaks file");
    refused("{\"tool\": \"xconv\", \"kind\": \"peaks\", \"schema_version\": 2, \"devices\": []}",
            "2 is newer than this xconv reads (1)");
    refused("{\"tool\": \"xconv\", \"kind\": \"peaks\", \"devices\": []}", "schema_version");
    snprintf(text, sizeof text, "%s\"devices\": {}}", head);
    refused(text, "devices: wants an array");
    snprintf(text, sizeof text, "%s\"devices\": [{\"name\": \"A\", \"backend\": \"cuda\"}]}",
             head);
    refused(text, "devices[0]: lacks \"driver\"");
    snprintf(text, sizeof text, "%s\"devices\": [{\"name\": \"A\", \"backend\": \"cuda\", "
             "\"driver\": \"1\", \"gbps\": -3}]}", head);
    refused(text, "p.json: devices[0].gbps: wants a positive number or null");
    snprintf(text, sizeof text, "%s\"devices\": [{\"name\": \"A\", \"backend\": \"cuda\", "
             "\"driver\": \"1\", \"bf16_gflops\": 0}]}", head);
    refused(text, "p.json: devices[0].bf16_gflops: wants a positive number or null");
    snprintf(text, sizeof text, "%s\"devices\": [{\"name\": \"A\", \"backend\": \"cuda\", "
             "\"driver\": \"1\"}, {\"name\": \"A\", \"backend\": \"cuda\", \"driver\": \"1\"}]}",
             head);
    refused(text, "[1] repeats device \"A\" (cuda, driver 1)");
    snprintf(text, sizeof text, "%s\"devices\": [", head);
    refused(text, "p.json: byte ");
}

// Writing to a full disk fails.
static void test_write_error(void)
{
    FILE *f = fopen("/dev/full", "w");
    if (!f)
        return;
    xconv_peaks_file file = {0};
    xconv_error err = {0};
    xconv_peaks_entry a = entry("A", "cuda", "1", 1);
    xconv_peaks_file_put(&file, &a, &err);
    CHECK(xconv_peaks_file_write(f, &file) == -1);
    fclose(f);
    xconv_peaks_file_free(&file);
}

int main(void)
{
    test_round_trip();
    test_refused();
    test_write_error();
    return check_summary("test_peaks_file");
}
