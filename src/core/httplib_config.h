// cpp-httplib as Debian builds it (libcpp-httplib-dev: a shared library
// compiled with OpenSSL, zlib and Brotli support). Include this instead of
// <httplib.h> so that every file sees the same class layout as the library,
// without those definitions reaching every translation unit of the project.
#pragma once

#ifndef CPPHTTPLIB_OPENSSL_SUPPORT
#define CPPHTTPLIB_OPENSSL_SUPPORT
#endif
#ifndef CPPHTTPLIB_ZLIB_SUPPORT
#define CPPHTTPLIB_ZLIB_SUPPORT
#endif
#ifndef CPPHTTPLIB_BROTLI_SUPPORT
#define CPPHTTPLIB_BROTLI_SUPPORT
#endif
#include <httplib.h>
