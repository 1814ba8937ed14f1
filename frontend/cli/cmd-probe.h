/* cmd-probe.h: `hutch probe`. Frontend only. */
#ifndef HUTCH_CMD_PROBE_H
#define HUTCH_CMD_PROBE_H

/* `hutch probe [--policy NAME] [--json]` */
int cmd_probe(int argc, char **argv);

#endif
