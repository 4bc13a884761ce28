/* Chapter 21, the problem: chapter 20's transpose (common/transpose.cu owns
 * the matrix, its inputs and the bit-exact check), through a shared tile
 * whose layout is the lesson; this file says what chapter 21 measures. */
#include "problem.h"
#include "ncu_stalls.h"

const struct problem PROBLEM = {
    .number = 21,
    .slug = "bank-conflicts",
    .title = "Shared memory bank conflicts: one padding column",
    .section = "5.3.2",
    .size_help = "matrix side n: the matrix is n x n floats (16384: 1 GiB each way)",
    .default_size = 16384,
    .small_size = 1000,
    .odd_size = 1531,
    .min_size = 1,
    .max_size = 32768,
    .knobs = {{"rows", "threads per tile column, naive and optimized: each thread moves "
               "TILE (64) / rows elements", BLOCK_ROWS, 1, MAX_ROWS, 0, KNOB_POWER_OF_TWO}},
    .nknobs = 1,
    /* Every value --rows admits besides the default 8: each launches its own
     * instance of the kernel (kernel_for), so each is checked; 4 and 16 are
     * also the README's exercise. */
    .test_options = {"--rows 1", "--rows 2", "--rows 4", "--rows 16"},
    .timing = TIME_KERNEL,
    .metric = METRIC_GBS,
    /* Shared loads: bank conflicts, and wavefronts per load instruction
     * (1 when the 32 threads of a warp hit 32 banks, 32 when they all hit
     * one). Shared stores the same, as the control: both kernels write the
     * tile along its rows. */
    .ncu_metrics = "gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,"
                   "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,"
                   "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,"
                   "smsp__sass_inst_executed_op_shared_ld.sum,"
                   "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,"
                   "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,"
                   "smsp__sass_inst_executed_op_shared_st.sum,"
                   /* what holds each kernel's warps: the banks' queue in the unpadded
                    * one, loads in flight (or not) in the padded one */
                   NCU_WARP_STATES,
    .device_bytes = transpose_device_bytes,
    .host_bytes = transpose_host_bytes,
    .create = transpose_create,
    .poison = transpose_poison,
    .check = transpose_check,
    .bytes = transpose_bytes,
    .flops = transpose_flops,
    .destroy = transpose_destroy,
};
