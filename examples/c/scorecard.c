/* The bank's own points scorecard from C: the German credit scorecard a risk
 * team made with optbinning (examples/data/german_scorecard_table.csv, its
 * detailed table as CSV) is imported with cfx_scorecard_import_path, with the
 * cutoff and scaling its README (german_scorecard.md) gives; the import report
 * says what was mapped and what was ignored; applicants are scored (the points
 * are optbinning's own, tests/reference/german_scorecard_scores.csv), the same
 * table is found again with cfx_scorecard_load_german (the bundled copy, as an
 * installed libcfx finds it), and a declined applicant gets the cheapest
 * coherent change, proven optimal, and 3 diverse alternatives.
 * Usage: scorecard <german_scorecard_table.csv> */
#include <math.h>

#include "common.h"

#define N_FEATURES 20

/* The points total and decision of one raw applicant row. */
static double points_of(const cfx_model *model, const cfx_schema *schema, const double *raw,
                        int32_t *accepted) {
  double points = 0.0, probability = 0.0;
  CHECK(cfx_model_predict_raw(model, schema, raw, N_FEATURES, &points, &probability, accepted));
  return points;
}

/* The number of occurrences of `needle` in `text`. */
static size_t count(const char *text, const char *needle) {
  size_t n = 0;
  for (text = strstr(text, needle); text; text = strstr(text + 1, needle)) n++;
  return n;
}

/* The import report (JSON), with its list of ignored bins summarised: the table
 * ends every characteristic with a `Special` and a `Missing` bin, and the German
 * schema has neither state, so the list is 40 entries long. */
static void print_report(const char *report) {
  const char *ignored = strstr(report, "\"ignored\"");
  const char *unused = strstr(report, "\"unused_features\"");
  if (!ignored || !unused) {
    printf("import report without its fields:\n%s\n", report);
    exit(1);
  }
  printf("import report (ignored bins summarised):\n%.*s", (int)(ignored - report), report);
  printf("\"ignored\": %zu bins (%zu 'Special', %zu 'Missing': the schema has neither state, "
         "so they can hold no applicant),\n  %s\n",
         count(report, "\"row\":"), count(report, "\"bin\": \"Special\""),
         count(report, "\"bin\": \"Missing\""), unused);
}

int main(int argc, char **argv) {
  const cfx_dataset *data = NULL, *train = NULL, *test = NULL;
  const cfx_schema *schema = NULL;
  const cfx_scorecard_import *import = NULL, *bundled = NULL;
  const cfx_model *card = NULL, *bundled_card = NULL;
  const cfx_config *config = NULL;
  const cfx_coherent_result *result = NULL;
  cfx_config_builder *builder = NULL;
  char *report, *text;
  double raw[N_FEATURES], points, cost = 0.0, score = 0.0;
  size_t n = 0, n_all = 0, n_test = 0, i, k, n_declined = 0, same = 0, first_declined = 0;
  int32_t kind = -1, accepted = 0, accepted_bundled = 0;
  /* german_scorecard.md: 20 points double the odds, odds 50 : 1 of good at 600 points;
   * accepted iff points >= the score at odds 1 : 1 (probability 0.5). */
  const double factor = 20.0 / log(2.0);
  const double offset = 600.0 - factor * log(50.0);

  if (argc != 2) {
    fprintf(stderr, "usage: %s german_scorecard_table.csv\n", argv[0]);
    return 2;
  }
  CHECK(cfx_dataset_load_german(NULL, &data));
  CHECK(cfx_dataset_schema(data, &schema));
  CHECK(cfx_scorecard_import_path(schema, CFX_SCORECARD_FORMAT_OPTBINNING, argv[1], offset, 1,
                                  factor, offset, &import));
  GET_STRING(report, cfx_scorecard_import_report, import);
  print_report(report);
  free(report);
  CHECK(cfx_scorecard_import_model(import, &card));
  cfx_scorecard_import_free(import);
  CHECK(cfx_model_get_kind(card, &kind));
  printf("model kind %s, cutoff %.4f points\n",
         kind == CFX_MODEL_KIND_SCORECARD ? "scorecard" : "OTHER", offset);

  /* The points of the first rows of german_credit.csv. */
  for (i = 0; i < 5; i++) {
    CHECK(cfx_dataset_row(data, i, raw, N_FEATURES, &n));
    points = points_of(card, schema, raw, &accepted);
    printf("row %zu points %.9f %s\n", i, points, accepted ? "accepted" : "declined");
  }

  /* The bundled table, looked up as libcfx looks up the bundled data: the same points. */
  CHECK(cfx_scorecard_load_german(schema, NULL, &bundled));
  CHECK(cfx_scorecard_import_model(bundled, &bundled_card));
  cfx_scorecard_import_free(bundled);
  CHECK(cfx_dataset_n_rows(data, &n_all));
  for (i = 0; i < n_all; i++) {
    CHECK(cfx_dataset_row(data, i, raw, N_FEATURES, &n));
    if (points_of(card, schema, raw, &accepted) == points_of(bundled_card, schema, raw, &accepted_bundled) &&
        accepted == accepted_bundled)
      same++;
  }
  printf("cfx_scorecard_load_german: the same points on %zu of %zu rows\n", same, n_all);

  /* The held-out applicants the scorecard declines. */
  CHECK(cfx_dataset_holdout_split(data, &train, &test));
  CHECK(cfx_dataset_n_rows(test, &n_test));
  for (i = 0; i < n_test; i++) {
    CHECK(cfx_dataset_row(test, i, raw, N_FEATURES, &n));
    points_of(card, schema, raw, &accepted);
    if (!accepted && n_declined++ == 0) first_declined = i;
  }
  printf("held-out: %zu of %zu declined\n", n_declined, n_test);

  /* The first of them: the cheapest coherent change and 3 diverse alternatives. */
  CHECK(cfx_dataset_row(test, first_declined, raw, N_FEATURES, &n));
  points = points_of(card, schema, raw, &accepted);
  printf("applicant #%zu of the held-out part: %.9f points, %.2f short of the cutoff\n",
         first_declined, points, offset - points);
  CHECK(cfx_config_builder_new(&builder));
  CHECK(cfx_config_builder_set_n_diverse(builder, 4));
  CHECK(cfx_config_build(builder, &config));
  CHECK(cfx_coherent_explain_diverse(schema, card, config, raw, N_FEATURES, &result));
  CHECK(cfx_coherent_result_count(result, &n));
  for (k = 0; k < n; k++) {
    CHECK(cfx_coherent_result_certificate(result, k, &cost, &score, NULL, NULL, NULL, NULL));
    printf("  #%zu cost %.3f, %.2f points\n", k, cost, score);
  }
  GET_STRING(text, cfx_coherent_result_describe, result);
  printf("%s", text);
  free(text);

  cfx_coherent_result_free(result);
  cfx_config_free(config);
  cfx_model_free(bundled_card);
  cfx_model_free(card);
  cfx_dataset_free(test);
  cfx_dataset_free(train);
  cfx_schema_free(schema);
  cfx_dataset_free(data);
  return 0;
}
