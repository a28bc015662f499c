/* Shared includes for the cmocka tests (older libcmocka needs these before cmocka.h). */
#ifndef SIM_TESTS_TESTUTIL_H
#define SIM_TESTS_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#endif
