#include "sim/units.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "sim/util.h"

struct unit {
    const char *name;
    uint64_t mult; /* base units per one of this unit */
};

static const struct unit time_units[] = {
    {"ps", 1ULL},          {"ns", 1000ULL},          {"us", 1000000ULL},
    {"ms", 1000000000ULL}, {"s", 1000000000000ULL},
};

static const struct unit rate_units[] = {
    {"bps", 1ULL},           {"Kbps", 1000ULL},          {"Mbps", 1000000ULL},
    {"Gbps", 1000000000ULL}, {"Tbps", 1000000000000ULL},
};

static const struct unit size_units[] = {
    {"B", 1ULL},
    {"KB", 1000ULL},
    {"MB", 1000000ULL},
    {"GB", 1000000000ULL},
    {"KiB", 1ULL << 10},
    {"MiB", 1ULL << 20},
    {"GiB", 1ULL << 30},
};

#define UNITS_NUM_MAX ((unsigned __int128)1 << 100)

/* Applies a decimal exponent ("e9", "E-3") to num/den exactly; -2 when it is out of range. */
static int apply_exponent(const char **pp, unsigned __int128 *n, unsigned __int128 *d)
{
    const char *p = *pp + 1;
    bool neg = *p == '-';
    if (*p == '-' || *p == '+')
        p++;
    if (!isdigit((unsigned char)*p))
        return 0; /* not an exponent: the unit starts here */
    int e = 0;
    while (isdigit((unsigned char)*p)) {
        if (e < 1000)
            e = e * 10 + (*p - '0');
        p++;
    }
    *pp = p;
    if (e > 30)
        return -2;
    for (int i = 0; i < e; i++) {
        if (neg && *d < (unsigned __int128)1000000000000000000ULL * 1000000000000000000ULL)
            *d *= 10;
        else if (neg)
            *n /= 10; /* far below one base unit: the value rounds to zero anyway */
        else if ((*n *= 10) > UNITS_NUM_MAX)
            return -2;
    }
    return 0;
}

/* Splits "12.5us" (or "1.25e1us") into an exact fraction num/den and the unit suffix. Returns
 * -1 when there is no number, -2 when it is too large to represent. */
static int parse_decimal(const char *s, unsigned __int128 *num, unsigned __int128 *den,
                         const char **suffix)
{
    const char *p = s;
    unsigned __int128 n = 0;
    unsigned __int128 d = 1;
    int digits = 0;
    while (isdigit((unsigned char)*p)) {
        n = n * 10 + (unsigned)(*p - '0');
        if (n > UNITS_NUM_MAX)
            return -2;
        p++;
        digits++;
    }
    if (*p == '.') {
        p++;
        while (isdigit((unsigned char)*p)) {
            if (d < (unsigned __int128)1000000000000000000ULL) {
                n = n * 10 + (unsigned)(*p - '0');
                d *= 10;
            }
            p++;
            digits++;
        }
    }
    if (digits == 0)
        return -1;
    if ((*p == 'e' || *p == 'E') && apply_exponent(&p, &n, &d) < 0)
        return -2;
    *num = n;
    *den = d;
    *suffix = p;
    return 0;
}

static int parse_with_units(const char *s, const struct unit *units, size_t nunits,
                            const char *what, const char *hint, int bare_ok, uint64_t max,
                            uint64_t *out, char *err, size_t errn)
{
    while (isspace((unsigned char)*s))
        s++;
    if (*s == '-') {
        snprintf(err, errn, "%s must not be negative: '%s'", what, s);
        return -1;
    }
    if (*s == '+')
        s++;
    unsigned __int128 num;
    unsigned __int128 den;
    const char *suf;
    int rc = parse_decimal(s, &num, &den, &suf);
    if (rc == -2) {
        snprintf(err, errn, "%s '%s' is too large", what, s);
        return -1;
    }
    if (rc < 0) {
        snprintf(err, errn, "bad %s '%s' (expected a number with a unit, e.g. %s)", what, s, hint);
        return -1;
    }
    while (isspace((unsigned char)*suf))
        suf++;
    uint64_t mult = 0;
    if (*suf == '\0') {
        if (!bare_ok && num != 0) {
            snprintf(err, errn, "%s '%s' needs a unit (e.g. %s)", what, s, hint);
            return -1;
        }
        mult = 1;
    } else {
        for (size_t i = 0; i < nunits; i++) {
            if (strcmp(suf, units[i].name) == 0 ||
                (strcasecmp(suf, units[i].name) == 0 && units != size_units))
                mult = units[i].mult;
        }
        size_t sl = strlen(suf);
        bool bytes = units == rate_units && sl >= 3 && strcmp(suf + sl - 3, "Bps") == 0;
        if (bytes)
            mult = 0; /* bytes per second: off by 8 if read as bits */
        if (mult == 0) {
            snprintf(err, errn, "unknown unit '%s' in %s '%s' (e.g. %s%s)", suf, what, s, hint,
                     bytes ? "; rates are in bits per second" : "");
            return -1;
        }
    }
    unsigned __int128 v = num > ~(unsigned __int128)0 / 2 / mult ? ~(unsigned __int128)0
                                                                  : (num * mult + den / 2) / den;
    if (v > max) {
        snprintf(err, errn, "%s '%s' is too large", what, s);
        return -1;
    }
    *out = (uint64_t)v;
    return 0;
}

int units_parse_time(const char *s, sim_time_t *out, char *err, size_t errn)
{
    uint64_t v;
    int rc = parse_with_units(s, time_units, ARRAY_LEN(time_units), "time", "'1.5us', '10ms'", 0,
                              (uint64_t)INT64_MAX / 2, &v, err, errn);
    if (rc == 0)
        *out = (sim_time_t)v;
    return rc;
}

int units_parse_rate(const char *s, uint64_t *out, char *err, size_t errn)
{
    return parse_with_units(s, rate_units, ARRAY_LEN(rate_units), "rate", "'10Gbps', '100Mbps'", 0,
                            1000000000000000ULL, out, err, errn);
}

int units_parse_size(const char *s, uint64_t *out, char *err, size_t errn)
{
    return parse_with_units(s, size_units, ARRAY_LEN(size_units), "size", "'1500B', '4MB', '64KiB'",
                            1, (uint64_t)INT64_MAX / 16, out, err, errn);
}

char *sim_time_fmt(sim_time_t t, char *buf, size_t n)
{
    static const struct unit fmt_units[] = {
        {"s", 1000000000000ULL}, {"ms", 1000000000ULL}, {"us", 1000000ULL}, {"ns", 1000ULL}};
    uint64_t a = (uint64_t)(t < 0 ? -t : t);
    for (size_t i = 0; i < ARRAY_LEN(fmt_units); i++) {
        if (a >= fmt_units[i].mult) {
            snprintf(buf, n, "%.6g%s", (double)t / (double)fmt_units[i].mult, fmt_units[i].name);
            return buf;
        }
    }
    snprintf(buf, n, "%lldps", (long long)t);
    return buf;
}
