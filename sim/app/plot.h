/* `ddlsim plot OUTDIR` and `ddlsim run --plot`: pictures of what a run recorded, drawn by
 * gnuplot (gnuplot.h) into OUTDIR/plots/ as PNG and SVG, each axis labelled with its unit:
 *   queues      queue length (KB) over time (ms), one line per sampled switch port
 *   cwnd        TCP congestion window (KB) over time, one line per flow with cwnd samples
 *   rate        RDMA/DCQCN sending rate (Gbps) over time, one line per flow with rate samples
 *   iterations  iteration time (ms) per iteration, one line per worker
 *   tensors     per-tensor timeline: a push and a pull span (ready to delivered) per layer and
 *               worker, one band of rows per worker
 *   fct_cdf     CDF of flow completion times (ms)
 * A plot is made only when the run recorded its data. */
#ifndef SIM_SIM_APP_PLOT_H
#define SIM_SIM_APP_PLOT_H

#include <stdbool.h>

/* Plots the run folder `dir`; prints the files it wrote unless quiet. Returns 0, or 1 after a
 * message (gnuplot failed, nothing to plot, no such folder). */
int plot_run_dir(const char *dir, bool quiet);
/* `ddlsim plot OUTDIR [--quiet]`; returns the exit code. */
int plot_main(int argc, char **argv);

#endif
