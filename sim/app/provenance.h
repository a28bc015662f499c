/* Provenance of a run: the ddlsim version and every input file it read (the scenario, each P4
 * program, ddlsim's P4 include folder, each DNN model file), each with its resolved absolute
 * path and SHA-256 digest. summary.json records it under "provenance"; the configuration hash
 * of a sweep point is the digest of the resolved configuration tree and of these inputs'
 * contents (not their paths, so a checkout elsewhere gives the same hash). */
#ifndef SIM_SIM_APP_PROVENANCE_H
#define SIM_SIM_APP_PROVENANCE_H

#include <stddef.h>

#include <jansson.h>

#include "sim/app/scenario.h"
#include "sim/sha256.h"

struct prov_input {
    char *role;                  /* scenario, p4_program, p4_include, model */
    char *path;                  /* resolved absolute path */
    char sha256[SHA256_HEX_LEN]; /* of the contents; of a folder: of its files' names+digests */
};

struct prov_inputs {
    struct prov_input *v;
    size_t n;
};

/* Collects the inputs of a loaded scenario (each file once, in the order first used). */
void prov_collect(const struct scenario *sc, struct prov_inputs *in);
void prov_free(struct prov_inputs *in);
/* {"ddlsim_version": ..., "inputs": [{"role", "path", "sha256"}, ...]} */
json_t *prov_json(const struct scenario *sc);
/* The digest of the resolved configuration (after --set, seed included) and of the contents of
 * every input other than the scenario file itself (the tree stands for it). */
void prov_config_hash(const struct scenario *sc, char out[SHA256_HEX_LEN]);
/* The digest of a folder: its regular files, by name, with their digests. Returns 0 or -1. */
int prov_folder_digest(const char *dir, char out[SHA256_HEX_LEN]);

#endif
