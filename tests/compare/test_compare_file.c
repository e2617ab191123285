/* The compare file: keys from the option table, defaults from [settings],
 * comments, no cap on servers or workloads, and every mistake named with
 * its line and the flag's own words. */
#include "compare.h"
#include "proc.h"
#include "../t.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static char path[64];

static void write_plan(const char *fmt, ...)
{
    FILE *f = fopen(path, "w");
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fclose(f);
}

/* Parses the plan now in path; returns the error text ("" when it parsed). */
static const char *parse(struct compare_file *p, const struct compare_settings *over)
{
    static char err[512];
    err[0] = '\0';
    if (compare_file_parse(path, over, p, err, sizeof(err)) != 0 && err[0] == '\0')
        strcpy(err, "(failed without a reason)");
    return err;
}

static void check_error(const char *plan, const char *want)
{
    struct compare_file p;
    const char *e;
    write_plan("%s", plan);
    e = parse(&p, NULL);
    CHECKF(strstr(e, want) != NULL, "plan:\n%s\nwanted '%s', got '%s'", plan, want, e);
    compare_file_free(&p);
}

static void settings_are_defaults(void)
{
    struct compare_file p;
    const char *e;
    write_plan("# a comment\n"
               "[settings]\n"
               "repeat = 2\n"
               "connections = 20\n"
               "header = X-All: 1\n"
               "expect = 200\n"
               "warmup = 0s\n"
               "\n"
               "[server a]\n"
               "start = echo \"color #1\" && exec sleep 1   # the shell sees this too\n"
               "url = http://127.0.0.1:1\n"
               "env = A=1\n"
               "env = B=2\n"
               "ready = /health\n"
               "ready-status = 200,204\n"
               "version = echo v1\n"
               "\n"
               "[workload plain]\n"
               "requests = 10000\n"
               "\n"
               "[workload form]\n"
               "path = /login\n"
               "method = POST\n"
               "header = Content-Type: application/x-www-form-urlencoded\n"
               "header = X-Test: two\n"
               "body = user=a&pass=b#c\n"
               "close = yes\n"
               "connections = 3\n"
               "expect = 2xx,3xx\n");
    e = parse(&p, NULL);
    CHECKF(e[0] == '\0', "%s", e);
    CHECK(p.set.repeat == 2 && p.nservers == 1 && p.nworkloads == 2);
    CHECK(strcmp(p.servers[0].start, "echo \"color #1\" && exec sleep 1   # the shell sees this too") == 0);
    CHECK(p.servers[0].nenv == 2 && strcmp(p.servers[0].env[1], "B=2") == 0);
    CHECK(strcmp(p.servers[0].ready, "/health") == 0 && status_set_has(&p.servers[0].ready_status, 204) &&
          !status_set_has(&p.servers[0].ready_status, 302));
    CHECK(strcmp(p.servers[0].version_cmd, "echo v1") == 0);
    /* [settings] values are the workloads' defaults. */
    CHECK(p.workloads[0].cfg.connections == 20 && p.workloads[0].cfg.requests == 10000);
    CHECK(p.workloads[0].cfg.nheaders == 1 && strcmp(p.workloads[0].cfg.headers[0], "X-All: 1") == 0);
    CHECK(status_set_has(&p.workloads[0].cfg.expect, 200) && !status_set_has(&p.workloads[0].cfg.expect, 204));
    CHECK(p.workloads[0].cfg.warmup_ns == 0 && p.workloads[0].cfg.keepalive == 1);
    CHECK(strcmp(p.workloads[0].path, "/") == 0 && strcmp(p.workloads[0].cfg.method, "GET") == 0);
    /* A requests count alone: no duration sneaks in to cut it short. */
    CHECK(p.workloads[0].cfg.duration_ns == 0);
    /* The second workload: its own keys over the defaults. */
    CHECK(strcmp(p.workloads[1].path, "/login") == 0 && strcmp(p.workloads[1].cfg.method, "POST") == 0);
    CHECK(p.workloads[1].cfg.nheaders == 3 && strcmp(p.workloads[1].cfg.headers[2], "X-Test: two") == 0);
    CHECK(p.workloads[1].cfg.has_body && p.workloads[1].cfg.body_len == 15 &&
          memcmp(p.workloads[1].cfg.body, "user=a&pass=b#c", 15) == 0);
    CHECK(p.workloads[1].cfg.keepalive == 0 && p.workloads[1].cfg.connections == 3);
    CHECK(status_set_has(&p.workloads[1].cfg.expect, 302));
    /* Neither requests nor duration: 5 s. Threads: one per client CPU (pin = auto's), or one. */
    CHECK(p.workloads[1].cfg.duration_ns == 5000000000ULL &&
          p.workloads[1].cfg.threads == (uint32_t)(p.set.nclient_cpus ? p.set.nclient_cpus : 1));
    compare_file_free(&p);
}

static void no_cap_and_threads_follow_the_client_cpus(void)
{
    struct compare_file p;
    struct compare_settings over;
    FILE *f = fopen(path, "w");
    const char *e;
    int i;
    fprintf(f, "[settings]\nclient-cpus = 0-3\nserver-cpus = 4\n");
    for (i = 0; i < 40; i++)
        fprintf(f, "[server s%d]\nstart = true\nurl = http://127.0.0.1:%d\n", i, 1000 + i);
    for (i = 0; i < 30; i++)
        fprintf(f, "[workload w%d]\nconnections = %d\n", i, 8 + i);
    fclose(f);
    e = parse(&p, NULL);
    CHECKF(e[0] == '\0', "%s", e);
    CHECK(p.nservers == 40 && p.nworkloads == 30 && strcmp(p.servers[39].name, "s39") == 0);
    CHECK(p.set.nclient_cpus == 4 && p.workloads[29].cfg.threads == 4 && p.workloads[29].cfg.connections == 37);
    compare_file_free(&p);
    /* The command line wins over the file. */
    memset(&over, 0, sizeof(over));
    over.repeat = 7;
    over.client_cpus[0] = 1;
    over.nclient_cpus = 1;
    e = parse(&p, &over);
    CHECKF(e[0] == '\0', "%s", e);
    CHECK(p.set.repeat == 7 && p.set.nclient_cpus == 1 && p.set.client_cpus[0] == 1 && p.workloads[0].cfg.threads == 1);
    CHECK(p.set.nserver_cpus == 1 && p.set.server_cpus[0] == 4);
    compare_file_free(&p);
}

/* pin = auto: the CPUs this process may use, split: a quarter (at least
 * one, the last) to rafale, the rest to the servers; not when a list is
 * given or pin = no. */
static void pin_auto_splits_the_cpus(void)
{
    struct compare_file p;
    struct compare_settings over;
    int cpus[CMP_MAX_CPUS], n = proc_cpus_allowed(cpus, CMP_MAX_CPUS), nc = n / 4 > 0 ? n / 4 : 1, i;
    const char *srv = "[server a]\nstart = true\nurl = http://127.0.0.1:1\n[workload w]\n";

    CHECK(n >= 1);
    write_plan("%s", srv);
    CHECK(parse(&p, NULL)[0] == '\0');
    if (n >= 2) {
        CHECK(p.set.pin == PIN_CHOSE && p.set.nclient_cpus == nc && p.set.nserver_cpus == n - nc);
        CHECK(p.set.server_cpus[0] == cpus[0] && p.set.client_cpus[nc - 1] == cpus[n - 1]);
        for (i = 0; i < p.set.nserver_cpus; i++)
            CHECK(p.set.server_cpus[i] < p.set.client_cpus[0]);
        CHECK(p.workloads[0].cfg.threads == (uint32_t)nc);
    } else {
        CHECK(p.set.pin != PIN_CHOSE && p.set.nclient_cpus == 0 && p.set.nserver_cpus == 0);
    }
    compare_file_free(&p);
    write_plan("[settings]\npin = no\n%s", srv);
    CHECK(parse(&p, NULL)[0] == '\0');
    CHECK(p.set.pin == PIN_NO && p.set.nclient_cpus == 0 && p.set.nserver_cpus == 0 && p.workloads[0].cfg.threads == 1);
    compare_file_free(&p);
    /* One list given: nothing chosen for the other. */
    write_plan("[settings]\nserver-cpus = 0\n%s", srv);
    CHECK(parse(&p, NULL)[0] == '\0');
    CHECK(p.set.pin != PIN_CHOSE && p.set.nserver_cpus == 1 && p.set.nclient_cpus == 0);
    compare_file_free(&p);
    /* --pin no on the command line wins over the file's auto. */
    memset(&over, 0, sizeof(over));
    over.pin = PIN_NO;
    write_plan("[settings]\npin = auto\n%s", srv);
    CHECK(parse(&p, &over)[0] == '\0');
    CHECK(p.set.pin == PIN_NO && p.set.nclient_cpus == 0);
    compare_file_free(&p);
    check_error("[settings]\npin = half\n", ":2: pin wants auto or no");
}

static void errors_name_their_line(void)
{
    /* Typos: a key of [settings] or of the workload, and the key meant. */
    static const struct {
        const char *settings, *workload, *want;
    } typos[] = {
        { "", "conections = 5\n", ":5: unknown key 'conections' in [workload w]: did you mean connections?" },
        { "", "paht = /x\n", ":5: unknown key 'paht' in [workload w]: did you mean path?" },
        { "[settings]\nrepaet = 3\n", "", ":2: unknown key 'repaet' in [settings]: did you mean repeat?" },
        { "[settings]\nbaseilne = a\n", "", ":2: unknown key 'baseilne' in [settings]: did you mean baseline?" },
        { "[settings]\ntimout = 1s\n", "", ":2: unknown key 'timout' in [settings]: did you mean timeout?" },
        { "", "replya = a.log\n", ":5: unknown key 'replya' in [workload w]: did you mean replay?" },
        { "", "speeed = 2\n", ":5: unknown key 'speeed' in [workload w]: did you mean speed?" },
        { "[settings]\nlimt = 9\n", "", ":2: unknown key 'limt' in [settings]: did you mean limit?" },
    };
    const char *srv = "[server a]\nstart = true\nurl = http://127.0.0.1:1\n";
    char plan[512];
    size_t i;

    snprintf(plan, sizeof(plan), "%s[workload w]\nconnections = many\n", srv);
    check_error(plan, ":5: connections wants a number of connections from 1 to 10000000, not 'many'");
    snprintf(plan, sizeof(plan), "%s[workload w]\nduration = 10parsecs\n", srv);
    check_error(plan, ":5: duration wants a duration such as 10s, 1m or 500ms, or auto, not '10parsecs'");
    snprintf(plan, sizeof(plan), "[settings]\nconnections = 0\n%s[workload w]\n", srv);
    check_error(plan, ":2: connections wants");
    snprintf(plan, sizeof(plan), "%s[workload w]\nmethod = GE T\n", srv);
    check_error(plan, ":5: method wants an HTTP method");
    snprintf(plan, sizeof(plan), "%s[workload w]\nheader = NoColon\n", srv);
    check_error(plan, ":5: header wants 'Name: value'");
    snprintf(plan, sizeof(plan), "%s[workload w]\nexpect = 2xx,\n", srv);
    check_error(plan, ":5: expect wants status codes");
    snprintf(plan, sizeof(plan), "%s[workload w]\nclose = maybe\n", srv);
    check_error(plan, ":5: close wants yes or no, not 'maybe'");
    snprintf(plan, sizeof(plan), "%s[workload w]\nbody-file = /nonexistent/body\n", srv);
    check_error(plan, ":5: cannot read body file '/nonexistent/body'");
    snprintf(plan, sizeof(plan), "%s[workload w]\npipeline = 4\nclose = yes\n", srv);
    check_error(plan, ":4: [workload w]: --pipeline needs keep-alive");
    snprintf(plan, sizeof(plan), "%s[workload w]\nport = 80\n", srv);
    check_error(plan, ":5: unknown key 'port' in [workload w]");
    snprintf(plan, sizeof(plan), "%s[workload w]\njson = out.json\n", srv);
    check_error(plan, ":5: unknown key 'json' in [workload w]");
    snprintf(plan, sizeof(plan), "[settings]\nrepeat = 0\n%s[workload w]\n", srv);
    check_error(plan, ":2: repeat wants a number of runs from 1 to 1000, or auto, not '0'");
    snprintf(plan, sizeof(plan), "[settings]\nrepeat = sometimes\n%s[workload w]\n", srv);
    check_error(plan, ":2: repeat wants a number of runs from 1 to 1000, or auto, not 'sometimes'");
    snprintf(plan, sizeof(plan), "[settings]\nrepeat = 3x\n%s[workload w]\n", srv);
    check_error(plan, ":2: repeat wants a number of runs from 1 to 1000, or auto, not '3x'");
    snprintf(plan, sizeof(plan), "[settings]\nmax-repeat = 2\n%s[workload w]\n", srv);
    check_error(plan, ":2: max-repeat wants a number of rounds from 3 to 1000, not '2'");
    snprintf(plan, sizeof(plan), "[settings]\ndiscard = -1\n%s[workload w]\n", srv);
    check_error(plan, ":2: discard wants a number of rounds from 0 to 100, not '-1'");
    snprintf(plan, sizeof(plan), "[settings]\nsame = status,colour\n%s[workload w]\n", srv);
    check_error(plan, ":2: same wants status, location, type and body, comma-separated, or no, not 'status,colour'");
    snprintf(plan, sizeof(plan), "[workload w]\nfindings = maybe\n%s", srv);
    check_error(plan, "findings wants yes or no, not 'maybe'");
    snprintf(plan, sizeof(plan), "[settings]\nserver-cpus = 0-\n%s[workload w]\n", srv);
    check_error(plan, ":2: server-cpus wants CPU numbers");
    snprintf(plan, sizeof(plan), "[settings]\npath = /x\n%s[workload w]\n", srv);
    check_error(plan, ":2: path belongs to a [workload]");
    check_error("[server a]\nurl = http://127.0.0.1:1\n[workload w]\n", ":1: [server a] needs one of start");
    check_error("[server a]\nstart = true\npid = 12\nurl = http://x\n[workload w]\n", ":1: [server a] needs one of");
    check_error("[server a]\nstart = true\n[workload w]\n", ":1: [server a] has no url");
    check_error("[server a]\nstart = true\nurl = u\nready = health\n[workload w]\n", ":4: ready wants a path");
    check_error("[server a]\nstart = true\nurl = u\nready-status = 9xx\n[workload w]\n", ":4: ready-status wants");
    check_error("[server a]\nstart = true\nurl = u\nenv = NOEQUALS\n[workload w]\n", ":4: env wants NAME=VALUE");
    snprintf(plan, sizeof(plan), "%s%s[workload w]\n", srv, srv);
    check_error(plan, ":4: a second [server a]");
    check_error("[server]\nstart = true\nurl = u\n[workload w]\n", ":1: unknown section [server]");
    /* A mistyped key or section: the nearest one named. */
    for (i = 0; i < sizeof(typos) / sizeof(typos[0]); i++) {
        snprintf(plan, sizeof(plan), "%s%s[workload w]\n%s", typos[i].settings, srv, typos[i].workload);
        check_error(plan, typos[i].want);
    }
    check_error("[server a]\nstrat = true\nurl = u\n[workload w]\n", ":2: unknown key 'strat' in [server a]: did you mean start?");
    check_error("[sever a]\nstart = true\nurl = u\n[workload w]\n", ":1: unknown section [sever a]: did you mean [server a]?");
    check_error("[workloads w]\n", ":1: unknown section [workloads w]: did you mean [workload w]?");
    /* Nothing near: the keys listed, every [settings] key among them. */
    snprintf(plan, sizeof(plan), "[settings]\nflavour = mild\n%s[workload w]\n", srv);
    check_error(plan, ":2: unknown key 'flavour' in [settings] (repeat, max-repeat, max-duration, same-within, discard, grace, "
                      "ready-timeout, cgroups, same, pin, server-cpus, client-cpus, baseline, or the default of any "
                      "workload key)");
    check_error("[server a]\nflavour = mild\nurl = u\n[workload w]\n", ":2: unknown key 'flavour' in [server a] "
                "(start, pid, cgroup, reuse, url, dir, env, ready, ready-status, version)");
    check_error("[server a]\nstart = true\nurl = u\n", "needs at least one [server NAME] and one [workload NAME]");
    check_error("start = true\n", ":1: 'start' comes before any section");
    check_error("[server a]\nstart true\n", ":2: expected 'key = value'");
    check_error("[server a\n", ":1: a section is written");
}

/* A compare file's names reach the terminal on many of compare's lines: a control
 * byte there (an escape sequence) is refused at its line, as a byte that
 * is not UTF-8 is in a name; a control byte anywhere else in the file too,
 * since errors quote the values. UTF-8 names stay. */
static void control_bytes_refused(void)
{
#define SRV "[server a]\nstart = true\nurl = http://127.0.0.1:1\n"
    static const struct {
        const char *plan, *want;
    } cases[] = {
        { "[server pre\x1b[31m]\nstart = true\nurl = u\n[workload w]\n",
          ":1: the section [server pre?[31m] holds the control byte 0x1b" },
        { SRV "[workload w\x07]\n", ":4: the section [workload w?] holds the control byte 0x07" },
        { SRV "[workload a\tb]\n", ":4: the name of [workload a?b] holds the control byte 0x09" },
        { "[server a\xc2\x9b" "2J]\nstart = true\nurl = u\n[workload w]\n",
          ":1: the name of [server a?2J] holds the control character U+009B" },
        { "[server a\xff]\nstart = true\nurl = u\n[workload w]\n",
          ":1: the name of [server a?] holds the byte 0xff, which is not UTF-8" },
        { "[settings]\nbaseline = a\xc2\x9b\n" SRV "[workload w]\n", ":2: baseline holds the control character U+009B" },
        { "[settings]\nbaseline = a\x1b[2J\n" SRV "[workload w]\n", ":2: the line holds the control byte 0x1b" },
        { SRV "[workload w]\nmethod = GET\x1b[2J\n", ":5: the line holds the control byte 0x1b" },
        { "[server a]\nstart = echo \x1b]0;title\x07\nurl = u\n[workload w]\n", ":2: the line holds the control byte 0x1b" },
    };
#undef SRV
    struct compare_file p;
    const char *e;
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        check_error(cases[i].plan, cases[i].want);
    {
        /* write_plan stops at the NUL: written by hand. */
        static const char nul[] = "[server a]\nstart = true\x00x\nurl = u\n[workload w]\n";
        FILE *f = fopen(path, "w");
        fwrite(nul, 1, sizeof(nul) - 1, f);
        fclose(f);
        e = parse(&p, NULL);
        CHECKF(strstr(e, ":2: the line holds the control byte 0x00") != NULL, "NUL: %s", e);
        compare_file_free(&p);
    }
    /* UTF-8 names, a tab in a value, CR LF line ends: taken. */
    write_plan("[server caf\xc3\xa9]\r\nstart = echo\tok\r\nurl = http://127.0.0.1:1\r\n[workload \xe2\x86\x92 w]\n"
               "[settings]\nbaseline = caf\xc3\xa9\n");
    e = parse(&p, NULL);
    CHECKF(e[0] == '\0' && p.nservers == 1 && strcmp(p.servers[0].name, "caf\xc3\xa9") == 0 && p.baseline == 1 &&
           strcmp(p.servers[0].start, "echo\tok") == 0, "%s", e);
    compare_file_free(&p);
}

/* A workload's TLS key does nothing when every server is http://. */
static void tls_keys_need_an_https_server(void)
{
    struct compare_file p;
    const char *e;
    check_error("[server a]\nstart = true\nurl = http://127.0.0.1:1\n[workload w]\ninsecure = yes\n",
                "[workload w]: insecure is for https:// URLs and every [server] url is http://");
    check_error("[settings]\ntls-version = 1.3\n[server a]\nstart = true\nurl = http://127.0.0.1:1\n[workload w]\n",
                "[workload w]: tls-version is for https:// URLs and every [server] url is http://");
    /* One server over TLS: the key has a use. */
    write_plan("[server a]\nstart = true\nurl = http://127.0.0.1:1\n[server b]\nstart = true\nurl = HTTPS://127.0.0.1:2\n"
               "[workload w]\ninsecure = yes\n");
    e = parse(&p, NULL);
    CHECKF(e[0] == '\0' && p.workloads[0].cfg.tls.insecure == 1, "%s", e);
    compare_file_free(&p);
}

/* duration = auto: a workload's, or every workload's from [settings]; a
 * length given over it; refused beside requests; max-duration. */
static void duration_auto(void)
{
    struct compare_file p;
    struct compare_settings over;
    const char *e;
    write_plan("[settings]\nduration = auto\nmax-duration = 3s\n"
               "[server a]\nstart = true\nurl = http://127.0.0.1:1\n"
               "[workload one]\n"
               "[workload given]\nduration = 2s\n"
               "[workload own]\nduration = 1s\nduration = auto\n");
    e = parse(&p, NULL);
    CHECKF(e[0] == '\0', "%s", e);
    CHECK(p.set.max_duration_ns == 3000000000ULL);
    CHECK(p.workloads[0].duration_auto && p.workloads[0].cfg.duration_ns == COMPARE_AUTO_FIRST_NS);
    CHECK(!p.workloads[1].duration_auto && p.workloads[1].cfg.duration_ns == 2000000000ULL);
    CHECK(p.workloads[2].duration_auto && p.workloads[2].nprobes == 0);
    compare_file_free(&p);
    /* The command line's max-duration over the file's; the default 10 s. */
    memset(&over, 0, sizeof(over));
    over.max_duration_ns = 1000000000ULL;
    e = parse(&p, &over);
    CHECK(e[0] == '\0' && p.set.max_duration_ns == 1000000000ULL);
    compare_file_free(&p);
    write_plan("[server a]\nstart = true\nurl = http://127.0.0.1:1\n[workload w]\nduration = 2s\n");
    e = parse(&p, NULL);
    CHECK(e[0] == '\0' && p.set.max_duration_ns == 10000000000ULL && !p.workloads[0].duration_auto);
    compare_file_free(&p);
    check_error("[server a]\nstart = true\nurl = http://127.0.0.1:1\n[workload w]\nduration = often\n",
                ":5: duration wants a duration such as 10s, 1m or 500ms, or auto, not 'often'");
    check_error("[settings]\nduration = 0s\n[server a]\nstart = true\nurl = http://127.0.0.1:1\n[workload w]\n",
                ":2: duration wants a duration such as 10s, 1m or 500ms, or auto, not '0s'");
    check_error("[settings]\nrequests = 500\n[server a]\nstart = true\nurl = http://127.0.0.1:1\n"
                "[workload w]\nduration = auto\n",
                ":6: [workload w]: duration = auto lengthens the rounds in time, requests = 500 ends them at a count: "
                "give one of the two");
    check_error("[settings]\nmax-duration = 50ms\n[server a]\nstart = true\nurl = http://127.0.0.1:1\n[workload w]\n",
                ":2: max-duration wants a duration from 100ms such as 10s, not '50ms'");
}

/* replay = FILE: beside the compare file, with the keys of a replay and no
 * other; its log read before any server starts. */
static void replay_workload(void)
{
    const char *srv = "[server a]\nstart = true\nurl = http://127.0.0.1:1\n";
    char log[80], plan[512];
    const char *e;
    struct compare_file p;
    FILE *f;
    snprintf(log, sizeof(log), "%s.log", path);
    f = fopen(log, "w");
    fputs("{\"msec\": \"1700000000.000\", \"request_method\": \"GET\", \"request_uri\": \"/a/1\"}\n", f);
    fclose(f);
    write_plan("%s[workload r]\nreplay = %s\nspeed = 2\nlimit = 10\nmethods = GET,HEAD\nfrom = +1s\n"
               "connections = 8\npattern = ^/a/=a\n", srv, strrchr(log, '/') + 1);
    e = parse(&p, NULL);
    CHECKF(e[0] == '\0', "%s", e);
    CHECK(p.nworkloads == 1 && strcmp(p.workloads[0].cfg.replay_path, log) == 0);
    CHECK(p.workloads[0].cfg.replay_speed == 2 && p.workloads[0].cfg.replay_limit == 10 &&
          p.workloads[0].cfg.replay_from.set && p.workloads[0].cfg.nreplay_patterns == 1);
    /* No 5 s by default (the log's end ends a round), no warm-up (all of the log measured). */
    CHECK(p.workloads[0].cfg.duration_ns == 0 && p.workloads[0].cfg.warmup_ns == 0);
    compare_file_free(&p);
    snprintf(plan, sizeof(plan), "%s[workload w]\nreplay = %s\npath = /x\n", srv, log);
    check_error(plan, ":6: path does not go with replay = FILE");
    snprintf(plan, sizeof(plan), "%s[workload w]\nrate = 10\nreplay = %s\n", srv, log);
    check_error(plan, ":5: rate does not go with replay = FILE");
    snprintf(plan, sizeof(plan), "%s[workload w]\nspeed = 2\n", srv);
    check_error(plan, ":5: speed goes with replay = FILE alone");
    snprintf(plan, sizeof(plan), "%s[workload w]\nreplay = /nonexistent.log\n", srv);
    check_error(plan, ":4: [workload w]: /nonexistent.log: No such file");
    snprintf(plan, sizeof(plan), "%s[workload w]\nreplay = %s\nloop = yes\n", srv, log);
    check_error(plan, ":4: [workload w]: --loop replays the log again and again: give -d or --limit");
    snprintf(plan, sizeof(plan), "%s[workload w]\nreplay = %s\nduration = auto\n", srv, log);
    check_error(plan, ":4: [workload w]: duration = auto lengthens the rounds");
    snprintf(plan, sizeof(plan), "%s[workload w]\nreplay = %s\npattern = (=x\n", srv, log);
    check_error(plan, ":6: pattern '(=x': '(' is not an extended regex");
    unlink(log);
}

int main(void)
{
    snprintf(path, sizeof(path), "/tmp/rafale-plan-%d.conf", (int)getpid());
    settings_are_defaults();
    no_cap_and_threads_follow_the_client_cpus();
    errors_name_their_line();
    pin_auto_splits_the_cpus();
    T_RUN(control_bytes_refused);
    T_RUN(tls_keys_need_an_https_server);
    T_RUN(duration_auto);
    T_RUN(replay_workload);
    unlink(path);
    T_END("test_compare_file");
}
