/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jr_survey.h - jitread survey's fleet report: every rank's own report,
 * merged and compared on rank 0.
 *
 * A rank sends its report as jitread's JSON (mode "user") with a
 * "survey" member: its rank, host, CPU and, in fixed-work-quantum mode,
 * the time each window of quanta took between two barriers.  Histograms
 * merge slot by slot at one precision, so the fleet's counts are the
 * ranks' counts summed.
 *
 * Rank 0 merges each report as it comes and keeps of it a struct
 * jr_srank; what the fleet's analysis and JSON read again later goes to
 * a spool on disk.  Its memory is one report in flight (at most
 * JR_RDOC_MAX_BYTES of JSON, parsed), a struct jr_srank per rank, and
 * each distinct host, source and reason once; the analysis adds at most
 * JR_SURVEY_BSP_VALUES windows at a time, the co-occurrence bins (4 bytes
 * each, JR_SURVEY_MAX_BINS at most), and a few bytes a rank while it
 * sorts.
 */
#ifndef JR_SURVEY_H
#define JR_SURVEY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/jr_err.h"
#include "common/jr_jv.h"
#include "common/jr_spool.h"
#include "common/jr_strtab.h"
#include "core/jr_hist.h"
#include "core/jr_rdoc.h"

#define JR_SURVEY_VERSION 1
#define JR_SURVEY_TOP_SRC 3 /* a rank's sources compared across ranks */
#define JR_SURVEY_OUTLIER_Z 3.5 /* modified z-score of an outlier */
#define JR_SURVEY_BIN_NS 1000000ULL /* co-occurrence bins */
#define JR_SURVEY_MAX_BINS 20000000ULL
#define JR_SURVEY_TL 2000 /* gaps per rank in the JSON, for the heat map */
/* fwq: quanta a rank times at most, so windows a report holds at most */
#define JR_SURVEY_MAX_QUANTA 20000000ULL
/* gaps or windows the spool is given or read back at a time */
#define JR_SURVEY_CHUNK 4096
/* the BSP analysis reads the ranks' windows this many values at a time */
#define JR_SURVEY_BSP_VALUES (1U << 20)

/* struct jr_sgap - a gap of a rank's timeline, as the spool holds it */
struct jr_sgap {
	uint64_t ts_ns; /* on the rank's clock, from its t0_ns */
	uint64_t dur_ns;
};

/*
 * struct jr_srank - what rank 0 keeps in memory of a rank once its report
 * is merged: what the fleet's analysis reads of every rank, in under a
 * hundred bytes, its names as ids in the survey's table.  The rest (its
 * struct jr_scold), its gap histogram, timeline and windows wait in the
 * survey's spool.
 */
struct jr_srank {
	uint32_t host; /* in the survey's names, as each below */
	uint32_t why; /* when !ok */
	uint32_t backend; /* "jitmod" or "user" */
	uint32_t top[JR_SURVEY_TOP_SRC]; /* sources by total, pid dropped */
	int32_t cpu;
	bool ok; /* its report came and was read */
	bool clock; /* offset_ns is known: measured for it or its host */
	bool outlier;
	int64_t offset_ns; /* its clock minus rank 0's */
	int64_t rtt_ns; /* the round trip that measured it; -1: none */
	uint64_t runtime_ns, noise_ns, max_ns;
	double noise_share;
	double z; /* modified z-score of noise_share */
	uint64_t cold_at; /* its struct jr_scold in the spool, when ok */
};

/* struct jr_scold - what the spool keeps of a rank besides its data */
struct jr_scold {
	uint64_t t0_ns; /* its timeline's origin, on its clock */
	/* its CPU's gaps (fwq: each quantum's excess) */
	uint64_t gaps, p99_ns, p9999_ns;
	/* fixed-work-quantum mode */
	uint64_t quantum_ns, quanta;
	/* in the spool: the gap histogram as JSON, the timeline, windows */
	uint64_t hist_at, hist_len;
	uint64_t tl_at, nr_tl; /* struct jr_sgap each, in time order */
	uint64_t tl_first, tl_last; /* its first and last gap's ts_ns */
	uint64_t win_at, nr_win; /* uint64_t each: a window's time */
};

struct jr_survey {
	char mode[8]; /* "gaps" or "fwq" */
	int precision;
	int nr;
	struct jr_srank *r; /* by rank */
	struct jr_strtab names; /* the ranks' hosts, sources and reasons */
	struct jr_spool spool;
	struct jr_jdoc jdoc; /* reads each report; its index is reused */
	struct jr_hist fleet[JR_H_NR]; /* merged over the ranks */
	uint64_t sum_counts[JR_H_NR]; /* the ranks' counts, summed */
	/* co-occurrence of gaps at or above cooc_ns, in 1 ms bins */
	uint64_t cooc_ns, cooc_bins, cooc_shared, cooc_max;
	double cooc_ratio; /* pairs seen together over pairs expected */
	/* fwq: per window, the slowest rank's time over the median's */
	double bsp_mean, bsp_p50, bsp_p99, bsp_max;
	uint64_t bsp_windows;
	int bsp_worst_rank; /* most often the slowest */
};

int jr_survey_init(struct jr_survey *s, int nr, const char *mode,
		   int precision);
int jr_survey_add(struct jr_survey *s, int rank, const char *json, size_t len,
		  struct jr_err *e);
void jr_survey_missing(struct jr_survey *s, int rank, const char *why);
void jr_survey_free(struct jr_survey *s);
int jr_survey_cold(const struct jr_survey *s, const struct jr_srank *r,
		   struct jr_scold *c);

/* jr_survey_analyse.c */
int jr_survey_analyse(struct jr_survey *s);
int64_t jr_on_rank0(const struct jr_srank *r, const struct jr_scold *c,
		    uint64_t ts_ns);

/* jr_survey_out.c */
struct jr_report_opts;
void jr_survey_text(FILE *out, const struct jr_survey *s, int worst,
		    const struct jr_report_opts *u);
int jr_survey_json(FILE *out, const struct jr_survey *s, int worst);

#endif /* JR_SURVEY_H */
