/* Registration of the .Call entry points (no dynamic symbol lookup). */
#define R_NO_REMAP
#include <R.h>
#include <Rinternals.h>
#include <R_ext/Rdynload.h>

#include "shim.h"

static const R_CallMethodDef call_methods[] = {
    {"C_free", (DL_FUNC)&C_free, 1},
    {"C_is_live", (DL_FUNC)&C_is_live, 1},
    {"C_free_counts", (DL_FUNC)&C_free_counts, 0},
    {"C_version", (DL_FUNC)&C_version, 0},
    {"C_status_str", (DL_FUNC)&C_status_str, 1},
    {"C_last_error", (DL_FUNC)&C_last_error, 0},
    {"C_testing_panic", (DL_FUNC)&C_testing_panic, 0},
    {"C_schema_from_json", (DL_FUNC)&C_schema_from_json, 1},
    {"C_schema_to_json", (DL_FUNC)&C_schema_to_json, 1},
    {"C_schema_fingerprint", (DL_FUNC)&C_schema_fingerprint, 1},
    {"C_schema_n_features", (DL_FUNC)&C_schema_n_features, 1},
    {"C_schema_encoded_dim", (DL_FUNC)&C_schema_encoded_dim, 1},
    {"C_schema_feature_names", (DL_FUNC)&C_schema_feature_names, 1},
    {"C_schema_feature_name", (DL_FUNC)&C_schema_feature_name, 2},
    {"C_schema_index_of", (DL_FUNC)&C_schema_index_of, 2},
    {"C_schema_encode", (DL_FUNC)&C_schema_encode, 2},
    {"C_schema_decode", (DL_FUNC)&C_schema_decode, 2},
    {"C_schema_describe_changes", (DL_FUNC)&C_schema_describe_changes, 3},
    {"C_schema_fit_weights", (DL_FUNC)&C_schema_fit_weights, 2},
    {"C_dataset_load", (DL_FUNC)&C_dataset_load, 2},
    {"C_dataset_from_csv", (DL_FUNC)&C_dataset_from_csv, 4},
    {"C_dataset_n_rows", (DL_FUNC)&C_dataset_n_rows, 1},
    {"C_dataset_schema", (DL_FUNC)&C_dataset_schema, 1},
    {"C_dataset_row", (DL_FUNC)&C_dataset_row, 2},
    {"C_dataset_rows", (DL_FUNC)&C_dataset_rows, 1},
    {"C_dataset_labels", (DL_FUNC)&C_dataset_labels, 1},
    {"C_dataset_label", (DL_FUNC)&C_dataset_label, 2},
    {"C_dataset_holdout_split", (DL_FUNC)&C_dataset_holdout_split, 1},
    {"C_model_linear_new", (DL_FUNC)&C_model_linear_new, 3},
    {"C_model_from_json", (DL_FUNC)&C_model_from_json, 2},
    {"C_model_to_json", (DL_FUNC)&C_model_to_json, 1},
    {"C_model_fingerprint", (DL_FUNC)&C_model_fingerprint, 1},
    {"C_model_fit_linear", (DL_FUNC)&C_model_fit_linear, 2},
    {"C_model_train_mlp", (DL_FUNC)&C_model_train_mlp, 7},
    {"C_model_info", (DL_FUNC)&C_model_info, 1},
    {"C_model_predict", (DL_FUNC)&C_model_predict, 2},
    {"C_model_predict_raw", (DL_FUNC)&C_model_predict_raw, 3},
    {"C_model_probability_batch", (DL_FUNC)&C_model_probability_batch, 2},
    {"C_config_builder_new", (DL_FUNC)&C_config_builder_new, 0},
    {"C_config_builder_set", (DL_FUNC)&C_config_builder_set, 3},
    {"C_config_build", (DL_FUNC)&C_config_build, 1},
    {"C_config_to_json", (DL_FUNC)&C_config_to_json, 1},
    {NULL, NULL, 0}};

void R_init_cfx(DllInfo *dll)
{
    R_registerRoutines(dll, NULL, call_methods, NULL, NULL);
    R_useDynamicSymbols(dll, FALSE);
    R_forceSymbols(dll, TRUE);
}
