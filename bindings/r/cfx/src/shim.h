/* Entry points of shim.c, registered in init.c. */
#ifndef CFX_R_SHIM_H
#define CFX_R_SHIM_H
#include <Rinternals.h>

SEXP C_free(SEXP p);
SEXP C_is_live(SEXP p);
SEXP C_free_counts(void);
SEXP C_version(void);
SEXP C_status_str(SEXP code);
SEXP C_last_error(void);
SEXP C_testing_panic(void);
SEXP C_schema_from_json(SEXP json);
SEXP C_schema_to_json(SEXP schema);
SEXP C_schema_fingerprint(SEXP schema);
SEXP C_schema_n_features(SEXP schema);
SEXP C_schema_encoded_dim(SEXP schema);
SEXP C_schema_feature_names(SEXP schema);
SEXP C_schema_feature_name(SEXP schema, SEXP index);
SEXP C_schema_index_of(SEXP schema, SEXP name);
SEXP C_schema_encode(SEXP schema, SEXP raw);
SEXP C_schema_decode(SEXP schema, SEXP x);
SEXP C_schema_describe_changes(SEXP schema, SEXP from, SEXP to);
SEXP C_schema_fit_weights(SEXP schema, SEXP rows);
SEXP C_dataset_load(SEXP which, SEXP path);
SEXP C_dataset_from_csv(SEXP schema, SEXP path, SEXP target, SEXP favourable);
SEXP C_dataset_n_rows(SEXP dataset);
SEXP C_dataset_schema(SEXP dataset);
SEXP C_dataset_row(SEXP dataset, SEXP index);
SEXP C_dataset_rows(SEXP dataset);
SEXP C_dataset_labels(SEXP dataset);
SEXP C_dataset_label(SEXP dataset, SEXP index);
SEXP C_dataset_holdout_split(SEXP dataset);
SEXP C_model_linear_new(SEXP weights, SEXP bias, SEXP threshold);
SEXP C_model_from_json(SEXP schema, SEXP json);
SEXP C_model_to_json(SEXP model);
SEXP C_model_fingerprint(SEXP model);
SEXP C_model_fit_linear(SEXP dataset, SEXP c);
SEXP C_model_train_mlp(SEXP dataset, SEXP hidden, SEXP epochs, SEXP batch_size, SEXP learning_rate, SEXP l2, SEXP seed);
SEXP C_model_info(SEXP model);
SEXP C_model_predict(SEXP model, SEXP x);
SEXP C_model_predict_raw(SEXP model, SEXP schema, SEXP raw);
SEXP C_model_probability_batch(SEXP model, SEXP x);
SEXP C_config_builder_new(void);
SEXP C_config_builder_set(SEXP builder, SEXP name, SEXP values);
SEXP C_config_build(SEXP builder);
SEXP C_config_to_json(SEXP config);

#endif
