/* hipinfer's C API: a stable ABI for C and for any language that can call C.
 *
 * Rules of use
 * - Every function that can fail returns a hi_status*: NULL means success; otherwise it holds a
 *   code and a message naming the function, the argument, and the expected and actual value.
 *   Free it with hi_status_free().
 * - Handles are opaque. Each hi_*_create has a hi_*_free, which returns a status too. A handle
 *   that is NULL, already freed, or of another kind is refused with HI_STATUS_INVALID_ARGUMENT
 *   (the library keeps a table of live handles; it never reads through a pointer it did not hand
 *   out). A freed handle whose address was reused by a new one cannot be told apart from it.
 * - Strings the library returns (names, messages) belong to the object they came from and stay
 *   valid until it is freed.
 * - Threads: one hi_session may run from many threads at once (hi_session_run). A hi_value or an
 *   options object must not be changed by one thread while another uses it; a hi_run_options may
 *   serve several runs at once, and hi_run_options_set_terminate may be called from any thread.
 *
 * ABI rule
 * HI_C_API_VERSION names this ABI; the shared library's SONAME is libhipinfer.so.<version>.
 * Within one version, functions and enum values are only added, never removed, renamed or
 * changed in signature or meaning, and no handle exposes its layout. A program built against
 * this header runs with any library whose hi_c_api_version() equals its HI_C_API_VERSION and
 * whose hi_c_api_revision() is at least the HI_C_API_REVISION it was built with (the revision
 * counts additions). Anything else raises HI_C_API_VERSION and the SONAME.
 */
#ifndef HIPINFER_C_API_H_
#define HIPINFER_C_API_H_

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define HI_C_EXPORT __attribute__((visibility("default")))
#else
#define HI_C_EXPORT
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define HI_C_API_VERSION 1
#define HI_C_API_REVISION 0

/* ---- status ---------------------------------------------------------------------------------- */

/* Each enum ends in a *_MAX_ value that is not a member: it gives the enum the range of a 32-bit
 * int, so any value a caller passes (an out-of-range one is refused with a status) is a valid
 * value of the type in C++ too, and the enums stay 4 bytes wide in every ABI. */

typedef enum hi_status_code {
  HI_STATUS_OK = 0,
  HI_STATUS_INVALID_ARGUMENT = 1,  /* the caller passed something wrong (handles, inputs, options) */
  HI_STATUS_INVALID_MODEL = 2,     /* the model is unreadable, malformed or inconsistent */
  HI_STATUS_UNSUPPORTED = 3,       /* valid ONNX that hipinfer cannot run (op, opset, type) */
  HI_STATUS_NOT_FOUND = 4,         /* a named file, input or output does not exist */
  HI_STATUS_OUT_OF_MEMORY = 5,     /* an allocation failed or would pass a memory limit */
  HI_STATUS_RUNTIME_ERROR = 6,     /* a failure while running (device or kernel error) */
  HI_STATUS_CANCELLED = 7,         /* hi_run_options_set_terminate stopped the run */
  HI_STATUS_DEADLINE_EXCEEDED = 8, /* the run passed hi_run_options_set_timeout_ms */
  HI_STATUS_INTERNAL = 9,          /* a bug in hipinfer */
  HI_STATUS_CODE_MAX_ = 0x7fffffff /* not a code: makes every int a valid value of the type (see above) */
} hi_status_code;

typedef struct hi_status hi_status;

/* HI_STATUS_OK for NULL. */
HI_C_EXPORT hi_status_code hi_status_get_code(const hi_status* status);
/* "" for NULL. */
HI_C_EXPORT const char* hi_status_get_message(const hi_status* status);
/* "InvalidArgument", "OutOfMemory", ...; "OK" for HI_STATUS_OK. */
HI_C_EXPORT const char* hi_status_code_name(hi_status_code code);
/* NULL is allowed. */
HI_C_EXPORT void hi_status_free(hi_status* status);

/* ---- handles: each made by its hi_*_create and released by its hi_*_free ---------------------- */

typedef struct hi_env hi_env;                         /* logging; needed to create sessions */
typedef struct hi_session_options hi_session_options; /* how a session is built */
typedef struct hi_session hi_session;                 /* a loaded model, ready to run */
typedef struct hi_value hi_value;                     /* a tensor */
typedef struct hi_run_options hi_run_options;         /* timeout and terminate flag of runs */

/* ---- versions -------------------------------------------------------------------------------- */

HI_C_EXPORT uint32_t hi_c_api_version(void);
HI_C_EXPORT uint32_t hi_c_api_revision(void);
/* hipinfer's release, "0.2.0"; the same as `hipinfer --version` and the Python package's. */
HI_C_EXPORT const char* hi_version_string(void);
/* The git commit the library was built from ("3f2c1ab", "3f2c1ab-dirty"; "unknown" outside git). */
HI_C_EXPORT const char* hi_git_commit(void);

/* ---- element types: the numeric values are ONNX's TensorProto.DataType codes ------------------ */

typedef enum hi_element_type {
  HI_TYPE_UNDEFINED = 0,
  HI_TYPE_FLOAT32 = 1,
  HI_TYPE_UINT8 = 2,
  HI_TYPE_INT8 = 3,
  HI_TYPE_UINT16 = 4,
  HI_TYPE_INT16 = 5,
  HI_TYPE_INT32 = 6,
  HI_TYPE_INT64 = 7,
  HI_TYPE_STRING = 8,
  HI_TYPE_BOOL = 9,
  HI_TYPE_FLOAT16 = 10,
  HI_TYPE_FLOAT64 = 11,
  HI_TYPE_UINT32 = 12,
  HI_TYPE_UINT64 = 13,
  HI_TYPE_BFLOAT16 = 16,
  HI_TYPE_MAX_ = 0x7fffffff
} hi_element_type;

/* Bytes per element (bool: 1); 0 for strings and types the API does not hold. */
HI_C_EXPORT size_t hi_element_type_size(hi_element_type type);

/* ---- environment ----------------------------------------------------------------------------- */

typedef enum hi_log_level {
  HI_LOG_VERBOSE = 0,
  HI_LOG_INFO = 1,
  HI_LOG_WARNING = 2, /* what a session finds worth telling (fallbacks) goes to stderr */
  HI_LOG_ERROR = 3,
  HI_LOG_FATAL = 4,
  HI_LOG_LEVEL_MAX_ = 0x7fffffff
} hi_log_level;

HI_C_EXPORT hi_status* hi_env_create(hi_log_level level, hi_env** out);
HI_C_EXPORT hi_status* hi_env_free(hi_env* env);

/* ---- session options ------------------------------------------------------------------------- */

HI_C_EXPORT hi_status* hi_session_options_create(hi_session_options** out);
HI_C_EXPORT hi_status* hi_session_options_free(hi_session_options* options);
/* Intra-op threads; 0 (default) = the physical cores. */
HI_C_EXPORT hi_status* hi_session_options_set_threads(hi_session_options* options, int threads);
/* 0 none, 1 basic, 2 extended, 3 all (default), as in ONNX Runtime. */
HI_C_EXPORT hi_status* hi_session_options_set_optimization_level(hi_session_options* options, int level);
/* Most host memory the session may hold at once, in bytes; 0 (default) = no limit of its own. */
HI_C_EXPORT hi_status* hi_session_options_set_memory_limit(hi_session_options* options, int64_t bytes);
/* "fp32" (default) or "bf16". */
HI_C_EXPORT hi_status* hi_session_options_set_precision(hi_session_options* options, const char* precision);
/* Devices in order of preference, comma-separated: "gpu,cpu" (default), "cpu", "cuda,cpu", "emu". */
HI_C_EXPORT hi_status* hi_session_options_set_devices(hi_session_options* options, const char* devices);
/* Graph capture and replay on GPUs: nonzero (default) on, 0 off. */
HI_C_EXPORT hi_status* hi_session_options_set_gpu_graphs(hi_session_options* options, int enabled);
/* Fixes every input dim of this symbolic name to `size` (onnxruntime's free dimension override);
 * a name no input dim carries is reported as a session warning (printed at HI_LOG_WARNING). */
HI_C_EXPORT hi_status* hi_session_options_add_free_dimension_override(hi_session_options* options, const char* dim_name,
                                                                      int64_t size);
/* Replaces the model's initializer `name` with the tensor of `value` (same element type and shape,
 * checked at session creation). The value's memory is shared: keep it unchanged while sessions
 * made with these options live (freeing the value handle is fine: the options hold the tensor). */
HI_C_EXPORT hi_status* hi_session_options_add_initializer(hi_session_options* options, const char* name,
                                                          const hi_value* value);
/* Skips a graph pass by name ("fuse_inverted_residual"); an unknown name fails at session creation. */
HI_C_EXPORT hi_status* hi_session_options_disable_pass(hi_session_options* options, const char* pass);

/* ---- values ---------------------------------------------------------------------------------- */

/* A tensor in memory the library allocates (zero-filled). shape may be NULL when rank is 0. */
HI_C_EXPORT hi_status* hi_value_create_tensor(hi_element_type type, const int64_t* shape, size_t rank, hi_value** out);
/* A tensor over the caller's memory, without a copy: data must hold exactly byte_size bytes, the
 * shape's element count times hi_element_type_size(type), and outlive the value. */
HI_C_EXPORT hi_status* hi_value_create_tensor_with_data(hi_element_type type, const int64_t* shape, size_t rank,
                                                        void* data, size_t byte_size, hi_value** out);
/* A string tensor: count must equal the shape's element count; the strings are copied. */
HI_C_EXPORT hi_status* hi_value_create_string_tensor(const int64_t* shape, size_t rank, const char* const* strings,
                                                     size_t count, hi_value** out);
HI_C_EXPORT hi_status* hi_value_free(hi_value* value);

HI_C_EXPORT hi_status* hi_value_get_element_type(const hi_value* value, hi_element_type* out);
/* Writes the rank to *rank and, when capacity allows, the dims to dims (which may be NULL when
 * capacity is 0); a capacity below the rank fails with the rank still written. */
HI_C_EXPORT hi_status* hi_value_get_shape(const hi_value* value, int64_t* dims, size_t capacity, size_t* rank);
HI_C_EXPORT hi_status* hi_value_get_element_count(const hi_value* value, int64_t* out);
/* The tensor's bytes (not for strings: use hi_value_get_string). */
HI_C_EXPORT hi_status* hi_value_get_data(hi_value* value, void** data, size_t* byte_size);
/* Element index of a string tensor; *out is valid until the value is freed, *length its bytes. */
HI_C_EXPORT hi_status* hi_value_get_string(const hi_value* value, size_t index, const char** out, size_t* length);

/* ---- sessions -------------------------------------------------------------------------------- */

/* options may be NULL (the defaults). */
HI_C_EXPORT hi_status* hi_session_create(const hi_env* env, const char* model_path, const hi_session_options* options,
                                         hi_session** out);
HI_C_EXPORT hi_status* hi_session_create_from_bytes(const hi_env* env, const void* model_data, size_t size,
                                                    const hi_session_options* options, hi_session** out);
HI_C_EXPORT hi_status* hi_session_free(hi_session* session);

HI_C_EXPORT hi_status* hi_session_get_input_count(const hi_session* session, size_t* out);
HI_C_EXPORT hi_status* hi_session_get_output_count(const hi_session* session, size_t* out);
HI_C_EXPORT hi_status* hi_session_get_input_name(const hi_session* session, size_t index, const char** out);
HI_C_EXPORT hi_status* hi_session_get_output_name(const hi_session* session, size_t index, const char** out);
/* The element type; for a sequence or optional input, its tensors' element type. */
HI_C_EXPORT hi_status* hi_session_get_input_type(const hi_session* session, size_t index, hi_element_type* out);
HI_C_EXPORT hi_status* hi_session_get_output_type(const hi_session* session, size_t index, hi_element_type* out);
/* As hi_value_get_shape, with -1 for a dim not known before the run, and *rank = -1 when the
 * rank itself is unknown. */
HI_C_EXPORT hi_status* hi_session_get_input_shape(const hi_session* session, size_t index, int64_t* dims,
                                                  size_t capacity, int64_t* rank);
HI_C_EXPORT hi_status* hi_session_get_output_shape(const hi_session* session, size_t index, int64_t* dims,
                                                   size_t capacity, int64_t* rank);
/* Where the nodes run, with a reason for every fallback ("105 nodes: 105 on cpu; ..."). */
HI_C_EXPORT hi_status* hi_session_get_placement_summary(const hi_session* session, const char** out);

/* ---- running --------------------------------------------------------------------------------- */

HI_C_EXPORT hi_status* hi_run_options_create(hi_run_options** out);
HI_C_EXPORT hi_status* hi_run_options_free(hi_run_options* options);
/* Wall-time limit of each run using these options, in ms; 0 (default) = none. */
HI_C_EXPORT hi_status* hi_run_options_set_timeout_ms(hi_run_options* options, double timeout_ms);
/* Nonzero stops the runs using these options (HI_STATUS_CANCELLED); 0 lets new runs go. Any thread. */
HI_C_EXPORT hi_status* hi_run_options_set_terminate(hi_run_options* options, int terminate);

/* Runs the session. run_options may be NULL. Inputs are given by name. Outputs: output_names
 * lists the outputs wanted; NULL (with output_count equal to hi_session_get_output_count) means
 * all, in model order. For each output, outputs[i] == NULL on entry receives a new value the
 * caller frees; a value the caller created (for example over its own buffer with
 * hi_value_create_tensor_with_data) receives a copy of the result and must have its element type
 * and shape. On failure, values this call created are freed and their slots reset to NULL. */
HI_C_EXPORT hi_status* hi_session_run(hi_session* session, const hi_run_options* run_options,
                                      const char* const* input_names, const hi_value* const* inputs, size_t input_count,
                                      const char* const* output_names, size_t output_count, hi_value** outputs);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* HIPINFER_C_API_H_ */
