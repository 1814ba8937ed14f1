/* run-output-dir.c: see run-output-dir.h. Names from a walked directory
 * come from the jail: they are printed with every byte outside printable
 * ASCII as '?', so no name can drive the caller's terminal.
 * Frontend only. */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/run-output-dir.h"
#include "run/collect-host.h"

static const char *collect_reason(const char *error)
{
	static const struct {
		const char *word, *words;
	} reasons[] = {
		{ "missing", "no such file in the working directory" },
		{ "not_regular", "not a regular file or directory (a symbolic link, FIFO, socket "
				 "or device is refused)" },
		{ "too_large", "over the policy's collect.max_bytes budget" },
		{ "too_many", "over the policy's collect.max_count budget" },
		{ "discarded", "the run failed and its outputs are discarded" },
	};

	for (size_t i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++)
		if (strcmp(error, reasons[i].word) == 0)
			return reasons[i].words;
	return "cannot be read";
}

static void say_not_written(const char *name, const char *why)
{
	const unsigned char *p = (const unsigned char *)name;
	char shown[1100];
	size_t n = 0;

	for (; *p && n < 1024; p++)
		shown[n++] = *p >= 0x20 && *p < 0x7f ? (char)*p : '?';
	if (*p) {
		memcpy(shown + n, "...", 3);
		n += 3;
	}
	shown[n] = '\0';
	fprintf(stderr, "hutch: --collect %s: not written: %s\n", shown, why);
}

size_t run_output_dir_write(int out_fd, const struct plan *plan, const struct outcome *o,
			    struct collected *files)
{
	size_t failed = 0;

	if (o->output_withheld) {
		for (size_t i = 0; i < files->n; i++)
			say_not_written(files->files[i].name, collect_reason("discarded"));
		return files->n;
	}
	failed = collect_host_write(out_fd, files, plan->work_exec);
	for (size_t i = 0; i < files->n; i++) {
		const struct collected_file *f = &files->files[i];

		if (f->error)
			say_not_written(f->name, collect_reason(f->error));
		else if (f->write_error)
			say_not_written(f->name, f->write_error);
	}
	return failed;
}
