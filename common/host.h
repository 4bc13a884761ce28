/* The host a program ran on, as a results row records it (pure C): the CPU
 * model, the cores this process may use, and the two copy rates the
 * host-orchestrated chapters depend on (a pageable transfer or a pack on one
 * core cannot beat the first; work spread over every core, the second). */
#ifndef COMMON_HOST_H
#define COMMON_HOST_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* "AMD EPYC 9454 48-Core Processor, 16 cores": the model /proc/cpuinfo names
 * ("CPU model not reported" where it names none) and the cores this process's
 * affinity allows. */
void host_describe(char *buf, size_t len);

/* The bytes host_copy_gbs copies in a results row and in make doctor: far past
 * any CPU's last-level cache. */
#define HOST_COPY_BYTES ((size_t)256 << 20)

/* memcpy of `bytes` between two touched pageable buffers, the fastest of three
 * tries, in GB/s: on one core (all_cores 0), or split over every core the
 * process may use (1). Negative if the buffers cannot be allocated. */
double host_copy_gbs(size_t bytes, int all_cores);

#ifdef __cplusplus
}
#endif

#endif
