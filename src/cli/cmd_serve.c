/* cmd_serve.c - `rafale serve`: the built-in target server, until a
 * signal stops it. */
#include "cmd.h"
#include "cli.h"
#include "net.h"
#include "serve.h"
#include "stop.h"

#include <stdio.h>
#include <string.h>

int cmd_serve(const struct cmd *self, const struct cmd *all, int argc, char **argv)
{
    (void)self;
    (void)all;
    struct serve_config sc;
    struct serve *srv;
    struct serve_counts counts;
    char err[256];
    int rc;

    switch (cli_parse_serve(argc, argv, &sc, err, sizeof(err))) {
    case CLI_EXIT:
    case CLI_HELP:
        return 0;
    case CLI_ERROR:
        fprintf(stderr, "rafale serve: %s\n", err);
        return 2;
    case CLI_OK:
        break;
    }
    net_raise_nofile(1 << 20);
    stop_catch(1);
    rc = serve_start(&sc, &srv, err, sizeof(err));
    explicit_bzero(sc.key_pass, sizeof(sc.key_pass)); /* the key is read (or refused) */
    if (rc != 0) {
        fprintf(stderr, "rafale serve: %s\n", err);
        return 1;
    }
    printf("listening on %s%s%s\n", serve_address(srv), sc.tls_cert ? " (TLS)" : "", sc.http3 ? " (and HTTP/3 on UDP)" : "");
    fflush(stdout);
    if (serve_wait(srv, stop_flag(), &counts, err, sizeof(err)) != 0) {
        fprintf(stderr, "rafale serve: %s\n", err);
        return 1;
    }
    fprintf(stderr, "rafale serve: %llu connections accepted, %llu requests served\n",
            (unsigned long long)counts.connections, (unsigned long long)counts.requests);
    return 0;
}

