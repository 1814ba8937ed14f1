# hutch.m4: hutch's own autoconf macros (configure.ac AC_CONFIG_MACRO_DIRS).

# HUTCH_TRY_CFLAG(FLAG)
# ---------------------
# Append FLAG to HUTCH_CFLAGS if $CC compiles an empty program with it
# without a warning (-Werror: a compiler that only warns about an unknown
# flag does not get it).
AC_DEFUN([HUTCH_TRY_CFLAG], [
  AC_MSG_CHECKING([whether $CC accepts $1])
  hutch_save_CFLAGS=$CFLAGS
  CFLAGS="$CFLAGS -Werror $1"
  AC_COMPILE_IFELSE([AC_LANG_PROGRAM([], [])],
    [AC_MSG_RESULT([yes]); HUTCH_CFLAGS="$HUTCH_CFLAGS $1"],
    [AC_MSG_RESULT([no])])
  CFLAGS=$hutch_save_CFLAGS])
