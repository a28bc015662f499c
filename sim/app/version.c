/* The version string, defined on the compiler's command line for this file only (Makefile). */
#include "sim/app/version.h"

#ifndef DDLSIM_VERSION
#define DDLSIM_VERSION "unknown"
#endif

const char *ddlsim_version(void)
{
    return DDLSIM_VERSION;
}
