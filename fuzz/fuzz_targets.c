/* fuzz/fuzz_targets.c - libFuzzer entry point for the targets-file parser
 * and the template compiler: `make fuzz` (clang). The input is read as a
 * targets file (paths go to a fixed base; @FILE and {{csv}} point nowhere),
 * then compiled as one template and expanded: nothing may crash or leak,
 * an error must be one line naming the file, and an expansion must never
 * exceed the length the compiler promised. */
#include "targets.h"
#include "template.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    struct config cfg;
    struct tpl_set set;
    struct tpl t;
    char err[1024];

    config_defaults(&cfg);
    if (targets_parse(&cfg, (const char *)data, size, "fuzz", "/nonexistent", "http://127.0.0.1:1", err,
                      sizeof(err)) != 0) {
        if (strncmp(err, "fuzz", 4) != 0 || strchr(err, '\n') != NULL)
            abort();
    } else if (cfg.ntargets == 0 || cfg.norder < cfg.ntargets) {
        abort();
    }
    config_free(&cfg);

    memset(&set, 0, sizeof(set));
    if (template_compile((const char *)data, size, TPL_HEAD, &set, "/nonexistent", &t, err, sizeof(err)) == 0) {
        char *out = malloc(t.max_len + 1);
        uint64_t rng = 42;
        struct tpl_ctx ctx;
        int i;
        for (i = 0; out && i < 3; i++) {
            template_ctx_start(&ctx, 7, &rng);
            if (template_expand(&t, &set, &ctx, out) > t.max_len)
                abort();
        }
        free(out);
        template_free(&t);
    }
    template_set_free(&set);
    return 0;
}
