/* report_html: the known run's page (known_run.h): a whole document, its
 * summary row, the latency table, charts, the server's paragraph and
 * process table, the findings; every text a server or a file put there
 * (the URL, the command line, a finding's words) shown escaped and never
 * as markup; the elements opened are closed. */
#include "known_run.h"
#include "../t.h"

static int count(const char *text, const char *s)
{
    int n = 0;
    const char *p;
    for (p = strstr(text, s); p; p = strstr(p + 1, s))
        n++;
    return n;
}

#define HAS(t, s) CHECKF(strstr(t, s) != NULL, "no '%s'", s)

static void known_page(void)
{
    struct run_result res;
    struct config cfg;
    char *t;
    size_t n;
    int rc;
    t = known_report(report_html, &res, &cfg, &rc);
    CHECK(t && rc == 0);
    n = strlen(t);
    CHECK(strncmp(t, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/><title>rafale report</title>",
                  88) == 0);
    CHECK(n > 8 && strcmp(t + n - 8, "</html>\n") == 0);
    /* What a server or a file wrote, as text. */
    HAS(t, "http://127.0.0.1:8080/a?q=&lt;b&gt;&amp;x=&#39;y&#39;");
    HAS(t, "srv --name=&lt;script&gt;alert(1)&lt;/script&gt;");
    HAS(t, "the server said &lt;i&gt;&quot;busy&quot;&lt;/i&gt; &amp; closed");
    HAS(t, "look at &lt;its&gt; logs");
    CHECK(strstr(t, KNOWN_URL) == NULL && strstr(t, KNOWN_SUMMARY) == NULL && strstr(t, "<its>") == NULL);
    CHECK(count(t, "<script") == 0 && count(t, "<i>") == 0);
    CHECK(strstr(t, "onmouseover") == NULL && strstr(t, "javascript:") == NULL);
    /* Its figures. */
    HAS(t, "<tr><td>1000</td><td>2</td><td>10 (1.00%)</td><td>0</td><td>2.00 s</td><td>500.0</td><td>1000.0KiB/s</td>");
    HAS(t, "<tr><td>total</td><td>1.00us</td><td>50us</td><td>50us</td><td>75us</td><td>90us</td><td>95us</td>"
           "<td>99us</td><td>100us</td><td>100us</td></tr>");
    HAS(t, "<p><b>Bad status</b> 10 (1.00% of responses) outside the expected 200: 404: 10.</p>");
    HAS(t, "<p><b>Errors</b> 2 (0.20% of requests ended): timeout_answer 2 (see Errors below).</p>");
    HAS(t, "<h3>Server: pid 4242 and its children</h3>\n<p>1 process, 1 thread at most. CPU 2.00 s, 2.00ms per request.");
    HAS(t, "<li>&#9888; <b>bad_status</b>: ");
    HAS(t, "<li>&#8505; <b>cpu_bound</b>: an info<br/><span class=\"adv\">nothing to do</span></li>");
    /* Charts, inline; the elements opened are closed. */
    CHECK(count(t, "<svg ") >= 1 && count(t, "<svg ") == count(t, "</svg>"));
    CHECK(count(t, "<table") == count(t, "</table>") && count(t, "<tr>") == count(t, "</tr>"));
    CHECK(count(t, "<h2>") == count(t, "</h2>") && count(t, "<p>") + count(t, "<p ") == count(t, "</p>") &&
          count(t, "<ul>") == count(t, "</ul>") && count(t, "<li>") == count(t, "</li>"));
    CHECK(count(t, "<html") == 1 && count(t, "</html>") == 1 && count(t, "<body") == 1 && count(t, "</body>") == 1);
    free(t);

    /* No server, no findings: neither block. */
    res.has_server = 0;
    res.has_findings = 0;
    t = known_written(report_html, &res, &rc);
    CHECK(rc == 0 && strstr(t, "<h3>Server") == NULL && strstr(t, "class=\"findings\"") == NULL);
    free(t);
    known_free(&res, &cfg);
}

/* The server's block of a prefork server: processes and threads counted. */
static void server_counts(void)
{
    struct run_result res;
    struct config cfg;
    char *t = NULL;
    size_t len;
    FILE *f;
    CHECK(known_run(&res, &cfg) == 0);
    res.server.processes = 5;
    res.server.threads = 9;
    f = open_memstream(&t, &len);
    report_html_server(f, &res);
    fclose(f);
    HAS(t, "<p>5 processes, 9 threads at most.");
    free(t);
    known_free(&res, &cfg);
}

int main(void)
{
    T_RUN(known_page);
    T_RUN(server_counts);
    T_END("test_report_html");
}
