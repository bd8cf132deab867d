#include "link/function_table.h"

#include "base/fs.h"

#include <stdlib.h>
#include <string.h>

void udfkit_function_table_init(udfkit_function_table *t, const char *output)
{
    *t = (udfkit_function_table){json_array(), json_array(), udfkit_path_dirname(output)};
}

udfkit_rc udfkit_function_table_add(udfkit_function_table *t, const udfkit_manifest *m)
{
    size_t i, k;
    json_t *fn, *seen;
    json_array_foreach(json_object_get(m->root, "functions"), i, fn)
    {
        const char *c_name = json_string_value(json_object_get(fn, "c_name"));
        json_array_foreach(t->functions, k, seen)
        {
            if (strcmp(json_string_value(json_object_get(seen, "c_name")), c_name) == 0)
                return udfkit_fail(UDFKIT_RC_INPUT, m->path, 0, "exports '%s', which another input exports too (%s)",
                                   c_name, json_string_value(json_array_get(t->exporters, k)));
        }
        json_t *copy = json_deep_copy(fn);
        /* Sources are relative to the manifest; keep them meaningful beside the output. */
        const char *source = json_string_value(json_object_get(fn, "source"));
        if (source) {
            char *path = udfkit_path_join(m->dir, source), *rel = udfkit_path_relative(path, t->out_dir);
            json_object_set_new(copy, "source", json_string(rel));
            free(path);
            free(rel);
        }
        json_array_append_new(t->functions, copy);
        json_array_append_new(t->exporters, json_string(m->path));
    }
    return UDFKIT_RC_OK;
}

void udfkit_function_table_free(udfkit_function_table *t)
{
    json_decref(t->functions);
    json_decref(t->exporters);
    free(t->out_dir);
    memset(t, 0, sizeof *t);
}
