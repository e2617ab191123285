/* rafale serve --files DIR: the directory's regular files read whole into
 * memory with their content types (by extension, any case), dot files,
 * folders and dangling links left out; a missing or empty directory
 * refused in one line. */
#include "serve_conn.h"
#include "../t.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];

static void put(const char *name, const char *data, size_t len)
{
    char p[160];
    int fd;
    snprintf(p, sizeof(p), "%s/%s", dir, name);
    fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(fd >= 0 && write(fd, data, len) == (ssize_t)len);
    close(fd);
}

static void files_free(struct serve *s)
{
    uint32_t i;
    for (i = 0; i < s->nfiles; i++) {
        free(s->files[i].data);
        free(s->files[i].name);
    }
    free(s->files);
    memset(s, 0, sizeof(*s));
}

static const struct file_ent *named(const struct serve *s, const char *name)
{
    uint32_t i;
    for (i = 0; i < s->nfiles; i++)
        if (strcmp(s->files[i].name, name) == 0)
            return &s->files[i];
    return NULL;
}

static void a_directory_read(void)
{
    static char big[300000];
    struct serve s;
    const struct file_ent *f;
    char err[300] = "", p[160], q[160];
    size_t i;
    for (i = 0; i < sizeof(big); i++)
        big[i] = (char)(i * 7);
    put("index.html", "<h1>hi</h1>\n", 12);
    put("STYLE.CSS", "a{}", 3);
    put("app.js", "x()", 3);
    put("blob.bin", big, sizeof(big));
    put("empty.txt", "", 0);
    put("noext", "?", 1);
    put(".hidden", "secret", 6);
    snprintf(p, sizeof(p), "%s/sub", dir);
    CHECK(mkdir(p, 0755) == 0);
    snprintf(p, sizeof(p), "%s/index.html", dir);
    snprintf(q, sizeof(q), "%s/link.json", dir);
    CHECK(symlink(p, q) == 0);
    snprintf(q, sizeof(q), "%s/dangling.png", dir);
    CHECK(symlink("/nonexistent/x.png", q) == 0);

    memset(&s, 0, sizeof(s));
    CHECKF(serve_files_load(&s, dir, err, sizeof(err)) == 0, "%s", err);
    CHECKF(s.nfiles == 7, "%u files", s.nfiles);
    CHECK((f = named(&s, "index.html")) && f->len == 12 && memcmp(f->data, "<h1>hi</h1>\n", 12) == 0 &&
          strcmp(f->ctype, "text/html") == 0);
    CHECK((f = named(&s, "STYLE.CSS")) && strcmp(f->ctype, "text/css") == 0);
    CHECK((f = named(&s, "app.js")) && strcmp(f->ctype, "application/javascript") == 0);
    CHECK((f = named(&s, "blob.bin")) && f->len == sizeof(big) && memcmp(f->data, big, sizeof(big)) == 0 &&
          strcmp(f->ctype, "application/octet-stream") == 0);
    CHECK((f = named(&s, "empty.txt")) && f->len == 0 && f->data != NULL && strcmp(f->ctype, "text/plain") == 0);
    CHECK((f = named(&s, "noext")) && strcmp(f->ctype, "application/octet-stream") == 0);
    /* A link to a file is that file, typed by its own name. */
    CHECK((f = named(&s, "link.json")) && f->len == 12 && strcmp(f->ctype, "application/json") == 0);
    CHECK(named(&s, ".hidden") == NULL && named(&s, "sub") == NULL && named(&s, "dangling.png") == NULL);
    files_free(&s);
}

static void nothing_to_serve_refused(void)
{
    struct serve s;
    char err[300], p[160];
    memset(&s, 0, sizeof(s));
    snprintf(p, sizeof(p), "%s/sub", dir);
    CHECK(serve_files_load(&s, p, err, sizeof(err)) == -1);
    CHECKF(strstr(err, "--files directory '") == err && strstr(err, "/sub' has no regular files") != NULL, "%s", err);
    files_free(&s);
    snprintf(p, sizeof(p), "%s/none", dir);
    CHECK(serve_files_load(&s, p, err, sizeof(err)) == -1);
    CHECKF(strstr(err, "cannot open --files directory '") == err &&
               strstr(err, "/none': No such file or directory") != NULL,
           "%s", err);
    files_free(&s);
    snprintf(p, sizeof(p), "%s/index.html", dir);
    CHECK(serve_files_load(&s, p, err, sizeof(err)) == -1 && strstr(err, "Not a directory") != NULL);
    files_free(&s);
}

int main(void)
{
    if (t_mkdir(dir, "files") != 0)
        return 1;
    T_RUN(a_directory_read);
    T_RUN(nothing_to_serve_refused);
    t_rmdir(dir);
    T_END("serve_files");
}
