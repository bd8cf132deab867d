/* The files of templates/, compiled into the tool (see src/CMakeLists.txt). */
#ifndef UDFKIT_TEMPLATES_H
#define UDFKIT_TEMPLATES_H

extern const char udfkit_tpl_export_prelude[];
extern const char udfkit_tpl_udf_header[];
extern const char udfkit_tpl_embed_c[];
extern const char udfkit_tpl_embed_h[];
extern const char udfkit_py_worker[];

#endif
