/* serve_files.c - rafale serve --files DIR: the directory's regular files
 * read into memory once, with their content types, for /random. */
#include "serve_int.h"
#include "err.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

static const char *ctype_of(const char *name)
{
    static const char *const map[][2] = {
        { ".html", "text/html" }, { ".htm", "text/html" }, { ".css", "text/css" },
        { ".js", "application/javascript" }, { ".json", "application/json" }, { ".txt", "text/plain" },
        { ".png", "image/png" }, { ".jpg", "image/jpeg" }, { ".jpeg", "image/jpeg" }, { ".gif", "image/gif" },
        { ".svg", "image/svg+xml" }, { ".ico", "image/x-icon" }, { ".xml", "application/xml" },
    };
    const char *dot = strrchr(name, '.');
    size_t i;
    if (dot)
        for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
            if (strcasecmp(dot, map[i][0]) == 0)
                return map[i][1];
    return "application/octet-stream";
}

int serve_files_load(struct serve *s, const char *dir, char *err, size_t errlen)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    size_t cap = 0, total = 0;

    if (d == NULL) {
        err_set(err, errlen, NULL, "cannot open --files directory '%s': %s", dir, strerror(errno));
        return -1;
    }
    while ((de = readdir(d)) != NULL) {
        char path[4096];
        struct stat st;
        FILE *f;
        struct file_ent *fe;
        if (de->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        total += (size_t)st.st_size;
        if (total > (1u << 30)) {
            closedir(d);
            err_set(err, errlen, NULL, "--files directory '%s' holds more than 1 GiB", dir);
            return -1;
        }
        if (s->nfiles == cap) {
            struct file_ent *nf;
            cap = cap ? cap * 2 : 16;
            nf = realloc(s->files, cap * sizeof(*nf));
            if (nf == NULL)
                break;
            s->files = nf;
        }
        fe = &s->files[s->nfiles];
        fe->len = (size_t)st.st_size;
        fe->data = malloc(fe->len ? fe->len : 1);
        fe->name = strdup(de->d_name);
        fe->ctype = ctype_of(de->d_name);
        f = fopen(path, "rb");
        if (f == NULL || fe->data == NULL || fe->name == NULL || fread(fe->data, 1, fe->len, f) != fe->len) {
            if (f)
                fclose(f);
            free(fe->data);
            free(fe->name);
            closedir(d);
            err_set(err, errlen, NULL, "cannot read '%s'", path);
            return -1;
        }
        fclose(f);
        s->nfiles++;
    }
    closedir(d);
    if (s->nfiles == 0) {
        err_set(err, errlen, NULL, "--files directory '%s' has no regular files", dir);
        return -1;
    }
    return 0;
}
