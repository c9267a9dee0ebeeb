// SPDX-License-Identifier: MIT
// What every public header wraps its declarations in: C linkage for C++ clients, and the default
// visibility that makes a shared libxconv export them (the library is built with hidden
// visibility, so nothing else is exported).
#ifndef XCONV_PUBLIC_VISIBILITY_H
#define XCONV_PUBLIC_VISIBILITY_H

#ifdef __cplusplus
#define XCONV_EXTERN_C_BEGIN extern "C" {
#define XCONV_EXTERN_C_END }
#else
#define XCONV_EXTERN_C_BEGIN
#define XCONV_EXTERN_C_END
#endif

#if defined(__GNUC__)
#define XCONV_VISIBLE_BEGIN _Pragma("GCC visibility push(default)")
#define XCONV_VISIBLE_END _Pragma("GCC visibility pop")
#else
#define XCONV_VISIBLE_BEGIN
#define XCONV_VISIBLE_END
#endif

// Opens a header's declarations; XCONV_API_END closes them.
#define XCONV_API_BEGIN XCONV_EXTERN_C_BEGIN XCONV_VISIBLE_BEGIN
#define XCONV_API_END XCONV_VISIBLE_END XCONV_EXTERN_C_END

#endif // XCONV_PUBLIC_VISIBILITY_H
