/* Completes the C snippet of docs/guide/revalidation.md (cfx_revalidate_ledger): a ledger of
 * advice for the declined applicants among the first 20 held-out German ones is written to
 * ledger.jsonl, the snippet re-validates it against the model with its intercept lowered by
 * 0.4 (as the Python snippet beside it does), and the report is printed.
 * tests/docs/run_snippets.py puts the snippet in place of the SNIPPET line. */
#include "common.h"

int main(void) {
  const cfx_dataset *german = NULL, *train = NULL, *test = NULL;
  const cfx_schema *schema = NULL;
  const cfx_model *model = NULL, *new_model = NULL;
  char *model_json = NULL, *shifted, *at, *end;
  double row[64], score, probability, bias;
  int32_t accepted;
  size_t i, n;
  FILE *ledger;
  CHECK(cfx_dataset_load_german(NULL, &german));
  CHECK(cfx_dataset_schema(german, &schema));
  CHECK(cfx_dataset_holdout_split(german, &train, &test));
  CHECK(cfx_model_fit_linear(train, 1.0, &model));
  ledger = fopen("ledger.jsonl", "w");
  if (!ledger) return 1;
  for (i = 0; i < 20; i++) {
    const cfx_coherent_result *advice = NULL;
    char *line = NULL;
    CHECK(cfx_dataset_row(test, i, row, 64, &n));
    CHECK(cfx_model_predict_raw(model, schema, row, n, &score, &probability, &accepted));
    if (accepted) continue;
    CHECK(cfx_coherent_explain(schema, model, NULL, row, n, &advice));
    GET_STRING(line, cfx_ledger_record_from_coherent_result, advice, NULL, "app", "2026-12-02", NULL);
    fprintf(ledger, "%s\n", line);
    free(line);
    cfx_coherent_result_free(advice);
  }
  fclose(ledger);
  /* The model being deployed: a stricter one, its "bias" lowered by 0.4. */
  GET_STRING(model_json, cfx_model_to_json, model);
  at = strstr(model_json, "\"bias\":");
  if (!at) return 1;
  at += strlen("\"bias\":");
  shifted = (char *)malloc(strlen(model_json) + 64);
  if (!shifted) return 1;
  bias = strtod(at, &end);
  sprintf(shifted, "%.*s%.17g%s", (int)(at - model_json), model_json, bias - 0.4, end);
  CHECK(cfx_model_from_json(schema, shifted, &new_model));
  free(shifted);
  free(model_json);
  {
    /* SNIPPET */
    printf("%.*s\n", (int)len, json);
  }
  cfx_model_free(new_model);
  cfx_model_free(model);
  cfx_dataset_free(test);
  cfx_dataset_free(train);
  cfx_schema_free(schema);
  cfx_dataset_free(german);
  return 0;
}
