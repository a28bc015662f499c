/* Sweep workers as MPI ranks (sweep_run.h). Built with HAVE_MPI into build/ddlsim-mpi (the
 * Makefile does it when mpicc is installed); in the plain build it only detects that mpirun
 * started several ranks and says which binary to use.
 *
 * Protocol: rank 0 sends a rank a point id (TAG_WORK) whenever that rank is free — every rank
 * first, then the next point to whichever rank answers — and a rank answers with the point's
 * record text (TAG_DONE). TAG_STOP ends a rank's loop. Rank 0 coordinates and stores records
 * only; with one rank (mpirun -n 1) the sweep runs on forked workers as without mpirun. */
#include "sim/app/sweep_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "p4/engine/p4cache.h"
#include "sim/util.h"

/* The rank count mpirun announced (Open MPI, MPICH/Hydra, PMIx), 0 when not under mpirun. */
static int launched_size(void)
{
    const char *vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"};
    for (size_t i = 0; i < ARRAY_LEN(vars); i++) {
        const char *v = getenv(vars[i]);
        if (v && *v)
            return atoi(v);
    }
    return 0;
}

#ifdef HAVE_MPI
#include <mpi.h>

enum { TAG_WORK = 1, TAG_DONE = 2, TAG_STOP = 3 };

int sweep_mpi_init(int *argc, char ***argv, int *rank, int *size)
{
    if (launched_size() <= 1)
        return 0;
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    return 1;
}

static void send_work(int dest, uint64_t id)
{
    MPI_Send(&id, 1, MPI_UINT64_T, dest, TAG_WORK, MPI_COMM_WORLD);
}

int sweep_mpi_run(struct sweep_ctl *c, const uint64_t *pending, uint64_t n)
{
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    uint64_t next = 0;
    int busy = 0;
    for (int r = 1; r < size; r++) {
        if (next < n) {
            send_work(r, pending[next++]);
            busy++;
        } else {
            MPI_Send(NULL, 0, MPI_BYTE, r, TAG_STOP, MPI_COMM_WORLD);
        }
    }
    while (busy > 0) {
        MPI_Status st;
        int flag = 0;
        /* poll so the progress line keeps moving while every rank is busy */
        while (!flag) {
            MPI_Iprobe(MPI_ANY_SOURCE, TAG_DONE, MPI_COMM_WORLD, &flag, &st);
            if (!flag) {
                sweep_ctl_tick(c);
                struct timespec ts = {0, 2000000};
                nanosleep(&ts, NULL);
            }
        }
        int len;
        MPI_Get_count(&st, MPI_CHAR, &len);
        char *text = xmalloc((size_t)len + 1);
        MPI_Recv(text, len, MPI_CHAR, st.MPI_SOURCE, TAG_DONE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        text[len] = '\0';
        struct sweep_rec r;
        if (sweep_rec_parse(text, &r) == 0)
            sweep_ctl_done(c, &r);
        free(text);
        if (next < n) {
            send_work(st.MPI_SOURCE, pending[next++]);
        } else {
            MPI_Send(NULL, 0, MPI_BYTE, st.MPI_SOURCE, TAG_STOP, MPI_COMM_WORLD);
            busy--;
        }
    }
    return 0;
}

void sweep_mpi_serve(const struct sweep *sw, const char *out, bool keep)
{
    struct p4_cache *p4_cache = p4_cache_create(); /* programs loaded once per rank */
    for (;;) {
        MPI_Status st;
        uint64_t id;
        MPI_Probe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        if (st.MPI_TAG != TAG_WORK) {
            MPI_Recv(NULL, 0, MPI_BYTE, 0, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            p4_cache_free(p4_cache);
            return;
        }
        MPI_Recv(&id, 1, MPI_UINT64_T, 0, TAG_WORK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        struct sweep_rec r;
        sweep_point_run(sw, id, out, keep, p4_cache, &r);
        char *text = sweep_rec_format(&r);
        MPI_Send(text, (int)strlen(text), MPI_CHAR, 0, TAG_DONE, MPI_COMM_WORLD);
        free(text);
        sweep_rec_free(&r);
    }
}

void sweep_mpi_abort_workers(void)
{
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int r = 1; r < size; r++)
        MPI_Send(NULL, 0, MPI_BYTE, r, TAG_STOP, MPI_COMM_WORLD);
}

void sweep_mpi_finalize(void)
{
    MPI_Finalize();
}

#else

int sweep_mpi_init(int *argc, char ***argv, int *rank, int *size)
{
    (void)argc;
    (void)argv;
    *rank = 0;
    *size = 1;
    int n = launched_size();
    if (n <= 1)
        return 0;
    fprintf(stderr, "ddlsim: error: started by mpirun with %d ranks, but this ddlsim was built "
                    "without MPI: run build/ddlsim-mpi (make builds it when mpicc is installed)\n",
            n);
    return -1;
}

int sweep_mpi_run(struct sweep_ctl *c, const uint64_t *pending, uint64_t n)
{
    (void)c;
    (void)pending;
    (void)n;
    return -1; /* unreachable: sweep_mpi_init never reports MPI in this build */
}

void sweep_mpi_serve(const struct sweep *sw, const char *out, bool keep)
{
    (void)sw;
    (void)out;
    (void)keep;
}

void sweep_mpi_abort_workers(void)
{
}

void sweep_mpi_finalize(void)
{
}

#endif
