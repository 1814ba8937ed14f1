/* run.h: `hutch run`. Frontend only. */
#ifndef HUTCH_RUN_H
#define HUTCH_RUN_H

int cmd_run(int argc, char **argv);

#endif
