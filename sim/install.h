/* Where ddlsim is installed: the folder that holds p4/include and configs/models next to the
 * executable (the source tree for a build in build/, build/asan/ or build/tests/). Built-in
 * names (P4 programs "basic", "tensorexpress"; models "vgg16", ...) resolve here, never in the
 * working directory, so a run gives the same results from any folder. */
#ifndef SIM_SIM_INSTALL_H
#define SIM_SIM_INSTALL_H

#include <stddef.h>

/* Writes the installation folder into buf: the nearest of the executable's folder and its
 * three parents that holds p4/include/v1model.p4. Returns 0, or -1 when none does (buf then
 * holds the executable's parent folder, so messages name where files were expected). */
int install_root(char *buf, size_t n);

#endif
