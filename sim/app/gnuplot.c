/* gnuplot as a time-bounded child process (gnuplot.h). */
#include "sim/app/gnuplot.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sim/cfg.h"
#include "sim/util.h"

char *gnuplot_quote(const char *s)
{
    struct cfg_buf b = {0};
    cfg_buf_putc(&b, '"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            cfg_buf_putc(&b, '\\');
        cfg_buf_putc(&b, *s);
    }
    cfg_buf_putc(&b, '"');
    return b.s;
}

/* Runs `gnuplot script`, its output into log; kills it after the time limit. */
static int run(const char *script, const char *log, char *err, size_t errn)
{
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errn, "cannot start gnuplot: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0666);
        if (fd >= 0) {
            dup2(fd, STDOUT_FILENO);
            dup2(fd, STDERR_FILENO);
            close(fd);
        }
        execlp("gnuplot", "gnuplot", script, (char *)NULL);
        fprintf(stderr, "cannot run gnuplot: %s\n", strerror(errno));
        _exit(127);
    }
    int status = 0;
    struct timespec step = {0, 5000000};
    for (int i = 0; i < GNUPLOT_TIMEOUT_S * 200; i++) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid) {
            if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
                return 0;
            FILE *f = fopen(log, "r");
            char line[512] = "";
            char first[512] = "";
            while (f && fgets(line, sizeof(line), f)) {
                if (!first[0] && strstr(line, "line "))
                    snprintf(first, sizeof(first), "%s", line);
            }
            if (f)
                fclose(f);
            first[strcspn(first, "\n")] = '\0';
            line[strcspn(line, "\n")] = '\0';
            snprintf(err, errn, "gnuplot failed (%s): %s",
                     WIFEXITED(status) && WEXITSTATUS(status) == 127 ? "not installed" : "error",
                     first[0] ? first : line);
            return -1;
        }
        nanosleep(&step, NULL);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    snprintf(err, errn, "gnuplot did not finish within %d s", GNUPLOT_TIMEOUT_S);
    return -1;
}

int gnuplot_render(const char *data, const char *plot, const char *out_base, int width,
                   int height, char *err, size_t errn)
{
    char *png = xasprintf("%s.png", out_base);
    char *svg = xasprintf("%s.svg", out_base);
    char *png_tmp = xasprintf("%s.png.tmp", out_base);
    char *svg_tmp = xasprintf("%s.svg.tmp", out_base);
    char *script = xasprintf("%s.gp.tmp", out_base);
    char *log = xasprintf("%s.log.tmp", out_base);
    char *qpng = gnuplot_quote(png_tmp);
    char *qsvg = gnuplot_quote(svg_tmp);
    int rc = -1;
    FILE *f = fopen(script, "w");
    if (!f) {
        snprintf(err, errn, "cannot write '%s': %s", script, strerror(errno));
        goto out_free;
    }
    fprintf(f, "%s\n", data);
    fprintf(f, "if (strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0) {\n"
               "  set terminal pngcairo size %d,%d font \"sans,10\"\n"
               "} else {\n  set terminal png size %d,%d\n}\n"
               "set output %s\n%s\nunset output\n",
            width, height, width, height, qpng, plot);
    fprintf(f, "reset\nset terminal svg size %d,%d font \"sans,10\"\nset output %s\n%s\n"
               "unset output\n", width, height, qsvg, plot);
    if (fclose(f) != 0) {
        snprintf(err, errn, "cannot write '%s': %s", script, strerror(errno));
        goto out_unlink;
    }
    if (run(script, log, err, errn) == 0) {
        if (rename(png_tmp, png) == 0 && rename(svg_tmp, svg) == 0)
            rc = 0;
        else
            snprintf(err, errn, "cannot write '%s': %s", png, strerror(errno));
    }
out_unlink:
    unlink(script);
    unlink(log);
    unlink(png_tmp);
    unlink(svg_tmp);
out_free:
    free(qpng);
    free(qsvg);
    free(png);
    free(svg);
    free(png_tmp);
    free(svg_tmp);
    free(script);
    free(log);
    return rc;
}
