/* A whole book of applicants from C (issue 14): cfx_portfolio_explain streams
 * a CSV into JSON lines with a progress callback that can cancel, and the
 * portfolio summary reads the output back by a column of the applicants.
 * The book is the bundled German credit file nine times over (9,000 rows, in
 * chunks of at most 4,096 that shrink toward the end of the file so that the
 * workers finish together); the files go to target/ffi-testing/ under the current
 * directory (the crate root, as `cargo test` runs it).
 * Usage: portfolio */
#include "common.h"

#define BOOK "target/ffi-testing/portfolio_book.csv"
#define FULL "target/ffi-testing/portfolio_full.jsonl"
#define CUT "target/ffi-testing/portfolio_cut.jsonl"
#define CUT_PARTIAL CUT ".cfx-partial"

/* What the progress callback heard: how many reports, the first and the last,
 * the largest step between two, and whether every report rose. */
struct progress_log {
  size_t n, first, last, largest_step;
  bool rising;
  size_t stop_after; /* reports before answering false */
};

static bool on_progress(size_t rows_done, void *user_data) {
  struct progress_log *log = (struct progress_log *)user_data;
  if (log->n == 0) log->first = rows_done;
  if (rows_done <= log->last) log->rising = false;
  if (rows_done > log->last && rows_done - log->last > log->largest_step)
    log->largest_step = rows_done - log->last;
  log->last = rows_done;
  log->n++;
  return log->n < log->stop_after;
}

/* Writes the header and nine copies of the German rows; returns the data rows written. */
static size_t write_book(void) {
  char *text = read_file("examples/data/german_credit.csv");
  char *body = strchr(text, '\n');
  size_t rows = 0, k;
  FILE *f = fopen(BOOK, "wb");
  if (!f || !body) {
    fprintf(stderr, "cannot write %s\n", BOOK);
    exit(1);
  }
  fwrite(text, 1, (size_t)(body + 1 - text), f);
  for (k = 0; k < 9; k++) {
    const char *p;
    fputs(body + 1, f);
    if (body[strlen(body) - 1] != '\n') fputc('\n', f);
    for (p = body + 1; *p; p++) rows += *p == '\n';
  }
  fclose(f);
  free(text);
  return rows;
}

/* The lines of a file, compared with the first n lines of another. */
static int same_prefix(const char *a, const char *b, size_t n_lines, size_t *lines_a) {
  char *x = read_file(a), *y = read_file(b);
  size_t i = 0, lines = 0;
  for (; x[i]; i++) lines += x[i] == '\n';
  *lines_a = lines;
  {
    int same = lines == n_lines && strncmp(x, y, i) == 0;
    free(x);
    free(y);
    return same;
  }
}

int main(void) {
  const cfx_dataset *german = NULL, *train = NULL, *test = NULL;
  const cfx_schema *schema = NULL;
  const cfx_model *model = NULL;
  const cfx_config *mip = NULL;
  const cfx_portfolio_summary *summary = NULL;
  cfx_config_builder *builder = NULL;
  const char *ignore[] = {"creditability"};
  struct progress_log log = {0, 0, 0, 0, true, 1000};
  cfx_portfolio_counts counts, untouched = {7, 7, 7, 7, 7};
  size_t i, n_groups = 0, kept = 0, len = 0, book_rows;
  double share = 0, median = 0, p90 = 0, q[9];
  cfx_status st;
  char name[256];
  FILE *cut_file;

  CHECK(cfx_dataset_load_german(NULL, &german));
  CHECK(cfx_dataset_holdout_split(german, &train, &test));
  CHECK(cfx_model_fit_linear(train, 1.0, &model));
  CHECK(cfx_dataset_schema(german, &schema));
  book_rows = write_book();
  printf("book: %zu applicants\n", book_rows);

  /* The whole book on two workers. */
  CHECK(cfx_portfolio_explain(schema, model, NULL, BOOK, FULL, ignore, 1, 2, on_progress, &log,
                              &counts));
  printf("progress reports: more than three: %s; rising: %s; at most 4096 rows apart: %s; the last "
         "at %zu\n",
         log.n > 3 ? "yes" : "no", log.rising ? "yes" : "no", log.largest_step <= 4096 ? "yes" : "no",
         log.last);
  printf("rows %zu, accepted %zu, declined %zu, with recourse %zu, errors %zu\n", counts.rows,
         counts.accepted, counts.declined, counts.with_recourse, counts.errors);

  /* Cancelled at the first report: CANCELLED, the counts untouched, the
   * output file untouched (not created) and the rows done, exactly the first
   * chunk of the full run's lines (as many as reported), kept in CUT ".cfx-partial". */
  remove(CUT);
  remove(CUT_PARTIAL);
  log.n = 0;
  log.last = 0;
  log.stop_after = 1;
  st = cfx_portfolio_explain(schema, model, NULL, BOOK, CUT, ignore, 1, 2, on_progress, &log,
                             &untouched);
  printf("cancelled: %s (%s); counts untouched: %s\n", cfx_status_str(st), last_error(),
         untouched.rows == 7 ? "yes" : "no");
  cut_file = fopen(CUT, "r");
  printf("cancelled: output written: %s\n", cut_file ? "yes" : "no");
  if (cut_file) fclose(cut_file);
  printf("cancelled: partial file = the full run's first lines, as many as reported: %s",
         log.n == 1 && same_prefix(CUT_PARTIAL, FULL, log.first, &kept) ? "yes" : "no");
  printf(" (%zu lines)\n", kept);

  /* The summary by personal status and sex. */
  CHECK(cfx_portfolio_summarize(schema, BOOK, FULL, "personal_status_and_sex", NULL, 0, &summary));
  CHECK(cfx_portfolio_summary_n_groups(summary, &n_groups));
  CHECK(cfx_portfolio_summary_counts(summary, -1, NULL, &share, &median, &p90));
  CHECK(cfx_portfolio_summary_cost_quantiles(summary, -1, q, 9, &len));
  printf("all: share with recourse %.4f, median cost %.4f, p90 %.4f, min %.4f, max %.4f\n", share,
         median, p90, q[2], q[8]);
  for (i = 0; i < n_groups; i++) {
    CHECK(cfx_portfolio_summary_counts(summary, (int64_t)i, &counts, &share, &median, NULL));
    CHECK(cfx_portfolio_summary_group_name(summary, (int64_t)i, name, sizeof name, &len));
    printf("  %s: %zu rows, %zu declined, median cost %.4f\n", name, counts.rows, counts.declined,
           median);
  }
  st = cfx_portfolio_summary_counts(summary, (int64_t)n_groups, NULL, NULL, NULL, NULL);
  printf("group %zu: %s\n", n_groups, cfx_status_str(st));
  cfx_portfolio_summary_free(summary);

  /* The solver choice, and the solver named in a result. */
  CHECK(cfx_config_builder_new(&builder));
  CHECK(cfx_config_builder_set_solver(builder, CFX_SOLVER_CHOICE_MIP));
  CHECK(cfx_config_build(builder, &mip));
  {
    double raw[20];
    const cfx_coherent_result *a = NULL, *b = NULL;
    int32_t by_a = -1, by_b = -1;
    double cost_a = 0, cost_b = 0;
    for (i = 0; a == NULL; i++) {
      CHECK(cfx_dataset_row(test, i, raw, 20, &len));
      if (cfx_coherent_explain(schema, model, NULL, raw, len, &a) != CFX_STATUS_OK) a = NULL;
    }
    CHECK(cfx_coherent_explain(schema, model, mip, raw, len, &b));
    CHECK(cfx_coherent_result_proved_by(a, &by_a));
    CHECK(cfx_coherent_result_proved_by(b, &by_b));
    CHECK(cfx_coherent_result_certificate(a, 0, &cost_a, NULL, NULL, NULL, NULL, NULL));
    CHECK(cfx_coherent_result_certificate(b, 0, &cost_b, NULL, NULL, NULL, NULL, NULL));
    printf("test applicant %zu: default proved by %s, MIP proved by %s, same cost: %s\n", i - 1,
           by_a == CFX_PROVED_BY_SEPARABLE ? "separable" : "highs",
           by_b == CFX_PROVED_BY_HIGHS ? "highs" : "separable",
           (cost_a - cost_b < 1e-9 * cost_a && cost_b - cost_a < 1e-9 * cost_a) ? "yes" : "no");
    cfx_coherent_result_free(a);
    cfx_coherent_result_free(b);
  }
  printf("solver 9: %s\n", cfx_status_str(cfx_config_builder_set_solver(NULL, 9)));

  cfx_config_free(mip);
  cfx_model_free(model);
  cfx_schema_free(schema);
  cfx_dataset_free(test);
  cfx_dataset_free(train);
  cfx_dataset_free(german);
  remove(BOOK);
  remove(FULL);
  remove(CUT);
  return 0;
}
