/* Figures: a sweep, a plot and a claim. configs/figures/NAME.yaml names its sweep (a path or
 * inline), what --quick replaces for the regression test, derived columns (an analytic line,
 * a ratio; expr.h), the plot (lines over an axis, or grouped bars), the claim it checks and
 * the headline number set beside it, and the regression columns with their tolerance and the
 * reasoning for it.
 *
 * `ddlsim figure NAME` runs the sweep and writes results/NAME.csv, .svg and .png;
 * `--quick` runs the small variant into out/figures/NAME-quick/ and compares it with the stored
 * reference results/NAME.ref.csv (failing when a value leaves its tolerance);
 * `--quick --update-ref` stores the reference. `ddlsim figure all` does every figure. */
#ifndef SIM_SIM_APP_FIGURE_H
#define SIM_SIM_APP_FIGURE_H

/* `ddlsim figure NAME|all [--quick] [--update-ref] [--results DIR] [--out DIR] [-j N]
 * [--quiet]`; returns the exit code (1 when a sweep point failed or a value left its
 * tolerance, 2 for a bad figure file). */
int figure_main(int argc, char **argv);

#endif
