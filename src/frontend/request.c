#include "frontend/request.h"

#include "base/fs.h"
#include "frontend/depfile.h"

#include <stdlib.h>
#include <string.h>

udfkit_rc udfkit_request_claim_outputs(const udfkit_compile_request *req, udfkit_outputs *outputs)
{
    udfkit_rc rc = UDFKIT_RC_OK;
    if (req->output)
        rc = udfkit_outputs_claim(outputs, req->output);
    if (!rc && req->output && req->depfile)
        rc = udfkit_outputs_claim(outputs, req->depfile);
    if (!rc)
        rc = udfkit_outputs_inputs(outputs, req->sources, req->nsources);
    return rc;
}

udfkit_rc udfkit_request_write_depfile(const udfkit_compile_request *req, udfkit_outputs *outputs,
                                       const char *const *deps, size_t ndeps)
{
    udfkit_buf text = UDFKIT_BUF_INIT;
    char *target = req->depfile_target ? strdup(req->depfile_target) : udfkit_path_absolute(req->output);
    udfkit_depfile_format(target, deps, ndeps, &text);
    free(target);
    udfkit_rc rc = udfkit_outputs_write(outputs, req->depfile, text.data, text.size);
    udfkit_buf_free(&text);
    return rc;
}
