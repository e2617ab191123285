/* rafale serve as a whole: started on 127.0.0.1 port 0 (the port picked
 * said in its address) or on a Unix socket, answering requests over its
 * threads, writing its access log, stopped by the flag with its counts;
 * a bad address, a taken port, a missing --files folder or access log
 * refused in one line before anything is served. */
#include "serve.h"
#include "../t.h"

#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

static char dir[64];

struct running {
    struct serve *s;
    atomic_int stop;
    struct serve_counts counts;
    int rc;
    char err[300];
    pthread_t th;
};

static void *waiter(void *arg)
{
    struct running *r = arg;
    r->rc = serve_wait(r->s, &r->stop, &r->counts, r->err, sizeof(r->err));
    return NULL;
}

static void config(struct serve_config *sc, const char *listen)
{
    memset(sc, 0, sizeof(*sc));
    sc->listen = listen;
    sc->threads = 2;
    sc->redirect_to = "http://example.com";
    sc->header_timeout_ns = sc->idle_timeout_ns = 60 * 1000000000ULL;
    sc->h2_streams = 128;
}

/* Sends req on a new connection to addr (family: AF_INET or AF_UNIX) and
 * reads until the server closes; the answers in out. */
static void ask(const char *addr, int family, const char *req, char *out, size_t len)
{
    struct timeval tv = { 2, 0 };
    size_t n = 0;
    ssize_t k;
    int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    out[0] = '\0';
    CHECK(fd >= 0);
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    if (family == AF_UNIX) {
        struct sockaddr_un u = { .sun_family = AF_UNIX };
        snprintf(u.sun_path, sizeof(u.sun_path), "%s", addr);
        CHECK(connect(fd, (struct sockaddr *)&u, sizeof(u)) == 0);
    } else {
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        a.sin_port = htons((uint16_t)atoi(strrchr(addr, ':') + 1));
        CHECK(connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0);
    }
    CHECK(write(fd, req, strlen(req)) == (ssize_t)strlen(req));
    while (n < len - 1 && (k = read(fd, out + n, len - 1 - n)) > 0)
        n += (size_t)k;
    out[n] = '\0';
    close(fd);
}

static void served_and_stopped(void)
{
    struct serve_config sc;
    struct running r;
    char log[160], files[96], page[160], out[4096], text[1024];
    const char *addr;
    FILE *f;
    size_t n;
    snprintf(files, sizeof(files), "%s/www", dir);
    CHECK(mkdir(files, 0755) == 0);
    snprintf(page, sizeof(page), "%s/page.html", files);
    f = fopen(page, "w");
    fputs("<p>page</p>\n", f);
    fclose(f);
    snprintf(log, sizeof(log), "%s/access.log", dir);
    config(&sc, "127.0.0.1:0");
    sc.files_dir = files;
    sc.access_log = log;
    memset(&r, 0, sizeof(r));
    CHECKF(serve_start(&sc, &r.s, r.err, sizeof(r.err)) == 0, "%s", r.err);
    addr = serve_address(r.s);
    /* The port the kernel picked, not 0. */
    CHECKF(strncmp(addr, "127.0.0.1:", 10) == 0 && atoi(addr + 10) > 0, "%s", addr);
    CHECK(pthread_create(&r.th, NULL, waiter, &r) == 0);
    ask(addr, AF_INET,
        "GET /random HTTP/1.1\r\nHost: x\r\n\r\nGET /status/503 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", out,
        sizeof(out));
    CHECKF(strstr(out, "HTTP/1.1 200 OK\r\n") == out && strstr(out, "Content-Type: text/html\r\n") &&
               strstr(out, "Content-Length: 12\r\n\r\n<p>page</p>\nHTTP/1.1 503 Service Unavailable\r\n"),
           "%s", out);
    ask(addr, AF_INET, "GET /redirect HTTP/1.0\r\n\r\n", out, sizeof(out));
    CHECKF(strstr(out, "HTTP/1.1 302 Found\r\n") == out && strstr(out, "Location: http://example.com\r\n"), "%s", out);
    atomic_store(&r.stop, 1);
    pthread_join(r.th, NULL);
    CHECK(r.rc == 0 && r.counts.connections == 2 && r.counts.requests == 3);
    /* A line a request, in the common log format. */
    f = fopen(log, "r");
    n = f ? fread(text, 1, sizeof(text) - 1, f) : 0;
    text[n] = '\0';
    if (f)
        fclose(f);
    CHECKF(strstr(text, "\"GET /random HTTP/1.1\" 200 ") && strstr(text, "\"GET /status/503 HTTP/1.1\" 503 ") &&
               strstr(text, "\"GET /redirect HTTP/1.0\" 302 "),
           "%s", text);
    unlink(log);
    unlink(page);
    rmdir(files);
}

static void on_a_unix_socket(void)
{
    struct serve_config sc;
    struct running r;
    char spec[200], path[160], out[1024];
    snprintf(path, sizeof(path), "%s/s.sock", dir);
    snprintf(spec, sizeof(spec), "unix:%s", path);
    config(&sc, spec);
    memset(&r, 0, sizeof(r));
    CHECKF(serve_start(&sc, &r.s, r.err, sizeof(r.err)) == 0, "%s", r.err);
    CHECK(pthread_create(&r.th, NULL, waiter, &r) == 0);
    ask(path, AF_UNIX, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", out, sizeof(out));
    CHECKF(strstr(out, "HTTP/1.1 200 OK\r\n") == out && strstr(out, "\r\n\r\nHello, world\n"), "%s", out);
    atomic_store(&r.stop, 1);
    pthread_join(r.th, NULL);
    CHECK(r.rc == 0 && r.counts.requests == 1);
    /* Its socket file goes with it. */
    CHECK(access(path, F_OK) != 0);
}

/* serve_start refuses sc with want (one line). */
static void refused(const struct serve_config *sc, const char *want)
{
    struct serve *s = NULL;
    char err[300] = "";
    CHECKF(serve_start(sc, &s, err, sizeof(err)) == -1 && strstr(err, want) != NULL && strchr(err, '\n') == NULL,
           "got '%s', want '%s'", err, want);
}

static void mistakes_refused(void)
{
    struct serve_config sc;
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof(a);
    char spec[64], path[160];
    int fd;
    config(&sc, "nonsense");
    refused(&sc, "--listen wants ADDR:PORT such as 127.0.0.1:8080 or [::1]:0, not 'nonsense'");
    config(&sc, "127.0.0.1:65536");
    refused(&sc, "not '127.0.0.1:65536'");
    /* A port another socket holds. */
    fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    CHECK(fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 && listen(fd, 1) == 0 &&
          getsockname(fd, (struct sockaddr *)&a, &len) == 0);
    snprintf(spec, sizeof(spec), "127.0.0.1:%u", (unsigned)ntohs(a.sin_port));
    config(&sc, spec);
    refused(&sc, "Address already in use");
    close(fd);
    config(&sc, "127.0.0.1:0");
    snprintf(path, sizeof(path), "%s/none", dir);
    sc.files_dir = path;
    refused(&sc, "cannot open --files directory '");
    config(&sc, "127.0.0.1:0");
    snprintf(path, sizeof(path), "%s/none/access.log", dir);
    sc.access_log = path;
    refused(&sc, "cannot open access log '");
#ifdef RAFALE_HTTP3
    snprintf(path, sizeof(path), "unix:%s/h3.sock", dir);
    config(&sc, path);
    sc.http3 = 1;
    refused(&sc, "--http3 serves on UDP: give --listen ADDR:PORT, not a Unix socket");
#endif
}

int main(void)
{
    if (t_mkdir(dir, "serve") != 0)
        return 1;
    T_RUN(served_and_stopped);
    T_RUN(on_a_unix_socket);
    T_RUN(mistakes_refused);
    t_rmdir(dir);
    T_END("serve");
}
