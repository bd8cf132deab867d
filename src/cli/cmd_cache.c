#include "cache/cache.h"
#include "cache/remote.h"
#include "commands.h"
#include "options.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

static void print_text(const udfkit_cache_stats *s, const udfkit_remote_stats *r, size_t nr)
{
    printf("cache directory  %s%s\n", s->dir, s->off ? " (turned off by UDFKIT_CACHE=0)" : "");
    printf("entries          %zu\n", s->entries);
    printf("size             %.1f MiB of %.1f MiB%s\n", (double)s->bytes / (1 << 20), (double)s->limit / (1 << 20),
           s->exact ? "" : " (an estimate: the cache directory cannot be locked here, so stores may have changed it "
                           "while it was listed)");
    if (s->orphans)
        printf("orphaned files   %zu (%.1f MiB), left by interrupted stores; the next eviction or cache clear "
               "removes them\n",
               s->orphans, (double)s->orphan_bytes / (1 << 20));
    printf("hits             %lld\n", s->hits);
    printf("misses           %lld\n", s->misses);
    for (size_t i = 0; i < nr; i++)
        printf("remote %s%s%s: hits %lld, misses %lld, stores %lld, errors %lld, read %.1f MiB, written %.1f MiB\n",
               r[i].url, r[i].read_only ? " (read-only)" : "", r[i].configured ? "" : " (not in UDFKIT_REMOTE_CACHE now)",
               r[i].hits, r[i].misses, r[i].stores, r[i].errors, (double)r[i].bytes_read / (1 << 20),
               (double)r[i].bytes_written / (1 << 20));
}

static void print_json(const udfkit_cache_stats *s, const udfkit_remote_stats *r, size_t nr)
{
    json_t *remotes = json_array();
    for (size_t i = 0; i < nr; i++)
        json_array_append_new(remotes, json_pack("{s:s, s:b, s:b, s:I, s:I, s:I, s:I, s:I, s:I}", "url", r[i].url,
                                                 "configured", r[i].configured, "read_only", r[i].read_only, "hits",
                                                 (json_int_t)r[i].hits, "misses", (json_int_t)r[i].misses, "stores",
                                                 (json_int_t)r[i].stores, "errors", (json_int_t)r[i].errors,
                                                 "bytes_read", (json_int_t)r[i].bytes_read, "bytes_written",
                                                 (json_int_t)r[i].bytes_written));
    json_t *local = json_pack("{s:s, s:b, s:I, s:I, s:b, s:I, s:I, s:I, s:I, s:I}", "directory", s->dir, "off",
                              s->off, "entries", (json_int_t)s->entries, "bytes", (json_int_t)s->bytes, "exact",
                              s->exact, "limit", (json_int_t)s->limit, "orphaned_files", (json_int_t)s->orphans,
                              "orphaned_bytes", (json_int_t)s->orphan_bytes, "hits", (json_int_t)s->hits, "misses",
                              (json_int_t)s->misses);
    json_t *all = json_pack("{s:o, s:o}", "local", local, "remotes", remotes);
    char *text = json_dumps(all, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    printf("%s\n", text);
    free(text);
    json_decref(all);
}

static int stats(bool json)
{
    udfkit_cache_stats s;
    udfkit_rc rc = udfkit_cache_read_stats(&s);
    if (rc)
        return udfkit_cli_report(rc);
    udfkit_remote_stats *r;
    size_t nr = udfkit_remote_read_stats(s.dir, &r);
    if (json)
        print_json(&s, r, nr);
    else
        print_text(&s, r, nr);
    udfkit_remote_stats_free(r, nr);
    free(s.dir);
    return 0;
}

int udfkit_cmd_cache(int argc, char **argv)
{
    udfkit_cli_list actions = {0};
    bool json = false;
    const udfkit_cli_option options[] = {
        {"--json", NULL, UDFKIT_OPT_FLAG, NULL, "stats as JSON: {\"local\": {...}, \"remotes\": [...]}", &json},
    };
    const udfkit_cli_command cmd = {
        "cache",
        "udfkit cache stats [--json] | clear",
        "Shows or empties the cache of compile and link results (UDFKIT_CACHE_DIR, else $XDG_CACHE_HOME/udfkit;\n"
        "UDFKIT_CACHE=0 turns it off; UDFKIT_CACHE_SIZE bounds it, default 2G). stats also shows each remote\n"
        "cache of UDFKIT_REMOTE_CACHE (and any counted before) with its hits, misses, stores, errors and bytes;\n"
        "clear empties the local level and its counts, never a remote.",
        options,
        sizeof options / sizeof *options,
        &actions,
    };
    int rc = udfkit_cli_parse(&cmd, argc, argv);
    if (rc == 0) {
        if (actions.count != 1 || (strcmp(actions.items[0], "stats") != 0 && strcmp(actions.items[0], "clear") != 0))
            rc = udfkit_cli_usage_error(&cmd, "cache takes stats or clear");
        else if (json && strcmp(actions.items[0], "stats") != 0)
            rc = udfkit_cli_usage_error(&cmd, "--json goes with stats");
        else if (strcmp(actions.items[0], "stats") == 0)
            rc = stats(json);
        else
            rc = udfkit_cli_report(udfkit_cache_clear());
    }
    udfkit_cli_list_free(&actions);
    return rc < 0 ? 0 : rc;
}
