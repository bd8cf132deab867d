#include "commands.h"
#include "base/spec.h"
#include "codegen/kernel_gen.h"
#include "options.h"

#include <stdlib.h>
#include <string.h>

/* A slot is a C name and a signature: a source name (c_name=...) or a file (@...) would
 * name code the library does not have, and would be dropped. */
static udfkit_rc check_slot_form(const char *text)
{
    udfkit_spec spec;
    udfkit_rc rc = udfkit_spec_parse(text, &spec);
    if (rc)
        return rc;
    if (spec.file || strcmp(spec.c_name, spec.source_name) != 0 || strchr(text, '='))
        rc = udfkit_fail(UDFKIT_RC_INPUT, NULL, 0,
                         "slot '%s' is not of the form c_name:signature: a slot is a function bound after the "
                         "library ships, so it has no source name (=) or file (@) of its own",
                         text);
    udfkit_spec_free(&spec);
    return rc;
}

int udfkit_cmd_kernels(int argc, char **argv)
{
    udfkit_cli_list manifests = {0}, functions = {0}, kernels = {0}, slots = {0}, optional = {0};
    const char *name = NULL, *cuda = NULL, *c = NULL, *header = NULL, *symbol = NULL, *units = NULL;
    bool check = false, arrow = false;
    const udfkit_cli_option options[] = {
        {"--function", "-f", UDFKIT_OPT_LIST, "SPEC...", "declared functions, [c_name=]source_name[@file]:signature, besides the manifests' ones", &functions},
        {"--slot", NULL, UDFKIT_OPT_LIST, "SPEC...", "functions bound after the library ships (c_name:signature): the launchers then take the instance <name>_bind gives", &slots},
        {"--optional-slot", NULL, UDFKIT_OPT_LIST, "SPEC...", "slots a bind may leave unbound (c_name:signature): a kernel that calls one is refused at its launch while it is", &optional},
        {"--kernel", "-k", UDFKIT_OPT_LIST, "ENTRY", "a kernel from a template: map(f), filter(p) or reduce(op); repeat for more", &kernels},
        {"--name", NULL, UDFKIT_OPT_VALUE, "IDENT", "the library: <name>_load, <name>_map_<f>, ... (required)", &name},
        {"--cuda", NULL, UDFKIT_OPT_VALUE, "OUT.cu", "the kernels, CUDA C++ for 'udfkit compile'", &cuda},
        {"--c", NULL, UDFKIT_OPT_VALUE, "OUT.c", "the launchers, C17 over the udfkit runtime", &c},
        {"--header", NULL, UDFKIT_OPT_VALUE, "OUT.h", "the library header, plain C11 and C++", &header},
        {"--units", NULL, UDFKIT_OPT_VALUE, "OUT.json", "also the link units: each entry's kernels and the UDFs they call, for 'udfkit link --units'", &units},
        {"--fatbin-symbol", NULL, UDFKIT_OPT_VALUE, "SYM", "the embedded fatbin, SYM and SYM_size (default <name>_fatbin)", &symbol},
        {"--arrow", NULL, UDFKIT_OPT_FLAG, NULL, "also an _arrow launcher (Arrow device arrays in and out, docs/arrow.md) beside each map, nullable_map and filter entry's", &arrow},
        {"--check", NULL, UDFKIT_OPT_FLAG, NULL, "only validate the entries against the functions, a function without a return type by its parameters; write nothing", &check},
    };
    const udfkit_cli_command cmd = {
        "kernels",
        "udfkit kernels [<manifest>...] [--function SPEC...] [--slot SPEC...] [--optional-slot SPEC...]\n"
        "                      --kernel ENTRY... --name IDENT [--arrow]\n"
        "                      (--cuda OUT.cu --c OUT.c --header OUT.h [--units OUT.json] [--fatbin-symbol SYM] | --check)",
        "Writes kernels made from templates around UDFs (map(f): out[i] = f(a1[i], ...); filter(p): the\n"
        "rows where p holds, ascending; reduce(op): init combined with every element, in order), their\n"
        "C launchers and the library header. The functions come from manifests or declared specs; each\n"
        "entry's function must fit its template: map R(A1..An), filter bool(A1..An), reduce T(T, T),\n"
        "values only; filter(p, indices32) writes 32-bit row numbers, filter(p, values) the kept rows'\n"
        "values of every input. Over Arrow columns: nullable_map(f[, nullify]), nullable_filter(p),\n"
        "nullable_reduce(op). Grouped and ordered: inclusive_scan(op), exclusive_scan(op),\n"
        "reduce_by_key(op, K) (K an integer type), transform_reduce(f, op), segmented_reduce(op),\n"
        "sort(less) (less: bool(T, T), a stable sort).\n"
        "Compile OUT.cu with 'udfkit compile', link it with the UDFs, embed the fatbin as SYM, and build\n"
        "OUT.c with the udfkit runtime. With --slot, the library binds those functions after it ships:\n"
        "pack its LTO-IR with 'udfkit pack' instead of linking it; OUT.h then declares <name>_bind,\n"
        "<name>_release and launchers taking the instance (docs/late-binding.md). --optional-slot\n"
        "slots are slots a bind may leave unbound (<name>_slot_bound tells): a launcher of a kernel\n"
        "that calls one then fails, naming the kernel and the slot, and launches nothing. With --arrow,\n"
        "each map, nullable_map and filter entry also gets <launcher>_arrow over Arrow device arrays\n"
        "(docs/arrow.md).",
        options,
        sizeof options / sizeof *options,
        &manifests,
    };
    int rc = udfkit_cli_parse(&cmd, argc, argv);
    if (rc == 0 && !name)
        rc = udfkit_cli_usage_error(&cmd, "no library name given (--name IDENT)");
    else if (rc == 0 && !check && (!cuda || !c || !header))
        rc = udfkit_cli_usage_error(&cmd, "no %s given (or --check to only validate)",
                                    !cuda ? "--cuda OUT.cu" : !c ? "--c OUT.c" : "--header OUT.h");
    /* The optional slots follow the others, in one list. */
    const char **all = calloc(slots.count + optional.count + 1, sizeof *all);
    if (rc == 0 && !all)
        rc = udfkit_cli_report(udfkit_fail(UDFKIT_RC_INTERNAL, NULL, 0, "out of memory"));
    for (size_t i = 0; rc == 0 && i < slots.count + optional.count; i++) {
        all[i] = i < slots.count ? slots.items[i] : optional.items[i - slots.count];
        rc = udfkit_cli_report(check_slot_form(all[i]));
    }
    if (rc == 0) {
        udfkit_kernels_request req = {
            .manifests = manifests.items,
            .nmanifests = manifests.count,
            .functions = functions.items,
            .nfunctions = functions.count,
            .slots = all,
            .nslots = slots.count + optional.count,
            .noptional_slots = optional.count,
            .kernels = kernels.items,
            .nkernels = kernels.count,
            .name = name,
            .fatbin_symbol = symbol,
            .check = check,
            .arrow = arrow,
            .cuda_output = cuda,
            .c_output = c,
            .header_output = header,
            .units_output = units,
        };
        rc = udfkit_cli_report(udfkit_kernels_generate(&req));
    }
    udfkit_cli_list_free(&manifests);
    udfkit_cli_list_free(&functions);
    free(all);
    udfkit_cli_list_free(&slots);
    udfkit_cli_list_free(&optional);
    udfkit_cli_list_free(&kernels);
    return rc < 0 ? 0 : rc;
}
