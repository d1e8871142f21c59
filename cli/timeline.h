/* timeline.h -- `chorus timeline MEASURED PREDICTED --html OUT`: a measured
 * trace (chorus perf --trace) and a predicted one (chorus sim --trace) of
 * the same call, drawn on one time axis, rank by rank and channel by
 * channel, with each op's difference shown. */
#ifndef CHORUS_CLI_TIMELINE_H
#define CHORUS_CLI_TIMELINE_H

int cmd_timeline(int argc, char **argv);

#endif
