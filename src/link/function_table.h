/* The function table of a fatbin's manifest (`udfkit link`, `udfkit pack`): the functions of
 * every input manifest, each c_name exported by one input only, in input order. */
#ifndef UDFKIT_FUNCTION_TABLE_H
#define UDFKIT_FUNCTION_TABLE_H

#include "artifact/manifest.h"

#include <jansson.h>

typedef struct udfkit_function_table {
    json_t *functions; /* the manifests' entries, each source relative to out_dir */
    json_t *exporters; /* the manifest each function comes from, for messages */
    char *out_dir;     /* the directory of the manifest the table goes into */
} udfkit_function_table;

/* An empty table for the manifest beside `output`. */
void udfkit_function_table_init(udfkit_function_table *t, const char *output);
/* Adds m's functions; an input error naming m where one of them is in the table already. */
udfkit_rc udfkit_function_table_add(udfkit_function_table *t, const udfkit_manifest *m);
void udfkit_function_table_free(udfkit_function_table *t);

#endif
