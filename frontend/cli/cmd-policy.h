/* cmd-policy.h: `hutch policy`. Frontend only. */
#ifndef HUTCH_CMD_POLICY_H
#define HUTCH_CMD_POLICY_H

int cmd_policy(int argc, char **argv);

#endif
