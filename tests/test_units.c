/* Duration and count parsing tests. */
#include "units.h"
#include "t.h"

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
    T_RUN(counts);
    T_RUN(formats);
    T_END("test_units");
}
