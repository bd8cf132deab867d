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

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "nanoarrow/ipc/flatcc_generated.h"
#include "nanoarrow/nanoarrow.h"
#include "nanoarrow/nanoarrow_ipc.h"

// ENODATA is an XSI extension and is not defined by all libcs (e.g., older
// Windows/MinGW toolchains used by R 3.6, FreeBSD, and OpenBSD).
#if !defined(ENODATA)
#define ENODATA 120
#endif

#define NANOARROW_IPC_MAGIC "ARROW1"

#define NANOARROW_IPC_NO_DICTIONARY_ID INT64_MIN

#define ns(x) FLATBUFFERS_WRAP_NAMESPACE(org_apache_arrow_flatbuf, x)

// Internal representation of a parsed "Field" from flatbuffers. This
// represents a field in a depth-first walk of column arrays and their
// children.
struct ArrowIpcField {
  // Pointer to the ArrowIpcDecoderPrivate::array_view or child for this node
  struct ArrowArrayView* array_view;
  // Pointer to the ArrowIpcDecoderPrivate::array or child for this node. This
  // array is scratch space for any intermediary allocations (i.e., it is never moved
  // to the user).
  struct ArrowArray* array;
  // The cumulative number of buffers preceding this node.
  int64_t buffer_offset;
  // Dictionary identifier (or NANOARROW_IPC_NO_DICTIONARY_ID if this is not a
  // dictionary-encoded field)
  int64_t dictionary_id;
};

// Internal data specific to the read/decode process
struct ArrowIpcDecoderPrivate {
  // The endianness that will be assumed for decoding future RecordBatch messages
  enum ArrowIpcEndianness endianness;
  // A cached system endianness value
  enum ArrowIpcEndianness system_endianness;
  // An ArrowArrayView whose length/null_count/buffers are set directly from the
  // deserialized flatbuffer message (i.e., no fully underlying ArrowArray exists,
  // although some buffers may be temporarily owned by ArrowIpcDecoderPrivate::array).
  struct ArrowArrayView array_view;
  // An ArrowArray with the same structure as the ArrowArrayView whose ArrowArrayBuffer()
  // values are used to allocate or store memory when this is required. This ArrowArray
  // is never moved to the caller; however, its buffers may be moved to the final output
  // ArrowArray if the caller requests one.
  struct ArrowArray array;
  // The number of fields in the flattened depth-first walk of columns and their children
  int64_t n_fields;
  // Array of cached information such that given a field index it is possible to locate
  // the ArrowArrayView/ArrowArray where the depth-first buffer/field walk should start.
  struct ArrowIpcField* fields;
  // The number of buffers that future RecordBatch messages must have to match the schema
  // that has been set.
  int64_t n_buffers;
  // The number of union fields in the Schema.
  int64_t n_union_fields;
  // A pointer to the last flatbuffers message.
  const void* last_message;
  // Storage for a DictionaryBatch
  struct ArrowIpcDictionaryBatch dictionary;
  // Storage for a Footer
  struct ArrowIpcFooter footer;
  // Decompressor for compression support
  struct ArrowIpcDecompressor decompressor;
};

ArrowErrorCode ArrowIpcCheckRuntime(struct ArrowError* error) {
  // Avoids unused warnings when bundling the header into nanoarrow_ipc.c
  NANOARROW_UNUSED(flatbuffers_end);
  NANOARROW_UNUSED(flatcc_builder_is_nested);
  NANOARROW_UNUSED(__org_apache_arrow_flatbuf_Null_required);
  NANOARROW_UNUSED(__org_apache_arrow_flatbuf_Struct__required);
  NANOARROW_UNUSED(__org_apache_arrow_flatbuf_List_required);
  NANOARROW_UNUSED(__org_apache_arrow_flatbuf_LargeList_required);
  NANOARROW_UNUSED(__org_apache_arrow_flatbuf_ListView_required);
  NANOARROW_UNUSED(__org_apache_arrow_flatbuf_LargeListView_required);
  NANOARROW_UNUSED(__org_apache_arrow_flatbuf_FixedSizeList_required);
  NANOARROW_UNUSED(__org_apache_arrow_flatbuf_Map_required);
  NANOARROW_UNUSED(__org_apache_arrow_flatbuf_Union_required);
  NANOARROW_UNUSED(__org_apache_arrow_flatbuf_Int_required);
  NANOARROW_UNUSED(__org_apache_arrow_flatbuf_FloatingPoint_required);
  NANOARROW_UNUSED(__org_apache_arrow_flatbuf_Utf8_required);
  NANOARROW_UNUSED(__org_apache_arrow_flatbuf_Binary_required);
  NANOARROW_UNUSED(__org_apache_arrow_flatbuf_LargeUtf8_required);
  NANOARROW_UNUSED(__org_apache_arrow_flatbuf_LargeBinary_required);
  NANOARROW_UNUSED(__org_apache_arrow_flatbuf_Utf8View_required);
  NANOARROW_UNUSED(__org_apache_arrow_flatbuf_BinaryView_required);
  NANOARROW_UNUSED(__org_apache_arrow_flatbuf_FixedSizeBinary_required);
  NANOARROW_UNUSED(__org_apache_arrow_flatbuf_Bool_required);
  NANOARROW_UNUSED(__org_apache_arrow_flatbuf_RunEndEncoded_required);
  NANOARROW_UNUSED(__org_apache_arrow_flatbuf_Decimal_required);
  NANOARROW_UNUSED(__org_apache_arrow_flatbuf_Date_required);
  NANOARROW_UNUSED(__org_apache_arrow_flatbuf_Time_required);
  NANOARROW_UNUSED(__org_apache_arrow_flatbuf_Timestamp_required);
  NANOARROW_UNUSED(__org_apache_arrow_flatbuf_Interval_required);
  NANOARROW_UNUSED(__org_apache_arrow_flatbuf_Duration_required);
  NANOARROW_UNUSED(__org_apache_arrow_flatbuf_KeyValue_required);
  NANOARROW_UNUSED(__org_apache_arrow_flatbuf_DictionaryEncoding_required);
  NANOARROW_UNUSED(__org_apache_arrow_flatbuf_Field_required);
  NANOARROW_UNUSED(__org_apache_arrow_flatbuf_Schema_required);
  NANOARROW_UNUSED(__org_apache_arrow_flatbuf_Footer_required);
  NANOARROW_UNUSED(__org_apache_arrow_flatbuf_TensorDim_required);
  NANOARROW_UNUSED(__org_apache_arrow_flatbuf_Tensor_required);
  NANOARROW_UNUSED(__org_apache_arrow_flatbuf_SparseTensorIndexCOO_required);
  NANOARROW_UNUSED(__org_apache_arrow_flatbuf_SparseMatrixIndexCSX_required);
  NANOARROW_UNUSED(__org_apache_arrow_flatbuf_SparseTensorIndexCSF_required);
  NANOARROW_UNUSED(__org_apache_arrow_flatbuf_SparseTensor_required);
  NANOARROW_UNUSED(__org_apache_arrow_flatbuf_BodyCompression_required);
  NANOARROW_UNUSED(__org_apache_arrow_flatbuf_RecordBatch_required);
  NANOARROW_UNUSED(__org_apache_arrow_flatbuf_DictionaryBatch_required);
  NANOARROW_UNUSED(__org_apache_arrow_flatbuf_Message_required);

  const char* nanoarrow_runtime_version = ArrowNanoarrowVersion();
  const char* nanoarrow_ipc_build_time_version = NANOARROW_VERSION;

  if (strcmp(nanoarrow_runtime_version, nanoarrow_ipc_build_time_version) != 0) {
    ArrowErrorSet(error, "Expected nanoarrow runtime version '%s' but found version '%s'",
                  nanoarrow_ipc_build_time_version, nanoarrow_runtime_version);
    return EINVAL;
  }

  return NANOARROW_OK;
}

static int ArrowIpcDecoderNeedsSwapEndian(struct ArrowIpcDecoder* decoder) {
  struct ArrowIpcDecoderPrivate* private_data =
      (struct ArrowIpcDecoderPrivate*)decoder->private_data;
  switch (private_data->endianness) {
    case NANOARROW_IPC_ENDIANNESS_LITTLE:
    case NANOARROW_IPC_ENDIANNESS_BIG:
      return private_data->endianness != NANOARROW_IPC_ENDIANNESS_UNINITIALIZED &&
             private_data->endianness != private_data->system_endianness;
    default:
      return 0;
  }
}

void ArrowIpcDictionaryEncodingsInit(
    struct ArrowIpcDictionaryEncodings* dictionary_encodings) {
  NANOARROW_DCHECK(dictionary_encodings != NULL);
  ArrowBufferInit(&dictionary_encodings->encodings);
}

ArrowErrorCode ArrowIpcDictionaryEncodingsAppend(
    struct ArrowIpcDictionaryEncodings* dictionary_encodings,
    struct ArrowIpcDictionaryEncoding encoding) {
  NANOARROW_DCHECK(dictionary_encodings != NULL);
  NANOARROW_RETURN_NOT_OK(ArrowBufferAppend(&dictionary_encodings->encodings, &encoding,
                                            sizeof(struct ArrowIpcDictionaryEncoding)));
  return NANOARROW_OK;
}

static ArrowErrorCode ArrowIpcDictionaryEncodingsAppendSchemaInternal(
    struct ArrowIpcDictionaryEncodings* dictionary_encodings,
    const struct ArrowSchema* schema, int64_t* next_id) {
  if (schema->dictionary != NULL) {
    struct ArrowIpcDictionaryEncoding encoding;
    encoding.schema = schema;
    encoding.id = (*next_id)++;
    encoding.kind = NANOARROW_IPC_DICTIONARY_KIND_DENSE_ARRAY;
    NANOARROW_RETURN_NOT_OK(
        ArrowIpcDictionaryEncodingsAppend(dictionary_encodings, encoding));
  }

  for (int64_t i = 0; i < schema->n_children; i++) {
    NANOARROW_DCHECK(schema->children != NULL && schema->children[i] != NULL);
    NANOARROW_RETURN_NOT_OK(ArrowIpcDictionaryEncodingsAppendSchemaInternal(
        dictionary_encodings, schema->children[i], next_id));
  }

  if (schema->dictionary != NULL) {
    NANOARROW_RETURN_NOT_OK(ArrowIpcDictionaryEncodingsAppendSchemaInternal(
        dictionary_encodings, schema->dictionary, next_id));
  }

  return NANOARROW_OK;
}

ArrowErrorCode ArrowIpcDictionaryEncodingsAppendSchema(
    struct ArrowIpcDictionaryEncodings* dictionary_encodings,
    const struct ArrowSchema* schema) {
  NANOARROW_DCHECK(dictionary_encodings != NULL);

  int64_t next_id = 0;
  NANOARROW_RETURN_NOT_OK(ArrowIpcDictionaryEncodingsAppendSchemaInternal(
      dictionary_encodings, schema, &next_id));

  return NANOARROW_OK;
}

const struct ArrowIpcDictionaryEncoding* ArrowIpcDictionaryEncodingsFind(
    const struct ArrowIpcDictionaryEncodings* dictionary_encodings,
    const struct ArrowSchema* schema) {
  NANOARROW_DCHECK(dictionary_encodings != NULL);
  int64_t length = dictionary_encodings->encodings.size_bytes /
                   sizeof(struct ArrowIpcDictionaryEncoding);
  const struct ArrowIpcDictionaryEncoding* data =
      (const struct ArrowIpcDictionaryEncoding*)dictionary_encodings->encodings.data;

  for (int64_t i = 0; i < length; i++) {
    const struct ArrowIpcDictionaryEncoding* encoding = data + i;
    if (encoding->schema == schema) {
      return encoding;
    }
  }

  return NULL;
}

const struct ArrowIpcDictionaryEncoding* ArrowIpcDictionaryEncodingsFindById(
    const struct ArrowIpcDictionaryEncodings* dictionary_encodings, int64_t id) {
  NANOARROW_DCHECK(dictionary_encodings != NULL);
  int64_t length = dictionary_encodings->encodings.size_bytes /
                   sizeof(struct ArrowIpcDictionaryEncoding);
  const struct ArrowIpcDictionaryEncoding* data =
      (const struct ArrowIpcDictionaryEncoding*)dictionary_encodings->encodings.data;

  for (int64_t i = 0; i < length; i++) {
    const struct ArrowIpcDictionaryEncoding* encoding = data + i;
    if (encoding->id == id) {
      return encoding;
    }
  }

  return NULL;
}

static int ArrowIpcIdsListContains(const struct ArrowBuffer* ids_buffer, int64_t num_ids,
                                   int64_t id) {
  const int64_t* ids = (const int64_t*)ids_buffer->data;
  for (int64_t i = 0; i < num_ids; i++) {
    if (ids[i] == id) {
      return 1;
    }
  }

  return 0;
}

ArrowErrorCode ArrowIpcDictionaryEncodingsUniqueIds(
    const struct ArrowIpcDictionaryEncodings* dictionary_encodings,
    struct ArrowBuffer* out) {
  NANOARROW_DCHECK(dictionary_encodings != NULL);
  int64_t length = dictionary_encodings->encodings.size_bytes /
                   sizeof(struct ArrowIpcDictionaryEncoding);
  const struct ArrowIpcDictionaryEncoding* data =
      (const struct ArrowIpcDictionaryEncoding*)dictionary_encodings->encodings.data;

  struct ArrowBuffer tmp;
  ArrowBufferInit(&tmp);

  ArrowErrorCode result;
  int64_t num_ids = 0;
  for (int64_t i = 0; i < length; i++) {
    const struct ArrowIpcDictionaryEncoding* encoding = data + i;
    if (!ArrowIpcIdsListContains(&tmp, num_ids, encoding->id)) {
      result = ArrowBufferAppendInt64(&tmp, encoding->id);
      if (result != NANOARROW_OK) {
        ArrowBufferReset(&tmp);
        return result;
      }

      ++num_ids;
    }
  }

  ArrowBufferMove(&tmp, out);
  return NANOARROW_OK;
}

void ArrowIpcDictionaryEncodingsReset(
    struct ArrowIpcDictionaryEncodings* dictionary_encodings) {
  NANOARROW_DCHECK(dictionary_encodings != NULL);
  ArrowBufferReset(&dictionary_encodings->encodings);
}

/// \brief Internal member of an ArrowIpcDictionaries
///
/// This structure stores a dictionary-specific decoder and the current value
/// of the dictionary (if one exists).
struct ArrowIpcDictionary {
  int64_t id;
  struct ArrowIpcDecoder decoder;
  struct ArrowArray current_value;
};

static ArrowErrorCode ArrowIpcDictionaryInit(struct ArrowIpcDictionary* dictionary) {
  dictionary->id = NANOARROW_IPC_NO_DICTIONARY_ID;
  NANOARROW_RETURN_NOT_OK(ArrowIpcDecoderInit(&dictionary->decoder));
  memset(&dictionary->current_value, 0, sizeof(struct ArrowArray));
  return NANOARROW_OK;
}

static ArrowErrorCode ArrowIpcDictionaryReplace(struct ArrowIpcDictionary* dictionary,
                                                struct ArrowArray* value,
                                                struct ArrowError* error) {
  NANOARROW_UNUSED(error);

  if (dictionary->current_value.release != NULL) {
    ArrowArrayRelease(&dictionary->current_value);
  }

  // Convert to a shared array so that clones can reference the same data
  // without copying
  struct ArrowArray shared;
  NANOARROW_RETURN_NOT_OK(ArrowArrayMoveShared(value, &shared));
  ArrowArrayMove(&shared, &dictionary->current_value);
  return NANOARROW_OK;
}

static ArrowErrorCode ArrowIpcDictionaryAppend(struct ArrowIpcDictionary* dictionary,
                                               struct ArrowArray* value,
                                               struct ArrowError* error) {
  if (dictionary->current_value.release != NULL &&
      dictionary->current_value.length != 0) {
    ArrowErrorSet(error, "Dictionary concatenation is not yet supported");
    return ENOTSUP;
  }

  NANOARROW_RETURN_NOT_OK(ArrowIpcDictionaryReplace(dictionary, value, error));
  return NANOARROW_OK;
}

static void ArrowIpcDictionaryReset(struct ArrowIpcDictionary* dictionary) {
  ArrowIpcDecoderReset(&dictionary->decoder);
  if (dictionary->current_value.release) {
    ArrowArrayRelease(&dictionary->current_value);
  }
}

struct ArrowIpcDictionariesPrivate {
  struct ArrowIpcDictionary* dictionaries;
  int64_t num_dictionaries;
};

static void ArrowIpcDictionariesNoOpSchemaRelease(struct ArrowSchema* schema) {
  NANOARROW_UNUSED(schema);
}

static ArrowErrorCode ArrowIpcDictionariesInitDictionaries(
    struct ArrowIpcDictionariesPrivate* private_data,
    const struct ArrowIpcDictionaryEncodings* dictionary_encodings,
    const struct ArrowBuffer* unique_ids_buffer, int64_t* num_initialized_decoders_out,
    struct ArrowError* error) {
  ArrowErrorCode result;
  const int64_t* unique_ids = (const int64_t*)unique_ids_buffer->data;

  // To set the schema of each ArrowIpcDictionary's encoder, we need to construct a
  // const ArrowSchema* that points to a struct with exactly one child that is the
  // value type. To support nested dictionaries that may exist within
  // ArrowIpcDictionaryEncodings, we can't deep copy the value type because it would
  // invalidate pointer references within dictionary_encodings (i.e., nested dictionaries
  // would fail to resolve when we call ArrowIpcDecoderSetSchemaWithDictionaries()).
  // To make this work, we create an ArrowSchema with a noop release to pass to
  // ArrowIpcDecoderSetSchemaWithDictionaries(). This works because that function
  // accepts a const value (i.e., never releases the schema argument).
  struct ArrowSchema decoder_schema;
  memset(&decoder_schema, 0, sizeof(struct ArrowSchema));
  decoder_schema.name = "";
  decoder_schema.format = "+s";
  decoder_schema.n_children = 1;
  decoder_schema.release = &ArrowIpcDictionariesNoOpSchemaRelease;

  for (int64_t i = 0; i < private_data->num_dictionaries; i++) {
    struct ArrowIpcDictionary* dictionary = private_data->dictionaries + i;
    result = ArrowIpcDictionaryInit(dictionary);
    if (result != NANOARROW_OK) {
      ArrowErrorSet(error, "Internal error (failed to initialize dictionary)");
      *num_initialized_decoders_out = i;
      return result;
    }

    const struct ArrowIpcDictionaryEncoding* encoding =
        ArrowIpcDictionaryEncodingsFindById(dictionary_encodings, unique_ids[i]);
    if (encoding == NULL) {
      ArrowErrorSet(error,
                    "Internal error (dictionary with id not present in encodings list)");
      *num_initialized_decoders_out = i + 1;
      return EINVAL;
    }

    // The decoder's schema will be a struct with one column (the value type of
    // the dictionary-encoded field)
    decoder_schema.children = (struct ArrowSchema**)&encoding->schema->dictionary;

    result = ArrowIpcDecoderSetSchemaWithDictionaries(
        &dictionary->decoder, &decoder_schema, dictionary_encodings, error);
    if (result != NANOARROW_OK) {
      *num_initialized_decoders_out = i + 1;
      return result;
    }

    // Set the ID
    dictionary->id = unique_ids[i];

    // Set the initial array value to a valid array with zero length. This is
    // needed because empty and/or all null columns may not have a dictionary
    // message emitted before a record batch arrives.
    struct ArrowArray initial_value;
    result =
        ArrowArrayInitFromSchema(&initial_value, encoding->schema->dictionary, error);
    if (result != NANOARROW_OK) {
      *num_initialized_decoders_out = i + 1;
      return result;
    }

    result = ArrowArrayFinishBuildingDefault(&initial_value, error);
    if (result != NANOARROW_OK) {
      ArrowArrayRelease(&initial_value);
      *num_initialized_decoders_out = i + 1;
      return result;
    }

    // Convert to a shared array so that clones can reference the same data
    // without copying
    result = ArrowArrayMoveShared(&initial_value, &dictionary->current_value);
    if (result != NANOARROW_OK) {
      ArrowArrayRelease(&initial_value);
      *num_initialized_decoders_out = i + 1;
      return result;
    }
  }

  *num_initialized_decoders_out = private_data->num_dictionaries;
  return NANOARROW_OK;
}

ArrowErrorCode ArrowIpcDictionariesInit(
    struct ArrowIpcDictionaries* dictionaries,
    const struct ArrowIpcDictionaryEncodings* dictionary_encodings,
    struct ArrowError* error) {
  NANOARROW_DCHECK(dictionaries != NULL);
  NANOARROW_DCHECK(dictionary_encodings != NULL);

  memset(dictionaries, 0, sizeof(struct ArrowIpcDictionaries));
  struct ArrowIpcDictionariesPrivate* private_data =
      (struct ArrowIpcDictionariesPrivate*)ArrowMalloc(
          sizeof(struct ArrowIpcDictionariesPrivate));
  if (private_data == NULL) {
    ArrowErrorSet(error, "Failed to allocate ArrowIpcDictionariesPrivate");
    return ENOMEM;
  }

  // Count the number of unique IDs. This will usually be the number of dictionary
  // encodings but may be much smaller if there are a lot of dictionary encoded fields
  // that use the same dictionary.
  struct ArrowBuffer unique_ids;
  ArrowErrorCode result =
      ArrowIpcDictionaryEncodingsUniqueIds(dictionary_encodings, &unique_ids);
  if (result != NANOARROW_OK) {
    ArrowErrorSet(error, "Failed to extract unique identifiers");
    ArrowFree(private_data);
    return result;
  }

  // unique_ids is a buffer of int64_t
  private_data->num_dictionaries = unique_ids.size_bytes / sizeof(int64_t);

  // Allocate the array of ArrowIpcDictionary
  if (private_data->num_dictionaries > 0) {
    private_data->dictionaries =
        ArrowMalloc(private_data->num_dictionaries * sizeof(struct ArrowIpcDictionary));
    if (private_data->dictionaries == NULL) {
      ArrowErrorSet(error, "Failed to allocate ArrowIpcDictionary array");
      ArrowBufferReset(&unique_ids);
      ArrowFree(private_data);
      return ENOMEM;
    }
  } else {
    private_data->dictionaries = NULL;
  }

  int64_t num_initialized_dictionaries = 0;
  result = ArrowIpcDictionariesInitDictionaries(private_data, dictionary_encodings,
                                                &unique_ids,
                                                &num_initialized_dictionaries, error);
  ArrowBufferReset(&unique_ids);
  if (result != NANOARROW_OK) {
    for (int64_t i = 0; i < num_initialized_dictionaries; i++) {
      ArrowIpcDictionaryReset(private_data->dictionaries + i);
    }

    ArrowFree(private_data->dictionaries);
    ArrowFree(private_data);
    return result;
  }

  dictionaries->private_data = private_data;
  return NANOARROW_OK;
}

static struct ArrowIpcDictionary* ArrowIpcDictionariesFindById(
    struct ArrowIpcDictionaries* dictionaries, int64_t id) {
  NANOARROW_DCHECK(dictionaries != NULL);

  struct ArrowIpcDictionariesPrivate* private_data =
      (struct ArrowIpcDictionariesPrivate*)dictionaries->private_data;
  for (int64_t i = 0; i < private_data->num_dictionaries; i++) {
    struct ArrowIpcDictionary* dictionary = private_data->dictionaries + i;
    if (dictionary->id == id) {
      return dictionary;
    }
  }

  return NULL;
}

ArrowErrorCode ArrowIpcDictionariesFindCurrentValue(
    struct ArrowIpcDictionaries* dictionaries, int64_t id, const struct ArrowArray** out,
    struct ArrowError* error) {
  struct ArrowIpcDictionary* dictionary = ArrowIpcDictionariesFindById(dictionaries, id);
  if (dictionary == NULL) {
    ArrowErrorSet(error,
                  "Can't find value for dictionary with ID %" PRId64
                  " (dictionary definition not found)",
                  id);
    return EINVAL;
  }

  *out = &dictionary->current_value;
  return NANOARROW_OK;
}

void ArrowIpcDictionariesReset(struct ArrowIpcDictionaries* dictionaries) {
  NANOARROW_DCHECK(dictionaries != NULL);
  struct ArrowIpcDictionariesPrivate* private_data =
      (struct ArrowIpcDictionariesPrivate*)dictionaries->private_data;

  for (int64_t i = 0; i < private_data->num_dictionaries; i++) {
    struct ArrowIpcDictionary* dictionary = private_data->dictionaries + i;
    ArrowIpcDictionaryReset(dictionary);
  }

  ArrowFree(private_data->dictionaries);
  ArrowFree(private_data);
  dictionaries->private_data = NULL;
}

ArrowErrorCode ArrowIpcDecoderInit(struct ArrowIpcDecoder* decoder) {
  memset(decoder, 0, sizeof(struct ArrowIpcDecoder));
  struct ArrowIpcDecoderPrivate* private_data =
      (struct ArrowIpcDecoderPrivate*)ArrowMalloc(sizeof(struct ArrowIpcDecoderPrivate));
  if (private_data == NULL) {
    return ENOMEM;
  }

  memset(private_data, 0, sizeof(struct ArrowIpcDecoderPrivate));
  private_data->system_endianness = ArrowIpcSystemEndianness();
  ArrowIpcFooterInit(&private_data->footer);
  decoder->private_data = private_data;
  return NANOARROW_OK;
}

static ArrowErrorCode ArrowIpcDecoderInitDecompressor(
    struct ArrowIpcDecoderPrivate* private_data) {
  if (private_data->decompressor.release == NULL) {
    NANOARROW_RETURN_NOT_OK(ArrowIpcSerialDecompressor(&private_data->decompressor));
  }

  return NANOARROW_OK;
}

ArrowErrorCode ArrowIpcDecoderSetDecompressor(struct ArrowIpcDecoder* decoder,
                                              struct ArrowIpcDecompressor* decompressor) {
  struct ArrowIpcDecoderPrivate* private_data =
      (struct ArrowIpcDecoderPrivate*)decoder->private_data;

  if (private_data->decompressor.release != NULL) {
    private_data->decompressor.release(&private_data->decompressor);
  }

  memcpy(&private_data->decompressor, decompressor, sizeof(struct ArrowIpcDecompressor));
  decompressor->release = NULL;
  return NANOARROW_OK;
}

void ArrowIpcDecoderReset(struct ArrowIpcDecoder* decoder) {
  struct ArrowIpcDecoderPrivate* private_data =
      (struct ArrowIpcDecoderPrivate*)decoder->private_data;

  if (private_data != NULL) {
    ArrowArrayViewReset(&private_data->array_view);

    if (private_data->array.release != NULL) {
      ArrowArrayRelease(&private_data->array);
    }

    if (private_data->fields != NULL) {
      ArrowFree(private_data->fields);
      private_data->n_fields = 0;
    }

    private_data->n_union_fields = 0;

    ArrowIpcFooterReset(&private_data->footer);

    if (private_data->decompressor.release != NULL) {
      private_data->decompressor.release(&private_data->decompressor);
    }

    ArrowFree(private_data);
    memset(decoder, 0, sizeof(struct ArrowIpcDecoder));
  }
}

static inline int32_t ArrowIpcReadInt32LE(struct ArrowBufferView* data, int swap_endian) {
  int32_t value;
  memcpy(&value, data->data.as_uint8, sizeof(int32_t));
  if (swap_endian) {
    value = bswap32(value);
  }

  data->data.as_uint8 += sizeof(int32_t);
  data->size_bytes -= sizeof(int32_t);
  return value;
}

static int ArrowIpcDecoderSetMetadata(struct ArrowSchema* schema,
                                      ns(KeyValue_vec_t) kv_vec,
                                      struct ArrowError* error) {
  int64_t n_pairs = ns(KeyValue_vec_len(kv_vec));
  if (n_pairs == 0) {
    return NANOARROW_OK;
  }

  if (n_pairs > 2147483647) {
    ArrowErrorSet(error,
                  "Expected between 0 and 2147483647 key/value pairs but found %" PRId64,
                  n_pairs);
    return EINVAL;
  }

  struct ArrowBuffer buf;
  struct ArrowStringView key;
  struct ArrowStringView value;
  ns(KeyValue_table_t) kv;

  int result = ArrowMetadataBuilderInit(&buf, NULL);
  if (result != NANOARROW_OK) {
    ArrowBufferReset(&buf);
    ArrowErrorSet(error, "ArrowMetadataBuilderInit() failed");
    return result;
  }

  for (int64_t i = 0; i < n_pairs; i++) {
    kv = ns(KeyValue_vec_at(kv_vec, i));

    key.data = ns(KeyValue_key(kv));
    key.size_bytes = strlen(key.data);
    value.data = ns(KeyValue_value(kv));
    value.size_bytes = strlen(value.data);

    result = ArrowMetadataBuilderAppend(&buf, key, value);
    if (result != NANOARROW_OK) {
      ArrowBufferReset(&buf);
      ArrowErrorSet(error, "ArrowMetadataBuilderAppend() failed");
      return result;
    }
  }

  result = ArrowSchemaSetMetadata(schema, (const char*)buf.data);
  ArrowBufferReset(&buf);
  if (result != NANOARROW_OK) {
    ArrowErrorSet(error, "ArrowSchemaSetMetadata() failed");
    return result;
  }

  return NANOARROW_OK;
}

static int ArrowIpcDecoderSetTypeSimple(struct ArrowSchema* schema, int nanoarrow_type,
                                        struct ArrowError* error) {
  int result = ArrowSchemaSetType(schema, nanoarrow_type);
  if (result != NANOARROW_OK) {
    ArrowErrorSet(error, "ArrowSchemaSetType() failed for type %s",
                  ArrowTypeString(nanoarrow_type));
    return result;
  }

  return NANOARROW_OK;
}

static int ArrowIpcDecoderSetTypeInt(struct ArrowSchema* schema,
                                     flatbuffers_generic_t type_generic,
                                     struct ArrowError* error) {
  ns(Int_table_t) type = (ns(Int_table_t))type_generic;

  int is_signed = ns(Int_is_signed_get(type));
  int bitwidth = ns(Int_bitWidth_get(type));
  int nanoarrow_type = NANOARROW_TYPE_UNINITIALIZED;

  if (is_signed) {
    switch (bitwidth) {
      case 8:
        nanoarrow_type = NANOARROW_TYPE_INT8;
        break;
      case 16:
        nanoarrow_type = NANOARROW_TYPE_INT16;
        break;
      case 32:
        nanoarrow_type = NANOARROW_TYPE_INT32;
        break;
      case 64:
        nanoarrow_type = NANOARROW_TYPE_INT64;
        break;
      default:
        ArrowErrorSet(error,
                      "Expected signed int bitwidth of 8, 16, 32, or 64 but got %d",
                      bitwidth);
        return EINVAL;
    }
  } else {
    switch (bitwidth) {
      case 8:
        nanoarrow_type = NANOARROW_TYPE_UINT8;
        break;
      case 16:
        nanoarrow_type = NANOARROW_TYPE_UINT16;
        break;
      case 32:
        nanoarrow_type = NANOARROW_TYPE_UINT32;
        break;
      case 64:
        nanoarrow_type = NANOARROW_TYPE_UINT64;
        break;
      default:
        ArrowErrorSet(error,
                      "Expected unsigned int bitwidth of 8, 16, 32, or 64 but got %d",
                      bitwidth);
        return EINVAL;
    }
  }

  return ArrowIpcDecoderSetTypeSimple(schema, nanoarrow_type, error);
}

static int ArrowIpcDecoderSetTypeFloatingPoint(struct ArrowSchema* schema,
                                               flatbuffers_generic_t type_generic,
                                               struct ArrowError* error) {
  ns(FloatingPoint_table_t) type = (ns(FloatingPoint_table_t))type_generic;
  int precision = ns(FloatingPoint_precision(type));
  switch (precision) {
    case ns(Precision_HALF):
      return ArrowIpcDecoderSetTypeSimple(schema, NANOARROW_TYPE_HALF_FLOAT, error);
    case ns(Precision_SINGLE):
      return ArrowIpcDecoderSetTypeSimple(schema, NANOARROW_TYPE_FLOAT, error);
    case ns(Precision_DOUBLE):
      return ArrowIpcDecoderSetTypeSimple(schema, NANOARROW_TYPE_DOUBLE, error);
    default:
      ArrowErrorSet(error, "Unexpected FloatingPoint Precision value: %d", precision);
      return EINVAL;
  }
}

static int ArrowIpcDecoderSetTypeDecimal(struct ArrowSchema* schema,
                                         flatbuffers_generic_t type_generic,
                                         struct ArrowError* error) {
  ns(Decimal_table_t) type = (ns(Decimal_table_t))type_generic;
  int scale = ns(Decimal_scale(type));
  int precision = ns(Decimal_precision(type));
  int bitwidth = ns(Decimal_bitWidth(type));

  int result;
  switch (bitwidth) {
    case 32:
      result =
          ArrowSchemaSetTypeDecimal(schema, NANOARROW_TYPE_DECIMAL32, precision, scale);
      break;
    case 64:
      result =
          ArrowSchemaSetTypeDecimal(schema, NANOARROW_TYPE_DECIMAL64, precision, scale);
      break;
    case 128:
      result =
          ArrowSchemaSetTypeDecimal(schema, NANOARROW_TYPE_DECIMAL128, precision, scale);
      break;
    case 256:
      result =
          ArrowSchemaSetTypeDecimal(schema, NANOARROW_TYPE_DECIMAL256, precision, scale);
      break;
    default:
      ArrowErrorSet(error, "Unexpected Decimal bitwidth value: %d", bitwidth);
      return EINVAL;
  }

  if (result != NANOARROW_OK) {
    ArrowErrorSet(error, "ArrowSchemaSetTypeDecimal() failed");
    return result;
  }

  return NANOARROW_OK;
}

static int ArrowIpcDecoderSetTypeFixedSizeBinary(struct ArrowSchema* schema,
                                                 flatbuffers_generic_t type_generic,
                                                 struct ArrowError* error) {
  ns(FixedSizeBinary_table_t) type = (ns(FixedSizeBinary_table_t))type_generic;
  int fixed_size = ns(FixedSizeBinary_byteWidth(type));
  NANOARROW_RETURN_NOT_OK_WITH_ERROR(
      ArrowSchemaSetTypeFixedSize(schema, NANOARROW_TYPE_FIXED_SIZE_BINARY, fixed_size),
      error);
  return NANOARROW_OK;
}

static int ArrowIpcDecoderSetTypeDate(struct ArrowSchema* schema,
                                      flatbuffers_generic_t type_generic,
                                      struct ArrowError* error) {
  ns(Date_table_t) type = (ns(Date_table_t))type_generic;
  int date_unit = ns(Date_unit(type));
  switch (date_unit) {
    case ns(DateUnit_DAY):
      return ArrowIpcDecoderSetTypeSimple(schema, NANOARROW_TYPE_DATE32, error);
    case ns(DateUnit_MILLISECOND):
      return ArrowIpcDecoderSetTypeSimple(schema, NANOARROW_TYPE_DATE64, error);
    default:
      ArrowErrorSet(error, "Unexpected Date DateUnit value: %d", (int)date_unit);
      return EINVAL;
  }
}

static int ArrowIpcDecoderSetTypeTime(struct ArrowSchema* schema,
                                      flatbuffers_generic_t type_generic,
                                      struct ArrowError* error) {
  ns(Time_table_t) type = (ns(Time_table_t))type_generic;
  int time_unit = ns(Time_unit(type));
  int bitwidth = ns(Time_bitWidth(type));
  int nanoarrow_type;

  switch (time_unit) {
    case ns(TimeUnit_SECOND):
    case ns(TimeUnit_MILLISECOND):
      if (bitwidth != 32) {
        ArrowErrorSet(error, "Expected bitwidth of 32 for Time TimeUnit %s but found %d",
                      ns(TimeUnit_name(ns(Time_unit(type)))), bitwidth);
        return EINVAL;
      }

      nanoarrow_type = NANOARROW_TYPE_TIME32;
      break;

    case ns(TimeUnit_MICROSECOND):
    case ns(TimeUnit_NANOSECOND):
      if (bitwidth != 64) {
        ArrowErrorSet(error, "Expected bitwidth of 64 for Time TimeUnit %s but found %d",
                      ns(TimeUnit_name(ns(Time_unit(type)))), bitwidth);
        return EINVAL;
      }

      nanoarrow_type = NANOARROW_TYPE_TIME64;
      break;

    default:
      ArrowErrorSet(error, "Unexpected Time TimeUnit value: %d", time_unit);
      return EINVAL;
  }

  int result = ArrowSchemaSetTypeDateTime(schema, nanoarrow_type, time_unit, NULL);
  if (result != NANOARROW_OK) {
    ArrowErrorSet(error, "ArrowSchemaSetTypeDateTime() failed");
    return result;
  }

  return NANOARROW_OK;
}

static int ArrowIpcDecoderSetTypeTimestamp(struct ArrowSchema* schema,
                                           flatbuffers_generic_t type_generic,
                                           struct ArrowError* error) {
  ns(Timestamp_table_t) type = (ns(Timestamp_table_t))type_generic;
  int time_unit = ns(Timestamp_unit(type));

  const char* timezone = "";
  if (ns(Timestamp_timezone_is_present(type))) {
    timezone = ns(Timestamp_timezone_get(type));
  }

  int result =
      ArrowSchemaSetTypeDateTime(schema, NANOARROW_TYPE_TIMESTAMP, time_unit, timezone);
  if (result != NANOARROW_OK) {
    ArrowErrorSet(error, "ArrowSchemaSetTypeDateTime() failed");
    return result;
  }

  return NANOARROW_OK;
}

static int ArrowIpcDecoderSetTypeDuration(struct ArrowSchema* schema,
                                          flatbuffers_generic_t type_generic,
                                          struct ArrowError* error) {
  ns(Duration_table_t) type = (ns(Duration_table_t))type_generic;
  int time_unit = ns(Duration_unit(type));

  int result =
      ArrowSchemaSetTypeDateTime(schema, NANOARROW_TYPE_DURATION, time_unit, NULL);
  if (result != NANOARROW_OK) {
    ArrowErrorSet(error, "ArrowSchemaSetTypeDateTime() failed");
    return result;
  }

  return NANOARROW_OK;
}

static int ArrowIpcDecoderSetTypeInterval(struct ArrowSchema* schema,
                                          flatbuffers_generic_t type_generic,
                                          struct ArrowError* error) {
  ns(Interval_table_t) type = (ns(Interval_table_t))type_generic;
  int interval_unit = ns(Interval_unit(type));

  switch (interval_unit) {
    case ns(IntervalUnit_YEAR_MONTH):
      return ArrowIpcDecoderSetTypeSimple(schema, NANOARROW_TYPE_INTERVAL_MONTHS, error);
    case ns(IntervalUnit_DAY_TIME):
      return ArrowIpcDecoderSetTypeSimple(schema, NANOARROW_TYPE_INTERVAL_DAY_TIME,
                                          error);
    case ns(IntervalUnit_MONTH_DAY_NANO):
      return ArrowIpcDecoderSetTypeSimple(schema, NANOARROW_TYPE_INTERVAL_MONTH_DAY_NANO,
                                          error);
    default:
      ArrowErrorSet(error, "Unexpected Interval unit value: %d", interval_unit);
      return EINVAL;
  }
}

// We can't quite use nanoarrow's built-in SchemaSet functions for nested types
// because the IPC format allows modifying some of the defaults those functions assume.
// In particular, the allocate + initialize children step is handled outside these
// setters.
static int ArrowIpcDecoderSetTypeSimpleNested(struct ArrowSchema* schema,
                                              const char* format,
                                              struct ArrowError* error) {
  int result = ArrowSchemaSetFormat(schema, format);
  if (result != NANOARROW_OK) {
    ArrowErrorSet(error, "ArrowSchemaSetFormat('%s') failed", format);
    return result;
  }

  return NANOARROW_OK;
}

static int ArrowIpcDecoderSetTypeFixedSizeList(struct ArrowSchema* schema,
                                               flatbuffers_generic_t type_generic,
                                               struct ArrowError* error) {
  ns(FixedSizeList_table_t) type = (ns(FixedSizeList_table_t))type_generic;
  int32_t fixed_size = ns(FixedSizeList_listSize(type));

  char fixed_size_str[128];
  int n_chars = snprintf(fixed_size_str, 128, "+w:%d", fixed_size);
  if (n_chars < 0) {
    ArrowErrorSet(error, "snprintf() encoding error");
    return ERANGE;
  }

  fixed_size_str[n_chars] = '\0';
  return ArrowIpcDecoderSetTypeSimpleNested(schema, fixed_size_str, error);
}

static int ArrowIpcDecoderSetTypeMap(struct ArrowSchema* schema,
                                     flatbuffers_generic_t type_generic,
                                     struct ArrowError* error) {
  ns(Map_table_t) type = (ns(Map_table_t))type_generic;
  NANOARROW_RETURN_NOT_OK(ArrowIpcDecoderSetTypeSimpleNested(schema, "+m", error));

  if (ns(Map_keysSorted(type))) {
    schema->flags |= ARROW_FLAG_MAP_KEYS_SORTED;
  } else {
    schema->flags &= ~ARROW_FLAG_MAP_KEYS_SORTED;
  }

  return NANOARROW_OK;
}

static int ArrowIpcDecoderSetTypeUnion(struct ArrowSchema* schema,
                                       flatbuffers_generic_t type_generic,
                                       int64_t n_children, struct ArrowError* error) {
  ns(Union_table_t) type = (ns(Union_table_t))type_generic;
  int union_mode = ns(Union_mode(type));

  if (n_children < 0 || n_children > 127) {
    ArrowErrorSet(error,
                  "Expected between 0 and 127 children for Union type but found %" PRId64,
                  n_children);
    return EINVAL;
  }

  // Max valid typeIds size is 127; the longest single ID that could be present here
  // is -INT_MIN (11 chars). With commas and the prefix the max size would be
  // 1527 characters. (Any ids outside the range 0...127 are unlikely to be valid
  // elsewhere but they could in theory be present here).
  char union_types_str[2048];
  memset(union_types_str, 0, sizeof(union_types_str));
  char* format_cursor = union_types_str;
  int format_out_size = sizeof(union_types_str);
  int n_chars = 0;

  switch (union_mode) {
    case ns(UnionMode_Sparse):
      n_chars = snprintf(format_cursor, format_out_size, "+us:");
      format_cursor += n_chars;
      format_out_size -= n_chars;
      break;
    case ns(UnionMode_Dense):
      n_chars = snprintf(format_cursor, format_out_size, "+ud:");
      format_cursor += n_chars;
      format_out_size -= n_chars;
      break;
    default:
      ArrowErrorSet(error, "Unexpected Union UnionMode value: %d", union_mode);
      return EINVAL;
  }

  if (n_chars < 0) {
    ArrowErrorSet(error, "snprintf() encoding error");
    return ERANGE;
  }

  if (ns(Union_typeIds_is_present(type))) {
    flatbuffers_int32_vec_t type_ids = ns(Union_typeIds(type));
    int64_t n_type_ids = flatbuffers_int32_vec_len(type_ids);

    if (n_type_ids != n_children) {
      ArrowErrorSet(error,
                    "Expected between %" PRId64 " children for Union type with %" PRId64
                    " typeIds but found %" PRId64,
                    n_type_ids, n_type_ids, n_children);
      return EINVAL;
    }

    if (n_type_ids > 0) {
      n_chars = snprintf(format_cursor, format_out_size, "%d",
                         flatbuffers_int32_vec_at(type_ids, 0));
      format_cursor += n_chars;
      format_out_size -= n_chars;

      if (n_chars < 0) {
        ArrowErrorSet(error, "snprintf() encoding error");
        return ERANGE;
      }

      for (int64_t i = 1; i < n_type_ids; i++) {
        n_chars = snprintf(format_cursor, format_out_size, ",%" PRId32,
                           flatbuffers_int32_vec_at(type_ids, i));
        format_cursor += n_chars;
        format_out_size -= n_chars;

        if (n_chars < 0) {
          ArrowErrorSet(error, "snprintf() encoding error");
          return ERANGE;
        }
      }
    }
  } else if (n_children > 0) {
    n_chars = snprintf(format_cursor, format_out_size, "0");
    format_cursor += n_chars;
    format_out_size -= n_chars;

    if (n_chars < 0) {
      ArrowErrorSet(error, "snprintf() encoding error");
      return ERANGE;
    }

    for (int64_t i = 1; i < n_children; i++) {
      n_chars = snprintf(format_cursor, format_out_size, ",%" PRId64, i);
      format_cursor += n_chars;
      format_out_size -= n_chars;

      if (n_chars < 0) {
        ArrowErrorSet(error, "snprintf() encoding error");
        return ERANGE;
      }
    }
  }

  return ArrowIpcDecoderSetTypeSimpleNested(schema, union_types_str, error);
}

static int ArrowIpcDecoderSetType(struct ArrowSchema* schema, ns(Field_table_t) field,
                                  int64_t n_children, struct ArrowError* error) {
  int type_type = ns(Field_type_type(field));
  switch (type_type) {
    case ns(Type_Null):
      return ArrowIpcDecoderSetTypeSimple(schema, NANOARROW_TYPE_NA, error);
    case ns(Type_Bool):
      return ArrowIpcDecoderSetTypeSimple(schema, NANOARROW_TYPE_BOOL, error);
    case ns(Type_Int):
      return ArrowIpcDecoderSetTypeInt(schema, ns(Field_type_get(field)), error);
    case ns(Type_FloatingPoint):
      return ArrowIpcDecoderSetTypeFloatingPoint(schema, ns(Field_type_get(field)),
                                                 error);
    case ns(Type_Decimal):
      return ArrowIpcDecoderSetTypeDecimal(schema, ns(Field_type_get(field)), error);
    case ns(Type_Binary):
      return ArrowIpcDecoderSetTypeSimple(schema, NANOARROW_TYPE_BINARY, error);
    case ns(Type_LargeBinary):
      return ArrowIpcDecoderSetTypeSimple(schema, NANOARROW_TYPE_LARGE_BINARY, error);
    case ns(Type_FixedSizeBinary):
      return ArrowIpcDecoderSetTypeFixedSizeBinary(schema, ns(Field_type_get(field)),
                                                   error);
    case ns(Type_BinaryView):
      ArrowErrorSet(error, "BinaryView not yet supported in IPC reader");
      return ENOTSUP;
    case ns(Type_Utf8):
      return ArrowIpcDecoderSetTypeSimple(schema, NANOARROW_TYPE_STRING, error);
    case ns(Type_LargeUtf8):
      return ArrowIpcDecoderSetTypeSimple(schema, NANOARROW_TYPE_LARGE_STRING, error);
    case ns(Type_Utf8View):
      ArrowErrorSet(error, "Utf8View not yet supported in IPC reader");
      return ENOTSUP;
    case ns(Type_Date):
      return ArrowIpcDecoderSetTypeDate(schema, ns(Field_type_get(field)), error);
    case ns(Type_Time):
      return ArrowIpcDecoderSetTypeTime(schema, ns(Field_type_get(field)), error);
    case ns(Type_Timestamp):
      return ArrowIpcDecoderSetTypeTimestamp(schema, ns(Field_type_get(field)), error);
    case ns(Type_Duration):
      return ArrowIpcDecoderSetTypeDuration(schema, ns(Field_type_get(field)), error);
    case ns(Type_Interval):
      return ArrowIpcDecoderSetTypeInterval(schema, ns(Field_type_get(field)), error);
    case ns(Type_Struct_):
      return ArrowIpcDecoderSetTypeSimpleNested(schema, "+s", error);
    case ns(Type_List):
      return ArrowIpcDecoderSetTypeSimpleNested(schema, "+l", error);
    case ns(Type_LargeList):
      return ArrowIpcDecoderSetTypeSimpleNested(schema, "+L", error);
    case ns(Type_FixedSizeList):
      return ArrowIpcDecoderSetTypeFixedSizeList(schema, ns(Field_type_get(field)),
                                                 error);
    case ns(Type_ListView):
    case ns(Type_LargeListView):
      ArrowErrorSet(error, "ListView/LargeListView not yet supported in IPC reader");
      return ENOTSUP;
    case ns(Type_Map):
      return ArrowIpcDecoderSetTypeMap(schema, ns(Field_type_get(field)), error);
    case ns(Type_Union):
      return ArrowIpcDecoderSetTypeUnion(schema, ns(Field_type_get(field)), n_children,
                                         error);
    case ns(Type_RunEndEncoded):
      ArrowErrorSet(error, "RunEndEncoded not yet supported in IPC reader");
      return ENOTSUP;
    default:
      ArrowErrorSet(error, "Unrecognized Field type with value %d", type_type);
      return EINVAL;
  }
}

// When decoding dictionaries, we move the value type to the schema->dictionary
// member, but we need to move the field metadata back because in IPC there
// is no such thing as dictionary metadata (even extension metadata)
// https://github.com/apache/arrow/issues/49704
static int ArrowIpcMoveDictionaryMetadataBackToField(struct ArrowSchema* schema) {
  NANOARROW_DCHECK(schema->dictionary != NULL);
  NANOARROW_RETURN_NOT_OK(ArrowSchemaSetMetadata(schema, schema->dictionary->metadata));
  NANOARROW_RETURN_NOT_OK(ArrowSchemaSetMetadata(schema->dictionary, NULL));
  return NANOARROW_OK;
}

static int ArrowIpcSetDictionaryEncoding(
    struct ArrowSchema* schema, ns(DictionaryEncoding_table_t dictionary_encoding),
    struct ArrowIpcDictionaryEncodings* dictionaries, struct ArrowError* error) {
  switch (
      org_apache_arrow_flatbuf_DictionaryEncoding_dictionaryKind(dictionary_encoding)) {
    case ns(DictionaryKind_DenseArray):
      break;
    default:
      ArrowErrorSet(error, "Unexpected value for DictionaryKind");
      return EINVAL;
  }

  struct ArrowSchema tmp;
  ArrowSchemaMove(schema, &tmp);

  ArrowSchemaInit(schema);
  int result = ArrowSchemaAllocateDictionary(schema);
  if (result != NANOARROW_OK) {
    ArrowSchemaRelease(&tmp);
    ArrowErrorSet(error, "ArrowSchemaAllocateDictionary() failed");
    return result;
  }

  ArrowSchemaMove(&tmp, schema->dictionary);

  NANOARROW_RETURN_NOT_OK_WITH_ERROR(ArrowSchemaSetName(schema, schema->dictionary->name),
                                     error);
  NANOARROW_RETURN_NOT_OK_WITH_ERROR(ArrowSchemaSetName(schema->dictionary, ""), error);

  NANOARROW_RETURN_NOT_OK(ArrowIpcDecoderSetTypeInt(
      schema, ns(DictionaryEncoding_indexType_get(dictionary_encoding)), error));

  if (ns(DictionaryEncoding_isOrdered_get(dictionary_encoding))) {
    schema->flags |= ARROW_FLAG_DICTIONARY_ORDERED;
  }

  // Sort out field metadata between the schema and the dictionary member
  NANOARROW_RETURN_NOT_OK_WITH_ERROR(ArrowIpcMoveDictionaryMetadataBackToField(schema),
                                     error);

  // Track the identifier if we have a dictionaries object in which to track it
  if (dictionaries != NULL) {
    int64_t id = ns(DictionaryEncoding_id(dictionary_encoding));
    struct ArrowIpcDictionaryEncoding encoding = {
        schema, id, NANOARROW_IPC_DICTIONARY_KIND_DENSE_ARRAY};

    NANOARROW_RETURN_NOT_OK_WITH_ERROR(
        ArrowIpcDictionaryEncodingsAppend(dictionaries, encoding), error);
  }

  return NANOARROW_OK;
}

static int ArrowIpcDecoderSetChildren(struct ArrowSchema* schema, ns(Field_vec_t) fields,
                                      struct ArrowIpcDictionaryEncodings* dictionaries,
                                      struct ArrowError* error);

static int ArrowIpcDecoderSetField(struct ArrowSchema* schema, ns(Field_table_t) field,
                                   struct ArrowIpcDictionaryEncodings* dictionaries,
                                   struct ArrowError* error) {
  int result;
  if (ns(Field_name_is_present(field))) {
    result = ArrowSchemaSetName(schema, ns(Field_name_get(field)));
  } else {
    result = ArrowSchemaSetName(schema, "");
  }

  if (result != NANOARROW_OK) {
    ArrowErrorSet(error, "ArrowSchemaSetName() failed");
    return result;
  }

  // Sets the schema->format and validates type-related inconsistencies
  // that might exist in the flatbuffer
  ns(Field_vec_t) children = ns(Field_children(field));
  int64_t n_children = ns(Field_vec_len(children));

  NANOARROW_RETURN_NOT_OK(ArrowIpcDecoderSetType(schema, field, n_children, error));

  // nanoarrow's type setters set the nullable flag by default, so we might
  // have to unset it here.
  if (ns(Field_nullable_get(field))) {
    schema->flags |= ARROW_FLAG_NULLABLE;
  } else {
    schema->flags &= ~ARROW_FLAG_NULLABLE;
  }

  // Children are defined separately in the flatbuffer, so we allocate, initialize
  // and set them separately as well.
  result = ArrowSchemaAllocateChildren(schema, n_children);
  if (result != NANOARROW_OK) {
    ArrowErrorSet(error, "ArrowSchemaAllocateChildren() failed");
    return result;
  }

  for (int64_t i = 0; i < n_children; i++) {
    ArrowSchemaInit(schema->children[i]);
  }

  NANOARROW_RETURN_NOT_OK(
      ArrowIpcDecoderSetChildren(schema, children, dictionaries, error));
  NANOARROW_RETURN_NOT_OK(
      ArrowIpcDecoderSetMetadata(schema, ns(Field_custom_metadata(field)), error));

  // If this is a dictionary encoded field, set the dictionary encoding
  if (ns(Field_dictionary_is_present(field))) {
    NANOARROW_RETURN_NOT_OK(ArrowIpcSetDictionaryEncoding(
        schema, ns(Field_dictionary(field)), dictionaries, error));
  }

  return NANOARROW_OK;
}

static int ArrowIpcDecoderSetChildren(struct ArrowSchema* schema, ns(Field_vec_t) fields,
                                      struct ArrowIpcDictionaryEncodings* dictionaries,
                                      struct ArrowError* error) {
  int64_t n_fields = ns(Schema_vec_len(fields));

  for (int64_t i = 0; i < n_fields; i++) {
    ns(Field_table_t) field = ns(Field_vec_at(fields, i));
    NANOARROW_RETURN_NOT_OK(
        ArrowIpcDecoderSetField(schema->children[i], field, dictionaries, error));
  }

  return NANOARROW_OK;
}

static int ArrowIpcDecoderDecodeSchemaHeader(struct ArrowIpcDecoder* decoder,
                                             flatbuffers_generic_t message_header,
                                             struct ArrowError* error) {
  ns(Schema_table_t) schema = (ns(Schema_table_t))message_header;
  int endianness = ns(Schema_endianness(schema));
  switch (endianness) {
    case ns(Endianness_Little):
      decoder->endianness = NANOARROW_IPC_ENDIANNESS_LITTLE;
      break;
    case ns(Endianness_Big):
      decoder->endianness = NANOARROW_IPC_ENDIANNESS_BIG;
      break;
    default:
      ArrowErrorSet(error,
                    "Expected Schema endianness of 0 (little) or 1 (big) but got %d",
                    endianness);
      return EINVAL;
  }

  ns(Feature_vec_t) features = ns(Schema_features(schema));
  int64_t n_features = ns(Feature_vec_len(features));
  decoder->feature_flags = 0;

  for (int64_t i = 0; i < n_features; i++) {
    ns(Feature_enum_t) feature = ns(Feature_vec_at(features, i));
    switch (feature) {
      case ns(Feature_COMPRESSED_BODY):
        decoder->feature_flags |= NANOARROW_IPC_FEATURE_COMPRESSED_BODY;
        break;
      case ns(Feature_DICTIONARY_REPLACEMENT):
        decoder->feature_flags |= NANOARROW_IPC_FEATURE_DICTIONARY_REPLACEMENT;
        break;
      default:
        ArrowErrorSet(error, "Unrecognized Schema feature with value %d", (int)feature);
        return EINVAL;
    }
  }

  return NANOARROW_OK;
}

static int ArrowIpcDecoderDecodeDictionaryBatchHeader(
    struct ArrowIpcDecoder* decoder, flatbuffers_generic_t message_header) {
  struct ArrowIpcDecoderPrivate* private_data =
      (struct ArrowIpcDecoderPrivate*)decoder->private_data;

  ns(DictionaryBatch_table_t) dictionary = (ns(DictionaryBatch_table_t))message_header;
  private_data->dictionary.id = ns(DictionaryBatch_id(dictionary));
  private_data->dictionary.is_delta = ns(DictionaryBatch_isDelta(dictionary));

  decoder->dictionary = &private_data->dictionary;
  return NANOARROW_OK;
}

static int ArrowIpcDecoderDecodeRecordBatchHeader(struct ArrowIpcDecoder* decoder,
                                                  flatbuffers_generic_t message_header,
                                                  struct ArrowError* error) {
  struct ArrowIpcDecoderPrivate* private_data =
      (struct ArrowIpcDecoderPrivate*)decoder->private_data;

  ns(RecordBatch_table_t) batch = (ns(RecordBatch_table_t))message_header;

  ns(FieldNode_vec_t) fields = ns(RecordBatch_nodes(batch));
  ns(Buffer_vec_t) buffers = ns(RecordBatch_buffers(batch));
  int64_t n_fields = ns(FieldNode_vec_len(fields));
  int64_t n_buffers = ns(Buffer_vec_len(buffers));

  // Check field node and buffer count. We have one more field and buffer
  // because we count the root struct and the flatbuffer message does not.
  if ((n_fields + 1) != private_data->n_fields) {
    ArrowErrorSet(error, "Expected %" PRId64 " field nodes in message but found %" PRId64,
                  private_data->n_fields - 1, n_fields);
    return EINVAL;
  }

  int64_t n_expected_buffers = private_data->n_buffers;
  if (decoder->metadata_version < NANOARROW_IPC_METADATA_VERSION_V5) {
    // Unions had null buffers before arrow 1.0, so expect one extra buffer per union
    // field
    n_expected_buffers += private_data->n_union_fields;
  }

  if ((n_buffers + 1) != n_expected_buffers) {
    ArrowErrorSet(error, "Expected %" PRId64 " buffers in message but found %" PRId64,
                  n_expected_buffers - 1, n_buffers);
    return EINVAL;
  }

  if (ns(RecordBatch_compression_is_present(batch))) {
    ns(BodyCompression_table_t) compression = ns(RecordBatch_compression(batch));
    ns(CompressionType_enum_t) codec = ns(BodyCompression_codec(compression));
    switch (codec) {
      case ns(CompressionType_LZ4_FRAME):
        decoder->codec = NANOARROW_IPC_COMPRESSION_TYPE_LZ4_FRAME;
        break;
      case ns(CompressionType_ZSTD):
        decoder->codec = NANOARROW_IPC_COMPRESSION_TYPE_ZSTD;
        break;
      default:
        ArrowErrorSet(error, "Unrecognized RecordBatch BodyCompression codec value: %d",
                      (int)codec);
        return EINVAL;
    }
  } else {
    decoder->codec = NANOARROW_IPC_COMPRESSION_TYPE_NONE;
  }

  // Copying field node and buffer information is separate so as only to pay for the
  // nodes that are actually accessed.
  return NANOARROW_OK;
}

// Wipes any "current message" fields before moving on to a new message
static inline void ArrowIpcDecoderResetHeaderInfo(struct ArrowIpcDecoder* decoder) {
  struct ArrowIpcDecoderPrivate* private_data =
      (struct ArrowIpcDecoderPrivate*)decoder->private_data;

  decoder->message_type = 0;
  decoder->metadata_version = 0;
  decoder->endianness = 0;
  decoder->feature_flags = 0;
  decoder->codec = 0;
  decoder->header_size_bytes = 0;
  decoder->body_size_bytes = 0;
  decoder->dictionary = NULL;
  memset(&private_data->dictionary, 0, sizeof(struct ArrowIpcDictionaryBatch));
  decoder->footer = NULL;
  ArrowIpcFooterReset(&private_data->footer);
  private_data->last_message = NULL;
}

// Returns NANOARROW_OK if data is large enough to read the first 8 bytes
// of the message header, ESPIPE if reading more data might help, or EINVAL if the content
// is not valid. Advances the input ArrowBufferView by prefix_size (8 bytes or 4 bytes if
// the message is pre-0.15 and has no continuation). Sets decoder->header_size_bytes
// to the flatbuffers length plus the prefix_size.
static inline int ArrowIpcDecoderReadHeaderPrefix(struct ArrowIpcDecoder* decoder,
                                                  struct ArrowBufferView* data_mut,
                                                  int32_t* prefix_size_bytes,
                                                  struct ArrowError* error) {
  struct ArrowIpcDecoderPrivate* private_data =
      (struct ArrowIpcDecoderPrivate*)decoder->private_data;

  if (data_mut->size_bytes < 8) {
    ArrowErrorSet(error,
                  "Expected data of at least 8 bytes but only %" PRId64 " bytes remain",
                  data_mut->size_bytes);
    return ESPIPE;
  }

  int swap_endian = private_data->system_endianness == NANOARROW_IPC_ENDIANNESS_BIG;
  int32_t continuation = ArrowIpcReadInt32LE(data_mut, swap_endian);
  int32_t length;
  if ((uint32_t)continuation != 0xFFFFFFFF) {
    if (continuation < 0) {
      ArrowErrorSet(error, "Expected 0xFFFFFFFF at start of message but found 0x%08X",
                    (unsigned int)continuation);
      return EINVAL;
    }
    // Tolerate pre-0.15 encapsulated messages which only had the length prefix
    length = continuation;
    *prefix_size_bytes = sizeof(length);
  } else {
    length = ArrowIpcReadInt32LE(data_mut, swap_endian);
    *prefix_size_bytes = sizeof(continuation) + sizeof(length);
  }
  decoder->header_size_bytes = *prefix_size_bytes + length;

  if (length < 0) {
    ArrowErrorSet(error,
                  "Expected message size > 0 but found message size of %" PRId32 " bytes",
                  length);
    return EINVAL;
  }

  if (length == 0) {
    ArrowErrorSet(error, "End of Arrow stream");
    return ENODATA;
  }

  return NANOARROW_OK;
}

ArrowErrorCode ArrowIpcDecoderPeekHeader(struct ArrowIpcDecoder* decoder,
                                         struct ArrowBufferView data,
                                         int32_t* prefix_size_bytes,
                                         struct ArrowError* error) {
  ArrowIpcDecoderResetHeaderInfo(decoder);
  NANOARROW_RETURN_NOT_OK(
      ArrowIpcDecoderReadHeaderPrefix(decoder, &data, prefix_size_bytes, error));
  return NANOARROW_OK;
}

ArrowErrorCode ArrowIpcDecoderVerifyHeader(struct ArrowIpcDecoder* decoder,
                                           struct ArrowBufferView data,
                                           struct ArrowError* error) {
  struct ArrowIpcDecoderPrivate* private_data =
      (struct ArrowIpcDecoderPrivate*)decoder->private_data;

  ArrowIpcDecoderResetHeaderInfo(decoder);
  int32_t prefix_size_bytes;
  NANOARROW_RETURN_NOT_OK(
      ArrowIpcDecoderReadHeaderPrefix(decoder, &data, &prefix_size_bytes, error));

  // Check that data contains at least the entire header (return ESPIPE to signal
  // that reading more data may help).
  if (data.size_bytes < (int64_t)decoder->header_size_bytes - prefix_size_bytes) {
    ArrowErrorSet(error,
                  "Expected >= %d bytes of remaining data but found %" PRId64
                  " bytes in buffer",
                  decoder->header_size_bytes, data.size_bytes + prefix_size_bytes);
    return ESPIPE;
  }

  // Run flatbuffers verification
  enum flatcc_verify_error_no verify_error =
      ns(Message_verify_as_root(data.data.as_uint8,
                                decoder->header_size_bytes - prefix_size_bytes);
         if (verify_error != flatcc_verify_ok)) {
    ArrowErrorSet(error, "Message flatbuffer verification failed (%d) %s",
                  (int)verify_error, flatcc_verify_error_string(verify_error));
    return EINVAL;
  }

  // Read some basic information from the message
  ns(Message_table_t) message = ns(Message_as_root(data.data.as_uint8));
  decoder->metadata_version = ns(Message_version(message));
  decoder->message_type = ns(Message_header_type(message));
  decoder->body_size_bytes = ns(Message_bodyLength(message));

  private_data->last_message = ns(Message_header_get(message));
  return NANOARROW_OK;
}

ArrowErrorCode ArrowIpcDecoderPeekFooter(struct ArrowIpcDecoder* decoder,
                                         struct ArrowBufferView data,
                                         struct ArrowError* error) {
  struct ArrowIpcDecoderPrivate* private_data =
      (struct ArrowIpcDecoderPrivate*)decoder->private_data;

  ArrowIpcDecoderResetHeaderInfo(decoder);
  if (data.size_bytes < (int)strlen(NANOARROW_IPC_MAGIC) + (int)sizeof(int32_t)) {
    ArrowErrorSet(error,
                  "Expected data of at least 10 bytes but only %" PRId64
                  " bytes are available",
                  data.size_bytes);
    return ESPIPE;
  }

  const char* data_end = data.data.as_char + data.size_bytes;
  const char* magic = data_end - strlen(NANOARROW_IPC_MAGIC);
  const char* footer_size_data = magic - sizeof(int32_t);

  if (memcmp(magic, NANOARROW_IPC_MAGIC, strlen(NANOARROW_IPC_MAGIC)) != 0) {
    ArrowErrorSet(error, "Expected file to end with ARROW1 but got %s", data_end);
    return EINVAL;
  }

  int32_t footer_size;
  memcpy(&footer_size, footer_size_data, sizeof(footer_size));
  if (private_data->system_endianness == NANOARROW_IPC_ENDIANNESS_BIG) {
    footer_size = bswap32(footer_size);
  }

  if (footer_size < 0) {
    ArrowErrorSet(error, "Expected footer size > 0 but found footer size of %d bytes",
                  footer_size);
    return EINVAL;
  }

  decoder->header_size_bytes = footer_size;
  return NANOARROW_OK;
}

ArrowErrorCode ArrowIpcDecoderVerifyFooter(struct ArrowIpcDecoder* decoder,
                                           struct ArrowBufferView data,
                                           struct ArrowError* error) {
  NANOARROW_RETURN_NOT_OK(ArrowIpcDecoderPeekFooter(decoder, data, error));

  // Check that data contains at least the entire footer (return ESPIPE to signal
  // that reading more data may help).
  int32_t footer_and_size_and_magic_size =
      decoder->header_size_bytes + sizeof(int32_t) + (int)strlen(NANOARROW_IPC_MAGIC);
  if (data.size_bytes < footer_and_size_and_magic_size) {
    ArrowErrorSet(error,
                  "Expected >= %d bytes of data but only %" PRId64
                  " bytes are in the buffer",
                  footer_and_size_and_magic_size, data.size_bytes);
    return ESPIPE;
  }

  const uint8_t* footer_data =
      data.data.as_uint8 + data.size_bytes - footer_and_size_and_magic_size;

  // Run flatbuffers verification
  enum flatcc_verify_error_no verify_error =
      ns(Footer_verify_as_root(footer_data, decoder->header_size_bytes));
  if (verify_error != flatcc_verify_ok) {
    ArrowErrorSet(error, "Footer flatbuffer verification failed (%d) %s",
                  (int)verify_error, flatcc_verify_error_string(verify_error));
    return EINVAL;
  }

  // Read some basic information from the message
  ns(Footer_table_t) footer = ns(Footer_as_root(footer_data));
  if (ns(Footer_schema(footer)) == NULL) {
    ArrowErrorSet(error, "Footer has no schema");
    return EINVAL;
  }

  decoder->metadata_version = ns(Footer_version(footer));
  decoder->body_size_bytes = 0;
  return NANOARROW_OK;
}

ArrowErrorCode ArrowIpcDecoderDecodeHeader(struct ArrowIpcDecoder* decoder,
                                           struct ArrowBufferView data,
                                           struct ArrowError* error) {
  struct ArrowIpcDecoderPrivate* private_data =
      (struct ArrowIpcDecoderPrivate*)decoder->private_data;

  ArrowIpcDecoderResetHeaderInfo(decoder);
  int32_t prefix_size_bytes;
  NANOARROW_RETURN_NOT_OK(
      ArrowIpcDecoderReadHeaderPrefix(decoder, &data, &prefix_size_bytes, error));

  // Check that data contains at least the entire header (return ESPIPE to signal
  // that reading more data may help).
  if (data.size_bytes < (int64_t)decoder->header_size_bytes - prefix_size_bytes) {
    ArrowErrorSet(error,
                  "Expected >= %d bytes of remaining data but found %" PRId64
                  " bytes in buffer",
                  decoder->header_size_bytes, data.size_bytes + prefix_size_bytes);
    return ESPIPE;
  }

  ns(Message_table_t) message = ns(Message_as_root(data.data.as_uint8));
  if (!message) {
    return EINVAL;
  }

  // Read some basic information from the message
  decoder->metadata_version = ns(Message_version(message));
  decoder->message_type = ns(Message_header_type(message));
  decoder->body_size_bytes = ns(Message_bodyLength(message));

  switch (decoder->metadata_version) {
    case ns(MetadataVersion_V4):
    case ns(MetadataVersion_V5):
      break;
      ArrowErrorSet(error, "Expected metadata version V4 or V5 but found %s",
                    ns(MetadataVersion_name(ns(Message_version(message)))));
      return EINVAL;
    case ns(MetadataVersion_V1):
    case ns(MetadataVersion_V2):
    case ns(MetadataVersion_V3):
    default:
      ArrowErrorSet(error, "Unexpected value for Message metadata version (%d)",
                    decoder->metadata_version);
      return EINVAL;
  }

  flatbuffers_generic_t message_header = ns(Message_header_get(message));
  switch (decoder->message_type) {
    case ns(MessageHeader_Schema):
      NANOARROW_RETURN_NOT_OK(
          ArrowIpcDecoderDecodeSchemaHeader(decoder, message_header, error));
      break;
    case ns(MessageHeader_DictionaryBatch):
      NANOARROW_RETURN_NOT_OK(
          ArrowIpcDecoderDecodeDictionaryBatchHeader(decoder, message_header));
      break;
    case ns(MessageHeader_RecordBatch):
      NANOARROW_RETURN_NOT_OK(
          ArrowIpcDecoderDecodeRecordBatchHeader(decoder, message_header, error));
      break;
    case ns(MessageHeader_Tensor):
    case ns(MessageHeader_SparseTensor):
      ArrowErrorSet(error, "Unsupported message type: '%s'",
                    ns(MessageHeader_type_name(ns(Message_header_type(message)))));
      return ENOTSUP;
    default:
      ArrowErrorSet(error, "Unknown message type: %d", (int)(decoder->message_type));
      return EINVAL;
  }

  private_data->last_message = message_header;
  return NANOARROW_OK;
}

static ArrowErrorCode ArrowIpcDecoderDecodeSchemaImpl(
    ns(Schema_table_t) schema, struct ArrowSchema* out,
    struct ArrowIpcDictionaryEncodings* dictionary_encodings_out,
    struct ArrowError* error) {
  ArrowSchemaInit(out);
  // Top-level batch schema is typically non-nullable
  out->flags = 0;

  ns(Field_vec_t) fields = ns(Schema_fields(schema));
  int64_t n_fields = ns(Schema_vec_len(fields));

  ArrowErrorCode result = ArrowSchemaSetTypeStruct(out, n_fields);
  if (result != NANOARROW_OK) {
    ArrowErrorSet(error, "Failed to allocate struct schema with %" PRId64 " children",
                  n_fields);
    return result;
  }

  NANOARROW_RETURN_NOT_OK(
      ArrowIpcDecoderSetChildren(out, fields, dictionary_encodings_out, error));
  NANOARROW_RETURN_NOT_OK(
      ArrowIpcDecoderSetMetadata(out, ns(Schema_custom_metadata(schema)), error));
  return NANOARROW_OK;
}

ArrowErrorCode ArrowIpcDecoderDecodeSchemaWithDictionaries(
    struct ArrowIpcDecoder* decoder, struct ArrowSchema* out,
    struct ArrowIpcDictionaryEncodings* dictionary_encodings_out,
    struct ArrowError* error) {
  struct ArrowIpcDecoderPrivate* private_data =
      (struct ArrowIpcDecoderPrivate*)decoder->private_data;

  if (private_data->last_message == NULL ||
      decoder->message_type != NANOARROW_IPC_MESSAGE_TYPE_SCHEMA) {
    ArrowErrorSet(error, "decoder did not just decode a Schema message");
    return EINVAL;
  }

  if (dictionary_encodings_out != NULL) {
    ArrowIpcDictionaryEncodingsInit(dictionary_encodings_out);
  }

  struct ArrowSchema tmp;
  ArrowErrorCode result =
      ArrowIpcDecoderDecodeSchemaImpl((ns(Schema_table_t))private_data->last_message,
                                      &tmp, dictionary_encodings_out, error);

  if (result != NANOARROW_OK) {
    ArrowSchemaRelease(&tmp);

    if (dictionary_encodings_out != NULL) {
      ArrowIpcDictionaryEncodingsReset(dictionary_encodings_out);
    }

    return result;
  }
  ArrowSchemaMove(&tmp, out);
  return NANOARROW_OK;
}

ArrowErrorCode ArrowIpcDecoderDecodeSchema(struct ArrowIpcDecoder* decoder,
                                           struct ArrowSchema* out,
                                           struct ArrowError* error) {
  return ArrowIpcDecoderDecodeSchemaWithDictionaries(decoder, out, NULL, error);
}

ArrowErrorCode ArrowIpcDecoderDecodeFooter(struct ArrowIpcDecoder* decoder,
                                           struct ArrowBufferView data,
                                           struct ArrowError* error) {
  struct ArrowIpcDecoderPrivate* private_data =
      (struct ArrowIpcDecoderPrivate*)decoder->private_data;

  int32_t footer_and_size_and_magic_size =
      decoder->header_size_bytes + sizeof(int32_t) + (int)strlen(NANOARROW_IPC_MAGIC);
  const uint8_t* footer_data =
      data.data.as_uint8 + data.size_bytes - footer_and_size_and_magic_size;
  ns(Footer_table_t) footer = ns(Footer_as_root(footer_data));

  NANOARROW_RETURN_NOT_OK(
      ArrowIpcDecoderDecodeSchemaHeader(decoder, ns(Footer_schema(footer)), error));

  NANOARROW_RETURN_NOT_OK(ArrowIpcDecoderDecodeSchemaImpl(
      ns(Footer_schema(footer)), &private_data->footer.schema,
      &private_data->footer.dictionaries, error));

  ns(Block_vec_t) blocks = ns(Footer_recordBatches(footer));
  int64_t n = ns(Block_vec_len(blocks));
  NANOARROW_RETURN_NOT_OK(ArrowBufferResize(&private_data->footer.record_batch_blocks,
                                            sizeof(struct ArrowIpcFileBlock) * n,
                                            /*shrink_to_fit=*/0));
  struct ArrowIpcFileBlock* record_batches =
      (struct ArrowIpcFileBlock*)private_data->footer.record_batch_blocks.data;
  for (int64_t i = 0; i < n; i++) {
    record_batches[i].offset = ns(Block_offset(blocks + i));
    record_batches[i].metadata_length = ns(Block_metaDataLength(blocks + i));
    record_batches[i].body_length = ns(Block_bodyLength(blocks + i));
  }

  blocks = ns(Footer_dictionaries(footer));
  n = ns(Block_vec_len(blocks));
  NANOARROW_RETURN_NOT_OK(ArrowBufferResize(&private_data->footer.dictionary_blocks,
                                            sizeof(struct ArrowIpcFileBlock) * n,
                                            /*shrink_to_fit=*/0));
  struct ArrowIpcFileBlock* dictionaries =
      (struct ArrowIpcFileBlock*)private_data->footer.dictionary_blocks.data;
  for (int64_t i = 0; i < n; i++) {
    dictionaries[i].offset = ns(Block_offset(blocks + i));
    dictionaries[i].metadata_length = ns(Block_metaDataLength(blocks + i));
    dictionaries[i].body_length = ns(Block_bodyLength(blocks + i));
  }

  decoder->footer = &private_data->footer;
  return NANOARROW_OK;
}

static void ArrowIpcDecoderCountFields(const struct ArrowSchema* schema,
                                       int64_t* n_fields) {
  *n_fields += 1;
  for (int64_t i = 0; i < schema->n_children; i++) {
    ArrowIpcDecoderCountFields(schema->children[i], n_fields);
  }
}

static ArrowErrorCode ArrowIpcDecoderInitFields(
    struct ArrowIpcField* fields, const struct ArrowSchema* schema,
    const struct ArrowIpcDictionaryEncodings* dictionary_encodings,
    struct ArrowArrayView* array_view, struct ArrowArray* array, int64_t* n_fields,
    int64_t* n_buffers, int64_t* n_union_fields, struct ArrowError* error) {
  struct ArrowIpcField* field = fields + (*n_fields);
  field->array_view = array_view;
  field->array = array;
  field->buffer_offset = *n_buffers;
  field->dictionary_id = NANOARROW_IPC_NO_DICTIONARY_ID;

  if (schema->dictionary != NULL) {
    if (dictionary_encodings == NULL) {
      const char* name = schema->name;
      if (name == NULL) {
        name = "<unnamed field>";
      }

      ArrowErrorSet(error,
                    "Can't resolve dictionary ID for field '%s' (dictionary encodings "
                    "not provided)",
                    name);
      return EINVAL;
    }

    const struct ArrowIpcDictionaryEncoding* dictionary_encoding =
        ArrowIpcDictionaryEncodingsFind(dictionary_encodings, schema);
    if (dictionary_encoding == NULL) {
      const char* name = schema->name;
      if (name == NULL) {
        name = "<unnamed field>";
      }

      ArrowErrorSet(error, "Can't resolve dictionary ID for field '%s'", name);
      return EINVAL;
    }

    field->dictionary_id = dictionary_encoding->id;
  }

  for (int i = 0; i < NANOARROW_MAX_FIXED_BUFFERS; i++) {
    *n_buffers += array_view->layout.buffer_type[i] != NANOARROW_BUFFER_TYPE_NONE;
  }
  *n_union_fields += array_view->storage_type == NANOARROW_TYPE_SPARSE_UNION ||
                     array_view->storage_type == NANOARROW_TYPE_DENSE_UNION;

  *n_fields += 1;

  for (int64_t i = 0; i < array_view->n_children; i++) {
    NANOARROW_RETURN_NOT_OK(ArrowIpcDecoderInitFields(
        fields, schema->children[i], dictionary_encodings, array_view->children[i],
        array->children[i], n_fields, n_buffers, n_union_fields, error));
  }

  return NANOARROW_OK;
}

ArrowErrorCode ArrowIpcDecoderSetSchemaWithDictionaries(
    struct ArrowIpcDecoder* decoder, const struct ArrowSchema* schema,
    const struct ArrowIpcDictionaryEncodings* dictionary_encodings,
    struct ArrowError* error) {
  struct ArrowIpcDecoderPrivate* private_data =
      (struct ArrowIpcDecoderPrivate*)decoder->private_data;

  // Reset previously allocated schema-specific resources
  private_data->n_buffers = 0;
  private_data->n_fields = 0;
  private_data->n_union_fields = 0;
  ArrowArrayViewReset(&private_data->array_view);
  if (private_data->array.release != NULL) {
    ArrowArrayRelease(&private_data->array);
  }
  if (private_data->fields != NULL) {
    ArrowFree(private_data->fields);
  }

  // Allocate Array and ArrayView based on schema without moving the schema.
  // This will fail if the schema is not valid.
  NANOARROW_RETURN_NOT_OK(
      ArrowArrayViewInitFromSchema(&private_data->array_view, schema, error));
  NANOARROW_RETURN_NOT_OK(ArrowArrayInitFromArrayView(&private_data->array,
                                                      &private_data->array_view, error));

  // Root must be a struct
  if (private_data->array_view.storage_type != NANOARROW_TYPE_STRUCT) {
    ArrowErrorSet(error, "schema must be a struct type");
    return EINVAL;
  }

  // Walk tree and calculate how many fields we need to allocate
  ArrowIpcDecoderCountFields(schema, &private_data->n_fields);
  private_data->fields = (struct ArrowIpcField*)ArrowMalloc(private_data->n_fields *
                                                            sizeof(struct ArrowIpcField));
  if (private_data->fields == NULL) {
    ArrowErrorSet(error, "Failed to allocate decoder->fields");
    return ENOMEM;
  }
  memset(private_data->fields, 0, private_data->n_fields * sizeof(struct ArrowIpcField));

  // Init field information and calculate starting buffer offset for each
  int64_t field_i = 0;
  NANOARROW_RETURN_NOT_OK(ArrowIpcDecoderInitFields(
      private_data->fields, schema, dictionary_encodings, &private_data->array_view,
      &private_data->array, &field_i, &private_data->n_buffers,
      &private_data->n_union_fields, error));

  return NANOARROW_OK;
}

ArrowErrorCode ArrowIpcDecoderSetSchema(struct ArrowIpcDecoder* decoder,
                                        const struct ArrowSchema* schema,
                                        struct ArrowError* error) {
  return ArrowIpcDecoderSetSchemaWithDictionaries(decoder, schema, NULL, error);
}

ArrowErrorCode ArrowIpcDecoderSetEndianness(struct ArrowIpcDecoder* decoder,
                                            enum ArrowIpcEndianness endianness) {
  struct ArrowIpcDecoderPrivate* private_data =
      (struct ArrowIpcDecoderPrivate*)decoder->private_data;

  switch (endianness) {
    case NANOARROW_IPC_ENDIANNESS_UNINITIALIZED:
    case NANOARROW_IPC_ENDIANNESS_LITTLE:
    case NANOARROW_IPC_ENDIANNESS_BIG:
      private_data->endianness = endianness;
      return NANOARROW_OK;
    default:
      return EINVAL;
  }
}

/// \brief Information required to read and/or decompress a single buffer
///
/// The RecordBatch message header contains a description of each buffer
/// in the message body. The ArrowIpcBufferSource is the parsed result of
/// a single buffer with compression and endian information such that the
/// original buffer can be reconstructed.
struct ArrowIpcBufferSource {
  int64_t body_offset_bytes;
  int64_t buffer_length_bytes;
  enum ArrowIpcCompressionType codec;
  enum ArrowType data_type;
  int64_t element_size_bits;
  int swap_endian;
};

/// \brief Materializing ArrowBuffer objects
///
/// Given a description of where a buffer is located inside the message body, make
/// the ArrowBuffer that will be placed into the correct ArrowArray. The decoder
/// does not do any IO and does not make any assumptions about how or if the body
/// has been read into memory. This abstraction is currently internal and exists
/// to support the two obvious ways a user might go about this: (1) using a
/// non-owned view of memory that must be copied slice-wise or (2) adding a reference
/// to an ArrowBuffer (shared buffer) and returning a slice of that memory.
struct ArrowIpcBufferFactory {
  /// \brief User-defined callback to populate a buffer view
  ///
  /// At the time that this callback is called, the ArrowIpcBufferSource has been checked
  /// to ensure that it is within the body size declared by the message header. A
  /// possibly preallocated ArrowBuffer (dst) is provided, which implementations must use
  /// if an allocation is required (in which case the view must be populated pointing to
  /// the contents of the ArrowBuffer) If NANOARROW_OK is not returned, error must contain
  /// a null-terminated message.
  ArrowErrorCode (*make_buffer)(struct ArrowIpcBufferFactory* factory,
                                struct ArrowIpcBufferSource* src,
                                struct ArrowBufferView* dst_view, struct ArrowBuffer* dst,
                                struct ArrowError* error);

  /// \brief Caller provided decompressor instance to which any decompression requests
  /// should be made.
  struct ArrowIpcDecompressor* decompressor;

  /// \brief Buffer factory provided buffer length
  ///
  /// Rather than use the body length declared by the flatbuffer message, this is the
  /// length that should be used to check the bounds of a buffer source (i.e., this is
  /// the actual available length as opposed to the theoretical length).
  int64_t buffer_length;

  /// \brief User-defined private data to be used in the callback.
  ///
  /// Usually this would be a description of where the body has been read into memory or
  /// information required to do so.
  void* private_data;
};

static ArrowErrorCode ArrowIpcDecompressBufferFromView(
    struct ArrowIpcDecompressor* decompressor,
    enum ArrowIpcCompressionType compression_type, struct ArrowBufferView src,
    struct ArrowBuffer* dst, int* needs_decompression, struct ArrowError* error) {
  if (src.size_bytes < (int64_t)sizeof(int64_t)) {
    ArrowErrorSet(
        error,
        "Buffer size must be >= sizeof(int64_t) when buffer compression is enabled");
    return EINVAL;
  }

  // When body compression is enabled, buffers are prefixed with a little endian
  // signed 64-bit integer that is the uncompressed body length.
  int64_t uncompressed_size;
  memcpy(&uncompressed_size, src.data.data, sizeof(int64_t));
  if (ArrowIpcSystemEndianness() != NANOARROW_IPC_ENDIANNESS_LITTLE) {
    uncompressed_size = (int64_t)bswap64(uncompressed_size);
  }

  // Sentinel for "body compression was enabled but this buffer is not compressed" is -1
  if (uncompressed_size == -1) {
    *needs_decompression = 0;
    return NANOARROW_OK;
  }

  if (uncompressed_size < 0) {
    ArrowErrorSet(error,
                  "Decompressed buffer size must be -1 or >= 0 bytes but was %" PRId64,
                  uncompressed_size);
    return EINVAL;
  }

  // Prepare the source and destination
  src.data.as_uint8 += sizeof(int64_t);
  src.size_bytes -= sizeof(int64_t);
  NANOARROW_RETURN_NOT_OK(ArrowBufferResize(dst, uncompressed_size, 0));

  // Add the task to the decompressor (this may execute synchronously for some
  // decompressors)
  NANOARROW_RETURN_NOT_OK(decompressor->decompress_add(
      decompressor, compression_type, src, dst->data, uncompressed_size, error));

  // Pass on that we handled the decompression
  *needs_decompression = 1;
  return NANOARROW_OK;
}

static ArrowErrorCode ArrowIpcMakeBufferFromView(struct ArrowIpcBufferFactory* factory,
                                                 struct ArrowIpcBufferSource* src,
                                                 struct ArrowBufferView* dst_view,
                                                 struct ArrowBuffer* dst,
                                                 struct ArrowError* error) {
  struct ArrowBufferView* body = (struct ArrowBufferView*)factory->private_data;

  struct ArrowBufferView src_view;
  src_view.data.as_uint8 = body->data.as_uint8 + src->body_offset_bytes;
  src_view.size_bytes = src->buffer_length_bytes;

  int needs_decompression = 0;
  int uncompressed_data_offset = 0;
  if (src->codec != NANOARROW_IPC_COMPRESSION_TYPE_NONE) {
    NANOARROW_RETURN_NOT_OK(ArrowIpcDecompressBufferFromView(
        factory->decompressor, src->codec, src_view, dst, &needs_decompression, error));
    uncompressed_data_offset += sizeof(int64_t);
  }

  if (!needs_decompression) {
    *dst_view = src_view;
    dst_view->data.as_uint8 += uncompressed_data_offset;
    dst_view->size_bytes -= uncompressed_data_offset;
  } else {
    dst_view->data.data = dst->data;
    dst_view->size_bytes = dst->size_bytes;
  }

  return NANOARROW_OK;
}

static struct ArrowIpcBufferFactory ArrowIpcBufferFactoryFromView(
    struct ArrowBufferView* buffer_view) {
  struct ArrowIpcBufferFactory out;
  out.make_buffer = &ArrowIpcMakeBufferFromView;
  out.decompressor = NULL;
  out.buffer_length = buffer_view->size_bytes;
  out.private_data = buffer_view;
  return out;
}

static ArrowErrorCode ArrowIpcMakeBufferFromShared(struct ArrowIpcBufferFactory* factory,
                                                   struct ArrowIpcBufferSource* src,
                                                   struct ArrowBufferView* dst_view,
                                                   struct ArrowBuffer* dst,
                                                   struct ArrowError* error) {
  struct ArrowBuffer* shared = (struct ArrowBuffer*)factory->private_data;

  int needs_decompression = 0;
  int uncompressed_data_offset = 0;
  if (src->codec != NANOARROW_IPC_COMPRESSION_TYPE_NONE) {
    struct ArrowBufferView src_view;
    src_view.data.as_uint8 = shared->data + src->body_offset_bytes;
    src_view.size_bytes = src->buffer_length_bytes;
    NANOARROW_RETURN_NOT_OK(ArrowIpcDecompressBufferFromView(
        factory->decompressor, src->codec, src_view, dst, &needs_decompression, error));
    uncompressed_data_offset += sizeof(int64_t);
  }

  if (!needs_decompression) {
    ArrowBufferReset(dst);
    NANOARROW_RETURN_NOT_OK(ArrowSharedBufferClone(shared, dst));
    dst->data += src->body_offset_bytes + uncompressed_data_offset;
    dst->size_bytes = src->buffer_length_bytes - uncompressed_data_offset;
  }

  dst_view->data.data = dst->data;
  dst_view->size_bytes = dst->size_bytes;
  return NANOARROW_OK;
}

static struct ArrowIpcBufferFactory ArrowIpcBufferFactoryFromShared(
    struct ArrowBuffer* shared) {
  struct ArrowIpcBufferFactory out;
  out.make_buffer = &ArrowIpcMakeBufferFromShared;
  out.decompressor = NULL;
  out.buffer_length = shared->size_bytes;
  out.private_data = shared;
  return out;
}

// Just for the purposes of endian-swapping
struct ArrowIpcIntervalMonthDayNano {
  uint32_t months;
  uint32_t days;
  uint64_t ns;
};

static int ArrowIpcDecoderSwapEndian(struct ArrowIpcBufferSource* src,
                                     struct ArrowBufferView* out_view,
                                     struct ArrowBuffer* dst, struct ArrowError* error) {
  NANOARROW_DCHECK(out_view->size_bytes > 0);
  NANOARROW_DCHECK(out_view->data.data != NULL);

  // Some buffer data types don't need any endian swapping
  switch (src->data_type) {
    case NANOARROW_TYPE_BOOL:
    case NANOARROW_TYPE_INT8:
    case NANOARROW_TYPE_UINT8:
    case NANOARROW_TYPE_STRING:
    case NANOARROW_TYPE_BINARY:
      return NANOARROW_OK;
    default:
      break;
  }

  // Make sure dst is not a shared buffer that we can't modify
  struct ArrowBuffer tmp;
  ArrowBufferInit(&tmp);

  if (dst->allocator.private_data != NULL) {
    ArrowBufferMove(dst, &tmp);
    ArrowBufferInit(dst);
  }

  if (dst->size_bytes == 0) {
    NANOARROW_RETURN_NOT_OK(ArrowBufferReserve(dst, out_view->size_bytes));
    dst->size_bytes = out_view->size_bytes;
  }

  switch (src->data_type) {
    case NANOARROW_TYPE_DECIMAL32: {
      uint32_t* ptr = (uint32_t*)dst->data;
      for (int64_t i = 0; i < (dst->size_bytes / 4); i++) {
        ptr[i] = bswap32(out_view->data.as_uint32[i]);
      }
      break;
    }
    case NANOARROW_TYPE_DECIMAL64:
    case NANOARROW_TYPE_DECIMAL128:
    case NANOARROW_TYPE_DECIMAL256: {
      const uint64_t* ptr_src = out_view->data.as_uint64;
      uint64_t* ptr_dst = (uint64_t*)dst->data;
      uint64_t words[4];
      int n_words = (int)(src->element_size_bits / 64);
      NANOARROW_DCHECK(n_words == 1 || n_words == 2 || n_words == 4);

      for (int64_t i = 0; i < (dst->size_bytes / n_words / 8); i++) {
        for (int j = 0; j < n_words; j++) {
          words[j] = bswap64(ptr_src[i * n_words + j]);
        }

        for (int j = 0; j < n_words; j++) {
          ptr_dst[i * n_words + j] = words[n_words - j - 1];
        }
      }
      break;
    }
    case NANOARROW_TYPE_INTERVAL_DAY_TIME: {
      uint32_t* ptr = (uint32_t*)dst->data;
      for (int64_t i = 0; i < (dst->size_bytes / 4); i++) {
        ptr[i] = bswap32(out_view->data.as_uint32[i]);
      }
      break;
    }
    case NANOARROW_TYPE_INTERVAL_MONTH_DAY_NANO: {
      const uint8_t* ptr_src = out_view->data.as_uint8;
      uint8_t* ptr_dst = dst->data;
      int item_size_bytes = 16;
      struct ArrowIpcIntervalMonthDayNano item;
      for (int64_t i = 0; i < (dst->size_bytes / item_size_bytes); i++) {
        memcpy(&item, ptr_src + i * item_size_bytes, item_size_bytes);
        item.months = bswap32(item.months);
        item.days = bswap32(item.days);
        item.ns = bswap64(item.ns);
        memcpy(ptr_dst + i * item_size_bytes, &item, item_size_bytes);
      }
      break;
    }
    default:
      switch (src->element_size_bits) {
        case 16: {
          uint16_t* ptr = (uint16_t*)dst->data;
          for (int64_t i = 0; i < (dst->size_bytes / 2); i++) {
            ptr[i] = bswap16(out_view->data.as_uint16[i]);
          }
          break;
        }
        case 32: {
          uint32_t* ptr = (uint32_t*)dst->data;
          for (int64_t i = 0; i < (dst->size_bytes / 4); i++) {
            ptr[i] = bswap32(out_view->data.as_uint32[i]);
          }
          break;
        }
        case 64: {
          uint64_t* ptr = (uint64_t*)dst->data;
          for (int64_t i = 0; i < (dst->size_bytes / 8); i++) {
            ptr[i] = bswap64(out_view->data.as_uint64[i]);
          }
          break;
        }
        default:
          ArrowErrorSet(
              error, "Endian swapping for element bitwidth %" PRId64 " is not supported",
              src->element_size_bits);
          return ENOTSUP;
      }
      break;
  }

  ArrowBufferReset(&tmp);
  out_view->data.data = dst->data;
  return NANOARROW_OK;
}

struct ArrowIpcArraySetter {
  ns(FieldNode_vec_t) fields;
  int64_t field_i;
  ns(Buffer_vec_t) buffers;
  int64_t buffer_i;
  struct ArrowIpcBufferSource src;
  struct ArrowIpcBufferFactory factory;
  enum ArrowIpcMetadataVersion version;
  struct ArrowIpcDictionaries* dictionaries;
};

static int ArrowIpcDecoderMakeBuffer(struct ArrowIpcArraySetter* setter, int64_t offset,
                                     int64_t length, struct ArrowBufferView* out_view,
                                     struct ArrowBuffer* out, struct ArrowError* error) {
  out_view->data.data = NULL;
  out_view->size_bytes = 0;

  if (length == 0) {
    return NANOARROW_OK;
  }

  // Check that this buffer fits within the body
  int64_t buffer_start = offset;
  int64_t buffer_end = buffer_start + length;
  if (buffer_start < 0 || buffer_end > setter->factory.buffer_length) {
    ArrowErrorSet(error,
                  "Buffer requires body offsets [%" PRId64 "..%" PRId64
                  ") but body has size %" PRId64,
                  buffer_start, buffer_end, setter->factory.buffer_length);
    return EINVAL;
  }

  setter->src.body_offset_bytes = offset;
  setter->src.buffer_length_bytes = length;
  NANOARROW_RETURN_NOT_OK(
      setter->factory.make_buffer(&setter->factory, &setter->src, out_view, out, error));

  if (setter->src.swap_endian) {
    NANOARROW_RETURN_NOT_OK(
        ArrowIpcDecoderSwapEndian(&setter->src, out_view, out, error));
  }

  return NANOARROW_OK;
}

static int ArrowIpcDecoderWalkGetArray(struct ArrowArrayView* array_view,
                                       struct ArrowArray* array, struct ArrowArray* out,
                                       struct ArrowError* error) {
  out->length = array_view->length;
  out->null_count = array_view->null_count;

  for (int64_t i = 0; i < array->n_buffers; i++) {
    struct ArrowBufferView view = array_view->buffer_views[i];
    struct ArrowBuffer* scratch_buffer = ArrowArrayBuffer(array, i);
    struct ArrowBuffer* buffer_out = ArrowArrayBuffer(out, i);

    // If the scratch buffer was used, move it to the final array. Otherwise,
    // copy the view.
    if (scratch_buffer->size_bytes == 0) {
      NANOARROW_RETURN_NOT_OK(ArrowBufferAppendBufferView(buffer_out, view));
    } else if (scratch_buffer->data == view.data.as_uint8) {
      ArrowBufferMove(scratch_buffer, buffer_out);
    } else {
      ArrowErrorSet(
          error,
          "Internal: scratch buffer was used but doesn't point to the same data as view");
      return EINVAL;
    }
  }

  for (int64_t i = 0; i < array->n_children; i++) {
    NANOARROW_RETURN_NOT_OK(ArrowIpcDecoderWalkGetArray(
        array_view->children[i], array->children[i], out->children[i], error));
  }

  if (array_view->dictionary != NULL) {
    // Release the dictionary that was pre-initialized by ArrowArrayInitFromArrayView
    if (out->dictionary->release != NULL) {
      ArrowArrayRelease(out->dictionary);
    }
    // Move the pre-cloned shared dictionary to output (avoids copying)
    ArrowArrayMove(array->dictionary, out->dictionary);
  }

  return NANOARROW_OK;
}

static int ArrowIpcDecoderWalkSetArrayView(struct ArrowIpcDecoder* decoder,
                                           struct ArrowIpcArraySetter* setter,
                                           struct ArrowArrayView* array_view,
                                           struct ArrowArray* array,
                                           struct ArrowError* error) {
  struct ArrowIpcDecoderPrivate* private_data =
      (struct ArrowIpcDecoderPrivate*)decoder->private_data;

  // setter->field_i indexes the flatbuffer FieldNode vector (which excludes the root
  // struct), but private_data->fields includes the root at index 0, so add 1.
  struct ArrowIpcField* ipc_field = private_data->fields + setter->field_i + 1;
  if (ipc_field->dictionary_id != NANOARROW_IPC_NO_DICTIONARY_ID) {
    if (setter->dictionaries == NULL) {
      ArrowErrorSet(
          error, "Can't decode a dictionary-encoded field without ArrowIpcDictionaries");
      return ENOTSUP;
    }

    const struct ArrowArray* dictionary;
    NANOARROW_RETURN_NOT_OK(ArrowIpcDictionariesFindCurrentValue(
        setter->dictionaries, ipc_field->dictionary_id, &dictionary, error));

    if (dictionary->release == NULL) {
      ArrowErrorSet(error, "Dictionary with ID %" PRId64 " is marked as released",
                    ipc_field->dictionary_id);
      return EINVAL;
    }

    // Set the dictionary array view from the value. We may be able to skip this
    // if we can somehow detect that the dictionary hasn't changed since the last
    // decode.
    NANOARROW_RETURN_NOT_OK(
        ArrowArrayViewSetArray(array_view->dictionary, dictionary, error));

    // Clone the shared dictionary for output (avoids copying dictionary data)
    if (array->dictionary != NULL) {
      if (array->dictionary->release != NULL) {
        ArrowArrayRelease(array->dictionary);
      }
      int clone_result =
          ArrowArrayCloneShared((struct ArrowArray*)dictionary, array->dictionary);
      if (clone_result != NANOARROW_OK) {
        ArrowErrorSet(error,
                      "Failed to clone shared dictionary with ID %" PRId64
                      " (dictionary may not be shared)",
                      ipc_field->dictionary_id);
        return clone_result;
      }
    }
  }

  ns(FieldNode_struct_t) field =
      ns(FieldNode_vec_at(setter->fields, (size_t)setter->field_i));
  array_view->length = ns(FieldNode_length(field));
  array_view->null_count = ns(FieldNode_null_count(field));
  setter->field_i += 1;

  if (array_view->storage_type == NANOARROW_TYPE_SPARSE_UNION ||
      array_view->storage_type == NANOARROW_TYPE_DENSE_UNION) {
    if (setter->version < NANOARROW_IPC_METADATA_VERSION_V5) {
      ns(Buffer_struct_t) buffer =
          ns(Buffer_vec_at(setter->buffers, (size_t)setter->buffer_i));
      if (ns(Buffer_length(buffer)) != 0) {
        ArrowErrorSet(error,
                      "Cannot read pre-1.0.0 Union array with top-level validity bitmap");
        return EINVAL;
      }
      // skip the empty validity bitmap
      setter->buffer_i += 1;
    }
  }

  for (int i = 0; i < NANOARROW_MAX_FIXED_BUFFERS; i++) {
    if (array_view->layout.buffer_type[i] == NANOARROW_BUFFER_TYPE_NONE) {
      break;
    }

    ns(Buffer_struct_t) buffer =
        ns(Buffer_vec_at(setter->buffers, (size_t)setter->buffer_i));
    int64_t buffer_offset = ns(Buffer_offset(buffer));
    int64_t buffer_length = ns(Buffer_length(buffer));
    setter->buffer_i += 1;

    // Provide a buffer that will be used if any allocation has to occur
    struct ArrowBuffer* buffer_dst = ArrowArrayBuffer(array, i);

    // Attempt to re-use any previous allocation unless this buffer is
    // wrapping a custom allocator.
    if (buffer_dst->allocator.private_data != NULL) {
      ArrowBufferReset(buffer_dst);
    } else {
      buffer_dst->size_bytes = 0;
    }

    setter->src.data_type = array_view->layout.buffer_data_type[i];
    setter->src.element_size_bits = array_view->layout.element_size_bits[i];

    NANOARROW_RETURN_NOT_OK(
        ArrowIpcDecoderMakeBuffer(setter, buffer_offset, buffer_length,
                                  &array_view->buffer_views[i], buffer_dst, error));
  }

  for (int64_t i = 0; i < array_view->n_children; i++) {
    NANOARROW_RETURN_NOT_OK(ArrowIpcDecoderWalkSetArrayView(
        decoder, setter, array_view->children[i], array->children[i], error));
  }

  return NANOARROW_OK;
}

static ArrowErrorCode ArrowIpcDecoderDecodeArrayInternal(
    struct ArrowIpcDecoder* decoder, int64_t field_i, struct ArrowArray* out,
    enum ArrowValidationLevel validation_level, struct ArrowError* error) {
  struct ArrowIpcDecoderPrivate* private_data =
      (struct ArrowIpcDecoderPrivate*)decoder->private_data;

  struct ArrowIpcField* root = private_data->fields + field_i + 1;

  if (field_i == -1) {
    NANOARROW_RETURN_NOT_OK(
        ArrowArrayInitFromArrayView(out, &private_data->array_view, error));
    out->length = private_data->array_view.length;
    out->null_count = private_data->array_view.null_count;

    for (int64_t i = 0; i < private_data->array_view.n_children; i++) {
      NANOARROW_RETURN_NOT_OK(ArrowIpcDecoderWalkGetArray(
          private_data->array_view.children[i], private_data->array.children[i],
          out->children[i], error));
    }

  } else {
    NANOARROW_RETURN_NOT_OK(ArrowArrayInitFromArrayView(out, root->array_view, error));
    NANOARROW_RETURN_NOT_OK(
        ArrowIpcDecoderWalkGetArray(root->array_view, root->array, out, error));
  }

  // If validation is going to happen it has already occurred; however, the part of
  // ArrowArrayFinishBuilding() that allocates a data buffer if the data buffer is
  // NULL (required for compatibility with Arrow <= 9.0.0) assumes CPU data access
  // and thus needs a validation level >= default.
  if (validation_level >= NANOARROW_VALIDATION_LEVEL_DEFAULT) {
    NANOARROW_RETURN_NOT_OK(
        ArrowArrayFinishBuilding(out, NANOARROW_VALIDATION_LEVEL_DEFAULT, error));
  } else {
    NANOARROW_RETURN_NOT_OK(
        ArrowArrayFinishBuilding(out, NANOARROW_VALIDATION_LEVEL_NONE, error));
  }

  return NANOARROW_OK;
}

static ArrowErrorCode ArrowIpcDecoderDecodeArrayViewInternal(
    struct ArrowIpcDecoder* decoder, struct ArrowIpcBufferFactory factory,
    int64_t field_i, struct ArrowIpcDictionaries* dictionaries,
    struct ArrowArrayView** out_view, struct ArrowError* error) {
  struct ArrowIpcDecoderPrivate* private_data =
      (struct ArrowIpcDecoderPrivate*)decoder->private_data;

  // RecordBatch messages don't count the root node but decoder->fields does
  // (decoder->fields[0] is the root field)
  if (field_i + 1 >= private_data->n_fields) {
    ArrowErrorSet(error, "cannot decode column %" PRId64 "; there are only %" PRId64,
                  field_i, private_data->n_fields - 1);
    return EINVAL;
  }

  ns(RecordBatch_table_t) batch = (ns(RecordBatch_table_t))private_data->last_message;

  struct ArrowIpcField* root = private_data->fields + field_i + 1;

  struct ArrowIpcArraySetter setter;
  setter.fields = ns(RecordBatch_nodes(batch));
  setter.field_i = field_i;
  setter.buffers = ns(RecordBatch_buffers(batch));
  setter.buffer_i = root->buffer_offset - 1;
  setter.factory = factory;
  setter.src.codec = decoder->codec;
  setter.src.swap_endian = ArrowIpcDecoderNeedsSwapEndian(decoder);
  setter.version = decoder->metadata_version;
  setter.dictionaries = dictionaries;

  // If we are going to need a decompressor here, ensure the default one is
  // initialized.
  if (setter.src.codec != NANOARROW_IPC_COMPRESSION_TYPE_NONE) {
    NANOARROW_RETURN_NOT_OK(ArrowIpcDecoderInitDecompressor(private_data));
    setter.factory.decompressor = &private_data->decompressor;
  }

  // The flatbuffers FieldNode doesn't count the root struct so we have to loop over the
  // children ourselves
  if (field_i == -1) {
    root->array_view->length = ns(RecordBatch_length(batch));
    root->array_view->null_count = 0;
    setter.field_i++;
    setter.buffer_i++;

    for (int64_t i = 0; i < root->array_view->n_children; i++) {
      NANOARROW_RETURN_NOT_OK(
          ArrowIpcDecoderWalkSetArrayView(decoder, &setter, root->array_view->children[i],
                                          root->array->children[i], error));
    }
  } else {
    NANOARROW_RETURN_NOT_OK(ArrowIpcDecoderWalkSetArrayView(
        decoder, &setter, root->array_view, root->array, error));
  }

  // If we decoded a compressed message, wait for any pending decompression tasks to
  // complete. The default compressor already performed the decompression
  if (setter.factory.decompressor != NULL) {
    NANOARROW_RETURN_NOT_OK(setter.factory.decompressor->decompress_wait(
        setter.factory.decompressor, -1, error));
  }

  *out_view = root->array_view;
  return NANOARROW_OK;
}

NANOARROW_DLL ArrowErrorCode ArrowIpcDecoderDecodeArrayViewWithDictionaries(
    struct ArrowIpcDecoder* decoder, struct ArrowBufferView body, int64_t i,
    struct ArrowIpcDictionaries* dictionaries, struct ArrowArrayView** out,
    struct ArrowError* error) {
  struct ArrowIpcDecoderPrivate* private_data =
      (struct ArrowIpcDecoderPrivate*)decoder->private_data;
  if (private_data->last_message == NULL ||
      decoder->message_type != NANOARROW_IPC_MESSAGE_TYPE_RECORD_BATCH) {
    ArrowErrorSet(error, "decoder did not just decode a RecordBatch message");
    return EINVAL;
  }

  return ArrowIpcDecoderDecodeArrayViewInternal(
      decoder, ArrowIpcBufferFactoryFromView(&body), i, dictionaries, out, error);
}

ArrowErrorCode ArrowIpcDecoderDecodeArrayView(struct ArrowIpcDecoder* decoder,
                                              struct ArrowBufferView body, int64_t i,
                                              struct ArrowArrayView** out,
                                              struct ArrowError* error) {
  return ArrowIpcDecoderDecodeArrayViewWithDictionaries(decoder, body, i, NULL, out,
                                                        error);
}

NANOARROW_DLL ArrowErrorCode ArrowIpcDecoderDecodeArrayWithDictionaries(
    struct ArrowIpcDecoder* decoder, struct ArrowBufferView body, int64_t i,
    struct ArrowIpcDictionaries* dictionaries, struct ArrowArray* out,
    enum ArrowValidationLevel validation_level, struct ArrowError* error) {
  struct ArrowIpcDecoderPrivate* private_data =
      (struct ArrowIpcDecoderPrivate*)decoder->private_data;
  if (private_data->last_message == NULL ||
      decoder->message_type != NANOARROW_IPC_MESSAGE_TYPE_RECORD_BATCH) {
    ArrowErrorSet(error, "decoder did not just decode a RecordBatch message");
    return EINVAL;
  }

  struct ArrowArrayView* array_view;
  NANOARROW_RETURN_NOT_OK(ArrowIpcDecoderDecodeArrayViewInternal(
      decoder, ArrowIpcBufferFactoryFromView(&body), i, dictionaries, &array_view,
      error));

  NANOARROW_RETURN_NOT_OK(ArrowArrayViewValidate(array_view, validation_level, error));

  struct ArrowArray temp;
  temp.release = NULL;
  int result =
      ArrowIpcDecoderDecodeArrayInternal(decoder, i, &temp, validation_level, error);
  if (result != NANOARROW_OK && temp.release != NULL) {
    ArrowArrayRelease(&temp);
  } else if (result != NANOARROW_OK) {
    return result;
  }

  ArrowArrayMove(&temp, out);
  return NANOARROW_OK;
}

ArrowErrorCode ArrowIpcDecoderDecodeArray(struct ArrowIpcDecoder* decoder,
                                          struct ArrowBufferView body, int64_t i,
                                          struct ArrowArray* out,
                                          enum ArrowValidationLevel validation_level,
                                          struct ArrowError* error) {
  return ArrowIpcDecoderDecodeArrayWithDictionaries(decoder, body, i, NULL, out,
                                                    validation_level, error);
}

ArrowErrorCode ArrowIpcDecoderDecodeArrayFromSharedWithDictionaries(
    struct ArrowIpcDecoder* decoder, struct ArrowBuffer* body, int64_t i,
    struct ArrowIpcDictionaries* dictionaries, struct ArrowArray* out,
    enum ArrowValidationLevel validation_level, struct ArrowError* error) {
  struct ArrowArrayView* array_view;
  NANOARROW_RETURN_NOT_OK(ArrowIpcDecoderDecodeArrayViewInternal(
      decoder, ArrowIpcBufferFactoryFromShared(body), i, dictionaries, &array_view,
      error));

  NANOARROW_RETURN_NOT_OK(ArrowArrayViewValidate(array_view, validation_level, error));

  struct ArrowArray temp;
  temp.release = NULL;
  int result =
      ArrowIpcDecoderDecodeArrayInternal(decoder, i, &temp, validation_level, error);
  if (result != NANOARROW_OK && temp.release != NULL) {
    ArrowArrayRelease(&temp);
  } else if (result != NANOARROW_OK) {
    return result;
  }

  ArrowArrayMove(&temp, out);
  return NANOARROW_OK;
}

ArrowErrorCode ArrowIpcDecoderDecodeArrayFromShared(
    struct ArrowIpcDecoder* decoder, struct ArrowBuffer* body, int64_t i,
    struct ArrowArray* out, enum ArrowValidationLevel validation_level,
    struct ArrowError* error) {
  return ArrowIpcDecoderDecodeArrayFromSharedWithDictionaries(decoder, body, i, NULL, out,
                                                              validation_level, error);
}

static ArrowErrorCode ArrowIpcDecoderDecodeDictionaryInternal(
    struct ArrowIpcDecoder* decoder, struct ArrowIpcBufferFactory factory,
    enum ArrowValidationLevel validation_level, struct ArrowIpcDictionaries* dictionaries,
    struct ArrowError* error) {
  struct ArrowIpcDecoderPrivate* private_data =
      (struct ArrowIpcDecoderPrivate*)decoder->private_data;

  if (decoder->message_type != NANOARROW_IPC_MESSAGE_TYPE_DICTIONARY_BATCH) {
    ArrowErrorSet(error, "decoder did not just decode a DictionaryBatch message");
    return EINVAL;
  }

  struct ArrowIpcDictionary* dictionary =
      ArrowIpcDictionariesFindById(dictionaries, decoder->dictionary->id);
  if (dictionary == NULL) {
    ArrowErrorSet(error,
                  "Can't decode DictionaryBatch with ID %" PRId64
                  " (dictionary definition not found)",
                  decoder->dictionary->id);
    return EINVAL;
  }

  // Set the dictionary->decoder's last message type and last message so that we can
  // decode the value.
  ns(DictionaryBatch_table_t) dictionary_batch =
      (ns(DictionaryBatch_table_t))private_data->last_message;
  ns(RecordBatch_table_t) record_batch = ns(DictionaryBatch_data(dictionary_batch));

  struct ArrowIpcDecoderPrivate* dictionary_decoder_private_data =
      (struct ArrowIpcDecoderPrivate*)dictionary->decoder.private_data;
  dictionary->decoder.message_type = NANOARROW_IPC_MESSAGE_TYPE_RECORD_BATCH;
  dictionary_decoder_private_data->last_message = record_batch;
  // Transfer the endianness setting so that buffers are byte-swapped if needed
  dictionary_decoder_private_data->endianness = private_data->endianness;

  struct ArrowArrayView* array_view;
  NANOARROW_RETURN_NOT_OK(ArrowIpcDecoderDecodeArrayViewInternal(
      &dictionary->decoder, factory, 0, dictionaries, &array_view, error));

  NANOARROW_RETURN_NOT_OK(ArrowArrayViewValidate(array_view, validation_level, error));

  struct ArrowArray tmp;
  tmp.release = NULL;
  int result = ArrowIpcDecoderDecodeArrayInternal(&dictionary->decoder, 0, &tmp,
                                                  validation_level, error);
  if (result != NANOARROW_OK && tmp.release != NULL) {
    ArrowArrayRelease(&tmp);
    return result;
  } else if (result != NANOARROW_OK) {
    return result;
  }

  if (decoder->dictionary->is_delta) {
    result = ArrowIpcDictionaryAppend(dictionary, &tmp, error);
  } else {
    result = ArrowIpcDictionaryReplace(dictionary, &tmp, error);
  }

  if (result != NANOARROW_OK) {
    ArrowArrayRelease(&tmp);
    return result;
  }

  return NANOARROW_OK;
}

NANOARROW_DLL ArrowErrorCode ArrowIpcDecoderDecodeDictionary(
    struct ArrowIpcDecoder* decoder, struct ArrowBufferView body,
    enum ArrowValidationLevel validation_level, struct ArrowIpcDictionaries* dictionaries,
    struct ArrowError* error) {
  NANOARROW_DCHECK(decoder != NULL);
  NANOARROW_DCHECK(dictionaries != NULL);

  return ArrowIpcDecoderDecodeDictionaryInternal(decoder,
                                                 ArrowIpcBufferFactoryFromView(&body),
                                                 validation_level, dictionaries, error);
}

NANOARROW_DLL ArrowErrorCode ArrowIpcDecoderDecodeDictionaryFromShared(
    struct ArrowIpcDecoder* decoder, struct ArrowBuffer* shared,
    enum ArrowValidationLevel validation_level, struct ArrowIpcDictionaries* dictionaries,
    struct ArrowError* error) {
  NANOARROW_DCHECK(decoder != NULL);
  NANOARROW_DCHECK(shared != NULL);
  NANOARROW_DCHECK(dictionaries != NULL);

  return ArrowIpcDecoderDecodeDictionaryInternal(decoder,
                                                 ArrowIpcBufferFactoryFromShared(shared),
                                                 validation_level, dictionaries, error);
}
