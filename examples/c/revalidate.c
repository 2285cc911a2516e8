/* The advice ledger and its re-validation from C (issue 28): advice for the
 * first eight declined held-out German applicants is written as ledger lines
 * (cfx_ledger_record_from_coherent_result), then re-validated record by
 * record (cfx_revalidate_record) and as a stream (cfx_revalidate_ledger)
 * against the same model, which breaks nothing, and against the same model
 * with its intercept lowered by 0.4; the report's counts equal the
 * per-record results. A ledger of another schema is refused before anything
 * is written. Then a portfolio run over the bundled German file
 * (cfx_portfolio_explain) is kept as a ledger (cfx_ledger_from_portfolio),
 * which the same model keeps whole, and the first record gets its
 * COPA-corrected version (cfx_ledger_record_add_copa_version). Files go to
 * target/ffi-testing/ under the current directory.
 * Usage: revalidate */
#include "common.h"

#define LEDGER "target/ffi-testing/revalidate_ledger.jsonl"
#define OUT "target/ffi-testing/revalidate_out.jsonl"
#define OTHER "target/ffi-testing/revalidate_other.jsonl"
#define REFUSED "target/ffi-testing/revalidate_refused.jsonl"
#define BOOK "examples/data/german_credit.csv"
#define ANSWERS "target/ffi-testing/revalidate_portfolio.jsonl"
#define BOOK_LEDGER "target/ffi-testing/revalidate_portfolio_ledger.jsonl"
#define N 8

/* The model's JSON with its "bias" lowered by `by`, as a new model. */
static const cfx_model *stricter(const cfx_schema *schema, const cfx_model *model, double by) {
  char *json = NULL, *shifted, *at, *end;
  const cfx_model *out = NULL;
  double bias;
  size_t n;
  GET_STRING(json, cfx_model_to_json, model);
  at = strstr(json, "\"bias\":");
  if (!at) {
    fprintf(stderr, "no bias in the model JSON\n");
    exit(1);
  }
  at += strlen("\"bias\":");
  bias = strtod(at, &end);
  n = strlen(json) + 64;
  shifted = (char *)malloc(n);
  if (!shifted) exit(1);
  sprintf(shifted, "%.*s%.17g%s", (int)(at - json), json, bias - by, end);
  CHECK(cfx_model_from_json(schema, shifted, &out));
  free(shifted);
  free(json);
  return out;
}

/* How many of the n strings hold `needle`. */
static size_t count(char *const *lines, size_t n, const char *needle) {
  size_t i, k = 0;
  for (i = 0; i < n; i++) k += strstr(lines[i], needle) != NULL;
  return k;
}

/* A number of the report, e.g. "\"broken\":". */
static long field(const char *json, const char *key) {
  const char *at = strstr(json, key);
  return at ? strtol(at + strlen(key), NULL, 10) : -1;
}

int main(void) {
  const cfx_dataset *german = NULL, *train = NULL, *test = NULL;
  const cfx_schema *schema = NULL;
  const cfx_model *model = NULL, *models[2];
  const char *names[2] = {"same model", "intercept lowered by 0.4"};
  char *lines[N], *per[N], *report_json = NULL;
  double row[64];
  size_t n_lines = 0, i, m, len = 0;
  FILE *f;
  const cfx_deployment_report *report = NULL;
  cfx_status st;

  CHECK(cfx_dataset_load_german(NULL, &german));
  CHECK(cfx_dataset_holdout_split(german, &train, &test));
  CHECK(cfx_model_fit_linear(train, 1.0, &model));
  CHECK(cfx_dataset_schema(german, &schema));
  models[0] = model;
  models[1] = stricter(schema, model, 0.4);

  /* Advice for the first N declined applicants, one ledger line each. */
  for (i = 0; n_lines < N; i++) {
    double score, probability;
    int32_t accepted;
    const cfx_coherent_result *r = NULL;
    char id[32];
    CHECK(cfx_dataset_row(test, i, row, 64, &len));
    CHECK(cfx_model_predict_raw(model, schema, row, len, &score, &probability, &accepted));
    if (accepted) continue;
    CHECK(cfx_coherent_explain(schema, model, NULL, row, len, &r));
    sprintf(id, "app-%zu", i);
    GET_STRING(lines[n_lines], cfx_ledger_record_from_coherent_result, r, NULL, id, "2026-12-02",
               n_lines % 2 ? "odd" : "even");
    cfx_coherent_result_free(r);
    n_lines++;
  }
  f = fopen(LEDGER, "wb");
  if (!f) exit(1);
  for (i = 0; i < n_lines; i++) fprintf(f, "%s\n", lines[i]);
  fclose(f);
  printf("ledger: %zu records, format %s\n", n_lines,
         strstr(lines[0], "\"format\":\"cfx-ledger\"") ? "cfx-ledger" : "?");

  for (m = 0; m < 2; m++) {
    size_t broken;
    for (i = 0; i < n_lines; i++)
      GET_STRING(per[i], cfx_revalidate_record, schema, models[m], NULL, lines[i]);
    broken = count(per, n_lines, "\"status\":\"broken\"");
    CHECK(cfx_revalidate_ledger(schema, models[m], NULL, LEDGER, OUT, 2, 3, &report));
    GET_STRING(report_json, cfx_deployment_report_to_json, report);
    printf("%s: %zu/%zu promises broken; report: %ld records, %ld broken, %ld kept, %ld errors\n",
           names[m], broken, n_lines, field(report_json, "\"records\":"),
           field(report_json, "\"broken\":"), field(report_json, "\"kept\":"),
           field(report_json, "\"errors\":"));
    if (field(report_json, "\"broken\":") != (long)broken) {
      fprintf(stderr, "the report disagrees with the records\n");
      return 1;
    }
    free(report_json);
    cfx_deployment_report_free(report);
    for (i = 0; i < n_lines; i++) free(per[i]);
  }

  /* A ledger of another schema: refused, nothing written, no report. */
  f = fopen(OTHER, "wb");
  if (!f) exit(1);
  fprintf(f, "%s\n", "{\"format\":\"cfx-ledger\",\"format_version\":1,\"id\":\"x\","
                     "\"cfx_version\":\"0\",\"schema\":\"fnv1a64:0000000000000000\","
                     "\"model\":\"m\",\"kind\":\"explain\",\"applicant\":[],\"advised\":[],"
                     "\"cost\":0}");
  fclose(f);
  remove(REFUSED);
  report = NULL;
  st = cfx_revalidate_ledger(schema, model, NULL, OTHER, REFUSED, 1, 0, &report);
  f = fopen(REFUSED, "rb");
  printf("another schema: %s, report %s, output %s\n", cfx_status_str(st),
         report ? "written" : "untouched", f ? "written" : "absent");
  if (f) fclose(f);
  st = cfx_revalidate_record(schema, model, NULL, "{not json", NULL, 0, &len);
  printf("bad JSON: %s\n", cfx_status_str(st));

  /* A portfolio run kept as a ledger, and one record's COPA-corrected version. */
  {
    const char *ignore[1] = {"creditability"};
    cfx_portfolio_counts counts;
    const cfx_uncertainty *unc = NULL;
    char first[8192], copa[16384] = "";
    size_t records = 0;
    CHECK(cfx_portfolio_explain(schema, model, NULL, BOOK, ANSWERS, ignore, 1, 2, NULL, NULL, &counts));
    CHECK(cfx_ledger_from_portfolio(schema, model, BOOK, ANSWERS, BOOK_LEDGER,
                                    "{\"ignore_columns\": [\"creditability\"], \"issued\": \"2026-12-02\"}",
                                    &records));
    CHECK(cfx_revalidate_ledger(schema, model, NULL, BOOK_LEDGER, OUT, 2, 0, &report));
    GET_STRING(report_json, cfx_deployment_report_to_json, report);
    printf("portfolio: %zu rows, %zu with advice; ledger: %zu records, %ld broken by the same model\n",
           counts.rows, counts.with_recourse, records, field(report_json, "\"broken\":"));
    free(report_json);
    cfx_deployment_report_free(report);
    st = cfx_ledger_from_portfolio(schema, model, BOOK, ANSWERS, BOOK_LEDGER, "{\"id\": \"x\"}", &records);
    printf("unknown option: %s\n", cfx_status_str(st));

    /* The first record whose COPA-corrected version the schema allows (a
       version that breaks a rule for the applicant is NOT_FOUND). */
    CHECK(cfx_uncertainty_from_dataset(train, 50, 3, &unc));
    f = fopen(BOOK_LEDGER, "rb");
    if (!f) exit(1);
    for (i = 0; fgets(first, sizeof first, f); i++) {
      first[strcspn(first, "\n")] = '\0';
      st = cfx_ledger_record_add_copa_version(schema, unc, first, 0.01, 0.1, copa, sizeof copa, &len);
      if (st == CFX_STATUS_OK) break;
      if (st != CFX_STATUS_NOT_FOUND) CHECK(st);
    }
    fclose(f);
    printf("COPA version: record %zu, %s\n", i, strstr(copa, "\"copa_advised\":[") ? "kept" : "missing");
    cfx_uncertainty_free(unc);
  }

  for (i = 0; i < n_lines; i++) free(lines[i]);
  cfx_model_free(models[1]);
  cfx_model_free(model);
  cfx_schema_free(schema);
  cfx_dataset_free(test);
  cfx_dataset_free(train);
  cfx_dataset_free(german);
  return 0;
}
