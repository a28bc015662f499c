/* bmv2-compatible hash functions: see p4hash.h. Bitwise implementations: the inputs are a
 * few header fields, so tables would not pay for themselves. */
#include "p4/engine/p4hash.h"

uint16_t p4hash_crc16(const uint8_t *buf, size_t len)
{
    /* reflected form of poly 0x8005 is 0xA001 */
    uint16_t crc = 0;
    for (size_t i = 0; i < len; i++) {
        crc ^= buf[i];
        for (int b = 0; b < 8; b++)
            crc = (uint16_t)((crc & 1) ? (crc >> 1) ^ 0xA001 : crc >> 1);
    }
    return crc;
}

uint32_t p4hash_crc32(const uint8_t *buf, size_t len)
{
    uint32_t crc = 0xFFFFFFFFu;
    for (size_t i = 0; i < len; i++) {
        crc ^= buf[i];
        for (int b = 0; b < 8; b++)
            crc = (crc & 1) ? (crc >> 1) ^ 0xEDB88320u : crc >> 1;
    }
    return crc ^ 0xFFFFFFFFu;
}

uint16_t p4hash_crc_ccitt(const uint8_t *buf, size_t len)
{
    uint16_t crc = 0xFFFF;
    for (size_t i = 0; i < len; i++) {
        crc ^= (uint16_t)(buf[i] << 8);
        for (int b = 0; b < 8; b++)
            crc = (uint16_t)((crc & 0x8000) ? (crc << 1) ^ 0x1021 : crc << 1);
    }
    return crc;
}

uint16_t p4hash_csum16(const uint8_t *buf, size_t len)
{
    uint64_t sum = 0;
    for (size_t i = 0; i + 1 < len; i += 2)
        sum += (uint64_t)(buf[i] << 8 | buf[i + 1]);
    if (len & 1)
        sum += (uint64_t)buf[len - 1] << 8;
    while (sum >> 16)
        sum = (sum & 0xFFFF) + (sum >> 16);
    return (uint16_t)~sum;
}

uint16_t p4hash_xor16(const uint8_t *buf, size_t len)
{
    uint16_t x = 0;
    for (size_t i = 0; i < len; i += 2) {
        uint16_t w = (uint16_t)(buf[i] << 8);
        if (i + 1 < len)
            w |= buf[i + 1];
        x ^= w;
    }
    return x;
}

uint64_t p4hash_identity(const uint8_t *buf, size_t len)
{
    /* bmv2: the first (at most) 8 bytes as a big-endian number */
    uint64_t v = 0;
    for (size_t i = 0; i < len && i < 8; i++)
        v = (v << 8) | buf[i];
    return v;
}

uint64_t p4hash_compute(int algo, const uint8_t *buf, size_t len)
{
    switch (algo) {
    case P4HASH_CRC32:
    case P4HASH_CRC32_CUSTOM:
        return p4hash_crc32(buf, len);
    case P4HASH_CRC16:
    case P4HASH_CRC16_CUSTOM:
        return p4hash_crc16(buf, len);
    case P4HASH_IDENTITY:
        return p4hash_identity(buf, len);
    case P4HASH_CSUM16:
        return p4hash_csum16(buf, len);
    case P4HASH_XOR16:
        return p4hash_xor16(buf, len);
    default:
        return 0;
    }
}
