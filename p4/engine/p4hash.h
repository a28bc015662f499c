/* Hash and checksum algorithms bit-identical to bmv2 (src/bm_sim/calculations.cpp):
 * crc16 = CRC-16/ARC (poly 0x8005, reflected, init 0), crc32 = IEEE CRC-32, crcCCITT =
 * CRC-16/CCITT-FALSE, csum16 = Internet checksum (RFC 1071; odd length padded with a zero
 * byte), xor16 = xor of big-endian 16-bit words, identity = the bytes as a big-endian number
 * (first 8 bytes). */
#ifndef SIM_P4_P4HASH_H
#define SIM_P4_P4HASH_H

#include <stddef.h>
#include <stdint.h>

/* v1model HashAlgorithm order */
enum p4hash_algo {
    P4HASH_CRC32,
    P4HASH_CRC32_CUSTOM,
    P4HASH_CRC16,
    P4HASH_CRC16_CUSTOM,
    P4HASH_RANDOM,
    P4HASH_IDENTITY,
    P4HASH_CSUM16,
    P4HASH_XOR16
};

uint16_t p4hash_crc16(const uint8_t *buf, size_t len);
uint32_t p4hash_crc32(const uint8_t *buf, size_t len);
uint16_t p4hash_crc_ccitt(const uint8_t *buf, size_t len);
uint16_t p4hash_csum16(const uint8_t *buf, size_t len);
uint16_t p4hash_xor16(const uint8_t *buf, size_t len);
uint64_t p4hash_identity(const uint8_t *buf, size_t len);
/* Dispatch by enum p4hash_algo (RANDOM is handled by the caller). */
uint64_t p4hash_compute(int algo, const uint8_t *buf, size_t len);

#endif
