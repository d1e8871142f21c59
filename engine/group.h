/* group.h -- groups: between chorus_group_start and chorus_group_end
 * (chorus.h) a thread's calls are held, and the end launches them
 * together, one batch per communicator in the order they were made, so
 * that sends and receives of several ranks in one thread cannot deadlock. */
#ifndef CHORUS_GROUP_H
#define CHORUS_GROUP_H

#include "chorus.h"
#include "comm.h"

/* 1 while this thread is inside a group. */
int group_active(void);
/* Hold call k (copied), with its stream, for the group's end. */
chorus_result_t group_hold(const comm_call_t *k, chorus_stream_t *s);

#endif
