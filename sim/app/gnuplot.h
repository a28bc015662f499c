/* Rendering with gnuplot, run as an external process with a time limit: a script's data and
 * plot commands become NAME.png (pngcairo when this gnuplot has it, else png) and NAME.svg,
 * each written under a temporary name and renamed when gnuplot succeeded. */
#ifndef SIM_SIM_APP_GNUPLOT_H
#define SIM_SIM_APP_GNUPLOT_H

#include <stddef.h>

#define GNUPLOT_TIMEOUT_S 60

/* `data` (datablocks, variables) runs once; `plot` (settings and plot commands) runs for each
 * terminal. out_base is the path without extension. Returns 0, or -1 with the reason in err
 * (gnuplot missing, its error message, timed out). */
int gnuplot_render(const char *data, const char *plot, const char *out_base, int width,
                   int height, char *err, size_t errn);
/* A file name as a gnuplot string literal (double quotes, escaped). Caller frees. */
char *gnuplot_quote(const char *s);

#endif
