// SPDX-License-Identifier: MIT
// What the report's writers share: XML escaping, colour scales, the heat of a cell, and number
// formats.
#include <math.h>
#include <string.h>
#include <stdio.h>

#include "report.h"

// ---------------------------------------------------------------------------------------------
// XML

// Returns the length of the valid UTF-8 sequence at s (first byte >= 0x80), or 0.
static size_t utf8_sequence(const unsigned char *s)
{
    size_t n = s[0] >= 0xF0 ? 4 : s[0] >= 0xE0 ? 3 : 2;
    if (s[0] < 0xC2 || s[0] > 0xF4)
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xC0) != 0x80)  // also stops at the terminator
            return 0;
    if ((s[0] == 0xE0 && s[1] < 0xA0) || (s[0] == 0xED && s[1] >= 0xA0) ||
        (s[0] == 0xF0 && s[1] < 0x90) || (s[0] == 0xF4 && s[1] >= 0x90))
        return 0;
    return n;
}

void report_xml(FILE *f, const char *s)
{
    for (; *s; s++) {
        if ((unsigned char)*s >= 0x80) {
            // Text from the files is valid UTF-8 (the reader checks); paths from the command
            // line may not be, and one stray byte would make the whole page malformed XML.
            size_t n = utf8_sequence((const unsigned char *)s);
            if (n == 0) {
                fputs("\xEF\xBF\xBD", f);
            } else {
                fwrite(s, 1, n, f);
                s += n - 1;
            }
            continue;
        }
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default:
            // Control characters other than tab and newline are not allowed in XML 1.0.
            if ((unsigned char)*s >= 0x20 || *s == '\t' || *s == '\n')
                putc(*s, f);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Colours

// Interpolates the n anchors (evenly spaced over [0, 1]) at t.
static report_rgb ramp(const report_rgb *anchors, int n, double t)
{
    if (!(t > 0))
        return anchors[0];
    if (t >= 1)
        return anchors[n - 1];
    double x = t * (n - 1);
    int i = (int)x;
    double u = x - i;
    report_rgb a = anchors[i], b = anchors[i + 1];
    return (report_rgb){(unsigned char)lround(a.r + (b.r - a.r) * u),
                        (unsigned char)lround(a.g + (b.g - a.g) * u),
                        (unsigned char)lround(a.b + (b.b - a.b) * u)};
}

report_rgb report_color_seq(double t)
{
    // Viridis at ninths: dark purple (worst) through blue and green to yellow (best).
    static const report_rgb anchors[] = {
        {0x44, 0x01, 0x54}, {0x48, 0x28, 0x78}, {0x3e, 0x49, 0x89}, {0x31, 0x68, 0x8e},
        {0x26, 0x82, 0x8e}, {0x1f, 0x9e, 0x89}, {0x35, 0xb7, 0x79}, {0x6e, 0xce, 0x58},
        {0xfd, 0xe7, 0x25},
    };
    return ramp(anchors, (int)(sizeof anchors / sizeof anchors[0]), t);
}

report_rgb report_color_div(double t)
{
    // Blue (faster) through near-white (same) to red (slower).
    static const report_rgb anchors[] = {
        {0x21, 0x66, 0xac}, {0x67, 0xa9, 0xcf}, {0xd1, 0xe5, 0xf0}, {0xf7, 0xf7, 0xf7},
        {0xfd, 0xdb, 0xc7}, {0xef, 0x8a, 0x62}, {0xb2, 0x18, 0x2b},
    };
    return ramp(anchors, (int)(sizeof anchors / sizeof anchors[0]), (t + 1) / 2);
}

// A family's hue: its darkest and lightest shade (variants of the family run between them).
typedef struct family_hue {
    const char *family;
    report_rgb dark, light;
} family_hue;

static const family_hue hues[] = {
    {"direct", {0x08, 0x3d, 0x77}, {0x6b, 0xae, 0xd6}},    // blues
    {"gemm", {0x00, 0x5a, 0x32}, {0x74, 0xc4, 0x76}},      // greens
    {"winograd", {0x7f, 0x27, 0x04}, {0xfd, 0x8d, 0x3c}},  // oranges
    {"fft", {0x54, 0x27, 0x8f}, {0x9e, 0x9a, 0xc8}},       // purples
    {"peer", {0x67, 0x00, 0x0d}, {0xfb, 0x6a, 0x4a}},      // reds: the vendors' libraries
    {"reference", {0x25, 0x25, 0x25}, {0x96, 0x96, 0x96}}, // greys
};

report_rgb report_color_variant(const report_device *d, int v)
{
    const family_hue *hue = &hues[sizeof hues / sizeof hues[0] - 1];  // unknown: grey
    for (size_t i = 0; i < sizeof hues / sizeof hues[0]; i++)
        if (strcmp(d->variants[v].family, hues[i].family) == 0)
            hue = &hues[i];
    int at = 0, count = 0;
    for (int i = 0; i < d->nvariants; i++) {
        if (strcmp(d->variants[i].family, d->variants[v].family) != 0)
            continue;
        at += i < v;
        count++;
    }
    report_rgb anchors[2] = {hue->dark, hue->light};
    return ramp(anchors, 2, count > 1 ? (double)at / (count - 1) : 0.35);
}

bool report_color_light(report_rgb c)
{
    return 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b > 150;
}

double report_cell_heat(const report_device *d, const report_cell *c)
{
    if (d->has_floor) {
        if (!isfinite(c->share) || c->share <= 0)
            return NAN;
        double t = (log10(c->share) + 3) / 3;  // 0.1% -> 0, 100% -> 1
        return t < 0 ? 0 : t > 1 ? 1 : t;
    }
    if (!isfinite(c->rel))
        return NAN;
    double t = 1 - log2(c->rel) / 5;  // 32x slower -> 0, the best -> 1
    return t < 0 ? 0 : t > 1 ? 1 : t;
}

// ---------------------------------------------------------------------------------------------
// Numbers

const char *report_ms(double ms, char *buf, size_t len)
{
    if (!isfinite(ms))
        snprintf(buf, len, "\xE2\x80\x93");  // en dash
    else if (ms >= 100)
        snprintf(buf, len, "%.0f", ms);
    else if (ms >= 10)
        snprintf(buf, len, "%.1f", ms);
    else if (ms >= 1)
        snprintf(buf, len, "%.2f", ms);
    else
        snprintf(buf, len, "%.3g", ms);
    return buf;
}

const char *report_rate(double g, char *buf, size_t len)
{
    if (!isfinite(g) || g <= 0)
        snprintf(buf, len, "\xE2\x80\x93");
    else if (g >= 1000)
        snprintf(buf, len, "%.3g T", g / 1000);
    else if (g >= 1)
        snprintf(buf, len, "%.3g G", g);
    else
        snprintf(buf, len, "%.3g M", g * 1000);
    return buf;
}

const char *report_pct(double share, char *buf, size_t len)
{
    double p = share * 100;
    if (!isfinite(p))
        snprintf(buf, len, "\xE2\x80\x93");
    else if (p >= 10)
        snprintf(buf, len, "%.0f%%", p);
    else if (p >= 1)
        snprintf(buf, len, "%.1f%%", p);
    else if (p >= 0.1)
        snprintf(buf, len, "%.2f%%", p);
    else
        snprintf(buf, len, "%.2g%%", p);
    return buf;
}
