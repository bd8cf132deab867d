/* One option table per command drives both parsing and --help. */
#ifndef UDFKIT_CLI_OPTIONS_H
#define UDFKIT_CLI_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

typedef struct udfkit_cli_list {
    const char **items;
    size_t count;
} udfkit_cli_list;

typedef enum udfkit_cli_kind {
    UDFKIT_OPT_FLAG,  /* bool * */
    UDFKIT_OPT_VALUE, /* const char ** ; given twice is a usage error */
    UDFKIT_OPT_LIST   /* udfkit_cli_list * ; may repeat, and takes several values up to the next option */
} udfkit_cli_kind;

typedef struct udfkit_cli_option {
    const char *name;  /* "--arch", "-I" */
    const char *alias; /* "-o" for "--output", or NULL */
    udfkit_cli_kind kind;
    const char *metavar;
    const char *help;
    void *target;
} udfkit_cli_option;

typedef struct udfkit_cli_command {
    const char *name;
    const char *usage;   /* "udfkit compile <source>... --function SPEC... [options]" */
    const char *summary;
    const udfkit_cli_option *options;
    size_t noptions;
    udfkit_cli_list *positional;
} udfkit_cli_command;

/* Returns 0 to go on, 2 after a usage error (printed), -1 after printing --help. */
int udfkit_cli_parse(const udfkit_cli_command *cmd, int argc, char **argv);
void udfkit_cli_help(const udfkit_cli_command *cmd);
/* Prints "udfkit: error: ..." and the hint to --help; returns 2. */
int udfkit_cli_usage_error(const udfkit_cli_command *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void udfkit_cli_list_free(udfkit_cli_list *l);

/* Prints the current diagnostic and returns rc as the exit status. */
int udfkit_cli_report(int rc);

#endif
