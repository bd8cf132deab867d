#include "options.h"

#include "base/diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool list_push(udfkit_cli_list *l, const char *value)
{
    const char **items = realloc(l->items, (l->count + 1) * sizeof *items);
    if (!items)
        return false;
    l->items = items;
    l->items[l->count++] = value;
    return true;
}

void udfkit_cli_list_free(udfkit_cli_list *l)
{
    free(l->items);
    l->items = NULL;
    l->count = 0;
}

int udfkit_cli_usage_error(const udfkit_cli_command *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("udfkit: error: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nusage: %s\n(see 'udfkit %s --help')\n", cmd->usage, cmd->name);
    return 2;
}

void udfkit_cli_help(const udfkit_cli_command *cmd)
{
    printf("usage: %s\n\n%s\n\noptions:\n", cmd->usage, cmd->summary);
    for (size_t i = 0; i < cmd->noptions; i++) {
        const udfkit_cli_option *o = &cmd->options[i];
        char left[64];
        snprintf(left, sizeof left, "%s%s%s%s%s", o->name, o->alias ? ", " : "", o->alias ? o->alias : "",
                 o->metavar ? " " : "", o->metavar ? o->metavar : "");
        printf("  %-28s %s\n", left, o->help);
    }
    printf("  %-28s %s\n", "-v, --verbose", "tell each NVRTC, numba-cuda, nvJitLink and nvFatbin step on stderr");
    printf("  %-28s %s\n", "-h, --help", "show this help");
}

static const udfkit_cli_option *find(const udfkit_cli_command *cmd, const char *arg, const char **inline_value)
{
    *inline_value = NULL;
    for (size_t i = 0; i < cmd->noptions; i++) {
        const udfkit_cli_option *o = &cmd->options[i];
        const char *names[2] = {o->name, o->alias};
        for (int k = 0; k < 2; k++) {
            const char *n = names[k];
            if (!n)
                continue;
            size_t len = strlen(n);
            if (strncmp(arg, n, len) != 0)
                continue;
            if (arg[len] == '\0')
                return o;
            /* --name=value (and -Xtool=value, whose value may start with '-'), and
             * -IDIR / -DNAME for the one-letter ones */
            if (o->kind != UDFKIT_OPT_FLAG && arg[len] == '=' && len > 2) {
                *inline_value = arg + len + 1;
                return o;
            }
            if (o->kind != UDFKIT_OPT_FLAG && n[1] != '-' && len == 2) {
                *inline_value = arg + len;
                return o;
            }
        }
    }
    return NULL;
}

int udfkit_cli_parse(const udfkit_cli_command *cmd, int argc, char **argv)
{
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            udfkit_cli_help(cmd);
            return -1;
        }
        if (strcmp(arg, "-v") == 0 || strcmp(arg, "--verbose") == 0) {
            udfkit_verbose_set(true);
            continue;
        }
        if (arg[0] != '-' || arg[1] == '\0') {
            if (!cmd->positional)
                return udfkit_cli_usage_error(cmd, "unexpected argument '%s'", arg);
            list_push(cmd->positional, arg);
            continue;
        }
        if (strcmp(arg, "--") == 0) {
            for (i++; i < argc; i++)
                if (cmd->positional)
                    list_push(cmd->positional, argv[i]);
            break;
        }
        const char *value;
        const udfkit_cli_option *o = find(cmd, arg, &value);
        if (!o)
            return udfkit_cli_usage_error(cmd, "unknown option '%s'", arg);
        if (o->kind == UDFKIT_OPT_FLAG) {
            *(bool *)o->target = true;
            continue;
        }
        /* -Xnvrtc and -Xnvjitlink pass the next argument on as it is, as gcc's -Xlinker
         * does: their values are options themselves. */
        bool passes_on = strncmp(o->name, "-X", 2) == 0;
        if (!value) {
            if (i + 1 >= argc || (!passes_on && argv[i + 1][0] == '-' && argv[i + 1][1] != '\0'))
                return udfkit_cli_usage_error(cmd, "option '%s' needs a value (%s)", o->name, o->metavar);
            value = argv[++i];
        }
        if (o->kind == UDFKIT_OPT_VALUE) {
            const char **target = o->target;
            if (*target)
                return udfkit_cli_usage_error(cmd, "option '%s' given twice", o->name);
            *target = value;
            continue;
        }
        udfkit_cli_list *list = o->target;
        list_push(list, value);
        /* "--function A B C": a list takes values up to the next option, but only for
         * long options, so that "-I dir source.cu" keeps source.cu positional. */
        if (o->name[1] == '-')
            while (i + 1 < argc && argv[i + 1][0] != '-' && strchr(argv[i + 1], ':') && strchr(argv[i + 1], '('))
                list_push(list, argv[++i]);
    }
    return 0;
}

int udfkit_cli_report(int rc)
{
    if (rc != 0) {
        const char *msg = udfkit_diag_message();
        fprintf(stderr, "%s\n", *msg ? msg : "udfkit: error: failed");
    }
    return rc;
}
