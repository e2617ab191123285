/* compare_file.c - the compare plan file: INI-like sections and keys. */
#include "compare.h"
#include "units.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static char *trim(char *s)
{
    char *e;
    while (isspace((unsigned char)*s))
        s++;
    e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = '\0';
    return s;
}

static int yesno(const char *v, int *out)
{
    if (!strcasecmp(v, "yes") || !strcasecmp(v, "true") || !strcmp(v, "1"))
        *out = 1;
    else if (!strcasecmp(v, "no") || !strcasecmp(v, "false") || !strcmp(v, "0"))
        *out = 0;
    else
        return -1;
    return 0;
}

int cmp_cpu_list(const char *v, int *out, int *n)
{
    /* "0", "0,2", "0-3" */
    char buf[256], *tok, *save = NULL;
    snprintf(buf, sizeof(buf), "%s", v);
    *n = 0;
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int a, b;
        if (sscanf(tok, "%d-%d", &a, &b) == 2) {
        } else if (sscanf(tok, "%d", &a) == 1) {
            b = a;
        } else {
            return -1;
        }
        if (a < 0 || b < a || b > 1023)
            return -1;
        for (; a <= b && *n < 64; a++)
            out[(*n)++] = a;
    }
    return *n > 0 ? 0 : -1;
}

void cmp_plan_free(struct cmp_plan *p)
{
    int i, k;
    for (i = 0; i < p->nservers; i++) {
        free(p->servers[i].start);
        free(p->servers[i].url);
        free(p->servers[i].dir);
        free(p->servers[i].ready);
        for (k = 0; k < p->servers[i].nenv; k++)
            free(p->servers[i].env[k]);
    }
    for (i = 0; i < p->nworkloads; i++)
        free(p->workloads[i].path);
    memset(p, 0, sizeof(*p));
}

int cmp_parse(const char *path, struct cmp_plan *p, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    char line[4096];
    int ln = 0, i;
    enum { NONE, SETTINGS, SERVER, WORKLOAD } sec = NONE;
    struct cmp_server *sv = NULL;
    struct cmp_workload *wl = NULL;

    memset(p, 0, sizeof(*p));
    p->repeat = 3;
    p->warmup_ns = 1000000000ULL;
    p->grace_ns = 3000000000ULL;
    p->ready_ns = 15000000000ULL;
    p->threads = 1;
    if (f == NULL) {
        snprintf(err, errlen, "cannot read compare file '%s': %s", path, strerror(errno));
        return -1;
    }
#define BAD(...) do { char m_[256]; snprintf(m_, sizeof(m_), __VA_ARGS__); \
        snprintf(err, errlen, "%s:%d: %s", path, ln, m_); fclose(f); return -1; } while (0)
    while (fgets(line, sizeof(line), f)) {
        char *s, *eq, *k, *v, *hash;
        ln++;
        hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        s = trim(line);
        if (*s == '\0')
            continue;
        if (*s == '[') {
            char *end = strchr(s, ']'), *name;
            if (end == NULL || end[1] != '\0')
                BAD("a section is written [settings], [server NAME] or [workload NAME]");
            *end = '\0';
            name = trim(s + 1);
            if (!strcmp(name, "settings")) {
                sec = SETTINGS;
            } else if (!strncmp(name, "server", 6) && isspace((unsigned char)name[6])) {
                if (p->nservers == CMP_MAX)
                    BAD("at most %d servers", CMP_MAX);
                sv = &p->servers[p->nservers++];
                snprintf(sv->name, sizeof(sv->name), "%s", trim(name + 6));
                sec = SERVER;
            } else if (!strncmp(name, "workload", 8) && isspace((unsigned char)name[8])) {
                if (p->nworkloads == CMP_MAX)
                    BAD("at most %d workloads", CMP_MAX);
                wl = &p->workloads[p->nworkloads++];
                snprintf(wl->name, sizeof(wl->name), "%s", trim(name + 8));
                wl->connections = 50;
                wl->duration_ns = 5000000000ULL;
                sec = WORKLOAD;
            } else {
                BAD("unknown section [%s] (use [settings], [server NAME], [workload NAME])", name);
            }
            continue;
        }
        eq = strchr(s, '=');
        if (eq == NULL)
            BAD("expected 'key = value'");
        *eq = '\0';
        k = trim(s);
        v = trim(eq + 1);
        if (sec == NONE)
            BAD("'%s' comes before any section", k);
        if (sec == SETTINGS) {
            if (!strcmp(k, "repeat")) {
                p->repeat = atoi(v);
                if (p->repeat < 1 || p->repeat > 16)
                    BAD("repeat wants 1 to 16");
            } else if (!strcmp(k, "warmup")) {
                if (units_parse_duration(v, &p->warmup_ns) != 0)
                    BAD("warmup wants a duration such as 1s");
            } else if (!strcmp(k, "grace")) {
                if (units_parse_duration(v, &p->grace_ns) != 0)
                    BAD("grace wants a duration such as 3s");
            } else if (!strcmp(k, "ready-timeout")) {
                if (units_parse_duration(v, &p->ready_ns) != 0 || p->ready_ns == 0)
                    BAD("ready-timeout wants a duration such as 15s");
            } else if (!strcmp(k, "server-cpus")) {
                if (cmp_cpu_list(v, p->server_cpus, &p->nserver_cpus) != 0)
                    BAD("server-cpus wants CPU numbers such as 0 or 0-1");
            } else if (!strcmp(k, "client-cpus")) {
                if (cmp_cpu_list(v, p->client_cpus, &p->nclient_cpus) != 0)
                    BAD("client-cpus wants CPU numbers such as 1 or 2-3");
            } else if (!strcmp(k, "threads")) {
                p->threads = (uint32_t)atoi(v);
                if (p->threads < 1 || p->threads > 256)
                    BAD("threads wants 1 to 256");
            } else {
                BAD("unknown key '%s' in [settings] (repeat, warmup, grace, ready-timeout, server-cpus, client-cpus, threads)", k);
            }
        } else if (sec == SERVER) {
            if (!strcmp(k, "start"))
                free(sv->start), sv->start = strdup(v);
            else if (!strcmp(k, "pid")) {
                sv->pid = atoi(v);
                if (sv->pid <= 0)
                    BAD("pid wants a process id");
            } else if (!strcmp(k, "url"))
                free(sv->url), sv->url = strdup(v);
            else if (!strcmp(k, "dir"))
                free(sv->dir), sv->dir = strdup(v);
            else if (!strcmp(k, "ready"))
                free(sv->ready), sv->ready = strdup(v);
            else if (!strcmp(k, "env")) {
                if (sv->nenv == CMP_ENV || strchr(v, '=') == NULL)
                    BAD("env wants NAME=VALUE (at most %d)", CMP_ENV);
                sv->env[sv->nenv++] = strdup(v);
            } else {
                BAD("unknown key '%s' in [server %s] (start, pid, url, dir, env, ready)", k, sv->name);
            }
        } else {
            if (!strcmp(k, "path")) {
                free(wl->path);
                wl->path = strdup(v);
                if (v[0] != '/')
                    BAD("path starts with /");
            } else if (!strcmp(k, "connections")) {
                wl->connections = (uint32_t)atoi(v);
                if (wl->connections < 1 || wl->connections > 100000)
                    BAD("connections wants 1 to 100000");
            } else if (!strcmp(k, "duration")) {
                if (units_parse_duration(v, &wl->duration_ns) != 0 || wl->duration_ns == 0)
                    BAD("duration wants a duration such as 5s");
            } else if (!strcmp(k, "requests")) {
                if (units_parse_count(v, &wl->requests) != 0 || wl->requests == 0)
                    BAD("requests wants a positive number");
            } else if (!strcmp(k, "close")) {
                if (yesno(v, &wl->close) != 0)
                    BAD("close wants yes or no");
            } else if (!strcmp(k, "rate")) {
                wl->rate = atof(v);
                if (wl->rate < 0)
                    BAD("rate wants requests per second");
            } else {
                BAD("unknown key '%s' in [workload %s] (path, connections, duration, requests, close, rate)", k,
                    wl->name);
            }
        }
    }
    fclose(f);
#undef BAD
    if (p->nservers == 0 || p->nworkloads == 0) {
        snprintf(err, errlen, "%s: needs at least one [server NAME] and one [workload NAME]", path);
        return -1;
    }
    for (i = 0; i < p->nservers; i++) {
        if (p->servers[i].url == NULL) {
            snprintf(err, errlen, "%s: [server %s] has no url", path, p->servers[i].name);
            return -1;
        }
        if ((p->servers[i].start == NULL) == (p->servers[i].pid == 0)) {
            snprintf(err, errlen, "%s: [server %s] needs either start or pid", path, p->servers[i].name);
            return -1;
        }
    }
    for (i = 0; i < p->nworkloads; i++)
        if (p->workloads[i].path == NULL)
            p->workloads[i].path = strdup("/");
    return 0;
}
