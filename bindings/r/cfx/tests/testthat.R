library(testthat)
library(cfx)
test_check("cfx")
