/* Nsight Compute's warp-state counters, for a chapter whose explanation must say what holds a
 * kernel's issue down: each stall reason as a share of the cycles a warp is active (the reasons
 * of one warp add to 100% with the cycles it issued, `selected`), and achieved occupancy. A
 * chapter appends NCU_WARP_STATES to its ncu_metrics and lists this file in its shared-sources,
 * so that a change here makes its results stale. String literals only: results.py reads the
 * list from this text to validate evidence rows. `sleeping` is left out: no chapter calls
 * __nanosleep. */
#ifndef COMMON_NCU_STALLS_H
#define COMMON_NCU_STALLS_H

#define NCU_WARP_STATES \
    "smsp__warp_issue_stalled_barrier_per_warp_active.pct," \
    "smsp__warp_issue_stalled_branch_resolving_per_warp_active.pct," \
    "smsp__warp_issue_stalled_dispatch_stall_per_warp_active.pct," \
    "smsp__warp_issue_stalled_drain_per_warp_active.pct," \
    "smsp__warp_issue_stalled_imc_miss_per_warp_active.pct," \
    "smsp__warp_issue_stalled_lg_throttle_per_warp_active.pct," \
    "smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct," \
    "smsp__warp_issue_stalled_math_pipe_throttle_per_warp_active.pct," \
    "smsp__warp_issue_stalled_membar_per_warp_active.pct," \
    "smsp__warp_issue_stalled_mio_throttle_per_warp_active.pct," \
    "smsp__warp_issue_stalled_misc_per_warp_active.pct," \
    "smsp__warp_issue_stalled_no_instruction_per_warp_active.pct," \
    "smsp__warp_issue_stalled_not_selected_per_warp_active.pct," \
    "smsp__warp_issue_stalled_selected_per_warp_active.pct," \
    "smsp__warp_issue_stalled_short_scoreboard_per_warp_active.pct," \
    "smsp__warp_issue_stalled_tex_throttle_per_warp_active.pct," \
    "smsp__warp_issue_stalled_wait_per_warp_active.pct," \
    "sm__warps_active.avg.pct_of_peak_sustained_active"

#endif
