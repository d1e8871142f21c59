/* doctor.h -- `chorus doctor`: the library, settings, host, interfaces,
 * buffer memory and a measured-against-predicted self-test, each finding
 * with advice (doctor.c). */
#ifndef CHORUS_DOCTOR_H
#define CHORUS_DOCTOR_H

int cmd_doctor(int argc, char **argv);

#endif
