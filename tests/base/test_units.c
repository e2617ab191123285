/* Duration and count parsing tests. */
#include "units.h"
#include "../t.h"

#include <string.h>

static void durations(void)
{
    uint64_t v;

    CHECK(units_parse_duration("10s", &v) == 0 && v == 10000000000ULL);
    CHECK(units_parse_duration("10", &v) == 0 && v == 10000000000ULL);
    CHECK(units_parse_duration("1m", &v) == 0 && v == 60000000000ULL);
    CHECK(units_parse_duration("500ms", &v) == 0 && v == 500000000ULL);
    CHECK(units_parse_duration("1.5s", &v) == 0 && v == 1500000000ULL);
    CHECK(units_parse_duration("250us", &v) == 0 && v == 250000ULL);
    CHECK(units_parse_duration("2h", &v) == 0 && v == 7200000000000ULL);
    CHECK(units_parse_duration("", &v) == -1);
    CHECK(units_parse_duration("-1s", &v) == -1);
    CHECK(units_parse_duration("10x", &v) == -1);
    CHECK(units_parse_duration("s", &v) == -1);
    CHECK(units_parse_duration("nan", &v) == -1);
    CHECK(units_parse_duration("1e30s", &v) == -1);
}

/* Durations, sizes and rates are decimal numbers with their unit: strtod's
 * other forms (hex, exponents, inf, nan, leading spaces and signs) were
 * taken, so --warmup 0x10 warmed up 16 s and -d 0x1p-2 ran 0.25 s. */
static void decimal_only(void)
{
    static const char *const bad[] = { "0x10", "0x10s", "0x1p-2", "1e3", "1e3ms", "1E3", "inf", "infinity", "nan",
                                       " 1s", "\t1", "+1", "-0", "1.", ".", ".s", "1..5", "1.5.2", "0X1A", "1 s" };
    uint64_t v;
    double d;
    const char *end;
    size_t i;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        CHECKF(units_parse_duration(bad[i], &v) == -1, "duration '%s' taken as %llu ns", bad[i],
               (unsigned long long)v);
        CHECKF(units_parse_size(bad[i], &d) == -1, "size '%s' taken as %g", bad[i], d);
    }
    CHECK(units_parse_duration(".5s", &v) == 0 && v == 500000000ULL);
    CHECK(units_parse_duration("0.25", &v) == 0 && v == 250000000ULL);
    CHECK(units_parse_duration("007ms", &v) == 0 && v == 7000000ULL);
    CHECK(units_parse_size("1.5k", &d) == 0 && d == 1536);

    CHECK(units_parse_decimal("12.5/s", &d, &end) == 0 && d == 12.5 && strcmp(end, "/s") == 0);
    CHECK(units_parse_decimal("3", &d, &end) == 0 && d == 3 && *end == '\0');
    CHECK(units_parse_decimal(".25", &d, &end) == 0 && d == 0.25 && *end == '\0');
    CHECK(units_parse_decimal("0x10", &d, &end) == 0 && d == 0 && strcmp(end, "x10") == 0);
    CHECK(units_parse_decimal("1e3", &d, &end) == 0 && d == 1 && strcmp(end, "e3") == 0);
    CHECK(units_parse_decimal("", &d, &end) == -1);
    CHECK(units_parse_decimal("inf", &d, &end) == -1);
    CHECK(units_parse_decimal("-1", &d, &end) == -1);
    CHECK(units_parse_decimal(" 1", &d, &end) == -1);
    CHECK(units_parse_decimal("1.", &d, &end) == -1);
    CHECK(units_parse_decimal(".", &d, &end) == -1);
}

static void counts(void)
{
    uint64_t v;

    CHECK(units_parse_count("1000", &v) == 0 && v == 1000);
    CHECK(units_parse_count("10k", &v) == 0 && v == 10000);
    CHECK(units_parse_count("2M", &v) == 0 && v == 2000000);
    CHECK(units_parse_count("-5", &v) == -1);
    CHECK(units_parse_count("5q", &v) == -1);
    CHECK(units_parse_count("", &v) == -1);
    CHECK(units_parse_count("99999999999999999999", &v) == -1);

}

static void formats(void)
{
    char buf[32];

    CHECK(strcmp(units_fmt_ns(buf, sizeof(buf), 812000), "812us") == 0);
    CHECK(strcmp(units_fmt_ns(buf, sizeof(buf), 12345678), "12.3ms") == 0);
    CHECK(strcmp(units_fmt_ns(buf, sizeof(buf), 1250000000), "1.25s") == 0);
    CHECK(strcmp(units_fmt_bytes(buf, sizeof(buf), 512), "512B") == 0);
    CHECK(strcmp(units_fmt_bytes(buf, sizeof(buf), 4.2 * 1024 * 1024), "4.20MiB") == 0);
}

int main(void)
{
    T_RUN(durations);
    T_RUN(decimal_only);
    T_RUN(counts);
    T_RUN(formats);
    T_END("test_units");
}
