/* nvPTXCompiler (statically linked), wrapped once. */
#ifndef UDFKIT_PTXCOMPILER_WRAP_H
#define UDFKIT_PTXCOMPILER_WRAP_H

void udfkit_ptxcompiler_version(int *major, int *minor);

#endif
