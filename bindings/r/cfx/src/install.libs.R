# Installs the shim and the copy of libcfx that ../configure put beside it (under its soname,
# which the shim records) into the package's libs folder; the shim's rpath $ORIGIN finds it there.
dest <- file.path(R_PACKAGE_DIR, paste0("libs", R_ARCH))
dir.create(dest, recursive = TRUE, showWarnings = FALSE)
libcfx <- Sys.glob("libcfx.so.[0-9]*")
if (length(libcfx) != 1L) stop("install.libs.R: expected one libcfx.so.<ABI> in src/, found ", length(libcfx))
shim <- paste0(R_PACKAGE_NAME, SHLIB_EXT)
# The shim's debug information names the folders it was compiled in and cfx.h's; drop it so the
# installed package holds no path of the build machine (R's own check looks only at rpaths).
if (nzchar(Sys.which("strip"))) system2("strip", c("--strip-debug", shim))
stopifnot(all(file.copy(c(shim, libcfx), dest, overwrite = TRUE)))
