/* report_csv.c - the percentile table in ab's -e format, so existing
 * spreadsheets and scripts keep working: percentage 0..100, time in ms. */
#include "report.h"

int report_csv(FILE *f, const struct run_result *res)
{
    int i;
    fprintf(f, "Percentage served,Time in ms\n");
    for (i = 0; i <= 100; i++)
        fprintf(f, "%d,%.3f\n", i, hist_percentile(&res->fig.total.h[H_LATENCY], (double)i) / 1e6);
    return ferror(f) ? -1 : 0;
}
