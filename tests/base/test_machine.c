/* The machine a result was measured on: numbers of /proc-like files read
 * (and -1 when they cannot be), the same machine as far as a reference
 * goes, this machine read, and its CPU time. */
#include "machine.h"
#include "../t.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

static char path[64];

static void file(const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void numbers_of_a_file(void)
{
    int fd;
    snprintf(path, sizeof(path), "/tmp/rafale-test-machine-XXXXXX");
    fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    file("32768\t60999\n");
    CHECK(machine_proc_ll(path, 0) == 32768 && machine_proc_ll(path, 1) == 60999);
    file("4096\n");
    CHECK(machine_proc_ll(path, 0) == 4096 && machine_proc_ll(path, 1) == -1);
    file("performance\n");
    CHECK(machine_proc_ll(path, 0) == -1 && machine_proc_ll(path, 1) == -1);
    file("");
    CHECK(machine_proc_ll(path, 0) == -1);
    file("-5 7");
    CHECK(machine_proc_ll(path, 0) == -5 && machine_proc_ll(path, 1) == 7);
    unlink(path);
    CHECK(machine_proc_ll(path, 0) == -1 && machine_proc_ll(path, 1) == -1);
}

static void same_machine(void)
{
    struct machine a, b;
    memset(&a, 0, sizeof(a));
    snprintf(a.cpu_model, sizeof(a.cpu_model), "AMD EPYC 7763");
    a.cpus_online = 8;
    snprintf(a.kernel, sizeof(a.kernel), "Linux 6.1.0-18-amd64 x86_64");
    snprintf(a.governor, sizeof(a.governor), "performance");
    a.somaxconn = 4096;
    b = a;
    /* What a reference does not depend on may differ. */
    snprintf(b.governor, sizeof(b.governor), "powersave");
    b.somaxconn = 128;
    b.boost = 1;
    snprintf(b.version, sizeof(b.version), "9.9");
    CHECK(machine_same(&a, &b));
    b.cpus_online = 4;
    CHECK(!machine_same(&a, &b));
    b = a;
    snprintf(b.kernel, sizeof(b.kernel), "Linux 6.12.0 x86_64");
    CHECK(!machine_same(&a, &b));
    b = a;
    snprintf(b.cpu_model, sizeof(b.cpu_model), "AMD EPYC 9654");
    CHECK(!machine_same(&a, &b));
}

static void this_machine_read(void)
{
    struct machine m;
    struct utsname u;
    memset(&m, 0x5a, sizeof(m));
    machine_read(&m, "1.2.3");
    CHECK(strcmp(m.version, "1.2.3") == 0 && m.build[0] != '\0');
    CHECK(m.cpus_online == (int)sysconf(_SC_NPROCESSORS_ONLN) && m.cpus_online >= 1);
    CHECK(uname(&u) == 0 && strncmp(m.kernel, "Linux ", 6) == 0 && strstr(m.kernel, u.release) != NULL &&
          strstr(m.kernel, u.machine) != NULL);
    CHECK(m.boost == -1 || m.boost == 0 || m.boost == 1);
    CHECK(strchr(m.cpu_model, '\n') == NULL && strchr(m.governor, '\n') == NULL);
    /* Linux always has these. */
    CHECK(m.somaxconn == machine_proc_ll("/proc/sys/net/core/somaxconn", 0) && m.somaxconn > 0);
    CHECK(m.port_lo > 0 && m.port_hi >= m.port_lo && m.port_hi <= 65535);
    CHECK(machine_same(&m, &m));
}

static void cpu_time(void)
{
    struct machine_cpu a, b;
    machine_cpu_read(&a);
    machine_cpu_read(&b);
    CHECK(a.ok && b.ok && a.busy_s > 0 && a.steal_s >= 0);
    /* Counters: they never go back. */
    CHECK(b.busy_s >= a.busy_s && b.steal_s >= a.steal_s);
}

int main(void)
{
    T_RUN(numbers_of_a_file);
    T_RUN(same_machine);
    T_RUN(this_machine_read);
    T_RUN(cpu_time);
    T_END("machine");
}
