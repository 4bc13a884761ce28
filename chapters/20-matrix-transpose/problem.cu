/* Chapter 20, the problem: transpose an n x n float matrix. The matrix, its
 * inputs and the bit-exact check are common/transpose.cu's, shared with
 * chapter 21; this file says what chapter 20 measures. */
#include "problem.h"

const struct problem PROBLEM = {
    .number = 20,
    .slug = "matrix-transpose",
    .title = "Matrix transpose: coalesced reads and writes through shared memory",
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
    /* Every value --rows admits besides the default: each launches its own
     * instance of the kernel (kernel_for), so each is checked. */
    .test_options = {"--rows 1", "--rows 2", "--rows 4", "--rows 16"},
    .timing = TIME_KERNEL,
    .metric = METRIC_GBS,
    /* Global stores: sectors per request is 32 for the naive kernel (one
     * sector per thread) and 4 for the tiled one (128 contiguous bytes).
     * Shared memory: wavefronts per instruction is 1 when conflict-free. */
    .ncu_metrics = "gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,"
                   "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,"
                   "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,"
                   "smsp__sass_inst_executed_op_shared_ld.sum,"
                   "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    /* Loads in flight per thread: half the default's (16 rows of threads,
     * four elements each) and twice (4 rows, sixteen each). */
    .sweeps = {"--rows 16", "--rows 4"},
    .device_bytes = transpose_device_bytes,
    .host_bytes = transpose_host_bytes,
    .create = transpose_create,
    .poison = transpose_poison,
    .check = transpose_check,
    .bytes = transpose_bytes,
    .flops = transpose_flops,
    .destroy = transpose_destroy,
};
