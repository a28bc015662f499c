#include "sim/out.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/util.h"

int out_mkdirs(const char *dir)
{
    char *p = xstrdup(dir);
    int rc = 0;
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(p, 0777) < 0 && errno != EEXIST) {
            rc = -1;
            goto out_free;
        }
        *s = '/';
    }
    if (mkdir(p, 0777) < 0 && errno != EEXIST)
        rc = -1;
out_free:
    free(p);
    return rc;
}

int out_open(struct out_file *o, const char *dir, const char *name, char *err, size_t errn)
{
    o->path = xasprintf("%s/%s", dir, name);
    o->tmp = xasprintf("%s/.%s.%ld.tmp", dir, name, (long)getpid());
    o->f = fopen(o->tmp, "wb");
    if (!o->f) {
        snprintf(err, errn, "cannot write '%s': %s", o->path, strerror(errno));
        free(o->path);
        free(o->tmp);
        o->path = o->tmp = NULL;
        return -1;
    }
    return 0;
}

int out_commit(struct out_file *o, char *err, size_t errn)
{
    int rc = 0;
    if (fflush(o->f) != 0 || ferror(o->f)) {
        snprintf(err, errn, "error writing '%s': %s", o->path, strerror(errno));
        rc = -1;
    }
    if (fclose(o->f) != 0 && rc == 0) {
        snprintf(err, errn, "error closing '%s': %s", o->path, strerror(errno));
        rc = -1;
    }
    o->f = NULL;
    if (rc == 0 && rename(o->tmp, o->path) != 0) {
        snprintf(err, errn, "cannot rename into '%s': %s", o->path, strerror(errno));
        rc = -1;
    }
    if (rc != 0)
        unlink(o->tmp);
    free(o->path);
    free(o->tmp);
    o->path = o->tmp = NULL;
    return rc;
}

void out_abort(struct out_file *o)
{
    if (o->f)
        fclose(o->f);
    if (o->tmp)
        unlink(o->tmp);
    free(o->path);
    free(o->tmp);
    o->f = NULL;
    o->path = o->tmp = NULL;
}
