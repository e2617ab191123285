/* net.h - sockets: name resolution, non-blocking connect, listeners. */
#ifndef RAFALE_NET_H
#define RAFALE_NET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

struct net_addr {
    struct sockaddr_storage ss;
    socklen_t len;
};

/* Resolves host (name or literal) and port once, IPv4 or IPv6, and keeps the
 * first address. Returns 0, or -1 with a one-line reason in err. */
int net_resolve(const char *host, uint16_t port, struct net_addr *out, char *err, size_t errlen);

/* Writes "1.2.3.4:80" or "[::1]:80". Returns buf. */
char *net_addr_str(const struct net_addr *a, char *buf, size_t len);
/* A Unix domain socket's address. Returns 0, or -1 with a reason in err. */
int net_unix(const char *path, struct net_addr *out, char *err, size_t errlen);

/* Starts a non-blocking connect, from source address src when not NULL
 * (its port is left to connect(), so many sources multiply the ports
 * available). Returns the socket (the connection may still be in
 * progress), or -errno when it failed at once. */
int net_connect(const struct net_addr *a, const struct net_addr *src);

/* Parses "ADDR" or "ADDR-ADDR" (IPv4, last octet range, e.g.
 * 127.0.0.2-127.0.0.9) into up to max addresses. Returns how many, or -1
 * with what was expected in err ("an IPv4 address or a range ..."). */
int net_parse_sources(const char *spec, struct net_addr *out, int max, char *err, size_t errlen);

/* Whether a TCP socket can be bound to a (port 0): 0, or the errno
 * (EADDRNOTAVAIL: not an address of this host). */
int net_bindable(const struct net_addr *a);

/* After the socket became writable: 0 when connected, else the errno. */
int net_connect_result(int fd);

/* Opens a non-blocking listening socket with SO_REUSEPORT. Returns the
 * socket, or -1 with a reason in err. */
int net_listen(const struct net_addr *a, int backlog, char *err, size_t errlen);

/* The port a socket is bound to. */
uint16_t net_local_port(int fd);

/* Raises the open-file limit to at least want if the hard limit allows.
 * Returns the resulting soft limit. */
uint64_t net_raise_nofile(uint64_t want);

#endif
