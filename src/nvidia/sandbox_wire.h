/* The messages between udfkit and its sandbox helper (udfkit-sandbox, src/tools/sandbox.c):
 * an 8-byte magic, then records of a one-byte tag, a little-endian u64 length and that many
 * bytes. Both sides read what the other wrote as untrusted input: every length is checked
 * against what is left. */
#ifndef UDFKIT_SANDBOX_WIRE_H
#define UDFKIT_SANDBOX_WIRE_H

#include "base/buf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define UDFKIT_WIRE_REQUEST "UDFKSBQ1"
#define UDFKIT_WIRE_ANSWER "UDFKSBA1"

/* Request records */
enum {
    UDFKIT_WIRE_JOB = 'J',     /* "nvrtc" or "nvjitlink" */
    UDFKIT_WIRE_LIBRARY = 'L', /* the NVIDIA library to load, a path */
    UDFKIT_WIRE_ROOT = 'A',    /* a file or directory the job may read (repeated); none: no confinement */
    UDFKIT_WIRE_CONFINE = 'C', /* present: confine reads to the roots (Landlock), however many */
    UDFKIT_WIRE_NAME = 'n',    /* NVRTC: the program's name */
    UDFKIT_WIRE_SOURCE = 's',  /* NVRTC: its text */
    UDFKIT_WIRE_OPTION = 'o',  /* an option (repeated) */
    UDFKIT_WIRE_HEADER = 'h',  /* NVRTC: an in-memory header's name, then its text as the next 'h' */
    UDFKIT_WIRE_KIND = 'k',    /* NVRTC: the code kind (u32); nvJitLink: whether PTX is asked (u32) */
    UDFKIT_WIRE_INPUT = 'i'    /* nvJitLink: an input, its kind (u32) then its bytes (repeated) */
};

/* Answer records */
enum {
    UDFKIT_WIRE_RC = 'r',      /* udfkit_rc (u32) */
    UDFKIT_WIRE_CODE = 'c',
    UDFKIT_WIRE_LOG = 'l',
    UDFKIT_WIRE_MESSAGE = 'm'  /* the failure's message, where the job set one */
};

bool udfkit_wire_put(udfkit_buf *out, char tag, const void *data, size_t size);
bool udfkit_wire_put_str(udfkit_buf *out, char tag, const char *s);
bool udfkit_wire_put_u32(udfkit_buf *out, char tag, uint32_t value);

typedef struct udfkit_wire_reader {
    const unsigned char *data;
    size_t size, at;
    bool bad; /* a record ran past the end, or the magic was wrong */
} udfkit_wire_reader;

/* A reader of `data`, which must start with `magic` (else bad). */
udfkit_wire_reader udfkit_wire_read(const void *data, size_t size, const char *magic);
/* The next record; false at the end and where malformed (r->bad set). */
bool udfkit_wire_next(udfkit_wire_reader *r, char *tag, const unsigned char **data, size_t *size);
/* A u32 record's value; false where the record is not 4 bytes. */
bool udfkit_wire_u32(const unsigned char *data, size_t size, uint32_t *value);

#endif
