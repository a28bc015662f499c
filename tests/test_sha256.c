/* SHA-256 against the FIPS 180-2 example vectors, incremental updates against one call, and
 * file digests against the digest of the same bytes. */
#include "tests/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/sha256.h"

static void test_sha256_vectors(void **state)
{
    char hex[SHA256_HEX_LEN];
    sha256_hex_of("", 0, hex);
    assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    sha256_hex_of("abc", 3, hex);
    assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    sha256_hex_of(two, strlen(two), hex);
    assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

/* One million 'a' fed in uneven pieces (crossing block boundaries) gives the published digest. */
static void test_sha256_million_incremental(void **state)
{
    struct sha256 s;
    sha256_init(&s);
    char a[1024]; /* steps go up to 1003 bytes */
    memset(a, 'a', sizeof(a));
    size_t left = 1000000;
    size_t step = 1;
    while (left > 0) {
        size_t n = step < left ? step : left;
        sha256_update(&s, a, n);
        left -= n;
        step = step % 997 + 7;
    }
    char hex[SHA256_HEX_LEN];
    sha256_hex(&s, hex);
    assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

/* Lengths around the padding boundary (55, 56, 63, 64 bytes) hash the same in pieces. */
static void test_sha256_padding_edges(void **state)
{
    uint8_t buf[130];
    for (size_t i = 0; i < sizeof(buf); i++)
        buf[i] = (uint8_t)(i * 31 + 7);
    size_t lens[] = {55, 56, 57, 63, 64, 65, 119, 120, 128};
    for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
        char one[SHA256_HEX_LEN];
        char two[SHA256_HEX_LEN];
        sha256_hex_of(buf, lens[k], one);
        struct sha256 s;
        sha256_init(&s);
        sha256_update(&s, buf, lens[k] / 3);
        sha256_update(&s, buf + lens[k] / 3, lens[k] - lens[k] / 3);
        sha256_hex(&s, two);
        assert_string_equal(one, two);
    }
}

static void test_sha256_file(void **state)
{
    char path[] = "/tmp/ddlsim-sha-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "abc", 3), 3);
    close(fd);
    char hex[SHA256_HEX_LEN];
    assert_int_equal(sha256_file(path, hex), 0);
    assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    unlink(path);
    assert_int_equal(sha256_file(path, hex), -1);
}

TEST_MAIN(cmocka_unit_test(test_sha256_vectors), cmocka_unit_test(test_sha256_million_incremental),
          cmocka_unit_test(test_sha256_padding_edges), cmocka_unit_test(test_sha256_file))
