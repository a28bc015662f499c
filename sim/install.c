/* The installation folder, found from /proc/self/exe. */
#include "sim/install.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

int install_root(char *buf, size_t n)
{
    char exe[4096];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (len <= 0) {
        snprintf(buf, n, ".");
        return -1;
    }
    exe[len] = '\0';
    char first[4096] = "";
    for (int up = 0; up < 4; up++) {
        char *slash = strrchr(exe, '/');
        if (!slash)
            break;
        *slash = '\0';
        if (up == 1 || !first[0])
            snprintf(first, sizeof(first), "%s", exe[0] ? exe : "/");
        char probe[4200];
        snprintf(probe, sizeof(probe), "%s/p4/include/v1model.p4", exe);
        if (access(probe, R_OK) == 0) {
            snprintf(buf, n, "%s", exe[0] ? exe : "/");
            return 0;
        }
    }
    snprintf(buf, n, "%s", first);
    return -1;
}
