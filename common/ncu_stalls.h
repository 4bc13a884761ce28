/* Nsight Compute's warp-state counters, for a chapter whose explanation must say what holds a
 * kernel's issue down: each stall reason as a share of the cycles a warp is active (the reasons
 * of one warp add to 100% with the cycles it issued, `selected`), and achieved occupancy. A
 * chapter appends NCU_WARP_STATES to its ncu_metrics and lists this file in its shared-sources,
 * so that a change here makes its results stale. `sleeping` is left out: no chapter calls
 * __nanosleep. */
#ifndef COMMON_NCU_STALLS_H
#define COMMON_NCU_STALLS_H

#define NCU_STALL(reason) "smsp__warp_issue_stalled_" reason "_per_warp_active.pct,"

#define NCU_WARP_STATES                                                                          \
    NCU_STALL("barrier") NCU_STALL("branch_resolving") NCU_STALL("dispatch_stall")               \
    NCU_STALL("drain") NCU_STALL("imc_miss") NCU_STALL("lg_throttle")                            \
    NCU_STALL("long_scoreboard") NCU_STALL("math_pipe_throttle") NCU_STALL("membar")             \
    NCU_STALL("mio_throttle") NCU_STALL("misc") NCU_STALL("no_instruction")                      \
    NCU_STALL("not_selected") NCU_STALL("selected") NCU_STALL("short_scoreboard")                \
    NCU_STALL("tex_throttle") NCU_STALL("wait")                                                  \
    "sm__warps_active.avg.pct_of_peak_sustained_active"

#endif
