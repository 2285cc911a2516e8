# Sequential recourse: a P-DQN policy (Panagiotou & Ntoutsi 2023) trained on declined
# applicants, answering with step-by-step plans.

.sq <- function(name, ...) .fam_call("sequential", name, ...)

#' Trains a P-DQN policy on the declined applicants of `train` against
#' `model`. `config` supplies the RL settings and seed (cfx_config(rl_...));
#' `reward` is "binary" or "probability". `progress`, when given, is called
#' about every hundredth of the run with a list (episodes_done,
#' episodes_total, steps, epsilon, success_rate, mean_reward); returning
#' FALSE stops training with a `cfx_error_cancelled` condition. An error in
#' `progress` stops training too and is raised after the library returned.
cfx_train_policy <- function(train, model, config = NULL, reward = c("binary", "probability"),
                             progress = NULL) {
  reward <- match.arg(reward)
  .sq("C_cfx_policy_train", train, model, config, match(reward, c("binary", "probability")) - 1L,
      progress)
}

cfx_policy_from_json <- function(json) .sq("C_cfx_policy_from_json", paste(json, collapse = "\n"))
cfx_to_json.cfx_policy <- function(x) .sq("C_cfx_policy_to_json", x)
cfx_save_policy <- function(policy, path) invisible(.sq("C_cfx_policy_save", policy, enc2utf8(path.expand(path))))
cfx_load_policy <- function(path) .sq("C_cfx_policy_load", enc2utf8(path.expand(path)))

#' The number of actions (the schema's mutable features).
cfx_policy_n_actions <- function(policy) .sq("C_cfx_policy_n_actions", policy)

#' The policy's greedy plan for one applicant. A plan that does not reach
#' acceptance is a value, not an error.
cfx_answer <- function(policy, applicant, schema, model) {
  raw <- .raw_matrix(schema, applicant)
  if (nrow(raw) != 1L) stop("cfx: 'applicant' must be one applicant", call. = FALSE)
  .sq("C_cfx_policy_answer", policy, schema, model, raw[1L, ])
}

#' Panagiotou & Ntoutsi 2023's metrics of a policy on the declined applicants of `test`, as a
#' one-row data frame.
cfx_evaluate_policy <- function(policy, model, test) {
  as.data.frame(as.list(.sq("C_cfx_policy_evaluate", policy, model, test)))
}

#' Whether a plan ends accepted, and the probability before any step.
cfx_plan_success <- function(plan) {
  i <- .cxr(.plan_info(plan))
  list(success = i$success, initial_probability = i$initial_probability)
}

#' Step `i` (1-based) of a plan: feature (1-based), from, to, probability.
cfx_plan_step <- function(plan, i) {
  v <- unlist(.sq("C_cfx_plan_step", plan, as.numeric(i) - 1))
  v[["feature"]] <- v[["feature"]] + 1
  v
}

#' The steps of a plan as a data frame: step, feature, from and to (raw
#' values), the probability after the step and the step in words.
as.data.frame.cfx_plan <- function(x, ...) {
  i <- .cxr(.plan_info(x))
  schema <- .Call(C_handle_prot, x)
  data.frame(step = seq_along(i$feature), feature = names(schema)[i$feature + 1],
             from = i$from, to = i$to, probability = i$probability, text = i$text,
             stringsAsFactors = FALSE)
}

cfx_to_json.cfx_plan <- function(x) .sq("C_cfx_plan_to_json", x)

print.cfx_plan <- function(x, ...) {
  if (.freed_line(x, "plan")) return(invisible(x))
  i <- .cxr(.plan_info(x))
  n <- length(i$feature)
  cat(sprintf("A plan of %d step%s from a probability of a good outcome of %s; it %s.\n",
              n, if (n == 1L) "" else "s", .pct(i$initial_probability),
              if (i$success) "ends accepted" else "does not reach acceptance"))
  for (k in seq_len(n)) {
    cat(sprintf("  %d. %s (then %s)\n", k, i$text[k], .pct(i$probability[k])))
  }
  invisible(x)
}

print.cfx_policy <- function(x, ...) {
  if (.freed_line(x, "policy")) return(invisible(x))
  cat(sprintf("A cfx P-DQN policy over %d actions.\n", as.integer(cfx_policy_n_actions(x))))
  invisible(x)
}
