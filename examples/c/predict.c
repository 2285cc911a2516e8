/* A credit-scoring system's use of cfx: load the schema and the model from
 * JSON files, encode an applicant, score them, decode the encoding back, and
 * describe a change in the data's own words.
 * Usage: predict <schema.json> <model.json> */
#include "common.h"

int main(int argc, char **argv) {
  const cfx_schema *schema = NULL;
  const cfx_model *model = NULL;
  char *schema_json, *model_json, *text, *name, *again;
  size_t n_features = 0, dim = 0, n = 0, i;
  double applicant[4] = {30000.0, -7.0, 1.0, 30.0}; /* rent, no delinquency record */
  double better[4] = {60000.0, -7.0, 1.0, 30.0};
  double x[16], raw[16];
  double score = 0.0, p = 0.0;
  int accepted = -1;

  if (argc != 3) {
    fprintf(stderr, "usage: %s schema.json model.json\n", argv[0]);
    return 2;
  }
  printf("cfx %s (abi %u)\n", cfx_version_string(), (unsigned)cfx_abi_version());
  if (cfx_version_major() != CFX_VERSION_MAJOR || cfx_version_minor() != CFX_VERSION_MINOR ||
      cfx_version_patch() != CFX_VERSION_PATCH || cfx_abi_version() != CFX_ABI_VERSION ||
      strcmp(cfx_version_string(), CFX_VERSION_STRING) != 0) {
    printf("header and library versions differ\n");
    return 1;
  }

  schema_json = read_file(argv[1]);
  model_json = read_file(argv[2]);
  CHECK(cfx_schema_from_json(schema_json, &schema));
  CHECK(cfx_model_from_json(schema, model_json, &model));
  CHECK(cfx_schema_n_features(schema, &n_features));
  CHECK(cfx_schema_encoded_dim(schema, &dim));
  printf("features %zu, encoded dimension %zu\n", n_features, dim);
  for (i = 0; i < n_features; i++) {
    size_t index = 99;
    GET_STRING(name, cfx_schema_feature_name, schema, i);
    CHECK(cfx_schema_index_of(schema, name, &index));
    printf("  %zu %s\n", index, name);
    free(name);
  }

  CHECK(cfx_schema_encode(schema, applicant, n_features, x, 16, &n));
  printf("encoded:");
  for (i = 0; i < n; i++) printf(" %.6f", x[i]);
  printf("\n");
  CHECK(cfx_schema_decode(schema, x, n, raw, 16, &n));
  printf("decoded:");
  for (i = 0; i < n; i++) printf(" %g", raw[i]);
  printf("\n");

  CHECK(cfx_model_predict(model, x, dim, &score, &p, &accepted));
  printf("applicant: score %.6f probability %.6f accepted %d\n", score, p, accepted);
  CHECK(cfx_model_predict_raw(model, schema, better, n_features, &score, &p, &accepted));
  printf("with income 60000: score %.6f probability %.6f accepted %d\n", score, p, accepted);
  GET_STRING(text, cfx_schema_describe_changes, schema, applicant, n_features, better, n_features);
  printf("changes:\n%s", text);
  free(text);

  /* JSON round trip: the schema read back writes the same bytes. */
  GET_STRING(text, cfx_schema_to_json, schema);
  {
    const cfx_schema *copy = NULL;
    CHECK(cfx_schema_from_json(text, &copy));
    GET_STRING(again, cfx_schema_to_json, copy);
    printf("schema JSON round trip identical: %s\n", strcmp(text, again) == 0 ? "yes" : "no");
    free(again);
    cfx_schema_free(copy);
  }
  free(text);
  GET_STRING(text, cfx_model_fingerprint, model);
  printf("model %s\n", text);
  free(text);

  cfx_model_free(model);
  cfx_schema_free(schema);
  free(schema_json);
  free(model_json);
  return 0;
}
