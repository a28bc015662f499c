/* Run folders that always hold one run's complete, consistent set of results, or the previous
 * run's, never a mix. A run writes into a fresh hidden folder next to its target
 * (DIR/../.NAME.ddlsim-XXXXXX) and, when every file is complete, swaps it with the target in
 * one atomic rename (renameat2 RENAME_EXCHANGE; where the file system lacks it, two renames,
 * between which the target is briefly absent, never mixed), then deletes the old set.
 *
 * The running process holds a flock on its folder; a folder whose lock nobody holds belongs to
 * a run that died (kill -9, crash) and is removed by the next run into the same target.
 * An existing target is replaced only when it is empty or holds nothing but ddlsim outputs, so
 * `--out ~` cannot wipe a home folder. Atomic against process death; files are not fsynced, so
 * a power loss may lose the newest set. */
#ifndef SIM_SIM_APP_RUNDIR_H
#define SIM_SIM_APP_RUNDIR_H

#include <stdbool.h>
#include <stddef.h>

struct rundir {
    char *final; /* the target folder */
    char *tmp;   /* the folder the run writes into */
    int lock_fd; /* open on tmp, flock'd; -1 when closed */
};

/* Removes stale folders of dead runs into `final`, checks that `final` may be replaced, and
 * creates a fresh temporary folder (and the parents of `final`). Returns 0, or -1 with the
 * reason in err. */
int rundir_open(struct rundir *rd, const char *final, char *err, size_t errn);
/* Swaps the temporary folder into place and deletes the previous set. Returns 0 or -1. */
int rundir_commit(struct rundir *rd, char *err, size_t errn);
/* Deletes the temporary folder (a run that failed) and releases rd; no-op after commit. */
void rundir_abort(struct rundir *rd);
/* True when every entry of `dir` is a ddlsim output (so the folder may be replaced). */
bool rundir_replaceable(const char *dir);
/* The default output folder of a scenario file: out/ and the file's name without its
 * extension (configs/demo.yaml -> out/demo). The caller frees it. */
char *rundir_default(const char *scenario);
/* Deletes a folder tree. Returns 0 or -1 (errno set). */
int rundir_remove_tree(const char *dir);

#endif
