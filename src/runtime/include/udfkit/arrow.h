/* udfkit and Arrow's C Device Data Interface (docs/arrow.md).
 *
 * Arrow's ArrowSchema, ArrowArray and ArrowDeviceArray, as Arrow's specification publishes
 * them (https://arrow.apache.org/docs/format/CDataInterface.html and
 * CDeviceDataInterface.html; the text between the two markers below is Arrow's abi.h, Apache
 * License 2.0, copied unchanged), under Arrow's own guards: a program that includes Arrow's
 * or nanoarrow's headers before or after this one compiles. The stream interfaces
 * (ArrowArrayStream, ArrowDeviceArrayStream) come with them, as in Arrow's abi.h: nanoarrow
 * declares the data and stream interfaces together, under one guard (ARROW_FLAG_DICTIONARY_ORDERED),
 * so a header that gave the first without the second would leave nanoarrow without it.
 *
 * Then what the `_arrow` launchers of a generated library (<target>.h) share: the runtime's
 * Arrow plumbing that checks the arrays against the launcher's types, takes their columns as
 * udfkit's launchers take them, and builds the result arrays. Programs call the launchers;
 * the udfkit_arrow_* functions are for the code udfkit generates. */
#ifndef UDFKIT_ARROW_H
#define UDFKIT_ARROW_H

#include <udfkit/runtime.h>

#include <stdint.h>
#if !defined(__cplusplus)
#include <stdbool.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Arrow's abi.h: begin ---- */
// Licensed to the Apache Software Foundation (ASF) under one
// or more contributor license agreements.  See the NOTICE file
// distributed with this work for additional information
// regarding copyright ownership.  The ASF licenses this file
// to you under the Apache License, Version 2.0 (the
// "License"); you may not use this file except in compliance
// with the License.  You may obtain a copy of the License at
//
//   http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing,
// software distributed under the License is distributed on an
// "AS IS" BASIS, WITHOUT WARRANTIES OR CONDITIONS OF ANY
// KIND, either express or implied.  See the License for the
// specific language governing permissions and limitations
// under the License.

#ifndef ARROW_C_DATA_INTERFACE
#  define ARROW_C_DATA_INTERFACE

#  define ARROW_FLAG_DICTIONARY_ORDERED 1
#  define ARROW_FLAG_NULLABLE 2
#  define ARROW_FLAG_MAP_KEYS_SORTED 4

struct ArrowSchema {
  // Array type description
  const char* format;
  const char* name;
  const char* metadata;
  int64_t flags;
  int64_t n_children;
  struct ArrowSchema** children;
  struct ArrowSchema* dictionary;

  // Release callback
  void (*release)(struct ArrowSchema*);
  // Opaque producer-specific data
  void* private_data;
};

struct ArrowArray {
  // Array data description
  int64_t length;
  int64_t null_count;
  int64_t offset;
  int64_t n_buffers;
  int64_t n_children;
  const void** buffers;
  struct ArrowArray** children;
  struct ArrowArray* dictionary;

  // Release callback
  void (*release)(struct ArrowArray*);
  // Opaque producer-specific data
  void* private_data;
};

#  define ARROW_STATISTICS_KEY_AVERAGE_BYTE_WIDTH_EXACT "ARROW:average_byte_width:exact"
#  define ARROW_STATISTICS_KEY_AVERAGE_BYTE_WIDTH_APPROXIMATE \
    "ARROW:average_byte_width:approximate"
#  define ARROW_STATISTICS_KEY_DISTINCT_COUNT_EXACT "ARROW:distinct_count:exact"
#  define ARROW_STATISTICS_KEY_DISTINCT_COUNT_APPROXIMATE \
    "ARROW:distinct_count:approximate"
#  define ARROW_STATISTICS_KEY_MAX_BYTE_WIDTH_EXACT "ARROW:max_byte_width:exact"
#  define ARROW_STATISTICS_KEY_MAX_BYTE_WIDTH_APPROXIMATE \
    "ARROW:max_byte_width:approximate"
#  define ARROW_STATISTICS_KEY_MAX_VALUE_EXACT "ARROW:max_value:exact"
#  define ARROW_STATISTICS_KEY_MAX_VALUE_APPROXIMATE "ARROW:max_value:approximate"
#  define ARROW_STATISTICS_KEY_MIN_VALUE_EXACT "ARROW:min_value:exact"
#  define ARROW_STATISTICS_KEY_MIN_VALUE_APPROXIMATE "ARROW:min_value:approximate"
#  define ARROW_STATISTICS_KEY_NULL_COUNT_EXACT "ARROW:null_count:exact"
#  define ARROW_STATISTICS_KEY_NULL_COUNT_APPROXIMATE "ARROW:null_count:approximate"
#  define ARROW_STATISTICS_KEY_ROW_COUNT_EXACT "ARROW:row_count:exact"
#  define ARROW_STATISTICS_KEY_ROW_COUNT_APPROXIMATE "ARROW:row_count:approximate"

#endif  // ARROW_C_DATA_INTERFACE

#ifndef ARROW_C_DEVICE_DATA_INTERFACE
#  define ARROW_C_DEVICE_DATA_INTERFACE

// Spec and Documentation: https://arrow.apache.org/docs/format/CDeviceDataInterface.html

// DeviceType for the allocated memory
typedef int32_t ArrowDeviceType;

// CPU device, same as using ArrowArray directly
#  define ARROW_DEVICE_CPU 1
// CUDA GPU Device
#  define ARROW_DEVICE_CUDA 2
// Pinned CUDA CPU memory by cudaMallocHost
#  define ARROW_DEVICE_CUDA_HOST 3
// OpenCL Device
#  define ARROW_DEVICE_OPENCL 4
// Vulkan buffer for next-gen graphics
#  define ARROW_DEVICE_VULKAN 7
// Metal for Apple GPU
#  define ARROW_DEVICE_METAL 8
// Verilog simulator buffer
#  define ARROW_DEVICE_VPI 9
// ROCm GPUs for AMD GPUs
#  define ARROW_DEVICE_ROCM 10
// Pinned ROCm CPU memory allocated by hipMallocHost
#  define ARROW_DEVICE_ROCM_HOST 11
// Reserved for extension
#  define ARROW_DEVICE_EXT_DEV 12
// CUDA managed/unified memory allocated by cudaMallocManaged
#  define ARROW_DEVICE_CUDA_MANAGED 13
// unified shared memory allocated on a oneAPI non-partitioned device.
#  define ARROW_DEVICE_ONEAPI 14
// GPU support for next-gen WebGPU standard
#  define ARROW_DEVICE_WEBGPU 15
// Qualcomm Hexagon DSP
#  define ARROW_DEVICE_HEXAGON 16

struct ArrowDeviceArray {
  // the Allocated Array
  //
  // the buffers in the array (along with the buffers of any
  // children) are what is allocated on the device.
  struct ArrowArray array;
  // The device id to identify a specific device
  int64_t device_id;
  // The type of device which can access this memory.
  ArrowDeviceType device_type;
  // An event-like object to synchronize on if needed.
  void* sync_event;
  // Reserved bytes for future expansion.
  int64_t reserved[3];
};

#endif  // ARROW_C_DEVICE_DATA_INTERFACE

#ifndef ARROW_C_STREAM_INTERFACE
#  define ARROW_C_STREAM_INTERFACE

struct ArrowArrayStream {
  // Callback to get the stream type
  // (will be the same for all arrays in the stream).
  //
  // Return value: 0 if successful, an `errno`-compatible error code otherwise.
  //
  // If successful, the ArrowSchema must be released independently from the stream.
  int (*get_schema)(struct ArrowArrayStream*, struct ArrowSchema* out);

  // Callback to get the next array
  // (if no error and the array is released, the stream has ended)
  //
  // Return value: 0 if successful, an `errno`-compatible error code otherwise.
  //
  // If successful, the ArrowArray must be released independently from the stream.
  int (*get_next)(struct ArrowArrayStream*, struct ArrowArray* out);

  // Callback to get optional detailed error information.
  // This must only be called if the last stream operation failed
  // with a non-0 return code.
  //
  // Return value: pointer to a null-terminated character array describing
  // the last error, or NULL if no description is available.
  //
  // The returned pointer is only valid until the next operation on this stream
  // (including release).
  const char* (*get_last_error)(struct ArrowArrayStream*);

  // Release callback: release the stream's own resources.
  // Note that arrays returned by `get_next` must be individually released.
  void (*release)(struct ArrowArrayStream*);

  // Opaque producer-specific data
  void* private_data;
};

#endif  // ARROW_C_STREAM_INTERFACE

#ifndef ARROW_C_DEVICE_STREAM_INTERFACE
#  define ARROW_C_DEVICE_STREAM_INTERFACE

// Equivalent to ArrowArrayStream, but for ArrowDeviceArrays.
//
// This stream is intended to provide a stream of data on a single
// device, if a producer wants data to be produced on multiple devices
// then multiple streams should be provided. One per device.
struct ArrowDeviceArrayStream {
  // The device that this stream produces data on.
  ArrowDeviceType device_type;

  // Callback to get the stream schema
  // (will be the same for all arrays in the stream).
  //
  // Return value 0 if successful, an `errno`-compatible error code otherwise.
  //
  // If successful, the ArrowSchema must be released independently from the stream.
  // The schema should be accessible via CPU memory.
  int (*get_schema)(struct ArrowDeviceArrayStream* self, struct ArrowSchema* out);

  // Callback to get the next array
  // (if no error and the array is released, the stream has ended)
  //
  // Return value: 0 if successful, an `errno`-compatible error code otherwise.
  //
  // If successful, the ArrowDeviceArray must be released independently from the stream.
  int (*get_next)(struct ArrowDeviceArrayStream* self, struct ArrowDeviceArray* out);

  // Callback to get optional detailed error information.
  // This must only be called if the last stream operation failed
  // with a non-0 return code.
  //
  // Return value: pointer to a null-terminated character array describing
  // the last error, or NULL if no description is available.
  //
  // The returned pointer is only valid until the next operation on this stream
  // (including release).
  const char* (*get_last_error)(struct ArrowDeviceArrayStream* self);

  // Release callback: release the stream's own resources.
  // Note that arrays returned by `get_next` must be individually released.
  void (*release)(struct ArrowDeviceArrayStream* self);

  // Opaque producer-specific data
  void* private_data;
};

#endif  // ARROW_C_DEVICE_STREAM_INTERFACE
/* ---- Arrow's abi.h: end ---- */

/* ---- For generated `_arrow` launchers ---- */

/* How a column of a launcher's type lies in Arrow memory. */
typedef enum udfkit_arrow_layout {
    UDFKIT_ARROW_FIXED,   /* fixed-width values (buffers: validity, values) */
    UDFKIT_ARROW_BOOLEAN, /* Arrow's bit-packed booleans; udfkit's bool columns are bytes */
    UDFKIT_ARROW_STRING   /* utf8 ("u"), large_utf8 ("U") or utf8_view ("vu") */
} udfkit_arrow_layout;

/* One column's type as the launcher's UDF declares it. */
typedef struct udfkit_arrow_type {
    const char *format; /* Arrow's format string ("f", "tdD", "tsu:", "d:15,2"); a string: "u",
                           which inputs take in any of the three layouts */
    const char *name;   /* the spec's spelling, for messages: "float32", "timestamp[us]" */
    udfkit_arrow_layout layout;
    unsigned size;      /* bytes of one value in udfkit's columns (a bool: 1) */
} udfkit_arrow_type;

/* Columns of one launch: at most as many as a UDF has parameters. */
#define UDFKIT_ARROW_MAX_COLUMNS 32

struct udfkit_arrow_result;

/* One `_arrow` launch: udfkit_arrow_begin fills the inputs and the outputs' places from the
 * arrays, the launcher runs its raw launcher on them, and udfkit_arrow_end hands the results
 * over (or frees them). Its fields are the runtime's; generated code reads n, masked and the
 * columns. */
typedef struct udfkit_arrow_call {
    const char *launcher;
    udfkit_stream s;
    size_t n;
    bool masked; /* an input has nulls: the launcher runs the nullable kernels */
    size_t ninputs, noutputs;
    const void *values[UDFKIT_ARROW_MAX_COLUMNS];       /* fixed-width inputs, offset applied */
    udfkit_mask masks[UDFKIT_ARROW_MAX_COLUMNS];        /* every input's validity */
    udfkit_strings strings[UDFKIT_ARROW_MAX_COLUMNS];   /* string inputs */
    void *out_values[UDFKIT_ARROW_MAX_COLUMNS];         /* the outputs' values */
    uint8_t *out_bits[UDFKIT_ARROW_MAX_COLUMNS];        /* and their validity, from bit 0 */
    uint64_t *null_counts;                              /* device: one per output */
    bool *bools[UDFKIT_ARROW_MAX_COLUMNS];              /* bool inputs as udfkit's byte columns */
    bool *out_bools[UDFKIT_ARROW_MAX_COLUMNS];          /* bool outputs likewise, before packing */
    int64_t *out_offsets[UDFKIT_ARROW_MAX_COLUMNS];     /* string outputs: large_utf8 offsets (n + 1), */
    char *out_chars[UDFKIT_ARROW_MAX_COLUMNS];          /*   their bytes (udfkit_arrow_text) */
    uint64_t *indices, *count;                          /* a filter's kept rows and their number (device) */
    /* The runtime's. */
    const udfkit_arrow_type *out_types;
    bool out_nullable;
    bool select; /* a filter's: the outputs are the inputs' kept rows */
    int device;  /* the current context's device */
    unsigned long long context; /* the current context's id (cuCtxGetId), its results' events' */
    struct ArrowDeviceArray *outs[UDFKIT_ARROW_MAX_COLUMNS];
    struct ArrowSchema *out_schemas[UDFKIT_ARROW_MAX_COLUMNS];
    struct udfkit_arrow_result *results[UDFKIT_ARROW_MAX_COLUMNS];
    void *temporary; /* freed in stream order after the launch */
} udfkit_arrow_call;

/* Checks the launch's inputs (a1, t1, ...) against their types, waits for their sync events
 * on s and takes their columns; prepares each output (out, out_type; or out1, out_type1, ...
 * where there are several, or `select`), of n rows, with a validity bitmap where
 * `nullable_out` or an input has nulls. With `select` (a filter's) the outputs are the
 * inputs' kept rows, of the inputs' types, without nulls, and indices and count are
 * allocated for the filter's launcher. Refusals are UDFKIT_ERROR_INVALID_ARGUMENT naming the
 * argument, before anything is queued or allocated. */
UDFKIT_RUNTIME_API udfkit_status udfkit_arrow_begin(udfkit_arrow_call *c, const char *launcher, udfkit_stream s,
                                                    const udfkit_arrow_type *in_types,
                                                    const struct ArrowDeviceArray *const *in,
                                                    const struct ArrowSchema *const *in_schemas, size_t ninputs,
                                                    const udfkit_arrow_type *out_types,
                                                    struct ArrowDeviceArray *const *out,
                                                    struct ArrowSchema *const *out_schemas, size_t noutputs,
                                                    bool nullable_out, bool select);
/* A filter's udfkit_arrow_begin (`select`), for a launcher that selects the kept rows' values
 * itself where it can: where no input has nulls and no column is a string, indices stay NULL
 * and count is placed after the first output's values (in its block: no temporary block for
 * them), for the library's filter(p, values) launcher, which writes each input's kept rows
 * into its output at once; otherwise as udfkit_arrow_begin with `select` (the rows' numbers
 * for the nullable_filter launcher, then udfkit_arrow_gather). */
UDFKIT_RUNTIME_API udfkit_status udfkit_arrow_begin_filter(udfkit_arrow_call *c, const char *launcher,
                                                           udfkit_stream s, const udfkit_arrow_type *in_types,
                                                           const struct ArrowDeviceArray *const *in,
                                                           const struct ArrowSchema *const *in_schemas,
                                                           size_t ninputs, const udfkit_arrow_type *out_types,
                                                           struct ArrowDeviceArray *const *out,
                                                           struct ArrowSchema *const *out_schemas, size_t noutputs);
/* Where an input is bool: unpacks each bool input's bits (from its offset) into its byte
 * column with the library's `unpack` kernel (udfkit_<name>_arrow_unpack(bits, offset, n,
 * bytes)). */
UDFKIT_RUNTIME_API udfkit_status udfkit_arrow_unpack(udfkit_arrow_call *c, udfkit_kernel unpack,
                                                     const struct ArrowDeviceArray *const *in);
/* Where an output is a string (a large_utf8 array: docs/strings.md's two launches): after the
 * launch that wrote its offsets (the sizes launch), waits for s, reads the total and allocates
 * the bytes (out_chars) that the second launch writes. */
UDFKIT_RUNTIME_API udfkit_status udfkit_arrow_text(udfkit_arrow_call *c);
/* A filter's: each input's kept rows into its output with the library's `gather` kernel
 * (udfkit_<name>_arrow_gather(in, size, indices, count, out)); nothing where the launch
 * selected the values at once (indices NULL: udfkit_arrow_begin_filter). */
UDFKIT_RUNTIME_API udfkit_status udfkit_arrow_gather(udfkit_arrow_call *c, udfkit_kernel gather);
/* A filter's over string columns: each string input's kept rows as its large_utf8 output
 * (out_offsets, n + 1 entries): first their sizes, then 0 up to entry n, with the library's
 * `sizes` kernel (udfkit_<name>_arrow_text_sizes(in, indices, count, n, offsets)), which the
 * library's offsets scan turns into offsets; then, once udfkit_arrow_text has allocated the
 * bytes, the bytes with its `copy` kernel (udfkit_<name>_arrow_text_copy(in, indices, count,
 * offsets, chars)). */
UDFKIT_RUNTIME_API udfkit_status udfkit_arrow_gather_sizes(udfkit_arrow_call *c, udfkit_kernel sizes);
UDFKIT_RUNTIME_API udfkit_status udfkit_arrow_gather_copy(udfkit_arrow_call *c, udfkit_kernel copy);
/* After the launch (its status `launched`): packs bool outputs with the library's `pack` kernel
 * (udfkit_<name>_arrow_pack(bytes, n, bits); NULL where no output is bool), records each
 * output's event on s and hands each output array and schema over, with release callbacks;
 * otherwise frees them and returns that status. Without an input's nulls (and for map's UDFs,
 * which return no null) null_count is 0 and the validity buffer NULL; otherwise the count is
 * known once the launch has run, and null_count is Arrow's -1, "not yet computed", unless a
 * map's inputs tell it (a row is null where an input is: one input null throughout, n; only
 * one input with nulls, of a known count, that count). A filter's
 * waits for s to read how many rows were kept: Arrow's length is a host number. */
UDFKIT_RUNTIME_API udfkit_status udfkit_arrow_end(udfkit_arrow_call *c, udfkit_status launched, udfkit_kernel pack);

#ifdef __cplusplus
}
#endif

#endif /* UDFKIT_ARROW_H */
