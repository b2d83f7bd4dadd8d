/* Runs an image classifier through hipinfer's C API and prints its top-1 class.
 *   classify_c MODEL.onnx INPUT.raw
 * INPUT.raw holds the first input's float32 values (symbolic dims taken as 1), little-endian. */
#include <stdio.h>
#include <stdlib.h>

#include <hipinfer/c_api.h>

/* Prints a failed status and exits; frees it otherwise. */
static void check(hi_status* status) {
  if (status == NULL) return;
  fprintf(stderr, "classify_c: %s: %s\n", hi_status_code_name(hi_status_get_code(status)),
          hi_status_get_message(status));
  hi_status_free(status);
  exit(1);
}

static float* read_floats(const char* path, size_t count) {
  float* data = malloc(count * sizeof(float));
  FILE* f = fopen(path, "rb");
  if (data == NULL || f == NULL || fread(data, sizeof(float), count, f) != count) {
    fprintf(stderr, "classify_c: cannot read %zu float32 values from %s\n", count, path);
    exit(1);
  }
  fclose(f);
  return data;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: classify_c MODEL.onnx INPUT.raw\n");
    return 2;
  }
  hi_env* env = NULL;
  hi_session* session = NULL;
  check(hi_env_create(HI_LOG_WARNING, &env));
  check(hi_session_create(env, argv[1], NULL, &session));

  const char* input_name = NULL;
  int64_t dims[8];
  int64_t rank = 0;
  check(hi_session_get_input_name(session, 0, &input_name));
  check(hi_session_get_input_shape(session, 0, dims, 8, &rank));
  size_t count = 1;
  for (int64_t i = 0; i < rank; ++i) {
    if (dims[i] < 0) dims[i] = 1;
    count *= (size_t)dims[i];
  }
  float* pixels = read_floats(argv[2], count);
  hi_value* input = NULL;
  check(hi_value_create_tensor_with_data(HI_TYPE_FLOAT32, dims, (size_t)rank, pixels, count * sizeof(float), &input));

  hi_value* output = NULL;
  check(hi_session_run(session, NULL, &input_name, (const hi_value* const*)&input, 1, NULL, 1, &output));
  void* data = NULL;
  size_t bytes = 0;
  check(hi_value_get_data(output, &data, &bytes));
  const float* scores = data;
  size_t best = 0;
  for (size_t i = 1; i < bytes / sizeof(float); ++i)
    if (scores[i] > scores[best]) best = i;
  printf("top-1: class %zu (score %.6f), hipinfer %s, C API %u\n", best, scores[best], hi_version_string(),
         hi_c_api_version());

  check(hi_value_free(output));
  check(hi_value_free(input));
  check(hi_session_free(session));
  check(hi_env_free(env));
  free(pixels);
  return 0;
}
