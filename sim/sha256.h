/* SHA-256 (FIPS 180-4) of byte strings and files, for the provenance of a run (digests of the
 * scenario, P4 programs and model files it read) and for the configuration hash of sweep
 * points. Digests print as 64 lowercase hex characters. */
#ifndef SIM_SIM_SHA256_H
#define SIM_SIM_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_HEX_LEN 65 /* 64 hex digits and the terminating NUL */

struct sha256 {
    uint32_t h[8];
    uint64_t len;      /* bytes hashed so far */
    uint8_t buf[64];   /* pending partial block */
    size_t nbuf;
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t n);
/* Finishes and writes the digest as hex into out (SHA256_HEX_LEN bytes). */
void sha256_hex(struct sha256 *s, char out[SHA256_HEX_LEN]);
/* One call: the digest of n bytes. */
void sha256_hex_of(const void *data, size_t n, char out[SHA256_HEX_LEN]);
/* The digest of a file's contents. Returns 0, or -1 with errno set. */
int sha256_file(const char *path, char out[SHA256_HEX_LEN]);

#endif
