/* Every entry point that takes a size refuses an absurd one — a count beyond
 * 2^24, a product of sizes beyond 2^28 values or one that overflows size_t, an
 * array length no array can have — with CFX_STATUS_INVALID_ARGUMENT and a
 * message, before allocating anything (an allocation failure would abort the
 * host). The handles stay usable afterwards.
 * Usage: absurd_sizes <schema.json> <model.json> */
#include "common.h"

#include <stdint.h>

static int failures = 0;

static void expect(const char *what, cfx_status got, const char *needle) {
  const char *msg = last_error();
  int ok = got == CFX_STATUS_INVALID_ARGUMENT && strstr(msg, needle) != NULL;
  printf("%s %s -> %s\n", ok ? "PASS" : "FAIL", what, cfx_status_str(got));
  if (!ok) {
    printf("     wanted CFX_STATUS_INVALID_ARGUMENT mentioning '%s', message: %s\n", needle, msg);
    failures++;
  }
}

int main(int argc, char **argv) {
  const cfx_schema *schema = NULL;
  const cfx_model *model = NULL, *mlp = NULL;
  const cfx_dataset *data = NULL;
  const cfx_config *config = NULL;
  const cfx_noise *noise = NULL, *bad_noise = NULL;
  const cfx_estimator *estimator = NULL, *bad_estimator = NULL;
  const cfx_uncertainty *uncertainty = NULL, *bad_uncertainty = NULL;
  const cfx_coherent_batch *batch = NULL;
  const cfx_schema *weighted = NULL;
  cfx_config_builder *builder = NULL;
  cfx_schema_builder *sb = NULL;
  char *schema_json, *model_json;
  const size_t huge = SIZE_MAX, big = (size_t)1 << 25, wide = (size_t)1 << 20;
  size_t one_huge[1], two_wide[2], columns[1] = {0}, n = 0;
  double mean[2] = {0.5, 1.0}, cov[4] = {1.0, 0.0, 0.0, 1.0};
  double x[7] = {0}, rows[4] = {30000.0, -7.0, 1.0, 30.0}, out[8], lo = 0.0, hi = 0.0;
  double score = 0.0;
  const char *levels[1] = {"a"};

  if (argc != 3) return 2;
  schema_json = read_file(argv[1]);
  model_json = read_file(argv[2]);
  CHECK(cfx_schema_from_json(schema_json, &schema));
  CHECK(cfx_model_from_json(schema, model_json, &model));
  CHECK(cfx_dataset_load_german(NULL, &data));
  CHECK(cfx_noise_gaussian_new(schema, 0.01, &noise));
  CHECK(cfx_estimator_new(noise, 100, 0, &estimator));
  CHECK(cfx_uncertainty_new(mean, 2, cov, 4, &uncertainty));
  one_huge[0] = huge;
  two_wide[0] = wide;
  two_wide[1] = wide;

  /* configuration builder: counts */
  CHECK(cfx_config_builder_new(&builder));
  expect("config n_diverse = SIZE_MAX", cfx_config_builder_set_n_diverse(builder, huge), "absurdly");
  expect("config n_samples = 2^25", cfx_config_builder_set_n_samples(builder, big), "absurdly");
  expect("config threads = SIZE_MAX", cfx_config_builder_set_threads(builder, huge), "absurdly");
  expect("config rl episodes = SIZE_MAX", cfx_config_builder_set_rl_episodes(builder, huge, 10),
         "episodes");
  expect("config rl max_steps = SIZE_MAX", cfx_config_builder_set_rl_episodes(builder, 10, huge),
         "max_steps");
  expect("config rl batch_size = SIZE_MAX",
         cfx_config_builder_set_rl_training(builder, 0.9, 1e-3, 1e-3, huge, huge), "batch_size");
  expect("config rl replay_capacity = SIZE_MAX",
         cfx_config_builder_set_rl_training(builder, 0.9, 1e-3, 1e-3, 32, huge), "replay_capacity");
  expect("config rl hidden width = SIZE_MAX", cfx_config_builder_set_rl_hidden(builder, one_huge, 1),
         "hidden width");
  expect("config rl hidden 2^20 x 2^20", cfx_config_builder_set_rl_hidden(builder, two_wide, 2),
         "weight matrix");
  expect("config rl n_hidden = SIZE_MAX", cfx_config_builder_set_rl_hidden(builder, two_wide, huge),
         "n_hidden");
  CHECK(cfx_config_build(builder, &config));

  /* models */
  expect("train_mlp hidden width = SIZE_MAX",
         cfx_model_train_mlp(data, one_huge, 1, 1, 16, 0.01, 0.0, 1, &mlp), "hidden width");
  expect("train_mlp hidden 2^20 x 2^20",
         cfx_model_train_mlp(data, two_wide, 2, 1, 16, 0.01, 0.0, 1, &mlp), "weight matrix");
  expect("train_mlp n_hidden = SIZE_MAX",
         cfx_model_train_mlp(data, two_wide, huge, 1, 16, 0.01, 0.0, 1, &mlp), "hidden");
  expect("train_mlp epochs = SIZE_MAX",
         cfx_model_train_mlp(data, two_wide, 1, huge, 16, 0.01, 0.0, 1, &mlp), "epochs");
  expect("train_mlp batch_size = SIZE_MAX",
         cfx_model_train_mlp(data, two_wide, 1, 1, huge, 0.01, 0.0, 1, &mlp), "batch_size");
  expect("model_predict x_len = SIZE_MAX", cfx_model_predict(model, x, huge, &score, NULL, NULL),
         "length");
  expect("model_probability_batch n_rows x input_dim overflows",
         cfx_model_probability_batch(model, x, huge / 2, out, 8, &n), "overflows");
  expect("model_from_onnx_bytes bytes_len = SIZE_MAX",
         cfx_model_from_onnx_bytes(schema, (const uint8_t *)x, huge, NULL, &mlp), "any array");

  /* schemas */
  expect("schema_encode raw_len = SIZE_MAX", cfx_schema_encode(schema, rows, huge, x, 7, &n),
         "length");
  expect("schema_fit_weights n_rows x n_cols overflows",
         cfx_schema_fit_weights(schema, rows, huge / 2, 4, &weighted), "overflows");
  CHECK(cfx_schema_builder_new(&sb));
  expect("schema_builder_add_categorical n_levels = SIZE_MAX",
         cfx_schema_builder_add_categorical(sb, "c", levels, huge), "length");
  cfx_schema_builder_free(sb);

  /* robustness */
  expect("noise_new n_columns = SIZE_MAX", cfx_noise_new(0, columns, huge, x, 1, &bad_noise),
         "length");
  expect("estimator_new k = SIZE_MAX", cfx_estimator_new(noise, huge, 0, &bad_estimator),
         "absurdly");
  expect("estimate_batch n_points x input_dim overflows",
         cfx_estimator_estimate_batch(estimator, model, x, huge / 2, 1, 1, out, out), "overflows");
  expect("estimate_batch threads = SIZE_MAX",
         cfx_estimator_estimate_batch(estimator, model, x, 1, 1, huge, out, out), "threads");

  /* plans under model shift */
  expect("uncertainty_new d = 2^20 (d x d = 2^40)",
         cfx_uncertainty_new(mean, wide, cov, 4, &bad_uncertainty), "d × d");
  expect("uncertainty_new d = SIZE_MAX", cfx_uncertainty_new(mean, huge, cov, 4, &bad_uncertainty),
         "d × d");
  expect("uncertainty_from_dataset refits = SIZE_MAX",
         cfx_uncertainty_from_dataset(data, huge, 1, &bad_uncertainty), "refits");
  expect("copa_bounds n_options x dim overflows",
         cfx_copa_bounds(uncertainty, x, huge, 2, 0.0, &lo, &hi, NULL, NULL), "overflows");

  /* coherent batches */
  expect("coherent_explain_batch n_rows x n_features overflows",
         cfx_coherent_explain_batch(schema, model, config, rows, 4, huge, &batch), "overflows");

  printf("%s nothing was created\n",
         mlp == NULL && bad_noise == NULL && bad_estimator == NULL && bad_uncertainty == NULL &&
                 batch == NULL && weighted == NULL
             ? "PASS"
             : "FAIL");
  /* the handles keep working */
  CHECK(cfx_schema_encode(schema, rows, 4, x, 7, &n));
  CHECK(cfx_model_predict(model, x, n, &score, NULL, NULL));
  printf("score %.6f\n", score);

  cfx_uncertainty_free(uncertainty);
  cfx_estimator_free(estimator);
  cfx_noise_free(noise);
  cfx_config_free(config);
  cfx_dataset_free(data);
  cfx_model_free(model);
  cfx_schema_free(schema);
  free(schema_json);
  free(model_json);
  printf("%d failures\n", failures);
  return failures == 0 ? 0 : 1;
}
