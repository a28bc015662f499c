/* The ddlsim version: `git describe --always --dirty` of the source tree at build time, else
 * the VERSION file, else "unknown". The Makefile passes it as DDLSIM_VERSION. */
#ifndef SIM_SIM_APP_VERSION_H
#define SIM_SIM_APP_VERSION_H

const char *ddlsim_version(void);

#endif
