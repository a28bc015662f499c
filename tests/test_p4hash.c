/* Hash functions against known values (the standard check value of each CRC over
 * "123456789", RFC 1071 examples) so they stay bit-identical to bmv2. */
#include "tests/testutil.h"

#include "p4/engine/p4hash.h"

static const uint8_t check[] = "123456789";

static void test_p4hash_crc32_ieee(void **state)
{
    assert_int_equal(p4hash_crc32(check, 9), 0xCBF43926u);
    assert_int_equal(p4hash_crc32(check, 0), 0);
    assert_int_equal(p4hash_compute(P4HASH_CRC32, check, 9), 0xCBF43926u);
}

static void test_p4hash_crc16_arc(void **state)
{
    assert_int_equal(p4hash_crc16(check, 9), 0xBB3D);
    assert_int_equal(p4hash_compute(P4HASH_CRC16, check, 9), 0xBB3D);
}

static void test_p4hash_crc_ccitt(void **state)
{
    assert_int_equal(p4hash_crc_ccitt(check, 9), 0x29B1);
}

static void test_p4hash_csum16(void **state)
{
    /* RFC 1071 section 3 example: words 0001 f203 f4f5 f6f7 sum to ddf2 */
    const uint8_t rfc[] = {0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7};
    assert_int_equal(p4hash_csum16(rfc, 8), (uint16_t)~0xddf2);
    /* an IPv4 header with its checksum folds to zero */
    const uint8_t ip[] = {0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
                          0xb8, 0x61, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7};
    assert_int_equal(p4hash_csum16(ip, 20), 0);
    /* odd length: padded with a zero byte */
    const uint8_t odd[] = {0x12, 0x34, 0x56};
    assert_int_equal(p4hash_csum16(odd, 3), (uint16_t) ~(0x1234 + 0x5600));
}

static void test_p4hash_xor16_identity(void **state)
{
    const uint8_t b[] = {0x12, 0x34, 0xAB, 0xCD, 0xFF};
    assert_int_equal(p4hash_xor16(b, 5), 0x1234 ^ 0xABCD ^ 0xFF00);
    assert_true(p4hash_identity(b, 5) == 0x1234ABCDFFULL);
    const uint8_t ten[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    assert_true(p4hash_identity(ten, 10) == 0x0102030405060708ULL);
}

TEST_MAIN(cmocka_unit_test(test_p4hash_crc32_ieee), cmocka_unit_test(test_p4hash_crc16_arc),
          cmocka_unit_test(test_p4hash_crc_ccitt), cmocka_unit_test(test_p4hash_csum16),
          cmocka_unit_test(test_p4hash_xor16_identity))
