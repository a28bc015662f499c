#include "tests/testutil.h"

#include <string.h>

#include "sim/simtime.h"
#include "sim/units.h"
#include "sim/util.h"

/* A text, whether it parses (0) or not (-1), and the value when it does. */
struct unit_case {
    const char *text;
    int rc;
    uint64_t value;
};

static void check_cases(int (*parse)(const char *, uint64_t *, char *, size_t),
                        const struct unit_case *c, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char err[256];
        uint64_t v = 0;
        int rc = parse(c[i].text, &v, err, sizeof(err));
        if (rc != c[i].rc || (rc == 0 && v != c[i].value))
            fail_msg("'%s': %d, %llu (expected %d, %llu)", c[i].text, rc, (unsigned long long)v,
                     c[i].rc, (unsigned long long)c[i].value);
    }
}

static void test_units_time(void **state)
{
    char err[256];
    sim_time_t t;
    static const struct unit_case ok[] = {
        {"1.5us", 0, 1500000}, {"250ns", 0, 250000},
        {"2ms", 0, SIM_MS(2)}, {"1s", 0, SIM_SEC(1)},
        {"0", 0, 0},           {"0.0001ps", 0, 0} /* rounds to the nearest picosecond */,
        {"0.6ps", 0, 1},
    };
    for (size_t i = 0; i < ARRAY_LEN(ok); i++) {
        assert_int_equal(units_parse_time(ok[i].text, &t, err, sizeof(err)), 0);
        assert_int_equal(t, ok[i].value);
    }
}

static void test_units_time_errors(void **state)
{
    char err[256];
    sim_time_t t;
    assert_int_equal(units_parse_time("10", &t, err, sizeof(err)), -1);
    assert_string_equal(err, "time '10' needs a unit (e.g. '1.5us', '10ms')");
    assert_int_equal(units_parse_time("10 parsecs", &t, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "unknown unit 'parsecs'"));
    assert_int_equal(units_parse_time("-1us", &t, err, sizeof(err)), -1);
    assert_string_equal(err, "time must not be negative: '-1us'");
    assert_int_equal(units_parse_time("fast", &t, err, sizeof(err)), -1);
    assert_int_equal(units_parse_time("", &t, err, sizeof(err)), -1);
    assert_int_equal(units_parse_time("1e9s", &t, err, sizeof(err)), -1);
}

static void test_units_rate(void **state)
{
    static const struct unit_case c[] = {
        {"10Gbps", 0, 10000000000ULL},
        {"100Mbps", 0, 100000000ULL},
        {"3.2Tbps", 0, 3200000000000ULL},
        {"56gbps", 0, 56000000000ULL},
        {"-10Gbps", -1, 0},
        {"10GB", -1, 0},
        {"10", -1, 0},
    };
    check_cases(units_parse_rate, c, ARRAY_LEN(c));
}

static void test_units_size(void **state)
{
    /* sizes are case-sensitive: 1mb would be a megabit */
    static const struct unit_case c[] = {
        {"1500", 0, 1500},          {"1MB", 0, 1000000}, {"64KiB", 0, 65536},  {"1.5KiB", 0, 1536},
        {"1GiB", 0, 1073741824ULL}, {"1mb", -1, 0},      {"4 MB", 0, 4000000},
    };
    check_cases(units_parse_size, c, ARRAY_LEN(c));
}

/* Serialization time is exact integer math, not a rounded ps-per-byte constant: at 3.2 Tb/s a
 * byte takes 2.5 ps, so 1500 B take exactly 3750 ps (a 2 ps/byte constant would give 3000). */
static void test_units_tx_time(void **state)
{
    assert_int_equal(simtime_tx_ps(1500, 3200000000000ULL), 3750);
    assert_int_equal(simtime_tx_ps(1, 3200000000000ULL), 3); /* ceil(2.5) */
    /* 56 Gb/s: 1538 B = 12304 bits → 219714.2857 ps → 219715 */
    assert_int_equal(simtime_tx_ps(1538, 56000000000ULL), 219715);
    assert_int_equal(simtime_tx_ps(1538, 10000000000ULL), 1230400);
    /* large transfers do not overflow: 1 GB at 1 Kb/s = 8e6 s */
    assert_true(simtime_tx_ps(1000000000ULL, 1000) == SIM_SEC(8000000));
}

/* Scientific notation is exact (1.5e-6 s is 1,500,000 ps), and values too large to represent
 * say so instead of wrapping: 10^29 Tbps overflowed the 128-bit product before. */
static void test_units_exponent(void **state)
{
    char err[256];
    sim_time_t t;
    uint64_t u;
    assert_int_equal(units_parse_time("1.5e-6s", &t, err, sizeof(err)), 0);
    assert_int_equal(t, 1500000);
    assert_int_equal(units_parse_time("2E3ns", &t, err, sizeof(err)), 0);
    assert_int_equal(t, 2000000);
    assert_int_equal(units_parse_rate("1e9bps", &u, err, sizeof(err)), 0);
    assert_int_equal(u, 1000000000ULL);
    assert_int_equal(units_parse_size("2.5e+3KB", &u, err, sizeof(err)), 0);
    assert_int_equal(u, 2500000ULL);
    assert_int_equal(units_parse_rate("1e30Gbps", &u, err, sizeof(err)), -1);
    assert_string_equal(err, "rate '1e30Gbps' is too large");
    assert_int_equal(units_parse_rate("100000000000000000000000000000Tbps", &u, err, sizeof(err)),
                     -1);
    assert_string_equal(err, "rate '100000000000000000000000000000Tbps' is too large");
    assert_int_equal(units_parse_time("1e99s", &t, err, sizeof(err)), -1);
    assert_string_equal(err, "time '1e99s' is too large");
    /* far below a picosecond rounds to zero */
    assert_int_equal(units_parse_time("1e-30s", &t, err, sizeof(err)), 0);
    assert_int_equal(t, 0);
    /* 'e' without digits is not an exponent */
    assert_int_equal(units_parse_time("1es", &t, err, sizeof(err)), -1);
    assert_string_equal(err, "unknown unit 'es' in time '1es' (e.g. '1.5us', '10ms')");
}

static void test_units_format(void **state)
{
    char buf[32];
    assert_string_equal(sim_time_fmt(1500000, buf, sizeof(buf)), "1.5us");
    assert_string_equal(sim_time_fmt(SIM_MS(53), buf, sizeof(buf)), "53ms");
    assert_string_equal(sim_time_fmt(12, buf, sizeof(buf)), "12ps");
}

TEST_MAIN(cmocka_unit_test(test_units_time), cmocka_unit_test(test_units_time_errors),
          cmocka_unit_test(test_units_rate), cmocka_unit_test(test_units_size),
          cmocka_unit_test(test_units_tx_time), cmocka_unit_test(test_units_format),
          cmocka_unit_test(test_units_exponent))
