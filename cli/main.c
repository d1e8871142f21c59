/* main.c -- the `chorus` command: one binary, one table of subcommands.
 * Each subcommand is a file of cli/ and is only dispatched from here. */
#include <stdio.h>
#include <string.h>

#include "calibrate.h"
#include "chorus.h"
#include "cmd_plan.h"
#include "cmd_sim.h"
#include "timeline.h"
#include "doctor.h"
#include "exp.h"
#include "hang_report.h"
#include "perf.h"

typedef struct {
  const char *name;
  int (*run)(int argc, char **argv);
  const char *help;
} subcommand_t;

static int cmd_help(int argc, char **argv);
static int cmd_version(int argc, char **argv);

static const subcommand_t subcommands[] = {
    {"plan", cmd_plan, "print the ops an algorithm gives each rank"},
    {"check", cmd_check, "prove an algorithm correct for a range of rank counts and shapes"},
    {"explain", cmd_explain, "show an algorithm step by step: which chunk moves where"},
    {"sim", cmd_sim, "predict a collective's performance on a described topology"},
    {"topo", cmd_topo, "show, check or draw a topology description"},
    {"perf", cmd_perf, "benchmark a collective with nccl-tests columns, checking every result"},
    {"exp", cmd_exp, "run an experiment: measured against predicted, with tables, crossovers and plots"},
    {"calibrate", cmd_calibrate, "measure point-to-point links and fit the simulator's parameters"},
    {"timeline", cmd_timeline, "draw a measured trace beside a predicted one, op by op, in one page"},
    {"hang-report", cmd_hang_report, "merge the ranks' hang reports and name the rank the others wait for"},
    {"doctor", cmd_doctor, "settings, interfaces, buffer memory and a self-test, each finding with advice"},
    {"version", cmd_version, "print the version"},
    {"help", cmd_help, "list the subcommands"},
};

static const int nsubcommands = (int)(sizeof subcommands / sizeof subcommands[0]);

static int cmd_help(int argc, char **argv) {
  printf("usage: chorus SUBCOMMAND [ARGS]   (chorus SUBCOMMAND --help for its options)\n\n");
  for (int i = 0; i < nsubcommands; i++) printf("  %-10s %s\n", subcommands[i].name, subcommands[i].help);
  return 0;
}

static int cmd_version(int argc, char **argv) {
  int v = chorus_version();
  printf("chorus %d.%d.%d\n", v / 10000, v / 100 % 100, v % 100);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    cmd_help(0, NULL);
    return 2;
  }
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) return cmd_help(0, NULL);
  if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) return cmd_version(0, NULL);
  for (int i = 0; i < nsubcommands; i++)
    if (!strcmp(argv[1], subcommands[i].name)) return subcommands[i].run(argc - 1, argv + 1);
  fprintf(stderr, "chorus: unknown subcommand '%s' (chorus help lists them)\n", argv[1]);
  return 2;
}
