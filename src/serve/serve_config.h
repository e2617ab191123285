/* serve_config.h - the settings of `rafale serve`, as plain data: filled
 * by the option table (src/options reads this one header of serve), read
 * (const) by the server. Kept apart from the load generator's config.h so
 * that serve compiles without it. */
#ifndef RAFALE_SERVE_CONFIG_H
#define RAFALE_SERVE_CONFIG_H

#include <stdint.h>

#include "tls.h"

/* Options of `rafale serve`. */
struct serve_config {
    const char *listen;          /* "127.0.0.1:8080" */
    uint32_t threads;
    const char *access_log;      /* NULL, "-" or a file */
    const char *files_dir;
    const char *redirect_to;     /* default Location for /redirect */
    const char *tls_cert, *tls_key; /* serve over TLS */
    char key_pass[TLS_PASS_MAX + 1]; /* --key-pass: the key's pass phrase, read from its source */
    int key_pass_set;                /* one was given (it may be "") */
    const char *tls_client_ca;   /* --tls-client-ca: require client certificates it signed */
    uint64_t header_timeout_ns;  /* a request head (and body) must arrive within this */
    uint64_t idle_timeout_ns;    /* an idle keep-alive connection, or one whose client stopped reading */
    uint32_t h2_streams;         /* SETTINGS_MAX_CONCURRENT_STREAMS of HTTP/2 connections (and HTTP/3's streams) */
    int http3;                   /* --http3: HTTP/3 on UDP at the same address and port too (serve_h3*.c) */
};

#endif
