/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_mpi_load.h - jitread-mpi.so, found beside jitread and loaded only by
 * jitread survey.
 */
#ifndef JR_MPI_LOAD_H
#define JR_MPI_LOAD_H

#include "common/jr_err.h"
#include "mpi/jr_mpi.h"

const struct jr_mpi_ops *jr_mpi_load(struct jr_err *e);

#endif /* JR_MPI_LOAD_H */
